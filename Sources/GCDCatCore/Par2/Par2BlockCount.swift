/// How many blocks a block size cuts files into, against PAR2's limit of
/// ``Par2RecoverySet/maximumSlices``: what a usage error tells the user to choose.
public enum Par2BlockCount {
    /// A block size PAR2 allows: a multiple of 4, at most ``Par2RecoverySet/maximumSliceSize``.
    public static func isAllowed(blockSize: Int) -> Bool {
        blockSize > 0 && blockSize % 4 == 0 && blockSize <= Par2RecoverySet.maximumSliceSize
    }

    /// The block size (`blockSize`, else the default for about 2000 blocks), source blocks and
    /// recovery blocks (`percent` of them, at least one) that a create makes of non-empty files
    /// of `fileSizes`: what `protect` and `split --par2` write, and bound before reading.
    public static func plan(fileSizes: [Int64], blockSize: Int?, percent: Int) -> (
        blockSize: Int, source: Int, recovery: Int
    ) {
        let size = blockSize ?? Par2Creator.defaultBlockSize(fileSizes: fileSizes)
        let source = Int(blocks(fileSizes: fileSizes, blockSize: size))
        return (size, source, max(1, Par2Creator.recoveryCount(percent: percent, sourceBlocks: source)))
    }

    /// The blocks of `blockSize` bytes that files of `fileSizes` take (the last of each padded).
    public static func blocks(fileSizes: [Int64], blockSize: Int) -> Int64 {
        let size = Int64(max(blockSize, 1))
        return fileSizes.reduce(0) { $0 + ($1 + size - 1) / size }
    }

    /// The smallest block size, a multiple of 4, that cuts files of `fileSizes` into at most
    /// PAR2's 32 768 blocks; nil when none up to 1 GiB does (more non-empty files than that).
    public static func smallestBlockSize(fileSizes: [Int64]) -> Int? {
        let limit = Int64(Par2RecoverySet.maximumSlices)
        // The count only falls as the size grows: a binary search over the multiples of 4.
        var low = 1
        var high = Par2RecoverySet.maximumSliceSize / 4
        guard blocks(fileSizes: fileSizes, blockSize: high * 4) <= limit else { return nil }
        while low < high {
            let middle = (low + high) / 2
            if blocks(fileSizes: fileSizes, blockSize: middle * 4) <= limit { high = middle } else { low = middle + 1 }
        }
        return low * 4
    }
}
