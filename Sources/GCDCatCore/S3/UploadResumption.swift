import GCDCatS3
import GCDCatSystem
import Synchronization

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
/// An upload that another run may still be writing is not taken over: a rerun resumes an
/// upload only when it is idle, its newest part (or, with none, its initiation) at least
/// ``idleBeforeTakeOver`` old by the server's clock (`--take-over-after`, 5 minutes unless set);
/// otherwise it refuses, naming the upload and its age. S3 shows no owner of an unfinished
/// upload, so age is the only sign of life; a killed run's upload stops ageing at the kill.
///
/// An upload taken over is not this run's to abort: when the rerun fails, is refused on another
/// key or is interrupted, it is kept with its parts (``kept(_:)`` names it) for the next rerun.
public enum UploadResumption {
    /// What the predecessor left: the upload and its parts by number.
    struct Inherited: Sendable {
        var upload: MultipartUpload
        var parts: [Int: ListedPart]
        var initiated: Double?
    }

    /// One upload of the key, with its parts and how long since anything was written to it.
    private struct Found {
        var pending: PendingUpload
        var parts: [ListedPart]
        var idleSeconds: Double?
    }

    private static let idleMilliseconds = Atomic<Int>(300_000)

    /// How long an upload must have been idle before a rerun takes it over, in seconds.
    public static var idleBeforeTakeOver: Double { Double(idleMilliseconds.load(ordering: .relaxed)) / 1000 }

    private static let resumes = Atomic<Bool>(true)

    /// Makes a rerun abort an idle upload it finds instead of resuming it: the run chooses how
    /// its objects are created (encryption, storage class, type, tags), and an unfinished upload
    /// keeps the settings of the run that created it, which S3 does not show.
    public static func startAfresh() {
        resumes.store(false, ordering: .relaxed)
    }

    /// Sets ``idleBeforeTakeOver`` (`--take-over-after`); 0 takes over any upload of the key.
    public static func setIdleBeforeTakeOver(_ seconds: Double) {
        idleMilliseconds.store(Int(min(max(seconds, 0), 1e12) * 1000), ordering: .relaxed)
    }

    /// The creation setting a listing shows for `pending` that a run choosing none would not
    /// make, said as the note says it; nil when it shows none.
    static func chosenSetting(_ pending: PendingUpload) -> String? {
        if let kept = pending.storageClass, kept != "STANDARD" { return "storage class \(kept)" }
        if let algorithm = pending.checksumAlgorithm, !algorithm.isEmpty { return "checksum algorithm \(algorithm)" }
        return nil
    }

    /// Lists the uploads of exactly `location`'s key and takes over the newest one (its parts
    /// listed); aborts the others. Best effort for the aborts: one that fails is named.
    /// Without `resuming` (an object whose crc32 record is not known when its upload starts:
    /// standard input, a merge on the server) every idle upload of the key is aborted, and said:
    /// a left record could not be told wrong, yet the upload must not stay, invisible.
    ///
    /// ## Errors
    /// `.io` naming an upload of the key that is not idle; the store's error for the
    /// listings.
    static func takeOver(
        _ location: ObjectLocation, partCount: Int?, resuming: Bool = true, store: any ObjectStore,
        registry: CleanupRegistry
    ) throws
        -> Inherited?
    {
        let listing = try store.listPendingUploads(bucket: location.bucket, prefix: location.key)
        let found = try listing.uploads
            .filter { $0.upload.location == location }
            .sorted { ($0.initiated ?? 0) > ($1.initiated ?? 0) }
            .compactMap { pending -> Found? in
                guard let parts = try store.listParts(pending.upload) else { return nil }
                let written = parts.compactMap(\.lastModified).max() ?? pending.initiated
                let idle = listing.serverTime.flatMap { now in written.map { max(0, now - $0) } }
                return Found(pending: pending, parts: parts, idleSeconds: idle)
            }
        if let live = found.first(where: { ($0.idleSeconds ?? .infinity) < idleBeforeTakeOver }) {
            throw busy(live)
        }
        guard let newest = found.first else { return nil }
        guard resuming else {
            for each in found { abort(each.pending.upload, store, registry) }
            return nil
        }
        guard resumes.load(ordering: .relaxed) else {
            RunNotes.post(
                "\(location): an unfinished upload an earlier run left is not resumed: it keeps that run's "
                    + "encryption, storage class, type and tags, and this run chooses its own; the object is written "
                    + "afresh")
            for each in found { abort(each.pending.upload, store, registry) }
            return nil
        }
        // A run that chooses no setting resumes only an upload made without one, as far as the
        // listing shows: its storage class (GLACIER left by a killed run would make the object
        // unreadable) and its checksum algorithm. The others (type, tags, encryption) do not show.
        if let setting = chosenSetting(newest.pending) {
            RunNotes.post(
                "\(location): the unfinished upload \(newest.pending.upload.uploadID) an earlier run left was made with "
                    + "\(setting), and this run asks for none: it is not resumed, and the object is written afresh")
            for each in found { abort(each.pending.upload, store, registry) }
            return nil
        }
        if let partCount, let last = newest.parts.map(\.partNumber).max(), last > partCount {
            // S3 completes an upload with only the parts named, but Ceph RGW answers InvalidPart
            // when parts it holds are left out, and no request removes a part: start afresh.
            RunNotes.post(
                "\(location): the unfinished upload \(newest.pending.upload.uploadID) an earlier run left holds part "
                    + "\(last), and this input needs \(partCount) part\(partCount == 1 ? "" : "s"): servers such as Ceph "
                    + "RGW refuse to complete an upload with parts left out, so it is aborted and the object written "
                    + "afresh")
            for each in found { abort(each.pending.upload, store, registry) }
            return nil
        }
        for older in found.dropFirst() { abort(older.pending.upload, store, registry) }
        return Inherited(
            upload: newest.pending.upload,
            parts: Dictionary(newest.parts.map { ($0.partNumber, $0) }) { _, last in last },
            initiated: newest.pending.initiated)
    }

