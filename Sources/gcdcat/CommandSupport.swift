import ArgumentParser
import Foundation
import GCDCatCore

/// Runs a command's work, turning a ``GCDCatError`` into `gcdcat: message` and its exit status.
func reportingFailures<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as GCDCatError {
        writeToStandardError("gcdcat: \(error)\n")
        throw ExitCode(error.exitStatus)
    }
}

/// Measures an operation: time, memory peaks and a progress bar while it runs.
struct Measurement {
    let clock = ProcessClock()
    let sampler = ResourceSampler()
    let counter = TransferCounter()
    let progress: ProgressMeter?

    init(label: String, total: Int64, quiet: Bool) {
        progress = quiet ? nil : ProgressMeter(label: label, total: total, counter: counter)
        sampler.start()
    }

    /// Stops the sampler and the progress bar.
    func finish() -> (time: (wall: Double, user: Double, system: Double), memory: MemorySample) {
        progress?.finish()
        let memory = sampler.stop()
        return (clock.elapsed(), memory)
    }
}

/// Prints `report` as the options ask: text on standard error, JSON on standard output.
func emit(_ report: RunReport, options: ReportOptions) throws {
    if options.report {
        writeToStandardError(report.text + "\n")
    }
    if options.json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(report)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
