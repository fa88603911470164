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
