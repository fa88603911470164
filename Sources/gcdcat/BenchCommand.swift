import ArgumentParser
import FoundationEssentials
import GCDCatCore
import Glibc

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
                  gcdcat bench --size 2G --repeat 5 --json-file bench.json --svg bench.svg
                  gcdcat bench --quick --json > bench.json
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

        @Flag(
            help:
                "Print the results as JSON on standard output instead of the table (--json FILE still means --json-file)."
        )
        var json = false

        @Option(help: ArgumentHelp("Write the results as JSON to this file.", valueName: "file"))
        var jsonFile: String?

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
            // The figures multiply the size (three copies must fit on disk); beyond 1P they overflow.
            guard size <= 1 << 50 else {
                throw ValidationError("--size must be at most 1P (got \(size))")
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
                // A file that cannot be written is reported now, not after the whole benchmark.
                for path in [jsonFile, svg].compactMap({ $0 }) {
                    try OutputSink.check(path, inputs: [], overwrite: true)
                }
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
                let clock = ProcessClock()
                let report = try runner.run()
                let document = BenchJSON(report, wallSeconds: clock.elapsed().wall)
                // The file first: if it fails, standard output still holds only the error object.
                if let jsonFile {
                    try writeFile(JSONDocument.encode(document), to: jsonFile)
                }
                if json {
                    try StandardStreams.writeOutput(JSONDocument.encode(document))
                } else {
                    try StandardStreams.printLine(report.table)
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

/// The JSON form: the report plus each cell's derived figures, times to the microsecond.
struct BenchJSON: Encodable {
    var schemaVersion = JSONDocument.schemaVersion
    var command = "bench"
    /// The whole benchmark's wall time.
    var wallSeconds: Double
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

    init(_ report: BenchReport, wallSeconds: Double) {
        self.wallSeconds = roundedToMicroseconds(wallSeconds)
        var rounded = report
        for index in rounded.cells.indices {
            rounded.cells[index].wallSeconds = rounded.cells[index].wallSeconds.map(roundedToMicroseconds)
        }
        self.report = rounded
        results = rounded.cells.map {
            Cell(
                cell: $0, medianSeconds: roundedToMicroseconds($0.medianSeconds),
                minSeconds: roundedToMicroseconds($0.minSeconds),
                maxSeconds: roundedToMicroseconds($0.maxSeconds),
                throughputBytesPerSecond: $0.throughputBytesPerSecond.rounded(),
                ratioToBaseline: rounded.ratioToBaseline($0).map { ($0 * 1e6).rounded() / 1e6 },
                medianPeakRSSBytes: $0.medianPeakRSSBytes, medianPeakRSSAnonBytes: $0.medianPeakRSSAnonBytes,
                medianPeakRSSFileBytes: $0.medianPeakRSSFileBytes)
        }
    }
}

/// Writes `bytes` to the file at `path` (created or replaced), naming the path on failure.
private func writeFile(_ bytes: [UInt8], to path: String) throws {
    let file = try OwnedDescriptor(opening: path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o666)
    try bytes.withUnsafeBytes { try Syscall.writeAll(file.raw, from: $0.baseAddress!, count: $0.count, path: path) }
    try file.close(path: path)
}

/// This executable's path, so the children run the same build.
func currentExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return CommandLine.arguments[0] }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
