import GCDCatCore
import Synchronization

/// An S3 stand-in held in memory, for engine tests that must run without a server and force
/// failures: `failures[operation]` = n makes the n-th call (1-based) of that operation throw.
///
/// It keeps S3's rules that the engines depend on: a non-final multipart part under 5 MiB is
/// refused at completion (EntityTooSmall), a copy range must lie inside its source
/// (InvalidRange), and an aborted or completed upload is gone. User metadata is kept as S3
/// keeps it: given at PutObject or CreateMultipartUpload, returned by HEAD (not by a listing),
/// replaced with the object.
final class MemoryObjectStore: ObjectStore {
    static let minimumPartSize = 5 * 1024 * 1024

    private struct Upload {
        var location: ObjectLocation
        var metadata: [String: String]
        var initiated: Double
        var parts: [Int: [UInt8]] = [:]
        /// When each part was written, by ``State/now`` (ListParts' `LastModified`).
        var written: [Int: Double] = [:]
    }

    private struct State {
        var objects: [ObjectLocation: [UInt8]] = [:]
        var metadata: [ObjectLocation: [String: String]] = [:]
        var uploads: [String: Upload] = [:]
        var nextUploadID = 1
        var calls: [String: Int] = [:]
        var failures: [String: Int] = [:]
        /// Operations that fail on every call (a server that stopped answering them).
        var broken: Set<String> = []
        /// Each write of an object gets a new ETag, as a new version on S3 does.
        var etags: [ObjectLocation: String] = [:]
        var writes = 0
        /// The server's clock, seconds since 1970: uploads are initiated at it, listings report it.
        var now: Double = 1_800_000_000

        mutating func set(_ object: ObjectLocation, _ bytes: [UInt8], metadata: [String: String] = [:]) {
            objects[object] = bytes
            self.metadata[object] = metadata
            writes += 1
            etags[object] = "etag-\(writes)"
        }

        /// As HEAD gives it: with the metadata. A listing has none (nil), as on S3.
        func info(_ object: ObjectLocation, withMetadata: Bool = true) -> ObjectInfo? {
            objects[object].map {
                ObjectInfo(
                    location: object, size: UInt64($0.count), etag: etags[object],
                    metadata: withMetadata ? metadata[object] ?? [:] : nil)
            }
        }

        /// `.inputChanged` when `etag` is given and is not the object's.
        func require(_ object: ObjectLocation, ifMatch etag: String?, _ operation: String) throws {
            guard let etag, etags[object] != etag else { return }
            throw GCDCatError(
                .inputChanged, path: object.description, syscall: operation, message: "PreconditionFailed (HTTP 412)")
        }
    }

    private let state = Mutex(State())

    /// Buckets that are not there: their objects' HEADs answer as for a missing object.
    let missingBuckets: Set<String>

    init(objects: [ObjectLocation: [UInt8]] = [:], missingBuckets: Set<String> = []) {
        self.missingBuckets = missingBuckets
        state.withLock { state in for (object, bytes) in objects { state.set(object, bytes) } }
    }

    /// Makes the `call`-th call (1-based, counted from now) of `operation` fail.
    func failCall(_ operation: String, at call: Int) {
        state.withLock {
            $0.failures[operation] = ($0.calls[operation] ?? 0) + call
        }
    }

    /// Makes every later call of `operation` fail.
    func failAlways(_ operation: String) {
        state.withLock { _ = $0.broken.insert(operation) }
    }

    /// How many times `operation` was called.
    func callCount(_ operation: String) -> Int { state.withLock { $0.calls[operation] ?? 0 } }

    /// Moves the server's clock on (uploads created later are younger).
    func advanceClock(by seconds: Double) { state.withLock { $0.now += seconds } }

    func bytes(_ object: ObjectLocation) -> [UInt8]? { state.withLock { $0.objects[object] } }

    /// Stores `bytes` as another tool would: with `metadata` (none by default), replacing any.
    func store(_ object: ObjectLocation, _ bytes: [UInt8], metadata: [String: String] = [:]) {
        state.withLock { $0.set(object, bytes, metadata: metadata) }
    }

    func metadata(_ object: ObjectLocation) -> [String: String]? { state.withLock { $0.metadata[object] } }

    /// Changes an object's metadata alone (a forged or stale record).
    func setMetadata(_ object: ObjectLocation, _ metadata: [String: String]) {
        state.withLock { $0.metadata[object] = metadata }
    }

