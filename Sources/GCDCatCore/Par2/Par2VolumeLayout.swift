/// How recovery slices are spread over `NAME.volNN+MM.par2` files, as par2cmdline spreads them.
public enum Par2VolumeLayout: Sendable, Equatable {
    /// par2's default: 1, 2, 4, 8 … slices per file, the last taking the rest; `files` (par2's
    /// `-n`) or as many files as the slice count has bits.
    case variable(files: Int?)
    /// par2's `-u -n N`: N files of (nearly) equal counts, the first ones one more.
    case uniform(files: Int)

    /// The number of volumes par2cmdline makes without `-n`, uniform (`-u`) or not: one per bit
    /// of the recovery slice count (200 slices: 8 volumes).
    public static func defaultFileCount(recoverySlices total: Int) -> Int {
        Int.bitWidth - total.leadingZeroBitCount
    }

    /// The slice count of each volume, in exponent order.
    public func counts(recoverySlices total: Int) -> [Int] {
        guard total > 0 else { return [] }
        switch self {
        case .uniform(let files):
            let files = max(1, min(files, total))
            return (0..<files).map { total / files + ($0 < total % files ? 1 : 0) }
        case .variable(let requested):
            let files = max(1, min(requested ?? Self.defaultFileCount(recoverySlices: total), total))
            var low = 1
            while low * ((1 << min(files, 62)) - 1) < total { low <<= 1 }
            var left = total
            var counts: [Int] = []
            for _ in 0..<files where left > 0 {
                let number = min(low, left)
                counts.append(number)
                left -= number
                low <<= 1
            }
            return counts
        }
    }

    /// The volume names for `base` (`NAME` of `NAME.par2`): `NAME.vol07+08.par2`, the first
    /// exponent as wide as the slice count's digits and the count as wide as the largest count's,
    /// as par2cmdline names them.
    public func names(base: String, recoverySlices total: Int) -> [(name: String, firstExponent: Int, count: Int)] {
        let counts = counts(recoverySlices: total)
        let lowWidth = String(total).count
        let countWidth = String(counts.max() ?? 0).count
        var exponent = 0
        return counts.map { count in
            defer { exponent += count }
            return ("\(base).vol\(padded(exponent, lowWidth))+\(padded(count, countWidth)).par2", exponent, count)
        }
    }

    private func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
