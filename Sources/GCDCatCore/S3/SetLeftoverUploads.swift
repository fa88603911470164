import GCDCatS3
import GCDCatSystem

/// The unfinished uploads a killed split left on keys of its set that this run does not write
/// (the killed run had more parts). A rerun finds those of its own keys when it creates each
/// upload (``UploadResumption/takeOver(_:partCount:resuming:store:registry:)``); these it would
/// never see, and they keep their parts' storage, invisibly.
///
/// S3 shows no metadata of an unfinished upload, so gcdcat's run mark (``UploadRunMark``)
/// cannot be read there. An upload is taken for a predecessor's only when the caller names its
/// key as one the predecessor must have written (the names of this set's numbering that follow
/// its last part without a gap) and it has been idle for `--take-over-after`, as a take-over
/// needs. A younger one may be another run still writing: it is left, and said so. Uploads on
/// other keys under the prefix (another width, past a gap, `.000`) may be other tools': they are
/// never touched.
extension UploadResumption {
    /// Aborts the idle uploads under the series' prefix whose keys `leftovers` picks from the
    /// keys that hold one (part names this run does not write); returns the notes that say what
    /// was aborted and left.
    /// Best effort: an abort that fails is named as left behind, and the run goes on.
    ///
    /// ## Errors
    /// The store's error for the listing or a ListParts.
    static func abortLeftovers(
        bucket: String, prefix: String, leftovers: (Set<ObjectLocation>) throws -> Set<ObjectLocation>,
        store: any ObjectStore,
        registry: CleanupRegistry
    ) throws -> [String] {
        let listing = try store.listPendingUploads(bucket: bucket, prefix: prefix)
        let picked = try leftovers(Set(listing.uploads.map(\.upload.location)))
        var aborted: [MultipartUpload] = []
        var inUse: [String] = []
        for pending in listing.uploads where picked.contains(pending.upload.location) {
            guard let parts = try store.listParts(pending.upload) else { continue }
            let written = parts.compactMap(\.lastModified).max() ?? pending.initiated
            let idle = listing.serverTime.flatMap { now in written.map { max(0, now - $0) } }
            guard (idle ?? .infinity) >= idleBeforeTakeOver else {
                inUse.append(
                    "\(pending.upload.location) (\(pending.upload.uploadID), written \(RequestDeadline.text((idle ?? 0).rounded(.down))) ago)"
                )
                continue
            }
            do {
                try store.abortMultipartUpload(pending.upload)
                aborted.append(pending.upload)
            } catch {
                registry.noteLeftBehind(LeftBehindAdvice.upload(pending.upload, error), upload: pending.upload.location)
            }
        }
        var notes: [String] = []
        if !aborted.isEmpty {
            let keys = aborted.map(\.location.description).sorted()
            notes.append(
                "aborted \(aborted.count) unfinished upload\(aborted.count == 1 ? "" : "s") an earlier run left on "
                    + "part names this set does not use: \(keys.prefix(5).joined(separator: ", "))"
                    + (keys.count > 5 ? ", …" : ""))
        }
        if !inUse.isEmpty {
            notes.append(
                "left \(inUse.count) unfinished upload\(inUse.count == 1 ? "" : "s") on part names this set does not "
                    + "use, written within --take-over-after (\(RequestDeadline.text(idleBeforeTakeOver))): another run "
                    + "may be writing \(inUse.count == 1 ? "it" : "them"): \(inUse.joined(separator: ", "))")
        }
        return notes
    }
}