    private func count(_ operation: String, _ location: ObjectLocation) throws {
        let failing = state.withLock { state -> Bool in
            let call = (state.calls[operation] ?? 0) + 1
            state.calls[operation] = call
            return state.failures[operation] == call || state.broken.contains(operation)
        }
        if failing {
            throw GCDCatError(
                .io, path: location.description, syscall: operation,
                message: "InternalError (HTTP 500): injected failure")
        }
    }

    private func s3Error(_ location: ObjectLocation, _ operation: String, _ code: String, _ status: Int)
        -> GCDCatError
    {
        GCDCatError(.io, path: location.description, syscall: operation, message: "\(code) (HTTP \(status))")
    }

    func head(_ object: ObjectLocation) throws -> ObjectInfo? {
        try count("HeadObject", object)
        return state.withLock { state in
            state.info(object)
        }
    }

    /// Every bucket exists except those named in `missingBuckets`.
    func bucketExists(_ bucket: String) throws -> Bool {
        try count("HeadBucket", ObjectLocation(bucket: bucket, key: ""))
        return !missingBuckets.contains(bucket)
    }

    func list(bucket: String, prefix: String) throws -> [ObjectInfo] {
        try count("ListObjectsV2", ObjectLocation(bucket: bucket, key: prefix))
        return state.withLock { state in
            state.objects
                .filter { $0.key.bucket == bucket && $0.key.key.utf8.starts(with: prefix.utf8) }
                .compactMap { state.info($0.key, withMetadata: false) }
                .sorted { $0.location.key.utf8.lexicographicallyPrecedes($1.location.key.utf8) }
        }
    }

    func get(
        _ object: ObjectLocation, range: Range<UInt64>, ifMatch: String?, into buffer: UnsafeMutableRawBufferPointer
    ) throws {
        try count("GetObject", object)
        try state.withLock { try $0.require(object, ifMatch: ifMatch, "GetObject") }
        guard let bytes = state.withLock({ $0.objects[object] }) else {
            throw s3Error(object, "GetObject", "NoSuchKey", 404)
        }
        guard range.upperBound <= UInt64(bytes.count), buffer.count == range.count else {
            throw s3Error(object, "GetObject", "InvalidRange", 416)
        }
        bytes[Int(range.lowerBound)..<Int(range.upperBound)].withUnsafeBytes { buffer.copyMemory(from: $0) }
    }

