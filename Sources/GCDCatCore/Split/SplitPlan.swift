/// Where the parts of a split begin and end: pure arithmetic, computed before anything is written.
public enum SplitPlan {
    /// The parts' ranges for the modes that cut bytes alone (`--size`, `--parts`), with the part
    /// count checked against the limit; nil for a mode that looks at lines, which a local file's
    /// planner reads. `path` names the input in the error.
    ///
    /// ## Errors
    /// `.invalidInput` when the split would make more parts than a set may have.
    static func byteRanges(for mode: SplitMode, total: Int64, path: String) throws -> [Range<Int64>]? {
        switch mode {
        case .size(let size):
            try SplitLimits.requirePartCount(SplitLimits.partCount(total: total, size: size), path: path)
            return bySize(total: total, size: size)
        case .parts(let count):
            try SplitLimits.requirePartCount(Int64(count), path: path)
            return byCount(total: total, count: count)
        case .lines, .lineCount, .lineChunks, .roundRobin:
            return nil
        }
    }

    /// Parts of exactly `size` bytes, the last one shorter; none for an empty input.
    public static func bySize(total: Int64, size: Int64) -> [Range<Int64>] {
        precondition(size > 0, "a part size must be positive")
        return stride(from: Int64(0), to: total, by: Int(size)).map { $0..<min($0 + size, total) }
    }

    /// `count` parts laid out as GNU split's `-n N` lays them: each `total / count` bytes and
    /// the last one also the remainder (10 bytes in 3: 3, 3, 4). An input smaller than `count`
    /// bytes gives one byte to each of the first parts and leaves the others empty, as GNU does.
    public static func byCount(total: Int64, count: Int) -> [Range<Int64>] {
        precondition(count > 0, "a part count must be positive")
        return (0..<Int64(count)).map { index in
            let start = chunkBoundary(index, total: total, count: count)
            let end = index == Int64(count) - 1 ? total : chunkBoundary(index + 1, total: total, count: count)
            return start..<end
        }
    }

    /// Where GNU split's chunk `index` (0-based) of `count` begins: `index × (total / count)`,
    /// with one-byte chunks when `total < count`; never past the end. `-n l/N` ends its parts at
    /// the first line end at or after these boundaries.
    public static func chunkBoundary(_ index: Int64, total: Int64, count: Int) -> Int64 {
        min(index * max(1, total / Int64(count)), total)
    }
}