    /// What the undo of an upload taken over throws: it is kept, not aborted.
    struct Kept: Error {}

    /// The line that names an upload an earlier run left, which this run took over and then
    /// did not complete (it failed or was interrupted): kept, with what it holds, for a rerun.
    static func kept(_ upload: MultipartUpload) -> String {
        let location = upload.location
        return "\(location): the unfinished upload \(upload.uploadID) an earlier run left, which this run was "
            + "resuming, is kept with its parts: the same command resumes it (--take-over-after 0 at once), or "
            + "gcdcat uploads \(LeftBehindAdvice.shellQuoted(location.description)) --abort aborts it"
    }

    /// The refusal of an upload written to recently: another run may be writing it.
    private static func busy(_ found: Found) -> GCDCatError {
        let upload = found.pending.upload
        let idle = RequestDeadline.text((found.idleSeconds ?? 0).rounded(.down))
        let written =
            found.parts.isEmpty ? "initiated \(idle) ago with no part yet" : "its last part written \(idle) ago"
        return GCDCatError(
            .io, path: upload.location.description,
            message: "an unfinished upload of this key, \(upload.uploadID), is in use (\(written)): another gcdcat "
                + "run may be writing it; wait, or abort it with gcdcat uploads "
                + "\(LeftBehindAdvice.shellQuoted(upload.location.description)) --abort (a rerun takes over an upload "
                + "idle for --take-over-after, \(RequestDeadline.text(idleBeforeTakeOver)))")
    }

    private static func abort(_ upload: MultipartUpload, _ store: any ObjectStore, _ registry: CleanupRegistry) {
        do {
            try store.abortMultipartUpload(upload)
            RunNotes.post("\(upload.location): aborted the upload \(upload.uploadID) an earlier run left")
        } catch {
            registry.noteLeftBehind(LeftBehindAdvice.upload(upload, error), upload: upload.location)
        }
    }

    /// Whether `part` on the server holds exactly `body`: its size, and its ETag the MD5 of `body`.
    static func matches(_ part: ListedPart, _ body: UnsafeRawBufferPointer) -> Bool {
        part.size == UInt64(body.count) && part.etag.lowercased() == RequestDigests.hex(RequestDigests.md5(body))
    }

    /// The one line that says a run resumed, and what it found.
    static func announce(_ inherited: Inherited) {
        let bytes = inherited.parts.values.reduce(0) { $0 + $1.size }
        RunNotes.post(
            "\(inherited.upload.location): resuming the upload \(inherited.upload.uploadID) an earlier run "
                + "left (\(inherited.parts.count) part\(inherited.parts.count == 1 ? "" : "s"), \(bytes) bytes); "
                + "parts that differ from the input are sent again")
    }
}
