import GCDCatS3
import GCDCatSystem

/// How a rerun takes over the multipart upload its killed predecessor left on the same key,
/// instead of sending every part again.
///
/// Before creating an upload, the key's unfinished uploads are listed (ListMultipartUploads,
/// prefix = the key, that key exactly). None: a new upload, as always. Some: the newest is
/// resumed and the others are aborted. Its parts (ListParts) are kept only where they are the
/// bytes this run would send: the same size and an ETag equal to the MD5 of the local bytes
/// (``matches(_:_:)``), as S3 and RGW give an uploaded part. Every other part is sent again,
/// replacing the old one, so the result is byte-identical whatever the predecessor sent.
///
/// S3 takes metadata only at CreateMultipartUpload, so the resumed object carries the
/// predecessor's crc32 record (``RecordedChecksum``), which describes the bytes its input held.
/// After completion the record is checked (HEAD), and rewritten by a copy of the object onto
/// itself when it differs (``ObjectOutput``).
///
/// An upload of the key that another writer has under way would be taken over too: two writers
/// of one key at once already lose one write (docs/notes/s3.md).
enum UploadResumption {
    /// What the predecessor left: the upload and its parts by number.
    struct Inherited: Sendable {
        var upload: MultipartUpload
        var parts: [Int: ListedPart]
        var initiated: Double?
    }

    /// Lists the uploads of exactly `location`'s key and takes over the newest one (its parts
    /// listed); aborts the others. Best effort for the aborts: one that fails is named.
    ///
    /// ## Errors
    /// The store's error for the listings.
    static func takeOver(_ location: ObjectLocation, store: any ObjectStore, registry: CleanupRegistry) throws
        -> Inherited?
    {
        let earlier = try store.listPendingUploads(bucket: location.bucket, prefix: location.key).uploads
            .filter { $0.upload.location == location }
            .sorted { ($0.initiated ?? 0) > ($1.initiated ?? 0) }
        for pending in earlier {
            if let parts = try store.listParts(pending.upload) {
                for older in earlier where older.upload != pending.upload { abort(older.upload, store, registry) }
                return Inherited(
                    upload: pending.upload, parts: Dictionary(parts.map { ($0.partNumber, $0) }) { _, last in last },
                    initiated: pending.initiated)
            }
        }
        return nil
    }

    private static func abort(_ upload: MultipartUpload, _ store: any ObjectStore, _ registry: CleanupRegistry) {
        do {
            try store.abortMultipartUpload(upload)
            writeToStandardError(
                "gcdcat: \(upload.location): aborted the upload \(upload.uploadID) an earlier run left\n")
        } catch {
            registry.noteLeftBehind(LeftBehindAdvice.upload(upload, error))
        }
    }

    /// Whether `part` on the server holds exactly `body`: its size, and its ETag the MD5 of `body`.
    static func matches(_ part: ListedPart, _ body: UnsafeRawBufferPointer) -> Bool {
        part.size == UInt64(body.count) && part.etag.lowercased() == RequestDigests.hex(RequestDigests.md5(body))
    }

    /// The one line that says a run resumed, and what it found.
    static func announce(_ inherited: Inherited) {
        let bytes = inherited.parts.values.reduce(0) { $0 + $1.size }
        writeToStandardError(
            "gcdcat: \(inherited.upload.location): resuming the upload \(inherited.upload.uploadID) an earlier run "
                + "left (\(inherited.parts.count) part\(inherited.parts.count == 1 ? "" : "s"), \(bytes) bytes); "
                + "parts that differ from the input are sent again\n")
    }
}
