import Testing

@testable import GCDCatCore

@Suite struct ProgressMeterTests {
    @Test func aKnownTotalShowsPercentRateAndETA() {
        let line = ProgressMeter.line(
            label: "movie.zip", done: 1 << 30, total: 2 << 30, bytesPerSecond: 1.25e9, columns: 80)
        #expect(line == "movie.zip  1.00 GiB / 2.00 GiB  [#######.......]  50%  1.25 GB/s  ETA 0:00:01")
    }

    @Test func anUnknownTotalShowsNoPercentNorETA() {
        // A stdin split used to print "-  2.62 GiB / 0 B  100%  0.15 GB/s  ETA -18s".
        let line = ProgressMeter.line(label: "-", done: 2_813_203_824, total: nil, bytesPerSecond: 1.5e8)
        #expect(line == "-  2.62 GiB  0.15 GB/s")
    }

    @Test func aTotalTheDataOutgrewIsDropped() {
        let line = ProgressMeter.line(label: "x", done: 3000, total: 2000, bytesPerSecond: 0)
        #expect(line == "x  2.93 KiB  0.00 GB/s")
    }

    @Test(arguments: [20, 30, 50, 64, 80, 200])
    func theLineNeverFillsTheTerminalWidth(columns: Int) {
        let label = "/very/long/folder/name/that/goes/on/and/on/movie.zip"
        let line = ProgressMeter.line(
            label: label, done: 123_456_789, total: 987_654_321, bytesPerSecond: 2.5e8, columns: columns)
        #expect(line.count <= columns - 1, "\(line.count) characters at \(columns) columns: \(line)")
        #expect(line.contains("117.74 MiB"))
    }

    @Test func aNarrowLineKeepsBothEndsOfTheLabel() {
        let line = ProgressMeter.line(
            label: "/data/downloads/ubuntu-24.04-desktop.iso", done: 1 << 30, total: 2 << 30,
            bytesPerSecond: 1e9, columns: 50)
        // The ETA goes first; the label keeps its head and its tail.
        #expect(line == "/data/…p.iso  1.00 GiB / 2.00 GiB  50%  1.00 GB/s")
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
        #expect(line == "m  3.00 MiB / 10.00 MiB  [########....................]  30%  0.00 GB/s  ETA 0:00:08")
    }

    @Test(arguments: [
        (0.2, "0:00:01"), (59, "0:00:59"), (61, "0:01:01"), (3725, "1:02:05"), (.infinity, "--:--:--"),
        (-18, "--:--:--"),
    ])
    func durationsReadLikeClocks(seconds: Double, text: String) {
        #expect(formatDuration(seconds) == text)
    }
}
