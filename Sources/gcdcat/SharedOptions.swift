import ArgumentParser
import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// `--high-water`, `--low-water` and `--jobs`, shared by every command that moves bytes.
struct TransferOptions: ParsableArguments {
    @Option(
        name: .customLong("high-water"), parsing: .unconditional,
        help: ArgumentHelp(
            "Largest chunk per read or write, and the size of each buffer: 4096, 64K, 1M, 2MiB, 1MB "
                + "(K/M/G are powers of 1024, KB/MB/GB of 1000). libdispatch caps each syscall at 1 MiB on Linux.",
            valueName: "size"),
        transform: parsePositiveSize)
    var highWater: Int = ChunkLimits.defaultHighWater

    @Option(
        name: .customLong("low-water"), parsing: .unconditional,
        help: ArgumentHelp(
            "Smallest chunk DispatchIO delivers before calling back (default: libdispatch's own).",
            valueName: "size"),
        transform: parsePositiveSize)
    var lowWater: Int?

    @OptionGroup var parallelism: JobsOption

    var jobs: Int { parallelism.jobs(objects: false) }

    /// `--jobs`, or the default for work that moves `s3://` objects when `objects`.
    func jobs(objects: Bool) -> Int { parallelism.jobs(objects: objects) }

    func limits() throws -> ChunkLimits {
        do {
            return try ChunkLimits.userChosen(highWater: highWater, lowWater: lowWater)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func validate() throws {
        _ = try limits()
    }
}

/// `--jobs`, declared once for every command, with one default policy: the number of cores
/// for work on local files (CPU and disk bound), at least ``minimumObjectJobs`` for `s3://`
/// objects (requests wait on the network and the server more than on the cores).
struct JobsOption: ParsableArguments {
    // Optional, so that help prints "the number of cores" once, not also this machine's count.
    @Option(
        name: [.customShort("j"), .customLong("jobs")], parsing: .unconditional,
        help: ArgumentHelp(
            "Work at once, 1 to 1024: threads or queues on local files (default: the number of cores), requests "
                + "in flight for s3:// objects (default: at least \(minimumObjectJobs), each holding a 16 MiB upload part "
                + "or an 8 MiB download range).",
            valueName: "jobs"))
    var requested: Int?

    /// `--jobs`, or the default for the kind of work: `objects` when it moves `s3://` objects.
    func jobs(objects: Bool) -> Int {
        requested ?? (objects ? max(defaultJobs, minimumObjectJobs) : defaultJobs)
    }

    func validate() throws {
        if let requested { try checkJobs(requested) }
    }
}

/// `--report`, and the options every command has (``OutputOptions``).
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print a time and memory report on standard error when done.")
    var report = false

    @OptionGroup var output: OutputOptions

    var json: Bool { output.json }
    var quiet: Bool { output.quiet }
}

/// `--json` and `--quiet`, declared once for every command.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON document on standard output when done (on failure, a JSON error object).")
    var json = false

    @Flag(
        name: [.short, .long],
        help: ArgumentHelp(
            "Print nothing but errors and warnings: no progress line, no summary (verify: only the files that are "
                + "not OK, as sha256sum --quiet)."))
    var quiet = false
}

let defaultJobs = min(maximumJobs, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

/// Requests in flight for `s3://` transfers when `--jobs` is not given: they wait on the network
/// and the server more than on the cores (measured in docs/notes/s3.md, "Upload concurrency").
/// Memory is about jobs × 16 MiB for uploads (one part buffer each), jobs × 8 MiB for downloads.
let minimumObjectJobs = 8

/// More queues than this only adds threads: the work is bound by the disk and the cores long
/// before, and a bound keeps products such as jobs × 4 far from overflow.
let maximumJobs = 1024

/// Throws a usage error unless `jobs` is within 1…``maximumJobs``.
func checkJobs(_ jobs: Int) throws {
    guard jobs >= 1 else { throw ValidationError("--jobs must be positive (got \(jobs))") }
    guard jobs <= maximumJobs else { throw ValidationError("--jobs must be at most \(maximumJobs) (got \(jobs))") }
}
