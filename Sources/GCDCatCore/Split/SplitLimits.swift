import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The bounds of a split, checked before anything is planned or created.
///
/// Each part costs a name, a descriptor while it is written and an entry in the manifest; a
/// request for millions of parts (`--size 1` on 10 MB, `--parts 100000000`) used to plan them
/// all in memory (gigabytes) and then run out of inodes. Past these bounds a split is refused.
public enum SplitLimits {
    /// The most parts one split may write. A split costs about 0.9 KiB per part (names, plan,
    /// descriptors, manifest lines): 50 000 parts peaked at 55 MiB RSS here, within the 64 MiB
    /// that any accepted or refused request may use; 100 000 reached 97 MiB.
    public static let maximumParts = 50_000
    /// The widest fixed suffix: wider names only approach the 255-byte name limit.
    public static let maximumSuffixLength = 32
    /// The largest first suffix number, far enough from `Int.max` that `start + index` never
    /// overflows.
    public static let maximumStart = 999_999_999_999

    /// How many parts of `size` bytes a `total`-byte input needs.
    public static func partCount(total: Int64, size: Int64) -> Int64 {
        precondition(size > 0, "a part size must be positive")
        return total / size + (total % size == 0 ? 0 : 1)
    }

    /// Throws unless `count` parts are within ``maximumParts``.
    ///
    /// ## Errors
    /// `.invalidInput` naming `path`.
    static func requirePartCount(_ count: Int64, path: String) throws {
        guard count <= Int64(maximumParts) else {
            throw GCDCatError(
                .invalidInput, path: path,
                message: "would make \(count) parts; at most \(maximumParts) are allowed (choose larger parts)")
        }
    }

    /// Address space a split needs besides what gcdcat holds when it starts: a worker thread's
    /// (``ParallelMap/addressSpacePerWorker``) for each job and for the reader that checksums the
    /// input beside them, and 32 KiB a part. A part's own state is about 1 KiB of RSS, but a
    /// split of 20 000 parts peaked at 367 MB of address space (92 MB at start) under a
    /// `ulimit -v` of 1 GB, and with 4 KiB a part allowed here it still crashed in 2 runs of 6
    /// at 300 000 KiB; with 12 KiB, in 5 runs of 20 at 450 000 KiB (134 "failed to allocate",
    /// 139), and with 20 KiB in 1 of 5 at 600 000. 32 KiB refuses 20 000 parts below about
    /// 780 000 KiB; 10 of 10 runs were clean at 700 000 (with 12 KiB), 800 000 and 1 000 000. Where
    /// the rest goes is not yet known.
    static func addressSpaceNeeded(parts: Int, jobs: Int) -> Int {
        (jobs + 1) * ParallelMap.addressSpacePerWorker + parts * 32 * 1024
    }

    /// Refuses, before anything is created, a split that an address-space limit (`ulimit -v`)
    /// leaves no room for (``AddressSpace/require(_:by:fix:path:)``).
    static func requireAddressSpace(parts: Int, jobs: Int, path: String) throws {
        try AddressSpace.require(
            addressSpaceNeeded(parts: parts, jobs: jobs), by: "a split into \(parts) parts",
            fix: "raise the limit, or make fewer, larger parts", path: path)
    }

    /// How many parts may be written as unnamed files, each holding its descriptor until the
    /// set is published. The soft descriptor limit is raised to the hard one first (as Go
    /// does); a reserve is kept for the inputs, the manifest and `jobs` workers. Parts past
    /// the budget are written under temporary names instead (see ``AtomicOutputFile``).
    static func unnamedPartBudget(jobs: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let soft = Int(clamping: limit.rlim_cur)
        return max(0, soft - 64 - 4 * jobs)
    }
}
