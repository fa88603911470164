import ArgumentParser
import GCDCatCore

/// Under `--json`, a failure prints one JSON error object on standard output (besides the
/// message on standard error) and exits with the status it would have anyway.
///
/// Whether `--json` was asked for is read from the command line itself, so that usage errors,
/// which stop before any command exists, get the object too.
enum JSONErrors {
    static let commands = ["merge", "split", "checksum", "verify", "protect", "repair", "uploads", "bench"]

    /// The command line after ``expandingOptionalValues(_:)``.
    static let arguments = expandingOptionalValues(rawArguments)

    /// The subcommand the command line names; merge is the default.
    static let command = commands.first { $0 == arguments.first } ?? "merge"

    /// True when `--json` is among the options (before a `--`).
    static let requested = arguments.prefix { $0 != "--" }.contains("--json")

    /// Writes `report` to standard output when `--json` was given. A failing standard output
    /// cannot be told about, and the exit status already carries the failure.
    static func write(_ report: ErrorReport) {
        var report = report
        report.warnings = Warnings.all
        guard requested, let bytes = try? JSONDocument.encode(report) else { return }
        InterruptHandler.claimStandardOutput()
        try? StandardStreams.writeOutput(bytes)
    }

    /// The object for an error that reached `main`: a usage error (exit 64), or any other
    /// failure that no ``reportingFailures(_:)`` turned into an object. `ExitCode`s are left
    /// alone: the command has printed its document or object already.
    static func writeUnreported(_ error: any Error) {
        guard !(error is ExitCode) else { return }
        let status = GCDCat.exitCode(for: error).rawValue
        guard status != 0 else { return }  // --help, --version
        if let error = error as? GCDCatError {
            write(ErrorReport(command: command, error: error))
        } else {
            write(
                ErrorReport(
                    command: command, code: status == 64 ? ErrorReport.usageCode : GCDCatError.Code.io.rawValue,
                    exitStatus: status, message: GCDCat.message(for: error)))
        }
    }

    /// Has a signal that ends the process print the `interrupted` object first.
    static func reportInterruptions() {
        guard requested else { return }
        let command = command
        InterruptHandler.onInterrupt { number, name in
            let published = publishedDespiteInterruption()
            let error = GCDCatError(
                .interrupted, errno: number,
                message: "interrupted by \(name)"
                    + (published.map { "; \($0.displayName) was published and stays" } ?? "")
                    + (PartRemoval.removedNote(published?.removedParts ?? []).map { "; " + $0 } ?? ""))
            var report = ErrorReport(command: command, error: error)
            report.published = published
            return (try? JSONDocument.encode(report)) ?? []
        }
    }

    /// What the run published before a signal ended it (read by the sweep once nothing more can
    /// be published): published, an output is the run's result and stays, so the `interrupted`
    /// object names it. Several (a split's parts and lists) are each named, by path, in order of
    /// name, with the manifest among them.
    static func publishedDespiteInterruption() -> ErrorReport.Published? {
        let outputs = CleanupRegistry.shared.publishedOutputs
        guard var first = outputs.first else { return nil }
        guard outputs.count > 1 else {
            first.removedParts = CleanupRegistry.shared.removedParts
            return first
        }
        let names = outputs.map(\.output).sorted()
        return ErrorReport.Published(
            output: names[0], verified: false, manifest: CleanupRegistry.shared.publishedManifest, outputs: names)
    }
}
