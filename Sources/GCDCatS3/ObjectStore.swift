import GCDCatSystem

/// Where an object lives in S3-compatible storage: `s3://BUCKET/KEY`, or one version of it in
/// a versioned bucket (`s3://BUCKET/KEY?versionId=ID`), which can only be read.
public struct ObjectLocation: Sendable, Hashable, CustomStringConvertible {
    public var bucket: String
    public var key: String
    /// The version to read (GetObject and HeadObject send it as `versionId=`); nil for the
    /// key's latest version, and always for what is written.
    public var versionID: String?

    public init(bucket: String, key: String, versionID: String? = nil) {
        self.bucket = bucket
        self.key = key
        self.versionID = versionID
    }

    /// The form the user types, and the one every message names.
    public var description: String {
        "s3://\(bucket)/\(key)" + (versionID.map { Self.versionMarker + $0 } ?? "")
    }

    /// What follows the key in a name that reads one version: `s3://b/k?versionId=ID`.
    public static let versionMarker = "?versionId="

    /// The same key at its latest version: what a listing shows, and what a manifest's names mean.
    public var latest: ObjectLocation { ObjectLocation(bucket: bucket, key: key) }

    /// Byte for byte, as S3 compares keys: Swift's `String` equality is canonical equivalence,
    /// under which `é` (NFC) and `e` + U+0301 (NFD) are equal, yet S3 holds them as two objects.
    public static func == (lhs: ObjectLocation, rhs: ObjectLocation) -> Bool {
        lhs.bucket.utf8.elementsEqual(rhs.bucket.utf8) && lhs.key.utf8.elementsEqual(rhs.key.utf8)
            && lhs.versionID == rhs.versionID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bucket.utf8.count)
        for byte in bucket.utf8 { hasher.combine(byte) }
        for byte in key.utf8 { hasher.combine(byte) }
        hasher.combine(versionID)
    }
}

/// What a HEAD or a listing tells about one object.
public struct ObjectInfo: Sendable, Equatable {
    public var location: ObjectLocation
    public var size: UInt64
    /// As the server sent it, quotes removed.
    public var etag: String?
    /// The object's CRC-32 when the server keeps one (`x-amz-checksum-crc32`); a multipart
    /// object's composite value is not a CRC of the whole and is left nil.
    public var crc32: UInt32?
    /// The user metadata HEAD returned (`x-amz-meta-NAME`, keyed by NAME in lowercase); nil when
    /// unknown, as for an object seen in a listing, which carries none.
    public var metadata: [String: String]?

    public init(
        location: ObjectLocation, size: UInt64, etag: String? = nil, crc32: UInt32? = nil,
        metadata: [String: String]? = nil
    ) {
        self.location = location
        self.size = size
        self.etag = etag
        self.crc32 = crc32
        self.metadata = metadata
    }
}

/// A multipart upload in progress: it must end in ``ObjectStore/completeMultipartUpload(_:parts:)``
/// or ``ObjectStore/abortMultipartUpload(_:)``, never be left behind.
public struct MultipartUpload: Sendable, Hashable {
    public var location: ObjectLocation
    public var uploadID: String

    public init(location: ObjectLocation, uploadID: String) {
        self.location = location
        self.uploadID = uploadID
    }
}

/// One uploaded or copied part, as CompleteMultipartUpload needs it.
public struct UploadedPart: Sendable, Equatable {
    public var partNumber: Int
    public var etag: String
    /// The part's CRC-32C under `--checksum-algorithm CRC32C`: computed from the bytes sent, or
    /// as the server answered a copy; nil when unknown.
    public var crc32c: UInt32?
    /// The part's length, which combining the parts' CRC-32Cs into the object's needs.
    public var size: UInt64?

    public init(partNumber: Int, etag: String, crc32c: UInt32? = nil, size: UInt64? = nil) {
        self.partNumber = partNumber
        self.etag = etag
        self.crc32c = crc32c
        self.size = size
    }
}

