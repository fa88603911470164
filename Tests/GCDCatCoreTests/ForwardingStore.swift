import GCDCatCore

/// A test store that wraps a ``MemoryObjectStore`` to watch or change a few calls: every call it
/// does not implement itself goes to `inner` unchanged.
protocol ForwardingStore: ObjectStore {
    var inner: MemoryObjectStore { get }
}

extension ForwardingStore {
    func head(_ object: ObjectLocation) throws -> ObjectInfo? { try inner.head(object) }

    func bucketExists(_ bucket: String) throws -> Bool { try inner.bucketExists(bucket) }

    func list(bucket: String, prefix: String) throws -> [ObjectInfo] { try inner.list(bucket: bucket, prefix: prefix) }

    func get(
        _ object: ObjectLocation, range: Range<UInt64>, ifMatch: String?, into buffer: UnsafeMutableRawBufferPointer
    ) throws {
        try inner.get(object, range: range, ifMatch: ifMatch, into: buffer)
    }

    func put(_ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String])
        throws
    {
        try inner.put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: metadata)
    }

    func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String]) throws -> MultipartUpload {
        try inner.createMultipartUpload(object, metadata: metadata)
    }

    func uploadPart(_ upload: MultipartUpload, partNumber: Int, body: UnsafeRawBufferPointer) throws -> UploadedPart {
        try inner.uploadPart(upload, partNumber: partNumber, body: body)
    }

    func uploadPartCopy(
        _ upload: MultipartUpload, partNumber: Int, source: ObjectLocation, range: Range<UInt64>, ifMatch: String?
    ) throws -> UploadedPart {
        try inner.uploadPartCopy(upload, partNumber: partNumber, source: source, range: range, ifMatch: ifMatch)
    }

    func completeMultipartUpload(_ upload: MultipartUpload, parts: [UploadedPart], ifNoneMatch: Bool) throws {
        try inner.completeMultipartUpload(upload, parts: parts, ifNoneMatch: ifNoneMatch)
    }

    func abortMultipartUpload(_ upload: MultipartUpload) throws { try inner.abortMultipartUpload(upload) }

    func listMultipartUploads(bucket: String, prefix: String) throws -> [MultipartUpload] {
        try inner.listMultipartUploads(bucket: bucket, prefix: prefix)
    }

    func listPendingUploads(bucket: String, prefix: String) throws -> PendingUploadListing {
        try inner.listPendingUploads(bucket: bucket, prefix: prefix)
    }

    func listParts(_ upload: MultipartUpload) throws -> [ListedPart]? { try inner.listParts(upload) }

    func delete(_ object: ObjectLocation) throws { try inner.delete(object) }
}
