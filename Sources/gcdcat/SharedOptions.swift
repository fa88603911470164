import ArgumentParser
import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// `--high-water`, `--low-water` and `--jobs`, shared by every command that moves bytes.
struct TransferOptions: ParsableArguments {
    @Option(
        name: .customLong("high-water"),
        help: ArgumentHelp(
            "Largest chunk per read or write, and the size of each buffer (4096, 64K, 1M, 2MiB, 1MB).",
            discussion: "K/M/G are powers of 1024, KB/MB/GB of 1000. libdispatch caps each syscall at 1 MiB on Linux.",
            valueName: "size"),
        transform: parsePositiveSize)
    var highWater: Int = ChunkLimits.defaultHighWater

    @Option(
        name: .customLong("low-water"),
        help: ArgumentHelp(
            "Smallest chunk DispatchIO delivers before calling back (default: libdispatch's own).",
            valueName: "size"),
        transform: parsePositiveSize)
    var lowWater: Int?

    @Option(name: [.short, .long], help: "Queues that work at once (default: the number of cores).")
    var jobs: Int = defaultJobs

    func limits() throws -> ChunkLimits {
        do {
            return try ChunkLimits(highWater: highWater, lowWater: lowWater)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func validate() throws {
        _ = try limits()
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }
}

/// `--report`, `--json` and `--quiet`.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print a time and memory report on standard error when done.")
    var report = false

    @Flag(help: "Print the report as JSON on standard output when done.")
    var json = false

    @Flag(name: [.short, .long], help: "Show no progress bar.")
    var quiet = false
}

let defaultJobs = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
