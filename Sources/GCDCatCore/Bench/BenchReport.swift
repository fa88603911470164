/// The measurements of one contender: a strategy at one high-water mark, or a baseline tool.
public struct BenchCell: Codable, Sendable, Equatable {
    /// `merge`, `split` or `checksum`.
    public var group: String
    /// `cat`, `auto`, `stream`, …, `split (GNU)`, `rhash --crc32`.
    public var name: String
    public var isBaseline: Bool
    public var highWater: Int?
    public var bytes: Int64
    public var wallSeconds: [Double] = []
    public var peakRSSBytes: [Int64] = []
    /// From gcdcat's own report; baselines have none.
    public var peakRSSAnonBytes: [Int64] = []
    public var peakRSSFileBytes: [Int64] = []
    /// False when any run produced a wrong result or failed; its times then mean nothing.
    public var correct = true
    public var failure: String?

    public var medianSeconds: Double { median(wallSeconds) }
    public var minSeconds: Double { wallSeconds.min() ?? 0 }
    public var maxSeconds: Double { wallSeconds.max() ?? 0 }
    public var throughputBytesPerSecond: Double { medianSeconds > 0 ? Double(bytes) / medianSeconds : 0 }
    public var medianPeakRSSBytes: Int64 { Int64(median(peakRSSBytes.map(Double.init))) }
    public var medianPeakRSSAnonBytes: Int64? {
        peakRSSAnonBytes.isEmpty ? nil : Int64(median(peakRSSAnonBytes.map(Double.init)))
    }
    public var medianPeakRSSFileBytes: Int64? {
        peakRSSFileBytes.isEmpty ? nil : Int64(median(peakRSSFileBytes.map(Double.init)))
    }

    public init(group: String, name: String, isBaseline: Bool, highWater: Int?, bytes: Int64) {
        self.group = group
        self.name = name
        self.isBaseline = isBaseline
        self.highWater = highWater
        self.bytes = bytes
    }
}

/// The machine a benchmark ran on.
public struct BenchMachine: Codable, Sendable, Equatable {
    public var cores: Int
    public var memoryBytes: Int64
    public var kernel: String
    public var filesystem: String
}

/// A whole benchmark: settings, machine and every cell, with ratios against the baselines.
public struct BenchReport: Codable, Sendable {
    public var gcdcatVersion: String
    public var machine: BenchMachine
    public var totalBytes: Int64
    public var parts: Int
    public var repeats: Int
    public var coldCache: Bool
    /// Why a requested cold run was not cold, if it was not.
    public var coldCacheNote: String?
    public var cells: [BenchCell]

    /// Baseline median / cell median: above 1 means faster than the baseline.
    public func ratioToBaseline(_ cell: BenchCell) -> Double? {
        guard let baseline = cells.first(where: { $0.group == cell.group && $0.isBaseline }),
            cell.medianSeconds > 0
        else { return nil }
        return baseline.medianSeconds / cell.medianSeconds
    }

    /// The table for a person: one row per cell, grouped.
    public var table: String {
        var lines: [String] = []
        let header = [
            "group", "contender", "high-water", "median s", "min s", "max s", "GB/s", "× base", "peak RSS",
            "RssAnon", "RssFile", "ok",
        ]
        var rows: [[String]] = []
        for cell in cells {
            let mib = { (bytes: Int64?) in bytes.map { "\(formatFixed(Double($0) / 1_048_576, decimals: 1))M" } ?? "-" }
            rows.append([
                cell.group, cell.name, cell.highWater.map { ByteSize(Int64($0)).description } ?? "-",
                formatFixed(cell.medianSeconds, decimals: 3), formatFixed(cell.minSeconds, decimals: 3),
                formatFixed(cell.maxSeconds, decimals: 3),
                formatFixed(cell.throughputBytesPerSecond / 1e9, decimals: 2),
                ratioToBaseline(cell).map { formatFixed($0, decimals: 2) } ?? "-",
                mib(cell.medianPeakRSSBytes), mib(cell.medianPeakRSSAnonBytes), mib(cell.medianPeakRSSFileBytes),
                cell.correct ? "yes" : "WRONG",
            ])
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func render(_ row: [String]) -> String {
            row.enumerated().map { index, text in
                let pad = String(repeating: " ", count: widths[index] - text.count)
                return index < 3 ? text + pad : pad + text
            }.joined(separator: "  ")
        }
        lines.append(
            "\(ByteSize.humanReadable(totalBytes)) in \(parts) parts, \(coldCache ? "cold" : "hot") cache, "
                + "\(repeats) runs per cell; \(machine.cores) cores, \(ByteSize.humanReadable(machine.memoryBytes)), "
                + "\(machine.filesystem), Linux \(machine.kernel)")
        if let coldCacheNote { lines.append("note: \(coldCacheNote)") }
        lines.append(render(header))
        lines += rows.map(render)
        for cell in cells where !cell.correct {
            lines.append("FAILED: \(cell.group) \(cell.name): \(cell.failure ?? "wrong output")")
        }
        return lines.joined(separator: "\n")
    }

    public var allCorrect: Bool { cells.allSatisfy(\.correct) }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