    func put(_ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String])
        throws
    {
        try count("PutObject", object)
        let refused = state.withLock { state -> Bool in
            if ifNoneMatch && state.objects[object] != nil { return true }
            state.set(object, Array(body), metadata: metadata)
            return false
        }
        if refused {
            throw GCDCatError(
                .outputExists, path: object.description, syscall: "PutObject",
                message: "PreconditionFailed (HTTP 412)")
        }
    }

    func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String]) throws -> MultipartUpload {
        try count("CreateMultipartUpload", object)
        return state.withLock { state in
            let id = "upload-\(state.nextUploadID)"
            state.nextUploadID += 1
            state.uploads[id] = Upload(location: object, metadata: metadata, initiated: state.now)
            return MultipartUpload(location: object, uploadID: id)
        }
    }

    func uploadPart(_ upload: MultipartUpload, partNumber: Int, body: UnsafeRawBufferPointer) throws
        -> UploadedPart
    {
        try count("UploadPart", upload.location)
        return try addPart(upload, partNumber, Array(body), "UploadPart")
    }

    func uploadPartCopy(
        _ upload: MultipartUpload, partNumber: Int, source: ObjectLocation, range: Range<UInt64>, ifMatch: String?
    ) throws -> UploadedPart {
        try count("UploadPartCopy", upload.location)
        try state.withLock { try $0.require(source, ifMatch: ifMatch, "UploadPartCopy") }
        guard let bytes = state.withLock({ $0.objects[source] }) else {
            throw s3Error(source, "UploadPartCopy", "NoSuchKey", 404)
        }
        guard range.upperBound <= UInt64(bytes.count), range.count <= 5 << 30 else {
            throw s3Error(source, "UploadPartCopy", "InvalidRange", 416)
        }
        return try addPart(
            upload, partNumber, Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]), "UploadPartCopy")
    }

    /// A part's ETag: the MD5 of its bytes in hex, as S3 and RGW give an uploaded part's.
    static func partETag(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { RequestDigests.hex(RequestDigests.md5($0)) }
    }

    private func addPart(_ upload: MultipartUpload, _ number: Int, _ bytes: [UInt8], _ operation: String) throws
        -> UploadedPart
    {
        guard (1...10_000).contains(number) else {
            throw s3Error(upload.location, operation, "InvalidArgument", 400)
        }
        let found = state.withLock { state -> Bool in
            guard state.uploads[upload.uploadID] != nil else { return false }
            state.uploads[upload.uploadID]!.parts[number] = bytes
            state.uploads[upload.uploadID]!.written[number] = state.now
            return true
        }
        guard found else { throw s3Error(upload.location, operation, "NoSuchUpload", 404) }
        return UploadedPart(partNumber: number, etag: Self.partETag(bytes))
    }

    func completeMultipartUpload(_ upload: MultipartUpload, parts: [UploadedPart], ifNoneMatch: Bool) throws {
        try count("CompleteMultipartUpload", upload.location)
        enum Outcome { case done, noUpload, tooSmall, invalidPart, exists }
        let outcome = state.withLock { state -> Outcome in
            guard let stored = state.uploads[upload.uploadID] else { return .noUpload }
            if ifNoneMatch && state.objects[upload.location] != nil { return .exists }
            var whole: [UInt8] = []
            for (index, part) in parts.enumerated() {
                guard let bytes = stored.parts[part.partNumber],
                    index == 0 || part.partNumber > parts[index - 1].partNumber
                else { return .invalidPart }
                if index < parts.count - 1 && bytes.count < Self.minimumPartSize { return .tooSmall }
                whole += bytes
            }
            // Ceph RGW (unlike AWS) refuses a completion that leaves out a part it holds.
            guard Set(stored.parts.keys) == Set(parts.map(\.partNumber)) else { return .invalidPart }
            state.set(upload.location, whole, metadata: stored.metadata)
            state.uploads[upload.uploadID] = nil
            return .done
        }
        switch outcome {
        case .done: return
        case .noUpload: throw s3Error(upload.location, "CompleteMultipartUpload", "NoSuchUpload", 404)
        case .tooSmall: throw s3Error(upload.location, "CompleteMultipartUpload", "EntityTooSmall", 400)
        case .invalidPart: throw s3Error(upload.location, "CompleteMultipartUpload", "InvalidPart", 400)
        case .exists:
            throw GCDCatError(
                .outputExists, path: upload.location.description, syscall: "CompleteMultipartUpload",
                message: "PreconditionFailed (HTTP 412)")
        }
    }

    func abortMultipartUpload(_ upload: MultipartUpload) throws {
        try count("AbortMultipartUpload", upload.location)
        state.withLock { _ = $0.uploads.removeValue(forKey: upload.uploadID) }
    }

    func listMultipartUploads(bucket: String, prefix: String) throws -> [MultipartUpload] {
        try count("ListMultipartUploads", ObjectLocation(bucket: bucket, key: prefix))
        return state.withLock { state in
            state.uploads.map { MultipartUpload(location: $0.value.location, uploadID: $0.key) }
                .filter { $0.location.bucket == bucket && $0.location.key.utf8.starts(with: prefix.utf8) }
        }
    }

    func listPendingUploads(bucket: String, prefix: String) throws -> PendingUploadListing {
        try count("ListMultipartUploads", ObjectLocation(bucket: bucket, key: prefix))
        return state.withLock { state in
            PendingUploadListing(
                uploads: state.uploads
                    .filter {
                        $0.value.location.bucket == bucket && $0.value.location.key.utf8.starts(with: prefix.utf8)
                    }
                    .map {
                        PendingUpload(
                            upload: MultipartUpload(location: $0.value.location, uploadID: $0.key),
                            initiated: $0.value.initiated)
                    }
                    .sorted {
                        ($0.upload.location.key, $0.upload.uploadID) < ($1.upload.location.key, $1.upload.uploadID)
                    },
                serverTime: state.now)
        }
    }

    /// Each part with the ETag its upload answered.
    func listParts(_ upload: MultipartUpload) throws -> [ListedPart]? {
        try count("ListParts", upload.location)
        guard let found = state.withLock({ $0.uploads[upload.uploadID] }) else { return nil }
        return found.parts.sorted { $0.key < $1.key }.map {
            ListedPart(
                partNumber: $0.key, etag: Self.partETag($0.value), size: UInt64($0.value.count),
                lastModified: found.written[$0.key])
        }
    }

    func delete(_ object: ObjectLocation) throws {
        try count("DeleteObject", object)
        state.withLock {
            _ = $0.objects.removeValue(forKey: object)
            _ = $0.metadata.removeValue(forKey: object)
        }
    }
}
