import ArgumentParser
import FoundationEssentials
import GCDCatCore
import Glibc
import Synchronization

/// Every warning of this run: printed on standard error as it happens, and kept so that the
/// JSON document (report or error object) carries each one too.
enum Warnings {
    private static let lines = Mutex<[String]>([])

    /// Prints `gcdcat: warning: TEXT` and records `text`.
    static func warn(_ text: String) {
        lines.withLock { $0.append(text) }
        writeToStandardError("gcdcat: warning: \(text)\n")
    }

    /// The warnings so far, in order.
    static var all: [String] { lines.withLock { $0 } }
}

/// Runs a command's work, turning a ``GCDCatError`` into `gcdcat: message` and its exit status
/// (and, under `--json`, the JSON error object on standard output).
func reportingFailures<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as GCDCatError {
        throw reportFailure(error)
    } catch let failure as FailureAfterPublishing {
        throw reportFailure(failure.error, published: failure.published)
    }
}

/// Prints `error` (and what was published despite it, and what was left behind) on standard
/// error and its JSON object under `--json`; returns the exit status to end with.
func reportFailure(_ error: GCDCatError, published: ErrorReport.Published? = nil) -> ExitCode {
    // A reader that went away: exit 141 without a word, as `cat` does, whichever of the EPIPE
    // and the SIGPIPE arrived first.
    if error.errno == EPIPE, error.code != .interrupted, InterruptHandler.closedPipeEndsProcess {
        InterruptHandler.endForClosedPipe()
    }
    // Only a signal's sweep interrupts: it says what was left (and, under --json, the document), once.
    if error.code == .interrupted { InterruptHandler.awaitSweep() }
    // A failure the sweep caused (an UploadPart under way when it aborted the upload) is the
    // signal's too: the exit status is 128+N, and the sweep says what is left.
    InterruptHandler.yieldToArrivedSignal()
    writeToStandardError("gcdcat: \(error)\n")
    if let published {
        let check = published.manifest.map { ", verified against \($0.displayPath)," } ?? ""
        writeToStandardError("gcdcat: \(published.displayName) was published\(check) and stays\n")
        if let removed = PartRemoval.removedNote(published.removedParts) {
            writeToStandardError("gcdcat: \(removed)\n")
        }
    }
    for line in CleanupRegistry.shared.takeLeftBehind() { writeToStandardError("gcdcat: left behind: \(line)\n") }
    var report = ErrorReport(command: JSONErrors.command, error: error)
    report.published = published
    JSONErrors.write(report)
    return ExitCode(error.exitStatus)
}

/// Runs `body` while measuring it: time, memory peaks, and a progress bar over the bytes it
/// counts. The sampler and the bar are stopped whether `body` succeeds or throws.
func measured<T>(
    label: String, total: Int64, quiet: Bool, since clock: ProcessClock = ProcessClock(),
    _ body: (TransferCounter) throws -> T
) throws -> (value: T, time: (wall: Double, user: Double, system: Double), memory: MemorySample) {
    let sampler = ResourceSampler()
    let counter = TransferCounter()
    let progress = quiet ? nil : ProgressMeter(label: label, total: total, counter: counter)
    let watchdog = StallWatchdog(counter: counter, outputName: label)
    sampler.start()
    defer {
        watchdog.stop()
        progress?.finish()
    }
    do {
        let value = try body(counter)
        let memory = sampler.stop()
        return (value, clock.elapsed(), memory)
    } catch {
        _ = sampler.stop()
        throw error
    }
}

/// The core's ``MergeJob/Measure`` for a command's run: ``measured(label:total:quiet:since:_:)``'s
/// progress (unless `quiet`), time and memory.
func measuring(quiet: Bool) -> MergeJob.Measure {
    { label, total, clock, body in
        let (_, time, memory) = try measured(label: label, total: total, quiet: quiet, since: clock, body)
        return (time, memory)
    }
}

/// Shows the engines' notes (``RunNotes``: an upload resumed, one an earlier run left aborted)
/// on standard error as they come, unless `-q`; ``emit(_:options:)`` puts them in the report.
func showRunNotes(quiet: Bool) {
    guard !quiet else { return RunNotes.show(with: nil) }
    RunNotes.show { writeToStandardError("gcdcat: note: \($0)\n") }
}

/// Prints `report` as the options ask: text on standard error, JSON on standard output. The
/// output is already published: see ``afterPublishing(_:manifest:_:)``.
func emit(_ report: RunReport, options: ReportOptions) throws {
    // A signal that came as the output was published, or since: the run was interrupted, and
    // its sweep says so, naming what was published (which stays), as it does during the publish.
    InterruptHandler.yieldToArrivedSignal()
    var report = report
    report.warnings = Warnings.all
    report.notes += RunNotes.take()
    // A split's PAR2 volumes and index were published with its parts, and stay as well.
    let recovery = report.recovery.map { $0.volumes + [$0.index] } ?? []
    let published = (report.output.map { [$0] } ?? report.outputs) + recovery
    let manifest = report.verified ? report.manifest : nil
    if options.report {
        try afterPublishing(published, manifest: manifest) {
            try StandardStreams.writeErrorReport(report.text + "\n")
        }
    }
    if options.json {
        try afterPublishing(published, manifest: manifest) {
            InterruptHandler.claimStandardOutput()
            try StandardStreams.writeOutput(JSONDocument.encode(report))
        }
    }
}

/// Runs `write`, a write to standard output or standard error after `outputs` were published
/// (the JSON report, `--report`'s text, split's `--verbose` lines). Its failure must not read as
/// a failed merge or split: a reader gone away (EPIPE) still ends gcdcat with 141 and no word
/// (``reportFailure(_:published:)``), and any other failure (a closed descriptor, `/dev/full`)
/// exits 1 saying that the output was published and stays, and that only the report was lost
/// (said on standard error, where it can be: with standard error full, the exit status and the
/// `--json` error object's `published` tell it).
func afterPublishing(_ outputs: [String], manifest: String?, _ write: () throws -> Void) throws {
    do {
        try write()
    } catch let error as GCDCatError
        where ["standard output", "standard error"].contains(error.path) && !outputs.isEmpty
    {
        var lost = error
        lost.message += "; only the report was lost"
        throw FailureAfterPublishing(
            error: lost,
            published: ErrorReport.Published(
                output: outputs[0], verified: manifest != nil, manifest: manifest, outputs: outputs))
    }
}
