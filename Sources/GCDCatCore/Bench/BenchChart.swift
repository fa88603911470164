/// An SVG chart of a ``BenchReport``'s merge cells: GB/s per strategy and high-water mark, with
/// `cat` as a dashed reference line, and peak RssAnon beside it.
public enum BenchChart {
    static let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1"]

    public static func svg(_ report: BenchReport) -> String {
        // The chart compares strategies by high-water; rows without one (auto verified) are in the table.
        let merge = report.cells.filter { $0.group == "merge" && !$0.isBaseline && $0.highWater != nil }
        let strategies = unique(merge.map(\.name))
        let highWaters = unique(merge.compactMap(\.highWater))
        let baseline = report.cells.first { $0.group == "merge" && $0.isBaseline }
        let catRate = (baseline?.throughputBytesPerSecond ?? 0) / 1e9
        let width = 980.0
        let height = 440.0
        var svg = Canvas(width: width, height: height)
        svg.text(
            x: width / 2, y: 24, size: 16, anchor: "middle", weight: "bold",
            "gcdcat merge: \(ByteSize.humanReadable(report.totalBytes)) in \(report.parts) parts, "
                + "\(report.coldCache ? "cold" : "hot") cache, median of \(report.repeats)")

        let speedPanel = Panel(x: 70, y: 70, width: 520, height: 300)
        let speedMax = niceCeiling(max(catRate, merge.map { $0.throughputBytesPerSecond / 1e9 }.max() ?? 0) * 1.1)
        svg.axes(speedPanel, maximum: speedMax, label: "GB/s (higher is better)")
        svg.bars(
            speedPanel, groups: strategies, series: highWaters, maximum: speedMax,
            value: { strategy, highWater in
                merge.first { $0.name == strategy && $0.highWater == highWater }.map {
                    $0.correct ? $0.throughputBytesPerSecond / 1e9 : 0
                }
            })
        if catRate > 0 {
            let y = speedPanel.y + speedPanel.height * (1 - catRate / speedMax)
            svg.line(
                x1: speedPanel.x, y1: y, x2: speedPanel.x + speedPanel.width, y2: y, color: "#333", dashed: true)
            svg.text(
                x: speedPanel.x + speedPanel.width - 4, y: y - 6, size: 12, anchor: "end",
                "cat \(formatFixed(catRate, decimals: 2)) GB/s")
        }

        let memoryPanel = Panel(x: 680, y: 70, width: 270, height: 300)
        let anon = { (cell: BenchCell) in Double(cell.medianPeakRSSAnonBytes ?? 0) / 1_048_576 }
        let memoryMax = niceCeiling(max(1, merge.map(anon).max() ?? 0) * 1.1)
        svg.axes(memoryPanel, maximum: memoryMax, label: "peak RssAnon MiB (lower is better)")
        svg.bars(
            memoryPanel, groups: strategies, series: highWaters, maximum: memoryMax,
            value: { strategy, highWater in
                merge.first { $0.name == strategy && $0.highWater == highWater }.map(anon)
            })

        let fileBacked = merge.compactMap { cell in cell.medianPeakRSSFileBytes.map { (cell.name, $0) } }
            .filter { $0.1 > 64 << 20 }
        if let largest = fileBacked.max(by: { $0.1 < $1.1 }) {
            svg.text(
                x: memoryPanel.x, y: memoryPanel.y + memoryPanel.height + 34, size: 11,
                "\(largest.0) also maps the data: RssFile \(ByteSize.humanReadable(largest.1))")
        }

        var legendX = 70.0
        for (index, highWater) in highWaters.enumerated() {
            svg.rect(x: legendX, y: 404, width: 14, height: 14, color: palette[index % palette.count])
            svg.text(x: legendX + 20, y: 416, size: 12, "high-water \(ByteSize(Int64(highWater)))")
            legendX += 150
        }
        svg.text(
            x: width - 10, y: height - 8, size: 10, anchor: "end",
            "\(report.machine.cores) cores, \(ByteSize.humanReadable(report.machine.memoryBytes)), \(report.machine.filesystem), Linux \(report.machine.kernel); gcdcat \(report.gcdcatVersion)"
        )
        return svg.finished()
    }

    /// 1, 2 or 5 times a power of ten, at or above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        var magnitude = 1.0
        while magnitude * 10 <= value { magnitude *= 10 }
        while magnitude > value { magnitude /= 10 }
        for step in [1.0, 2.0, 5.0, 10.0] where step * magnitude >= value { return step * magnitude }
        return 10 * magnitude
    }

    private static func unique<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }
}

private struct Panel {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
}

/// A minimal SVG writer: only what the chart needs, with text escaped.
private struct Canvas {
    private var body: [String] = []
    let width: Double
    let height: Double

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
        body.append("<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>")
    }

    mutating func text(
        x: Double, y: Double, size: Double, anchor: String = "start", weight: String = "normal", _ content: String
    ) {
        body.append(
            "<text x=\"\(n(x))\" y=\"\(n(y))\" font-family=\"sans-serif\" font-size=\"\(n(size))\" "
                + "text-anchor=\"\(anchor)\" font-weight=\"\(weight)\" fill=\"#222\">\(escape(content))</text>")
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, color: String) {
        body.append(
            "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"\(color)\"/>")
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, color: String, dashed: Bool = false) {
        body.append(
            "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(color)\" "
                + "stroke-width=\"1.5\"\(dashed ? " stroke-dasharray=\"6 4\"" : "")/>")
    }

    mutating func axes(_ panel: Panel, maximum: Double, label: String) {
        line(x1: panel.x, y1: panel.y, x2: panel.x, y2: panel.y + panel.height, color: "#888")
        line(
            x1: panel.x, y1: panel.y + panel.height, x2: panel.x + panel.width, y2: panel.y + panel.height,
            color: "#888")
        for step in 0...4 {
            let value = maximum * Double(step) / 4
            let y = panel.y + panel.height * (1 - Double(step) / 4)
            line(x1: panel.x - 4, y1: y, x2: panel.x, y2: y, color: "#888")
            let whole = value == value.rounded()
            text(x: panel.x - 8, y: y + 4, size: 11, anchor: "end", formatFixed(value, decimals: whole ? 0 : 1))
        }
        text(x: panel.x, y: panel.y - 12, size: 12, label)
    }

    mutating func bars(
        _ panel: Panel, groups: [String], series: [Int], maximum: Double, value: (String, Int) -> Double?
    ) {
        guard !groups.isEmpty, !series.isEmpty else { return }
        let groupWidth = panel.width / Double(groups.count)
        let barWidth = groupWidth * 0.8 / Double(series.count)
        for (groupIndex, group) in groups.enumerated() {
            let groupX = panel.x + groupWidth * Double(groupIndex) + groupWidth * 0.1
            for (seriesIndex, key) in series.enumerated() {
                guard let amount = value(group, key) else { continue }
                let barHeight = panel.height * min(amount / maximum, 1)
                rect(
                    x: groupX + barWidth * Double(seriesIndex), y: panel.y + panel.height - barHeight,
                    width: max(barWidth - 2, 1), height: barHeight,
                    color: BenchChart.palette[seriesIndex % BenchChart.palette.count])
            }
            text(x: groupX + groupWidth * 0.4, y: panel.y + panel.height + 16, size: 12, anchor: "middle", group)
        }
    }

    func finished() -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" "
            + "viewBox=\"0 0 \(n(width)) \(n(height))\">\n" + body.joined(separator: "\n") + "\n</svg>\n"
    }

    private func n(_ value: Double) -> String { formatFixed(value, decimals: 1) }

    private func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
