import ArgumentParser

@main
struct GCDCat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gcdcat",
        abstract: "Rejoin, split and verify split files, fast, with bounded memory, losing nothing.",
        discussion: """
            gcdcat rejoins split files (movie.zip.001, .002, …) into one file, splits big files \
            into parts, and checks them with zlib checksums and SFV manifests. Merging offers \
            four strategies built on Grand Central Dispatch; see 'gcdcat merge --help'.

            Output is written to a temporary file beside the destination and renamed into \
            place only when complete. An error, SIGINT or SIGTERM removes it.

            Exit status: 0 success, 1 an operation failed (I/O error, missing part), \
            2 checksum mismatch, 64 bad usage, 130 interrupted by SIGINT (143 by SIGTERM).
            """,
        version: gcdcatVersion,
        subcommands: [Merge.self, Split.self, ChecksumFiles.self, Verify.self, Bench.self],
        defaultSubcommand: Merge.self
    )

    /// Parses the raw, losslessly decoded argv rather than `CommandLine.arguments`.
    static func main() {
        main(rawArguments)
    }
}

let gcdcatVersion = "0.1.0"
