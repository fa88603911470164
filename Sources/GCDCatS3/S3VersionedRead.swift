import GCDCatSystem

extension S3Request {
    /// The request for the version its location names: GetObject and HeadObject read it with
    /// `versionId=` in the query (signed with the rest). Any other request on a version is
    /// refused: S3 would apply a DeleteObject to that version alone, and a write always makes
    /// the key's next version, so the name would not say what happens.
    ///
    /// ## Errors
    /// `.invalidInput` naming the location and the operation for a write to a version.
    func readingVersion() throws(GCDCatError) -> S3Request {
        guard let versionID = location.versionID, !bucketLevel else { return self }
        guard method == "GET" || method == "HEAD" else {
            throw GCDCatError(
                .invalidInput, path: location.description, syscall: operation,
                message: "names a version, which can only be read; a write makes the key's next version")
        }
        var request = self
        request.query.append((name: "versionId", value: versionID))
        return request
    }
}

extension ObjectLocation {
    /// `x-amz-copy-source` for UploadPartCopy: `/BUCKET/KEY`, encoded as AWS specifies, with
    /// `?versionId=ID` when a version is named.
    var copySource: String {
        "/" + S3URIEncoding.encode(bucket) + "/" + S3URIEncoding.encode(key, keepingSlash: true)
            + (versionID.map { "?versionId=" + S3URIEncoding.encode($0) } ?? "")
    }
}
