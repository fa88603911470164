import GCDCatSystem

extension S3Client {
    /// ListObjectVersions under `prefix`, all pages: every key that holds at least one version
    /// of bytes, latest or not (a delete marker holds none). What a set named at an old version
    /// had, which the latest listing (ListObjectsV2) no longer shows.
    public func keysWithVersions(bucket: String, prefix: String) throws -> Set<String>? {
        var keys: Set<String> = []
        var marker: (key: String, versionID: String)?
        repeat {
            var query: [(name: String, value: String)] = [("versions", ""), ("prefix", prefix)]
            if let marker { query += [("key-marker", marker.key), ("version-id-marker", marker.versionID)] }
            let response = try perform(
                S3Request(
                    operation: "ListObjectVersions", method: "GET",
                    location: ObjectLocation(bucket: bucket, key: prefix),
                    bucketLevel: true, query: query,
                    checkBody: {
                        Self.isXML("ListVersionsResult", $0) ? nil : "the answer is not a ListVersionsResult"
                    }))
            let body = [UInt8](response.body)
            for entry in S3XML.blocks("Version", in: body) {
                if let key = S3XML.value("Key", in: entry) { keys.insert(key) }
            }
            let previous = marker
            marker = nil
            if S3XML.value("IsTruncated", in: body) == "true" {
                guard let key = S3XML.value("NextKeyMarker", in: body),
                    let versionID = S3XML.value("NextVersionIdMarker", in: body),
                    previous.map({ $0.key != key || $0.versionID != versionID }) ?? true
                else {
                    // A page that leads nowhere new would be asked for forever.
                    throw GCDCatError(
                        .io, path: ObjectLocation(bucket: bucket, key: prefix).description,
                        syscall: "ListObjectVersions",
                        message: "a truncated listing whose next markers are missing or repeat the last page's")
                }
                marker = (key, versionID)
            }
        } while marker != nil
        return keys
    }
}
