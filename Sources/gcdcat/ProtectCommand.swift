import ArgumentParser
import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

extension GCDCat {
    struct Protect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add PAR2 recovery volumes to files that exist (a split set, any files).",
            usage: "gcdcat protect [<options>] <files> ...",
            discussion: """
                Writes NAME.par2 (the set's description: every file's MD5, its first 16 KiB's \
                MD5, and a CRC32 and an MD5 per block) and NAME.volNN+MM.par2 volumes holding \
                the recovery blocks, named and laid out as par2cmdline's 'par2 create' does \
                (volumes of 1, 2, 4, … blocks; --uniform for equal ones). par2cmdline, \
                par2cmdline-turbo, MultiPar and 'gcdcat verify/repair' read them. The files \
                are read once. All outputs are written unnamed and named only when every one is \
                complete, the index last, so an error or a signal leaves none of them.

                The files must lie in NAME.par2's folder or below it (their names in the set are \
                relative to it: sub/b.bin). NAME defaults to the files' common name without a trailing part number \
                (movie.zip.001 … .004 give movie.zip.par2; one file f gives f.par2); -o names it \
                otherwise.

                Examples:
                  gcdcat protect movie.zip.0*                        # movie.zip.par2 + volumes, 10%
                  gcdcat protect xa? -o backup.par2 --par2 25% --par2-block-size 1M
                """)

        @Argument(help: "The files to protect.", completion: .file())
        var files: [String]

        @Option(name: .customShort("o"), help: ArgumentHelp("The index file, NAME.par2.", valueName: "name.par2"))
        var output: String?

        @Option(
            name: .customLong("par2"),
            help: ArgumentHelp(
                "Recovery blocks as a share of the input blocks, 1% to 1000% (par2's -r), at most 65535 blocks.",
                valueName: "percent"))
        var percentText = "10%"

        @Option(
            name: .customLong("par2-block-size"), parsing: .unconditional,
            help: ArgumentHelp(
                "Block size, a multiple of 4 (default: about 2000 blocks over all files, as par2).", valueName: "size"),
            transform: parsePositiveSize)
        var blockSize: Int?

        @Option(
            name: .customLong("par2-volumes"),
            help: ArgumentHelp(
                "Number of volume files, at most the recovery blocks (par2's -n; default: as par2 chooses).",
                valueName: "n"))
        var volumes: Int?

        @Flag(
            help: ArgumentHelp(
                "Volumes of equal block counts (par2's -u); without --par2-volumes, one per bit of the recovery "
                    + "block count, as par2 (200 blocks: 8 volumes of 25)."))
        var uniform = false

        @Flag(help: "Replace existing NAME.par2 and volumes, and remove an older set's volumes of other names.")
        var force = false

        @Flag(help: "Make every output durable (fsync) before and after naming it.")
        var fsync = false

        @OptionGroup var reporting: OutputOptions

        @OptionGroup var parallelism: JobsOption

        var quiet: Bool { reporting.quiet }
        var json: Bool { reporting.json }
        var jobs: Int { parallelism.jobs(objects: false) }

        var percent: Int? {
            let digits = percentText.hasSuffix("%") ? String(percentText.dropLast()) : percentText
            guard let value = Int(digits), (1...1000).contains(value) else { return nil }
            return value
        }

        mutating func validate() throws {
            // 64 or more files reach here as one marker word (PositionalRuns), as merge's parts do.
            files = PositionalRuns.expand(files)
            guard percent != nil else {
                throw ValidationError("--par2 must be a percentage from 1% to 1000%, like 10%")
            }
            if let blockSize, !Par2BlockCount.isAllowed(blockSize: blockSize) {
                throw ValidationError("--par2-block-size must be a multiple of 4, at most 1G (got \(blockSize))")
            }
            if let volumes, !(1...65535).contains(volumes) {
                throw ValidationError("--par2-volumes must be 1 to 65535")
            }
            if let output, !output.lowercased().hasSuffix(".par2") {
                throw ValidationError("-o must name a .par2 file (\(output))")
            }
            try checkNamesDiffer()
            try checkBlockCount()
            try checkRecoveryBlocks()
            if let file = files.first(where: { protection.setName(of: $0) == nil }) {
                throw ValidationError(
                    "\(file) is not in \(try indexPath())'s folder or below it; a set's names are relative to its "
                        + ".par2's folder")
            }
            if let clash = try protection.inputAmongOutputs() {
                throw ValidationError(
                    "the output \(clash.output.displayPath) is one of the inputs (\(clash.input.displayPath)); "
                        + "nothing was written: name the set with another -o NAME.par2")
            }
        }

        /// A `--par2-block-size` that cuts the files into more blocks than PAR2 allows is a usage
        /// error naming the size that would do (the files that cannot be read are left to `run`).
        func checkBlockCount() throws {
            guard let blockSize else { return }
            let sizes = files.compactMap { try? Par2Creator.fileSize($0) }
            let blocks = Par2BlockCount.blocks(fileSizes: sizes, blockSize: blockSize)
            guard blocks > Int64(Par2RecoverySet.maximumSlices) else { return }
            let fix =
                Par2BlockCount.smallestBlockSize(fileSizes: sizes).map {
                    "give at least \($0), a multiple of 4 (or leave it out for about 2000 blocks)"
                } ?? "no block size up to 1G gives fewer; protect fewer files at once"
            throw ValidationError(
                "--par2-block-size \(blockSize) cuts the files into \(blocks) blocks, more than PAR2's "
                    + "\(Par2RecoverySet.maximumSlices): \(fix)")
        }

        /// PAR2 names each file by its path relative to the index's folder: two inputs of one
        /// name there (`x ./x`, or `d1/x d2/x` for `d1/x.par2`) would be one file of the set twice.
        func checkNamesDiffer() throws {
            var seen: [String: String] = [:]
            for file in files {
                let name = protection.setName(of: file) ?? String(file.split(separator: "/").last ?? "")
                if let refusal = Par2Backslash.refusal(path: file, name: name, fix: "rename it, then protect it") {
                    throw ValidationError(refusal)
                }
                if let first = seen[name] {
                    throw ValidationError(
                        "\(first.displayPath) and \(file.displayPath) have the same name \(name.displayPath), and PAR2 "
                            + "names a set's files by their paths from its .par2's folder: give each file once, under "
                            + "names that differ")
                }
                seen[name] = file
            }
        }

        /// The recovery blocks that --par2 and the block size make must be ones PAR2 can number,
        /// as many as --par2-volumes asks to spread them over (par2 refuses "Too many recovery
        /// files" too), and fit in memory; the files that cannot be read are left to `run`.
        func checkRecoveryBlocks() throws {
            let sizes = files.compactMap { try? Par2Creator.fileSize($0) }.filter { $0 > 0 }
            guard !sizes.isEmpty, let percent else { return }
            let (size, source, recovery) = protection.blocks(fileSizes: sizes)
            let limit = Par2RecoveryBounds.maximumRecoveryBlocks
            if recovery > limit {
                throw ValidationError(
                    "--par2 \(percent)% of \(counted(source, "block")) makes \(recovery) recovery blocks, more than "
                        + "PAR2's \(limit): give at most \(Par2RecoveryBounds.highestPercent(sourceBlocks: source, upTo: 1000))% "
                        + "(or a larger --par2-block-size)")
            }
            if let volumes, volumes > recovery {
                throw ValidationError(
                    "--par2-volumes \(volumes) is more than the \(counted(recovery, "recovery block")) to spread over "
                        + "them (each volume holds at least one): give at most \(recovery), or a larger --par2")
            }
            if let problem = Par2RecoveryBounds.memoryProblem(recovery: recovery, blockSize: size) {
                throw ValidationError(
                    "\(problem): give a smaller --par2-block-size (or --par2), or protect fewer files at once")
            }
        }

        /// `-o`, or the files' common name without a trailing part number, plus `.par2`.
        func indexPath() throws -> String {
            guard let path = protection.indexPath else {
                throw ValidationError("the files share no name; name the set with -o NAME.par2")
            }
            return path
        }

        /// The core's request, from the options.
        var protection: Par2Protection {
            Par2Protection(
                files: files, output: output, percent: percent ?? 10, blockSize: blockSize, volumes: volumes,
                uniform: uniform, overwrite: force, fsync: fsync, jobs: jobs)
        }

        func run() throws {
            InterruptHandler.install()
            showRunNotes(quiet: quiet)
            let index = try indexPath()
            let result = try reportingFailures { try protection.run() }
            if !quiet && !json {
                for empty in (try? protection.emptyFiles()) ?? [] {
                    writeToStandardError(
                        "gcdcat: note: \(empty.displayPath) is empty: PAR2 lists no 0-byte file (par2 create leaves "
                            + "them out), so \(index.displayPath) names it in a packet of gcdcat's own, which gcdcat "
                            + "verify and repair check (par2 does not)\n")
                }
            }
            if let volumes, !quiet && !json, result.volumes.count < volumes {
                writeToStandardError(
                    "gcdcat: note: --par2-volumes \(volumes) made \(result.volumes.count): volumes of 1, 2, 4, … "
                        + "blocks hold the \(counted(result.recoveryBlocks, "recovery block")) in fewer; --uniform "
                        + "makes \(volumes)\n")
            }
            if json {
                // The set is published: a report that cannot be written must not read as a
                // failed protect (as a merge's and a split's say, the outputs stay).
                try reportingFailures {
                    try afterPublishing([result.index] + result.volumes, manifest: nil) {
                        try StandardStreams.writeOutput(JSONDocument.encode(ProtectDocument(result: result)))
                    }
                }
            } else if !quiet {
                writeToStandardError(
                    "gcdcat: \(index.displayPath): \(counted(result.sourceBlocks, "block")) of \(result.blockSize) bytes, "
                        + "\(counted(result.recoveryBlocks, "recovery block")) in \(counted(result.volumes.count, "volume"))\n"
                )
            }
        }
    }
}

/// `protect --json`'s document (docs/json-schema/protect.json).
struct ProtectDocument: Encodable {
    var schemaVersion = JSONDocument.schemaVersion
    var command = "protect"
    var result: Par2Creator.Result

    enum CodingKeys: String, CodingKey {
        case schemaVersion, command, index, volumes, sourceBlocks, recoveryBlocks, blockSize, bytesRead
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(command, forKey: .command)
        try container.encode(result.index, forKey: .index)
        try container.encode(result.volumes, forKey: .volumes)
        try container.encode(result.sourceBlocks, forKey: .sourceBlocks)
        try container.encode(result.recoveryBlocks, forKey: .recoveryBlocks)
        try container.encode(result.blockSize, forKey: .blockSize)
        try container.encode(result.bytesRead, forKey: .bytesRead)
    }
}
