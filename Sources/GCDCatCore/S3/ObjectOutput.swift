import GCDCatS3
import GCDCatSystem
import Synchronization

/// An `s3://` output as the user named it, with the store that reaches it.
public struct ObjectTarget: Sendable, Equatable, CustomStringConvertible {
    public var location: ObjectLocation
    public var store: any ObjectStore
    /// The preferred multipart part size, and the buffer each upload worker holds.
    public var partSize: Int

    public init(location: ObjectLocation, store: any ObjectStore, partSize: Int = MultipartSizing.defaultPartSize) {
        self.location = location
        self.store = store
        self.partSize = partSize
    }

    public var description: String { location.description }

    /// Two targets are the same output when they name the same object.
    public static func == (lhs: ObjectTarget, rhs: ObjectTarget) -> Bool {
        lhs.location == rhs.location && lhs.partSize == rhs.partSize
    }
}

/// An object being written: the remote counterpart of ``AtomicOutputFile``.
///
/// Its "temporary file" is a multipart upload: ``begin(recording:partCount:)`` creates it, parts are uploaded or
/// copied into it, ``publish(registeringFinalName:)`` completes it (the object appears only
/// then), and ``discard()`` aborts it. A small body (a manifest, an empty object) is held and
/// put with PutObject at publish instead, since an upload needs at least one part. Either way
/// the object records its crc32 in its metadata (``RecordedChecksum``).
///
/// ## Implementation details
/// The upload is created through the ``CleanupRegistry`` and registered as an ``UndoAction``
/// that aborts it, so SIGINT/SIGTERM (whose handler sweeps the registry) aborts it on the server
/// before the process exits. Creation and completion are requests in flight for the registry:
/// several run at once, a sweep waits for those under way, and then finds each upload either
/// registered for abort or complete and registered for deletion. Without `overwrite`, publishing sends
/// `If-None-Match: *` and also HEADs the key first, because some servers (Ceph RGW) ignore the
/// header: between that HEAD and the completion another writer can still create the key
/// (see docs/notes/s3.md).
public final class ObjectOutput: Sendable {
    public let target: ObjectTarget
    let overwrite: Bool
    let registry: CleanupRegistry

    private struct State {
        var upload: MultipartUpload?
        var token: Int?
        var parts: [UploadedPart] = []
        var heldBody: [UInt8]?
        /// The parts of an upload an earlier run left, when this one resumed it.
        var inherited: [Int: ListedPart]?
        /// The crc32 the object must record.
        var record: UInt32?
    }

    private let state = Mutex(State())
    /// The registry's note that this object is under way (``CleanupRegistry/beginOutput(_:)``):
    /// an interruption before it is published says it was not created.
    private let outputToken: Int

    public init(target: ObjectTarget, overwrite: Bool, registry: CleanupRegistry = .shared) {
        self.target = target
        self.overwrite = overwrite
        self.registry = registry
        outputToken = registry.beginOutput(target.location.description, mayReplace: overwrite)
    }

    public var location: ObjectLocation { target.location }
    var store: any ObjectStore { target.store }

