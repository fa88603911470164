import ArgumentParser
import FoundationEssentials
import GCDCatCore

/// Runs a command's work, turning a ``GCDCatError`` into `gcdcat: message` and its exit status
/// (and, under `--json`, the JSON error object on standard output).
func reportingFailures<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as GCDCatError {
        writeToStandardError("gcdcat: \(error)\n")
        for line in CleanupRegistry.shared.takeLeftBehind() { writeToStandardError("gcdcat: left behind: \(line)\n") }
        JSONErrors.write(ErrorReport(command: JSONErrors.command, error: error))
        throw ExitCode(error.exitStatus)
    }
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

/// Prints `report` as the options ask: text on standard error, JSON on standard output.
func emit(_ report: RunReport, options: ReportOptions) throws {
    if options.report {
        writeToStandardError(report.text + "\n")
    }
    if options.json {
        try StandardStreams.writeOutput(JSONDocument.encode(report))
    }
}
