import GCDCatS3
import Synchronization

/// A store that counts what passes through it: requests, and the bytes the client sent and
/// received. The report's "bytes through the client" come from here, measured, not estimated.
public final class CountingObjectStore: ObjectStore {
    public let base: any ObjectStore

    /// What has passed so far.
    public struct Counts: Sendable, Equatable {
        public var requests = 0
        /// Object bytes received (GETs).
        public var bytesDownloaded: UInt64 = 0
        /// Object bytes sent (PutObject, UploadPart).
        public var bytesUploaded: UInt64 = 0
    }

    private let state = Mutex(Counts())

    public init(_ base: any ObjectStore) {
        self.base = base
    }

    public var counts: Counts { state.withLock { $0 } }

    private func count(down: Int = 0, up: Int = 0) {
        state.withLock {
            $0.requests += 1
            $0.bytesDownloaded += UInt64(down)
            $0.bytesUploaded += UInt64(up)
        }
    }

    public func head(_ object: ObjectLocation) throws -> ObjectInfo? {
        count()
        return try base.head(object)
    }

    public func bucketExists(_ bucket: String) throws -> Bool {
        count()
        return try base.bucketExists(bucket)
    }

    public func list(bucket: String, prefix: String) throws -> [ObjectInfo] {
        count()
        return try base.list(bucket: bucket, prefix: prefix)
    }

    public func get(
        _ object: ObjectLocation, range: Range<UInt64>, ifMatch: String?, into buffer: UnsafeMutableRawBufferPointer
    ) throws {
        count(down: buffer.count)
        try base.get(object, range: range, ifMatch: ifMatch, into: buffer)
    }

    public func put(
        _ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String]
    ) throws {
        try put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: metadata, contentType: nil)
    }

    public func put(
        _ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String],
        contentType: String?
    ) throws {
        count(up: body.count)
        try base.put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: metadata, contentType: contentType)
    }

    public func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String]) throws -> MultipartUpload {
        try createMultipartUpload(object, metadata: metadata, contentType: nil)
    }

    public func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String], contentType: String?)
        throws -> MultipartUpload
    {
        count()
        return try base.createMultipartUpload(object, metadata: metadata, contentType: contentType)
    }

    public func uploadPart(_ upload: MultipartUpload, partNumber: Int, body: UnsafeRawBufferPointer) throws
        -> UploadedPart
    {
        count(up: body.count)
        return try base.uploadPart(upload, partNumber: partNumber, body: body)
    }

    public func uploadPartCopy(
        _ upload: MultipartUpload, partNumber: Int, source: ObjectLocation, range: Range<UInt64>, ifMatch: String?
    ) throws -> UploadedPart {
        count()
        return try base.uploadPartCopy(upload, partNumber: partNumber, source: source, range: range, ifMatch: ifMatch)
    }

    public func completeMultipartUpload(_ upload: MultipartUpload, parts: [UploadedPart], ifNoneMatch: Bool) throws {
        count()
        try base.completeMultipartUpload(upload, parts: parts, ifNoneMatch: ifNoneMatch)
    }

    public func abortMultipartUpload(_ upload: MultipartUpload) throws {
        count()
        try base.abortMultipartUpload(upload)
    }

    public func listMultipartUploads(bucket: String, prefix: String) throws -> [MultipartUpload] {
        count()
        return try base.listMultipartUploads(bucket: bucket, prefix: prefix)
    }

    public func listPendingUploads(bucket: String, prefix: String) throws -> PendingUploadListing {
        count()
        return try base.listPendingUploads(bucket: bucket, prefix: prefix)
    }

    public func keysWithVersions(bucket: String, prefix: String) throws -> Set<String>? {
        count()
        return try base.keysWithVersions(bucket: bucket, prefix: prefix)
    }

    public func listParts(_ upload: MultipartUpload) throws -> [ListedPart]? {
        count()
        return try base.listParts(upload)
    }

    public func delete(_ object: ObjectLocation) throws {
        count()
        try base.delete(object)
    }
}
