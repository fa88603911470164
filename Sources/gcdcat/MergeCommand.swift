import ArgumentParser
import GCDCatCore

extension GCDCat {
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join parts into one file.",
            discussion: """
                Give one first part to find the rest of its set: NAME.001 (widening past \
                .999), NAME.000, disk_001, x00 (GNU split -d), xaa (GNU split, --suffix alpha), \
                file.part1, out_00.txt (split --additional-suffix). A part that is not the first is an error naming the first; a gap, \
                .000 beside .001, or mixed widths (x.0003 among x.001, x.002) are errors naming \
                the clash. Or give every part: a list of one set must be in numeric order with \
                no gap (the shell's glob order of a complete set is sorted, with a note); \
                --as-given takes the list as it is. A checksum list among the parts (.sfv, \
                .md5, .sha256, or text that reads as one) and spanned zip or RAR volumes are \
                refused. The output defaults to NAME.

                Every part is checked (exists, regular file, readable) before a byte is \
                written. The output is written to a temporary file beside it and renamed into \
                place when complete; an existing output needs --force; an output that is one \
                of the parts or the manifest in use is refused. '-o -' writes to standard output.

                Verification: when the set's manifest lies beside it (NAME.sfv, as split \
                names it; a folder of that name is skipped with a warning), or --manifest names \
                one, every listed part must be present (the last one too, which \
                numbering alone cannot see) and match its crc32 before anything is written; \
                the output's crc32 is then checked against the parts' combined. A missing part \
                exits 1, a corrupt one exits 2. Without a manifest, a last part exactly as \
                large as the others draws a warning: the set may be truncated.

                --remove-parts deletes the parts only after the output is named, matched the \
                manifest-verified parts' crc32 and is fsynced; it needs a manifest, and any \
                failure keeps every part. The manifest itself is kept.

                Strategies:
                  auto          kernel copies (copy_file_range at each part's
                                offset, falling back to pread/pwrite; into a
                                pipe, to sendfile, then read/write), parts in
                                parallel, the next ones prefetched. The fastest.
                  stream        one serial queue; pooled buffers written in order
                                through a DispatchIO .stream channel.
                  offsets       --jobs queues; each part's bytes pwrite'd at
                                their offset in the output.
                  dispatchdata  parts mmap'ed into one DispatchData, written by
                                one DispatchIO write. Mapped pages count as
                                RssFile. Do not truncate a part while it merges.

                Examples:
                  gcdcat merge movie.zip.001
                  gcdcat merge a b c -o all --strategy stream --high-water 2M --report
                  gcdcat merge part.001 -o - | tar x
                  gcdcat merge movie.zip.001 --remove-parts
                """)

        @Argument(help: "The first part (NAME.001), or every part in order.", completion: .file())
        var parts: [String] = []

        @Option(
            name: .shortAndLong,
            help: ArgumentHelp("The output file or folder, or - for standard output.", valueName: "file"),
            completion: .file())
        var output: String?

        @Option(help: "How to move the bytes (see Strategies above).")
        var strategy: MergeStrategyKind = .auto

        @Flag(name: .shortAndLong, help: "Replace an existing output file.")
        var force = false

        @Flag(help: "Make the output durable (fsync) before renaming it into place.")
        var fsync = false

        @Flag(help: "Accept the same file twice among the parts.")
        var allowDuplicates = false

        @Option(
            help: ArgumentHelp("Verify the parts against this SFV manifest first.", valueName: "file"),
            completion: .file(extensions: manifestExtensions))
        var manifest: String?

        @Flag(help: "Fail unless a manifest is found (NAME.sfv or --manifest).")
        var verify = false

        @Flag(help: "Do not look for a manifest.")
        var noVerify = false

        @Flag(help: "Merge the listed parts in the order given, even out of numeric order or with gaps.")
        var asGiven = false

        @Flag(help: "Delete the parts (not the manifest) after a verified, fsynced merge; needs a manifest.")
        var removeParts = false

        @OptionGroup var transfer: TransferOptions
        @OptionGroup var reporting: ReportOptions

        func validate() throws {
            guard !parts.isEmpty else {
                throw ValidationError("Give the first part (NAME.001) or the parts to join.")
            }
            // merge is the default command, so `gcdcat spilt movie.zip` would read "spilt" as a part.
            if let command = likelyMistypedCommand(parts[0]) {
                throw ValidationError("Unknown command '\(parts[0].displayPath)'. Did you mean '\(command)'?")
            }
            if verify && noVerify {
                throw ValidationError("--verify and --no-verify contradict each other.")
            }
            if noVerify && manifest != nil {
                throw ValidationError("--no-verify and --manifest contradict each other.")
            }
            if removeParts && output == "-" {
                throw ValidationError("--remove-parts needs an output file, not standard output.")
            }
            if removeParts && noVerify {
                throw ValidationError("--remove-parts needs the manifest check that --no-verify skips.")
            }
            if reporting.json && output == "-" {
                throw ValidationError("--json and '-o -' both want standard output; use --report instead.")
            }
        }

        func run() throws {
            InterruptHandler.install()
            try reportingFailures {
                var operation = MergeOperation(
                    arguments: parts, output: output.map { $0 == "-" ? .standardOutput : .path($0) },
                    manifest: manifest,
                    manifestPolicy: verify || removeParts ? .required : noVerify ? .disabled : .automatic,
                    asGiven: asGiven, strategy: strategy, limits: try transfer.limits(), jobs: transfer.jobs,
                    overwrite: force, fsync: fsync || removeParts, allowDuplicates: allowDuplicates)
                operation.showsCheckProgress = !reporting.quiet
                operation.requiresCRCManifest = removeParts
                var measurement: (time: (wall: Double, user: Double, system: Double), memory: MemorySample)?
                let outcome = try operation.merge(notice: announce) { target, total, body in
                    let (result, time, memory) = try measured(
                        label: target.displayName, total: total, quiet: reporting.quiet, body)
                    measurement = (time, memory)
                    return result
                }
                guard let measurement else { return }
                if removeParts {
                    // An md5/sha list verifies the parts but leaves the output no crc32 to meet.
                    guard outcome.verification.expectedCRC != nil else {
                        throw GCDCatError(
                            .invalidInput, path: outcome.verification.manifestPath ?? parts[0],
                            message:
                                "the merge is done, but the parts were kept: --remove-parts needs an SFV manifest, "
                                + "whose crc32 the output is checked against")
                    }
                    // Only now: the output is named, matched the verified parts' crc32, and is durable.
                    for warning in try PartRemoval.remove(outcome.request.parts) {
                        writeToStandardError("gcdcat: warning: \(warning)\n")
                    }
                }
                let report = RunReport(
                    operation: "merge", strategy: strategy.rawValue, parts: outcome.request.parts.count,
                    bytes: outcome.result.bytes, limits: operation.limits, chunks: outcome.result.chunks,
                    jobs: operation.jobs, time: measurement.time, memory: measurement.memory,
                    copyMethod: outcome.result.method, crc32: outcome.result.crc32,
                    inputs: outcome.request.parts.map(\.path),
                    output: outcome.output.path,
                    manifest: outcome.verification.manifestPath,
                    clonedBytes: outcome.result.clonedBytes, copiedBytes: outcome.result.copiedBytes,
                    notes: outcome.result.notes)
                try emit(report, options: reporting)
            }
        }

        private func announce(_ notice: MergeOperation.Notice) {
            switch notice {
            case .note(let text): writeToStandardError("gcdcat: note: \(text)\n")
            case .warning(let text): writeToStandardError("gcdcat: warning: \(text)\n")
            case .verified(let count, let path):
                if !reporting.quiet {
                    writeToStandardError("gcdcat: \(count) parts verified against \(path.displayPath)\n")
                }
            }
        }
    }
}