    /// Creates the multipart upload, registered for abort. Call once, before any part.
    ///
    /// `crc32` is the crc32 of the whole object to be, recorded as its metadata
    /// (``RecordedChecksum``): S3 takes metadata only here, so it must be known before the first
    /// part. nil records none (a server-side merge whose parts' crc32s are unknown). The caller
    /// must make sure the parts it then sends have this crc32, or not publish.
    ///
    /// With a record, an upload an earlier run left on the key is resumed
    /// (``UploadResumption``): parts that hold the bytes ``uploadPart(_:_:)`` is given are kept.
    /// `partCount` is how many parts this run sends (nil when unknown): an upload holding a
    /// part past them is not resumed, since Ceph RGW refuses to complete one with parts left out.
    /// With `copying` (a merge or split on the server, which copies parts with UploadPartCopy), it
    /// is not resumed either: a copied part is never matched against what the server holds, so
    /// every part was copied again while the note said only those that differ were sent again;
    /// the upload is aborted, with a note, as the README says.
    ///
    /// ## Errors
    /// `.interrupted` once an interruption began; the store's error.
    func begin(recording crc32: UInt32?, partCount: Int? = nil, copying: Bool = false) throws {
        let store = self.store
        let location = self.location
        let registry = self.registry
        let metadata = UploadRunMark.marking(crc32.map(RecordedChecksum.metadata) ?? [:])
        // Only a recorded object whose parts are sent from here is resumed: its record is checked
        // at publish. Without one (standard input) a left record could not be told wrong, and a
        // copied part (a merge on the server) is not checked against the one left, so an earlier
        // run's upload of the key is aborted instead.
        let ((upload, inherited), token) = try registry.make(
            naming: location.description,
            {
                () throws -> (MultipartUpload, UploadResumption.Inherited?) in
                if let inherited = try UploadResumption.takeOver(
                    location, partCount: partCount, resuming: crc32 != nil && !copying, store: store,
                    registry: registry)
                {
                    return (inherited.upload, inherited)
                }
                return (
                    try store.createMultipartUpload(
                        location, metadata: metadata, contentType: SidecarContentType.of(key: location.key)),
                    nil
                )
            }
        ) { upload, inherited in
            // An upload taken over from an earlier run is not this run's to abort: an interrupted
            // or failed rerun keeps it (and the parts it added) for the next one to resume.
            inherited != nil
                ? .undo(
                    UndoAction(
                        name: location.description, aborting: location, { throw UploadResumption.Kept() },
                        ifItFails: { _ in UploadResumption.kept(upload) }))
                : .undo(
                    UndoAction(
                        name: location.description, aborting: location, { try store.abortMultipartUpload(upload) },
                        ifItFails: { LeftBehindAdvice.upload(upload, $0) }))
        }
        if let inherited { UploadResumption.announce(inherited) }
        state.withLock {
            $0.upload = upload
            $0.token = token
            $0.inherited = inherited?.parts
            $0.record = crc32
        }
    }

    private func currentUpload() throws -> MultipartUpload {
        guard let upload = state.withLock({ $0.upload }) else {
            throw GCDCatError(.io, path: location.description, message: "no multipart upload was started")
        }
        return upload
    }

    /// Uploads part `number` (1-based) from `body`.
    func uploadPart(_ number: Int, _ body: UnsafeRawBufferPointer) throws {
        try registry.requireLive()
        if let kept = state.withLock({ $0.inherited?[number] }), UploadResumption.matches(kept, body) {
            state.withLock { $0.parts.append(UploadedPart(partNumber: number, etag: kept.etag)) }
            return
        }
        let part = try store.uploadPart(try currentUpload(), partNumber: number, body: body)
        state.withLock { $0.parts.append(part) }
    }

    /// Copies `range` of `source` (the version whose ETag is `ifMatch`, when given) into part
    /// `number` on the server.
    func copyPart(_ number: Int, source: ObjectLocation, range: Range<UInt64>, ifMatch: String? = nil) throws {
        try registry.requireLive()
        let part = try store.uploadPartCopy(
            try currentUpload(), partNumber: number, source: source, range: range, ifMatch: ifMatch)
        state.withLock { $0.parts.append(part) }
    }

    /// Keeps a small body to put in one request at publish.
    func hold(_ bytes: [UInt8]) {
        state.withLock { $0.heldBody = bytes }
    }

    /// Refuses an existing key unless `overwrite`.
    ///
    /// ## Errors
    /// `.outputExists` naming the key and `--force`; the store's error for the HEAD.
    static func requireAbsent(_ target: ObjectTarget, overwrite: Bool) throws {
        guard !overwrite, try target.store.head(target.location) != nil else { return }
        throw exists(target.location)
    }

