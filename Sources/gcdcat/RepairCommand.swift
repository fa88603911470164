import ArgumentParser
import GCDCatCore

extension GCDCat {
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild the damaged and missing files of a PAR2 recovery set.",
            usage: "gcdcat repair [<options>] <par2> [<file> ...]",
            discussion: """
                Reads NAME.par2 and every NAME.volNN+MM.par2 beside it (damaged packets are \
                skipped: PAR2 repeats them), checks every file block by block, and rebuilds \
                the bad and missing blocks from the recovery blocks. Each repaired file is \
                written unnamed beside the old one, checked against the set's MD5, and only \
                then named, replacing the damaged file (one of which fewer than half the blocks \
                are the set's, another file at its name, is kept as NAME.1, as par2 keeps it); a file \
                that verified OK is never written. When the recovery blocks do not suffice, nothing is written and the \
                message says how many blocks are missing against how many are available.

                A damaged or missing file whose bytes lie whole under another name (files \
                swapped, or renamed: 'm.mkv.002 (1)') is found, as par2 finds it, among the \
                set's other files and the files given after the .par2: a file of the \
                file's size whose first 16 KiB have the MD5 the set gives, then checked \
                whole against the file's MD5. Its bytes are copied to the file's name (no \
                recovery block is needed for them); the file they were found in is left as \
                it is, unless it is itself a file of the set to repair. Every such copy is \
                written and checked before any is named, so swapped files both end right. \
                A file that holds only some of another's blocks is not searched.

                Exit status: 0 the set is complete (repaired, or nothing to do); 1 not \
                repairable, or an I/O error; 2 a rebuilt file did not match the set's MD5 \
                (it is not written).

                Examples:
                  gcdcat repair movie.zip.par2
                  gcdcat repair movie.zip.vol03+04.par2 --json
                  gcdcat repair movie.mkv.par2 'movie.mkv.002 (1)' a8f7e6d5c4
                """)

        @Argument(help: "The set's NAME.par2 (or any of its volumes).", completion: .file(extensions: ["par2"]))
        var par2: String

        @Argument(
            help: ArgumentHelp(
                "Other files to look for the bytes of the set's damaged or missing files in (renamed ones).",
                valueName: "file"),
            completion: .file())
        var files: [String] = []

        @OptionGroup var reporting: OutputOptions

        @Flag(help: "Make each repaired file durable (fsync) before and after naming it.")
        var fsync = false

        @OptionGroup var parallelism: JobsOption

        var quiet: Bool { reporting.quiet }
        var json: Bool { reporting.json }
        var jobs: Int { parallelism.jobs(objects: false) }

        struct Document: Encodable {
            var schemaVersion = JSONDocument.schemaVersion
            var command = "repair"
            var set: Par2SetReport
            var repaired: [Par2FileRestorer.Restored]
            var wallSeconds: Double
            var exitStatus: Int32 = 0
        }

        func run() throws {
            InterruptHandler.install()
            showRunNotes(quiet: quiet)
            let clock = ProcessClock()
            let (verification, repaired) = try reportingFailures {
                try Par2FileRestorer.repair(indexPath: par2, extras: files, jobs: jobs, fsync: fsync) { verification in
                    guard !quiet && !json else { return }
                    for note in verification.notes { writeToStandardError("gcdcat: note: \(note)\n") }
                    for line in verification.set.damagedPacketNotes { writeToStandardError("gcdcat: \(line)\n") }
                    for line in Par2SetReport(par2: par2, verification).lines { writeToStandardError(line + "\n") }
                }
            }
            let report = Par2SetReport(par2: par2, verification)
            if json {
                let document = Document(
                    set: report, repaired: repaired, wallSeconds: roundedToMicroseconds(clock.elapsed().wall))
                // The files are repaired: a report that cannot be written must not read as a failed
                // repair (protect's and a merge's say the same).
                try reportingFailures {
                    try afterPublishing(repaired.map(\.path), manifest: nil) {
                        try StandardStreams.writeOutput(JSONDocument.encode(document))
                    }
                }
            } else if !quiet {
                for file in repaired {
                    if let found = file.foundIn {
                        writeToStandardError(
                            "gcdcat: \(file.path.displayPath): repaired (copied from \(found.displayPath), which held its "
                                + "bytes whole; 0 blocks rebuilt)\n")
                        for note in file.notes ?? [] { writeToStandardError("gcdcat: note: \(note)\n") }
                        continue
                    }
                    writeToStandardError(
                        "gcdcat: \(file.path.displayPath): repaired (\(counted(file.blocksRebuilt, "block")) rebuilt)\n"
                    )
                    for note in file.notes ?? [] { writeToStandardError("gcdcat: note: \(note)\n") }
                }
                if repaired.isEmpty {
                    writeToStandardError("gcdcat: \(par2.displayPath): \(report.verdict); nothing to repair\n")
                }
            }
        }
    }
}
