import ArgumentParser
import GCDCatCore

/// `--take-over-after`, for the commands that upload from local files (merge and split into
/// objects), whose rerun resumes what a killed run left on the same key (``UploadResumption``).
struct UploadTakeOverOption: ParsableArguments {
    @Option(
        name: .customLong("take-over-after"),
        help: ArgumentHelp(
            "Take over an unfinished upload an earlier run left on an s3:// output (resume it, or abort it when "
                + "the output's crc32 is not known at its start) only if nothing was written to it for this long (by "
                + "the server's clock); a more recent one may be another run's, and is refused: 0, 90s, 5m, 2h.",
            valueName: "duration"))
    var takeOverAfter = "5m"

    func validate() throws {
        _ = try parseDuration(takeOverAfter, option: "--take-over-after", allowingZero: true)
    }

    /// Makes the rule the run's: called before any upload begins.
    func apply() throws {
        UploadResumption.setIdleBeforeTakeOver(
            try parseDuration(takeOverAfter, option: "--take-over-after", allowingZero: true))
    }
}