    /// Whether the key holds an object now (one HEAD): before a `--force` publish, whether it
    /// replaces one.
    func keyExists() throws -> Bool {
        try target.store.head(target.location) != nil
    }

    static func exists(_ location: ObjectLocation) -> GCDCatError {
        GCDCatError(
            .outputExists, path: location.description, message: "already exists (use --force to replace it)")
    }

    /// Makes the object appear: completes the upload (or puts the held body), without replacing
    /// an existing key unless `overwrite`. With `registeringFinalName`, the new object is
    /// registered for deletion in the same step and its token returned. On failure the upload
    /// is aborted.
    ///
    /// ## Errors
    /// `.outputExists` when the key appeared meanwhile; `.interrupted`; the store's error.
    @discardableResult
    public func publish(registeringFinalName: Bool = false) throws -> Int? {
        let (upload, token, parts, body, resumed) = state.withLock { state in
            (
                state.upload, state.token, state.parts.sorted { $0.partNumber < $1.partNumber }, state.heldBody,
                state.inherited != nil
            )
        }
        let store = self.store
        let location = self.location
        let overwrite = self.overwrite
        do {
            try Self.requireAbsent(target, overwrite: overwrite)
            let undo: CleanupRegistry.Entry? =
                registeringFinalName
                ? .undo(
                    UndoAction(
                        name: location.description, { try store.delete(location) },
                        ifItFails: { LeftBehindAdvice.object(location, $0) })) : nil
            let finalToken = try registry.commitRemote(
                forgetting: token.map { [$0] } ?? [], naming: location.description, registering: undo,
                ending: outputToken
            ) {
                do {
                    if let upload {
                        try store.completeMultipartUpload(upload, parts: parts, ifNoneMatch: !overwrite)
                    } else {
                        let bytes = body ?? []
                        var crc = Checksum(.crc32)
                        crc.update(bytes)
                        try bytes.withUnsafeBytes {
                            try store.put(
                                location, body: $0, ifNoneMatch: !overwrite,
                                metadata: UploadRunMark.marking(RecordedChecksum.metadata(crc.value)),
                                contentType: SidecarContentType.of(key: location.key))
                        }
                    }
                } catch let error as GCDCatError where error.code == .outputExists {
                    throw Self.exists(location)
                }
            }
            // Complete: nothing is left to abort.
            let record = state.withLock { state in
                state.upload = nil
                state.token = nil
                return state.record
            }
            if resumed, let record { try ResumedRecord.require(record, on: target, registry: registry) }
            return finalToken
        } catch {
            abort()
            throw error
        }
    }

    /// Deletes the object this run published, when a later member of its set failed; if the
    /// server refuses, the user is told how to delete it by hand.
    func deleteAgain() {
        do {
            try store.delete(location)
        } catch {
            registry.noteLeftBehind(LeftBehindAdvice.object(location, error))
        }
    }

    /// Abandons the object: aborts the upload, if any. Safe to call more than once.
    public func discard() {
        abort()
    }

    private func abort() {
        let (upload, token, inherited) = state.withLock { state in
            defer {
                state.upload = nil
                state.token = nil
            }
            return (state.upload, state.token, state.inherited != nil)
        }
        if let upload, inherited {
            // An earlier run's upload, taken over: kept for the next rerun, and said.
            registry.noteLeftBehind(UploadResumption.kept(upload), upload: upload.location)
        } else if let upload {
            // One retry: a failed abort leaves the upload (and its storage) behind, and then
            // the user is told how to remove it.
            do {
                try store.abortMultipartUpload(upload)
            } catch {
                do {
                    try store.abortMultipartUpload(upload)
                } catch {
                    registry.noteLeftBehind(LeftBehindAdvice.upload(upload, error), upload: upload.location)
                }
            }
        }
        if let token { registry.forget(token) }
        // Given up: not listed as "not created" unless an interruption began (then it was not).
        registry.endOutput(outputToken)
    }
}
