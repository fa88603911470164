import Testing

@testable import GCDCatCore

@Suite struct ProgressMeterTests {
    @Test func aKnownTotalShowsPercentRateAndETA() {
        let line = ProgressMeter.line(
            label: "movie.zip", done: 1 << 30, total: 2 << 30, bytesPerSecond: 1.25 * 1024 * 1024 * 1024, columns: 80)
        #expect(line == "movie.zip  1.00 GiB / 2.00 GiB  [#######........]  50%  1.25 GiB/s  ETA 0:00:01")
    }

    @Test func anUnknownTotalShowsNoPercentNorETA() {
        // A stdin split used to print "-  2.62 GiB / 0 B  100%  0.15 GB/s  ETA -18s".
        let line = ProgressMeter.line(label: "-", done: 2_813_203_824, total: nil, bytesPerSecond: Double(150 << 20))
        #expect(line == "-  2.62 GiB  150.00 MiB/s")
    }

    @Test func aTotalTheDataOutgrewIsDropped() {
        let line = ProgressMeter.line(label: "x", done: 3000, total: 2000, bytesPerSecond: 0)
        #expect(line == "x  2.93 KiB  0 B/s")
    }

    /// The rate is in the units of the sizes: 30 MiB/s, not "0.03 GB/s".
    @Test func theRateUsesTheBinaryUnitsOfTheSizes() {
        let line = ProgressMeter.line(
            label: "m", done: 300 << 20, total: 600 << 20, bytesPerSecond: Double(30 << 20), columns: 80)
        #expect(line.contains("  30.00 MiB/s  ETA 0:00:10"), "\(line)")
    }

    static let path = "/very/long/folder/name/that/goes/on/and/on/movie.zip.003"

    /// pv's order when narrow: the bar goes first, then the label (cut from the left, keeping
    /// the file name), then the total, the sizes and the percentage; the rate and ETA stay.
    @Test(arguments: [
        (20, "238.42 MiB/s"),
        (40, "12%  238.42 MiB/s  ETA 0:00:04"),
        (80, "…/and/on/movie.zip.003  117.74 MiB / 941.90 MiB  12%  238.42 MiB/s  ETA 0:00:04"),
        (
            200,
            "/very/long/folder/name/that/goes/on/and/on/movie.zip.003  117.74 MiB / 941.90 MiB  [###.........................]  "
                + "12%  238.42 MiB/s  ETA 0:00:04"
        ),
    ])
    func aNarrowLineKeepsTheRateAndETABeforeTheLabelAndBar(columns: Int, expected: String) {
        let line = ProgressMeter.line(
            label: Self.path, done: 123_456_789, total: 987_654_321, bytesPerSecond: 2.5e8, columns: columns)
        #expect(line == expected)
        #expect(line.count <= columns - 1, "\(line.count) characters at \(columns) columns: \(line)")
    }

    @Test(arguments: [20, 30, 40, 50, 64, 80, 120, 200])
    func theLineNeverFillsTheTerminalWidth(columns: Int) {
        let line = ProgressMeter.line(
            label: Self.path, done: 123_456_789, total: 987_654_321, bytesPerSecond: 2.5e8, columns: columns)
        #expect(line.count <= columns - 1, "\(line.count) characters at \(columns) columns: \(line)")
        #expect(line.contains("238.42 MiB/s"))
        if columns >= 30 { #expect(line.contains("ETA 0:00:04")) }
    }

    /// A label is cut from the left at a `/` or between words, never inside one.
    @Test(arguments: [
        ("/data/downloads/dir/movie.zip.003", 19, "…/dir/movie.zip.003"),
        ("/data/downloads/dir/movie.zip.003", 14, "…movie.zip.003"),
        ("/data/downloads/dir/movie.zip.003", 13, nil),
        ("standard output", 12, "…output"),
        ("standard output", 6, nil),
        ("checking s.sfv", 40, "checking s.sfv"),
    ])
    func labelsAreCutFromTheLeftAtABoundary(label: String, width: Int, expected: String?) {
        #expect(leftElided(label, to: width) == expected)
    }

    @Test func aNarrowLineNeverCutsTheLabelMidWord() {
        let line = ProgressMeter.line(
            label: "standard output", done: 1 << 30, total: 2 << 30, bytesPerSecond: Double(1 << 30), columns: 38)
        #expect(line == "…output  50%  1.00 GiB/s  ETA 0:00:01")
    }

    @Test func theRateFollowsTheLastSecondsNotTheWholeRun() {
        let window = RateWindow(span: 3)
        // 10 s at 1 GB/s, then throughput collapses to 10 MB/s.
        var bytes: Int64 = 0
        for tick in 0...50 {
            _ = window.record(bytes: bytes, at: Double(tick) * 0.2)
            bytes += 200_000_000
        }
        var rate = 0.0
        for tick in 51...80 {
            bytes += 2_000_000
            rate = window.record(bytes: bytes, at: Double(tick) * 0.2)
        }
        // An average since the start would still say about 0.6 GB/s.
        #expect(rate < 20_000_000, "rate \(rate)")
        #expect(rate > 5_000_000, "rate \(rate)")
    }

    @Test func aWideTerminalGetsABarOfAtMostThirtyColumns() {
        let line = ProgressMeter.line(label: "m", done: 3 << 20, total: 10 << 20, bytesPerSecond: 1e6, columns: 200)
        #expect(line == "m  3.00 MiB / 10.00 MiB  [########....................]  30%  976.56 KiB/s  ETA 0:00:08")
    }

    @Test(arguments: [
        (0.2, "0:00:01"), (59, "0:00:59"), (61, "0:01:01"), (3725, "1:02:05"), (.infinity, "--:--:--"),
        (-18, "--:--:--"),
    ])
    func durationsReadLikeClocks(seconds: Double, text: String) {
        #expect(formatDuration(seconds) == text)
    }
}
