/// Where the parts of a split begin and end: pure arithmetic, computed before anything is written.
public enum SplitPlan {
    /// Parts of exactly `size` bytes, the last one shorter; none for an empty input.
    public static func bySize(total: Int64, size: Int64) -> [Range<Int64>] {
        precondition(size > 0, "a part size must be positive")
        return stride(from: Int64(0), to: total, by: Int(size)).map { $0..<min($0 + size, total) }
    }

    /// `count` parts whose sizes differ by at most one byte (the larger ones first); an input
    /// smaller than `count` bytes still gives `count` parts, some empty.
    public static func byCount(total: Int64, count: Int) -> [Range<Int64>] {
        precondition(count > 0, "a part count must be positive")
        let base = total / Int64(count)
        let extra = total % Int64(count)
        var ranges: [Range<Int64>] = []
        var start: Int64 = 0
        for index in 0..<Int64(count) {
            let length = base + (index < extra ? 1 : 0)
            ranges.append(start..<start + length)
            start += length
        }
        return ranges
    }
}