/// The operations gcdcat needs from S3-compatible storage, blocking, callable from any thread.
///
/// The engines (merge, split, checksum, verify) see only this protocol, so the tests can run
/// them against an in-memory store and force every failure; ``S3Client`` is the real one.
///
/// ## Errors
/// Every method throws a ``GCDCatError`` whose `path` is the `s3://` location, whose `syscall`
/// is the S3 operation (`GetObject`, `UploadPartCopy`, …) and whose message carries S3's error
/// code and the HTTP status (`AccessDenied (HTTP 403): …`). A failed `ifNoneMatch` condition is
/// `.outputExists`. Secrets never appear in a message.
public protocol ObjectStore: Sendable {
    /// HEAD; nil when there is no such object (404).
    func head(_ object: ObjectLocation) throws -> ObjectInfo?
    /// HeadBucket: false when there is no such bucket (404). A HEAD of an object answers 404
    /// with no body whether the object or its bucket is missing; this tells the user which.
    func bucketExists(_ bucket: String) throws -> Bool
    /// ListObjectsV2 of every key under `prefix`, all pages, in the server's (byte) order.
    func list(bucket: String, prefix: String) throws -> [ObjectInfo]
    /// A ranged GET of exactly `range` into `buffer` (`buffer.count == range.count`); a short
    /// body is an error. With `ifMatch` (the ETag HEAD or a listing gave), an object replaced
    /// since is `.inputChanged`, not bytes of another version.
    func get(
        _ object: ObjectLocation, range: Range<UInt64>, ifMatch: String?, into buffer: UnsafeMutableRawBufferPointer
    ) throws
    /// PutObject in one request. With `ifNoneMatch`, an existing object is not replaced.
    /// `metadata` becomes the object's user metadata (`x-amz-meta-NAME: value`; names lowercase).
    func put(_ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String])
        throws
    /// CreateMultipartUpload; `metadata` becomes the completed object's user metadata (S3 takes
    /// it here, not at completion).
    func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String]) throws -> MultipartUpload
    /// The same two with the object's Content-Type given, which the run's `--content-type`
    /// does not replace; nil is that option's type, or the key's guess (``S3ContentType``).
    func put(
        _ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String],
        contentType: String?
    ) throws
    func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String], contentType: String?) throws
        -> MultipartUpload
    func uploadPart(_ upload: MultipartUpload, partNumber: Int, body: UnsafeRawBufferPointer) throws
        -> UploadedPart
    /// UploadPartCopy of `range` of `source` (at most 5 GiB) on the server. With `ifMatch`
    /// (`x-amz-copy-source-if-match`), a source that is no longer that version (replaced, or
    /// not the object the server resolved the name to) is `.inputChanged`.
    func uploadPartCopy(
        _ upload: MultipartUpload, partNumber: Int, source: ObjectLocation, range: Range<UInt64>, ifMatch: String?
    ) throws -> UploadedPart
    /// CompleteMultipartUpload. With `ifNoneMatch`, an existing object is not replaced.
    func completeMultipartUpload(_ upload: MultipartUpload, parts: [UploadedPart], ifNoneMatch: Bool) throws
    func abortMultipartUpload(_ upload: MultipartUpload) throws
    /// ListMultipartUploads under `prefix`: what an interrupted run would have left behind.
    func listMultipartUploads(bucket: String, prefix: String) throws -> [MultipartUpload]
    /// ListMultipartUploads under `prefix` with each upload's initiation time and the server's
    /// clock: how old what was left behind is.
    func listPendingUploads(bucket: String, prefix: String) throws -> PendingUploadListing
    /// ListParts of `upload`, all pages; nil when the upload is gone.
    func listParts(_ upload: MultipartUpload) throws -> [ListedPart]?
    func delete(_ object: ObjectLocation) throws
    /// ListObjectVersions under `prefix`: every key holding a version of bytes, latest or not;
    /// nil from a store that keeps no versions.
    func keysWithVersions(bucket: String, prefix: String) throws -> Set<String>?
}

extension ObjectStore {
    /// A store without versions: the latest listing is all there is.
    public func keysWithVersions(bucket: String, prefix: String) throws -> Set<String>? { nil }

    /// A ranged GET of whatever version is there now.
    public func get(_ object: ObjectLocation, range: Range<UInt64>, into buffer: UnsafeMutableRawBufferPointer) throws {
        try get(object, range: range, ifMatch: nil, into: buffer)
    }

    /// UploadPartCopy of whatever version is there now.
    public func uploadPartCopy(
        _ upload: MultipartUpload, partNumber: Int, source: ObjectLocation, range: Range<UInt64>
    ) throws -> UploadedPart {
        try uploadPartCopy(upload, partNumber: partNumber, source: source, range: range, ifMatch: nil)
    }

    /// PutObject of an object whose type the caller gives (`contentType`, sent as it is
    /// whatever the run's `--content-type` says); nil is the run's type or the key's guess. A
    /// store that keeps no types (a test's) drops it.
    public func put(
        _ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String],
        contentType: String?
    ) throws {
        try put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: metadata)
    }

    /// CreateMultipartUpload of an object whose type the caller gives, as for ``put(_:body:ifNoneMatch:metadata:contentType:)``.
    public func createMultipartUpload(
        _ object: ObjectLocation, metadata: [String: String], contentType: String?
    ) throws -> MultipartUpload {
        try createMultipartUpload(object, metadata: metadata)
    }

    /// PutObject without user metadata (tests, fixtures; gcdcat's own outputs go through
    /// ``ObjectOutput``, which records their crc32).
    public func put(_ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool) throws {
        try put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: [:])
    }

    /// CreateMultipartUpload without user metadata.
    public func createMultipartUpload(_ object: ObjectLocation) throws -> MultipartUpload {
        try createMultipartUpload(object, metadata: [:])
    }
}

extension ObjectInfo {
    /// The object as HEAD sees it now, which must still be this version: the same size and,
    /// where both are known, the same ETag. `moment` ends the message ("while it was copied").
    ///
    /// ## Errors
    /// `.inputChanged` naming the object when it is gone or differs; the store's errors.
    public func headAgain(in store: any ObjectStore, _ moment: String) throws -> ObjectInfo {
        guard let now = try store.head(location) else {
            throw GCDCatError(
                .inputChanged, path: location.description, syscall: "HeadObject", message: "gone \(moment)")
        }
        if now.size != size || (now.etag != nil && etag != nil && now.etag != etag) {
            throw GCDCatError(
                .inputChanged, path: location.description, syscall: "HeadObject",
                message:
                    "changed \(moment) (\(size) bytes, ETag \(etag ?? "none"); now \(now.size) bytes, "
                    + "ETag \(now.etag ?? "none"))")
        }
        return now
    }
}
