import ArgumentParser
import Foundation
import GCDCatCore

extension GCDCat {
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure every merge strategy × chunk size against cat, split and rhash.",
            usage: "gcdcat bench [<options>]",
            discussion: """
                Generates seeded random data once, then runs each contender as its own \
                'gcdcat … --json' child process, interleaved with the baseline (cat for merge, \
                GNU split for split, rhash for checksum) in the same loop. Every output is \
                checked against the data's crc32: a wrong output is reported as a failure \
                (exit 1), not as a time.

                The table shows, per cell, the median, min and max wall time, GB/s, the ratio \
                to the baseline's median (above 1 is faster), and the peak RSS, RssAnon and \
                RssFile (the last two from gcdcat's own report).

                Examples:
                  gcdcat bench --quick
                  gcdcat bench --size 2G --repeat 5 --json bench.json --svg bench.svg
                  gcdcat bench --strategies auto,stream --high-water 1M --cold
                """)

        @Option(help: ArgumentHelp("Total data size.", valueName: "size"), transform: parsePositiveSize)
        var size: Int = 1 << 30

        @Option(parsing: .unconditional, help: "Number of parts, 1 to 10000.")
        var parts: Int = 4

        @Option(help: ArgumentHelp("Strategies to run, comma-separated (default: all).", valueName: "list"))
        var strategies: String?

        @Option(
            name: .customLong("high-water"),
            help: ArgumentHelp("Chunk sizes to try, comma-separated.", valueName: "list"))
        var highWaters: String = "64K,1M,2M,8M"

        @Option(parsing: .unconditional, help: "Runs per cell, 1 to 1000.")
        var `repeat`: Int = 5

        @Flag(help: "Drop the page cache before each run (needs root; says so when it cannot).")
        var cold = false

        @Option(
            help: ArgumentHelp(
                "Where the data goes (default: a temporary folder, removed afterwards).", valueName: "dir"))
        var dir: String?

        @Option(help: ArgumentHelp("Write the results as JSON to this file.", valueName: "file"))
        var json: String?

        @Option(help: ArgumentHelp("Write a chart as SVG to this file.", valueName: "file"))
        var svg: String?

        @Flag(help: "A run of under a minute: 256 MiB, 2 repeats, high-water 64K and 1M.")
        var quick = false

        @Flag(help: "Leave out the split and checksum rows.")
        var mergeOnly = false

        func validate() throws {
            guard (1...10_000).contains(parts) else {
                throw ValidationError("--parts must be from 1 to 10000 (got \(parts))")
            }
            guard (1...1000).contains(`repeat`) else {
                throw ValidationError("--repeat must be from 1 to 1000 (got \(`repeat`))")
            }
            _ = try strategyList()
            _ = try highWaterList()
        }

        func strategyList() throws -> [MergeStrategyKind] {
            guard let strategies else { return MergeStrategyKind.allCases }
            return try strategies.split(separator: ",").map {
                guard let kind = MergeStrategyKind(rawValue: String($0)) else {
                    throw ValidationError(
                        "--strategies: unknown strategy '\($0)' (choose from \(MergeStrategyKind.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                return kind
            }
        }

        func highWaterList() throws -> [Int] {
            try highWaters.split(separator: ",").map {
                do {
                    let size = try parsePositiveSize(String($0))
                    guard ChunkLimits.allowedHighWater.contains(size) else {
                        throw ValidationError("must be from 4K to 1G")
                    }
                    return size
                } catch let error as ValidationError {
                    throw ValidationError("--high-water: '\($0)': \(error.message)")
                }
            }
        }

        func run() throws {
            InterruptHandler.install()
            try reportingFailures {
                var settings = BenchSettings(
                    totalBytes: Int64(size), parts: parts, strategies: try strategyList(),
                    highWaters: try highWaterList(), repeats: `repeat`, cold: cold, directory: dir,
                    includeSplit: !mergeOnly, includeChecksum: !mergeOnly)
                if quick {
                    settings.totalBytes = 256 << 20
                    settings.repeats = 2
                    settings.highWaters = [64 << 10, 1 << 20]
                }
                var runner = BenchRunner(
                    settings: settings, executable: currentExecutablePath(), version: gcdcatVersion)
                runner.log = { writeToStandardError($0 + "\n") }
                let report = try runner.run()
                try StandardStreams.printLine(report.table)
                if let json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    try encoder.encode(BenchJSON(report)).write(to: URL(fileURLWithPath: json))
                }
                if let svg {
                    try BenchChart.svg(report).write(toFile: svg, atomically: true, encoding: .utf8)
                }
                guard report.allCorrect else {
                    throw GCDCatError(.io, message: "some contenders produced wrong output; see FAILED above")
                }
            }
        }
    }
}

/// The JSON form: the report plus each cell's derived figures.
struct BenchJSON: Encodable {
    struct Cell: Encodable {
        var cell: BenchCell
        var medianSeconds: Double
        var minSeconds: Double
        var maxSeconds: Double
        var throughputBytesPerSecond: Double
        var ratioToBaseline: Double?
        var medianPeakRSSBytes: Int64
        var medianPeakRSSAnonBytes: Int64?
        var medianPeakRSSFileBytes: Int64?
    }

    var report: BenchReport
    var results: [Cell]

    init(_ report: BenchReport) {
        self.report = report
        results = report.cells.map {
            Cell(
                cell: $0, medianSeconds: $0.medianSeconds, minSeconds: $0.minSeconds, maxSeconds: $0.maxSeconds,
                throughputBytesPerSecond: $0.throughputBytesPerSecond, ratioToBaseline: report.ratioToBaseline($0),
                medianPeakRSSBytes: $0.medianPeakRSSBytes, medianPeakRSSAnonBytes: $0.medianPeakRSSAnonBytes,
                medianPeakRSSFileBytes: $0.medianPeakRSSFileBytes)
        }
    }
}

/// This executable's path, so the children run the same build.
func currentExecutablePath() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}
