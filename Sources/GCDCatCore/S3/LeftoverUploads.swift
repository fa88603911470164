import GCDCatS3
import GCDCatSystem

/// One multipart upload left under a prefix, with what it costs: how long it has waited and
/// how many bytes its parts hold on the server.
public struct LeftoverUpload: Sendable, Equatable {
    public var upload: MultipartUpload
    /// When the server initiated it (seconds since 1970, the server's clock), if it said.
    public var initiated: Double?
    /// Seconds from `initiated` to the listing, both on the server's clock; nil when either is
    /// unknown.
    public var ageSeconds: Double?
    public var parts: Int
    public var bytes: UInt64
}

/// Finds and aborts the multipart uploads under a prefix: what killed runs left, including the
/// uploads whose CreateMultipartUpload answer was lost (S3 lists them like any other).
///
/// S3 shows no metadata for an upload in progress, so the listing cannot tell gcdcat's uploads
/// (``UploadRunMark``) from another tool's: every upload under the prefix is listed, and
/// aborting one that a running writer still sends to makes that writer fail.
public enum LeftoverUploads {
    /// ListMultipartUploads under `prefix`, then ListParts of each (`jobs` at once) for its
    /// bytes. An upload that ends between the two requests is left out.
    ///
    /// ## Errors
    /// The store's error for the listing or a ListParts.
    public static func find(in bucket: String, prefix: String, store: any ObjectStore, jobs: Int) throws
        -> [LeftoverUpload]
    {
        let listing = try store.listPendingUploads(bucket: bucket, prefix: prefix)
        let pending = listing.uploads
        let found = try ParallelMap.map(count: pending.count, jobs: jobs, pool: .threads) { index in
            try store.listParts(pending[index].upload).map { parts -> LeftoverUpload in
                let initiated = pending[index].initiated
                let age = listing.serverTime.flatMap { now in initiated.map { max(0, now - $0) } }
                return LeftoverUpload(
                    upload: pending[index].upload, initiated: initiated, ageSeconds: age, parts: parts.count,
                    bytes: parts.reduce(0) { $0 + $1.size })
            }
        }
        return found.compactMap { $0 }
    }

    /// Aborts each of `uploads` (`jobs` at once, one retry each); returns the failures, in order.
    public static func abort(_ uploads: [LeftoverUpload], store: any ObjectStore, jobs: Int) -> [(
        LeftoverUpload, GCDCatError
    )] {
        let outcomes = ParallelMap.collect(count: uploads.count, jobs: jobs, pool: .threads, makeState: { () }) {
            _, index -> GCDCatError? in
            do {
                try store.abortMultipartUpload(uploads[index].upload)
                return nil
            } catch {
                do {
                    try store.abortMultipartUpload(uploads[index].upload)
                    return nil
                } catch {
                    return error as? GCDCatError
                        ?? GCDCatError(
                            .io, path: uploads[index].upload.location.description, syscall: "AbortMultipartUpload",
                            message: String(describing: error))
                }
            }
        }
        return zip(uploads, outcomes).compactMap { upload, failure in failure.map { (upload, $0) } }
    }
}
