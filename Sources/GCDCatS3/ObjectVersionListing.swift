import GCDCatSystem

extension S3Client {
    /// ListObjectVersions under `prefix`, all pages: every key that holds at least one version
    /// of bytes, latest or not (a delete marker holds none). What a set named at an old version
    /// had, which the latest listing (ListObjectsV2) no longer shows.
    public func keysWithVersions(bucket: String, prefix: String) throws -> Set<String>? {
        let request = S3Request(
            operation: "ListObjectVersions", method: "GET", location: ObjectLocation(bucket: bucket, key: prefix),
            bucketLevel: true, query: [("versions", ""), ("prefix", prefix)],
            checkBody: { Self.isXML("ListVersionsResult", $0) ? nil : "the answer is not a ListVersionsResult" })
        var keys: Set<String> = []
        try forEachPage(of: request, paging: .versions) { _, body in
            for entry in S3XML.blocks("Version", in: body) {
                if let key = S3XML.value("Key", in: entry) { keys.insert(key) }
            }
        }
        return keys
    }
}
