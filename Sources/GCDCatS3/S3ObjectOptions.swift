import GCDCatSystem

/// What the user asked of the objects a run writes (storage class, Content-Type, tags,
/// encryption, checksum algorithm) and of every request it sends (requester pays, the expected bucket owner, an
/// SSE-C key): the `x-amz-*` headers ``S3Client`` adds to each request, per operation, as AWS's
/// API reference lists them. The engines never see these; they reach S3 only through the client.
public struct S3ObjectOptions: Sendable, Equatable {
    /// `x-amz-storage-class` of each object written; nil leaves the bucket's default.
    public var storageClass: S3StorageClass?
    /// The Content-Type of the data objects written; nil guesses it from each key
    /// (``S3ContentType/guess(forKey:)``).
    public var contentType: String?
    /// The tags of each object written, in the order given.
    public var tags: [S3Tag] = []
    /// Server-side encryption by S3's keys (SSE-S3) or KMS (SSE-KMS).
    public var serverSideEncryption: S3ServerSideEncryption?
    /// SSE-C: the key every object of the run (written, read, copied from) is encrypted with.
    public var customerKey: S3CustomerKey?
    /// `x-amz-request-payer: requester` on every request.
    public var requestPayer = false
    /// `x-amz-expected-bucket-owner` on every request (and the copy source's owner on copies).
    public var expectedBucketOwner: String?
    /// The flexible checksum of each object written; the client sends its values
    /// (``S3Client/uploadPart(_:partNumber:body:)``, ``S3Client/completeMultipartUpload(_:parts:ifNoneMatch:)``).
    public var checksumAlgorithm: S3ChecksumAlgorithm?

    public init() {}

    /// True when the run chooses how its objects are created (storage class, type, tags,
    /// encryption): settings an unfinished upload keeps from the run that created it, and that
    /// S3 does not show for one.
    public var choosesCreationSettings: Bool {
        storageClass != nil || contentType != nil || !tags.isEmpty || serverSideEncryption != nil
            || customerKey != nil || checksumAlgorithm != nil
    }

    /// Operations that make a new object and take its settings (storage class, type, tags, SSE).
    static let creatingOperations: Set<String> = ["PutObject", "CreateMultipartUpload"]
    /// Operations on an object's bytes that need its SSE-C key.
    static let customerKeyOperations: Set<String> = [
        "PutObject", "CreateMultipartUpload", "UploadPart", "UploadPartCopy", "GetObject",
        "HeadObject", "CompleteMultipartUpload",
    ]
    /// Operations that name a source object in `x-amz-copy-source` (gcdcat sends no CopyObject).
    static let copyingOperations: Set<String> = ["UploadPartCopy"]

    /// The headers `operation` on `location` carries (names lowercase; every one is signed).
    public func headers(for operation: String, location: ObjectLocation) -> [String: String] {
        var headers: [String: String] = [:]
        if requestPayer { headers["x-amz-request-payer"] = "requester" }
        if let expectedBucketOwner {
            headers["x-amz-expected-bucket-owner"] = expectedBucketOwner
            if Self.copyingOperations.contains(operation) {
                headers["x-amz-source-expected-bucket-owner"] = expectedBucketOwner
            }
        }
        if let customerKey, Self.customerKeyOperations.contains(operation) {
            headers.merge(customerKey.headers(prefix: "x-amz-server-side-encryption-customer-")) { $1 }
            if Self.copyingOperations.contains(operation) {
                headers.merge(customerKey.headers(prefix: "x-amz-copy-source-server-side-encryption-customer-")) { $1 }
            }
        }
        if let checksumAlgorithm { headers.merge(checksumAlgorithm.creationHeaders(for: operation)) { $1 } }
        guard Self.creatingOperations.contains(operation) else { return headers }
        headers["content-type"] = S3ContentType.of(key: location.key, chosen: contentType)
        if let storageClass { headers["x-amz-storage-class"] = storageClass.rawValue }
        if !tags.isEmpty { headers["x-amz-tagging"] = S3Tag.headerValue(tags) }
        if let serverSideEncryption { headers.merge(serverSideEncryption.headers) { $1 } }
        return headers
    }

    /// The values that must never appear in a message: the SSE-C key.
    var secrets: [String] { customerKey.map { [$0.base64Key] } ?? [] }
}
