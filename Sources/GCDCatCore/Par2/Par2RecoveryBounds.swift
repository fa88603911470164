import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The bounds a create's recovery blocks must keep, checked before anything is read: what
/// usage errors name.
public enum Par2RecoveryBounds {
    /// One recovery block per exponent, 0 to 65 534: PAR2's constants are powers of 2 in
    /// GF(2^16), whose group has 65 535 elements.
    public static let maximumRecoveryBlocks = GaloisField16.order

    /// A create holds every recovery block in memory while it reads the input: they may take
    /// at most half of this machine's memory, so that a block size or share too large is
    /// refused up front rather than after the input was read (or by the kernel's OOM killer).
    public static var memoryLimit: Int64 {
        Int64(sysconf(Int32(_SC_PHYS_PAGES))) * Int64(sysconf(Int32(_SC_PAGESIZE))) / 2
    }

    /// The highest percentage (at most `upTo`) whose recovery blocks for `sourceBlocks` stay
    /// within ``maximumRecoveryBlocks``, rounded as ``Par2Creator/recoveryCount(percent:sourceBlocks:)``.
    public static func highestPercent(sourceBlocks: Int, upTo: Int) -> Int {
        min(upTo, (maximumRecoveryBlocks * 100 + 49) / max(sourceBlocks, 1))
    }

    /// Why `recovery` blocks of `blockSize` bytes cannot be held, or nil when they can.
    public static func memoryProblem(recovery: Int, blockSize: Int) -> String? {
        let (bytes, overflow) = recovery.multipliedReportingOverflow(by: blockSize)
        let limit = memoryLimit
        guard overflow || Int64(bytes) > limit else { return nil }
        let held = overflow ? "more than \(Int.max) bytes" : "\(bytes) bytes"
        return "\(counted(recovery, "recovery block")) of \(blockSize) bytes take \(held) of memory while they are "
            + "computed, more than half of this machine's (\(limit) bytes)"
    }
}
