import ArgumentParser
import GCDCatCore

@main
struct GCDCat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gcdcat",
        abstract: "Rejoin, split and verify split files, fast, with bounded memory, losing nothing.",
        discussion: """
            gcdcat rejoins split files (movie.zip.001, .002, …) into one file, splits big files \
            into parts, and checks them with zlib checksums and SFV manifests. Merging offers \
            four strategies built on Grand Central Dispatch; see 'gcdcat merge --help'.

            Output is written to an unnamed file in the destination's folder and named only \
            when complete. An error, or SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT or SIGALRM, \
            leaves nothing behind; so does SIGKILL, except where the filesystem cannot make \
            unnamed files (or a split runs out of descriptors for them): then a temporary \
            .NAME.gcdcat-XXXXXX may remain, named so it says what it is.

            Exit status: 0 success, 1 an operation failed (I/O error, missing part), \
            2 checksum mismatch, 64 bad usage, 128+N interrupted by signal N (130 SIGINT, \
            143 SIGTERM, 129 SIGHUP).

            --json (every command) prints one JSON document on standard output; on failure, \
            one error object {"schemaVersion", "command", "error": {"code", "exitStatus", \
            "path", "syscall", "errno", "message"}} with the same exit status. Schemas: \
            docs/json-schema/ in the source.
            """,
        version: "gcdcat " + gcdcatVersion,
        subcommands: [
            Merge.self, Split.self, ChecksumFiles.self, Verify.self, Protect.self, Repair.self, Bench.self,
            Uploads.self,
        ],
        defaultSubcommand: Merge.self
    )

    /// Parses the raw, losslessly decoded argv rather than `CommandLine.arguments`, reporting
    /// an unknown option before a failed validation (see ``UsageCheck``).
    static func main() {
        InterruptHandler.restoreBacktraceEnvironment()
        MallocArenas.limit(to: 2)
        StandardOutputCheck.atExit()
        do {
            if let script = patchedCompletionScript(JSONErrors.arguments) {
                print(script)
                exit(withError: nil)
            }
            var command = try UsageCheck.parse(PositionalRuns.compressed.arguments)
            // Merge, split and bench clean up after a signal (InterruptHandler.install in their
            // run); the others end as the signal's default action has it.
            if !(command is Merge || command is Split || command is Bench || command is Protect || command is Repair) {
                InterruptHandler.useDefaultActions()
            }
            JSONErrors.reportInterruptions()
            try command.run()
        } catch {
            InterruptHandler.useDefaultActions()
            JSONErrors.writeUnreported(error)
            exit(withError: error)
        }
    }
}

/// `--generate-completion-script SHELL` (or `=SHELL`) alone: the patched script
/// (``CompletionScripts``); anything else is ArgumentParser's to parse.
private func patchedCompletionScript(_ arguments: [String]) -> String? {
    let flag = "--generate-completion-script"
    let shell: String
    switch arguments.count {
    case 1 where arguments[0].hasPrefix(flag + "="): shell = String(arguments[0].dropFirst(flag.count + 1))
    case 2 where arguments[0] == flag: shell = arguments[1]
    default: return nil
    }
    return CompletionScripts.script(for: shell)
}

let gcdcatVersion = "0.1.0"
