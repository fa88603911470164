import GCDCatS3
import GCDCatSystem

/// The crc32 record of an object completed from a resumed upload: it was given when the earlier
/// run created the upload, so it describes that run's input (``UploadResumption``). When it
/// differs from the bytes this run completed, the object is copied onto itself on the server
/// (UploadPartCopy, 5 GiB at a time) with the right record; no byte passes through the client.
enum ResumedRecord {
    /// The largest UploadPartCopy range S3 takes.
    static let copyLimit: UInt64 = 5 << 30

    /// Makes the object at `target` record `record`. On any failure, its HEAD's too, the object
    /// is deleted, and the error says so: its bytes are right but its record may not be, and a
    /// merge would trust the record. (A HEAD refused after completion, as RGW refuses one without
    /// the object's SSE-C key, left the object this run placed in the bucket, unnamed.)
    ///
    /// ## Errors
    /// `.inputChanged` when the object is gone; the store's error (after the object was deleted).
    static func require(_ record: UInt32, on target: ObjectTarget, registry: CleanupRegistry) throws {
        let store = target.store
        let location = target.location
        do {
            guard let info = try store.head(location) else {
                throw GCDCatError(
                    .inputChanged, path: location.description, syscall: "HeadObject",
                    message: "gone after its completion")
            }
            if info.recordedCRC32 == record { return }
            registry.beginRecordRewrite(location.description)
            defer { registry.endRecordRewrite(location.description) }
            try rewrite(info, record: record, store: store, registry: registry)
        } catch var error as GCDCatError where error.code != .inputChanged {
            do {
                try store.delete(location)
                error.message +=
                    "; the object this run completed from a resumed upload was deleted again, as its "
                    + "crc32 record could not be checked"
            } catch {
                registry.noteLeftBehind(LeftBehindAdvice.object(location, error))
            }
            throw error
        }
        RunNotes.post(
            "\(location): the resumed upload recorded the crc32 of an earlier input; "
                + "the record was rewritten on the server")
    }

    private static func rewrite(_ info: ObjectInfo, record: UInt32, store: any ObjectStore, registry: CleanupRegistry)
        throws
    {
        let location = info.location
        let metadata = UploadRunMark.marking(RecordedChecksum.metadata(record))
        let (upload, token) = try registry.make(
            naming: location.description,
            {
                try store.createMultipartUpload(
                    location, metadata: metadata, contentType: SidecarContentType.of(key: location.key))
            }
        ) { upload in
            .undo(
                UndoAction(
                    name: location.description, aborting: location, { try store.abortMultipartUpload(upload) },
                    ifItFails: { LeftBehindAdvice.upload(upload, $0) }))
        }
        defer { registry.forget(token) }
        do {
            var parts: [UploadedPart] = []
            var start: UInt64 = 0
            while start < info.size {
                let end = min(info.size, start + copyLimit)
                parts.append(
                    try store.uploadPartCopy(
                        upload, partNumber: parts.count + 1, source: location, range: start..<end, ifMatch: info.etag))
                start = end
            }
            try store.completeMultipartUpload(upload, parts: parts, ifNoneMatch: false)
        } catch {
            try? store.abortMultipartUpload(upload)
            throw error
        }
    }
}
