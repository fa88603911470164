import ArgumentParser
import FoundationEssentials
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
                no gap, hold no other file (m.iso.001 backup.iso), and leave out none of the \
                set's last parts lying beside it (the shell's glob order of a complete set is \
                sorted, with a note). Or \
                give the set's checksum list alone (NAME.sfv, NAME.md5, SHA256SUMS): the set \
                it names is merged and checked against it (values assumed from their length, \
                as verify assumes them, are never called corruption when no part matches them: \
                exit 1, naming the --algorithm to give). A checksum list among the parts \
                (.sfv, .md5, .sha256, or text that reads as one) and spanned zip or RAR \
                volumes are refused. The output defaults to NAME.

                Several sets (gcdcat *.001, gcdcat *.00*, gcdcat *.sfv) are merged each to \
                its own output, checked against its own manifest; one that fails does not \
                stop the others, a line on standard error says which were merged, --json \
                prints {"sets": [each set's report or error object], "exitStatus"}, and the \
                exit status is the worst (1 over 2 over 0). -o must then be a folder. A list \
                that mixes sets (a.001 a.002 b.003) is refused, naming the odd part; \
                --as-given says the list is arbitrary and joins it exactly as given.

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

                PAR2: a NAME.par2 beside the set (found as NAME.sfv is) that protects its \
                parts checks them when no list does; parts missing or damaged (or failing \
                the list) are rebuilt from its recovery blocks into the output, never into \
                the parts. When the blocks do not suffice, nothing is written. Giving \
                NAME.par2 itself merges the set it protects.

                --remove-parts deletes the parts only after the output is named, matched the \
                manifest-verified parts' crc32 and is fsynced; it needs a manifest (or the \
                marks gcdcat's split left on every part), and any failure keeps every part. \
                The manifest itself is kept.

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
                  gcdcat merge SHA256SUMS                 # the set the list names
                  gcdcat *.001 -o merged/                 # every set, each to its own file
                """)

        @Argument(
            help: "The first part (NAME.001), every part in order, the set's checksum list, or several sets.",
            completion: .file())
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

        @Option(
            help: ArgumentHelp(
                "Read the untagged lines of a md5/sha list (the one merged from, or --manifest) as this algorithm.",
                valueName: "algorithm"))
        var algorithm: HashAlgorithm?

        @Flag(help: "Fail unless a manifest (NAME.sfv or --manifest), or the split's marks, check every part.")
        var verify = false

        @Flag(help: "Do not look for a manifest.")
        var noVerify = false

        @Flag(
            help: ArgumentHelp(
                "Read every s3:// part to check it, even when the server (x-amz-checksum-crc32) or gcdcat's "
                    + "record (x-amz-meta-gcdcat-crc32) gives its crc32."))
        var noStoredChecksums = false

        @Flag(
            help:
                "Join the listed files exactly as given: in any order, with gaps, or from several sets."
        )
        var asGiven = false

        @Flag(
            help: ArgumentHelp(
                "Delete the parts (not the manifest) after a verified, fsynced merge; needs a manifest (or the "
                    + "split's marks)."))
        var removeParts = false

        @OptionGroup var transfer: TransferOptions
        @OptionGroup var objectStore: ObjectStoreOptions
        @OptionGroup var takeOver: UploadTakeOverOption
        @OptionGroup var objectWrites: ObjectWriteOptionGroup
        @OptionGroup var reporting: ReportOptions

        /// True when the parts are `s3://` objects (then all of them are).
        var partsAreObjects: Bool { parts.contains(where: ObjectLocation.isObjectPath) }

        mutating func validate() throws {
            parts = PositionalRuns.expand(parts)
            guard !parts.isEmpty else {
                throw ValidationError("Give the first part (NAME.001) or the parts to join.")
            }
            // merge is the default command, so `gcdcat spilt movie.zip` would read "spilt" as a part.
            if let command = likelyMistypedCommand(parts[0]) {
                throw ValidationError("Unknown command '\(parts[0].displayPath)'. Did you mean '\(command)'?")
            }
            // `-o ''` (an unset shell variable) names no output: a usage error, not a failed open.
            if output?.isEmpty == true {
                throw ValidationError("-o needs a file name (or a folder, or - for standard output).")
            }
            try validateObjectNames(parts + [manifest])
            try validateObjectNames([output], written: true)
            try objectWrites.check(
                writesObjects: output.map(ObjectLocation.isObjectPath) ?? partsAreObjects,
                customerKey: objectStore.access.sseCustomerKeyFile != nil)
            try objectStore.check(
                namesObjects: (parts + [output, manifest]).contains { ObjectLocation.isObjectPath($0 ?? "") })
            // The `cp` habit: `merge A.001 OUT`, where OUT is no file and no part of A's set.
            if output == nil, !parts.contains(where: ObjectLocation.isObjectPath),
                let misplaced = PartArguments.misplacedOutput(parts)
            {
                throw ValidationError(
                    "\(misplaced.displayPath) does not exist and is not a part of \(parts[0].displayPath)'s set. To write "
                        + "the merge to it, name it with -o: gcdcat merge \(parts.dropLast().map(\.displayPath).joined(separator: " ")) "
                        + "-o \(misplaced.displayPath)")
            }
            // `merge A.001 DIR`, with DIR a folder: the output, given as `cp` takes one.
            if output == nil, parts.count >= 2, let last = parts.last, !ObjectLocation.isObjectPath(last),
                MergeJob.isFolder(last),
                !NumberedName.readings(of: parts[0]).isEmpty
            {
                throw ValidationError(
                    "\(last.displayPath) is a folder, not a part. To write the merge into it, name it with -o: gcdcat "
                        + "merge \(parts.dropLast().map(\.displayPath).joined(separator: " ")) -o \(last.displayPath)/")
            }
            // Several sets take a folder as their output, no one set's manifest, and no two of them
            // the same output: usage errors, like any other contradiction, found before anything is read.
            if !partsAreObjects,
                let contradiction = MergeJob.setsContradiction(
                    parts, asGiven: asGiven, output: output, manifest: manifest, listAlgorithm: algorithm)
            {
                throw ValidationError(contradiction)
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
            if reporting.json && (output == "-" || output.map(OutputSink.writesToStandardOutput) == true) {
                throw ValidationError(
                    "--json and '-o \(output ?? "-")' both want standard output; use --report instead.")
            }
            if partsAreObjects {
                if !parts.allSatisfy(ObjectLocation.isObjectPath) {
                    throw ValidationError("Give every part as an s3:// object, or every part as a file.")
                }
                if removeParts { throw ValidationError("--remove-parts works on local parts only.") }
                if let manifest, !ObjectLocation.isObjectPath(manifest) {
                    throw ValidationError("--manifest must be an s3:// object when the parts are objects.")
                }
            } else if noStoredChecksums {
                throw ValidationError("--no-stored-checksums applies to s3:// parts; local parts are always read.")
            } else if let manifest, ObjectLocation.isObjectPath(manifest) {
                throw ValidationError("--manifest must be a local file when the parts are files.")
            }
        }

        func run() throws {
            InterruptHandler.install()
            try takeOver.apply()
            showRunNotes(quiet: reporting.quiet)
            try reportingFailures {
                let job = try mergeJob()
                let groups = try job.sets()
                if groups.count > 1 { return try mergeSets(groups, job: job) }
                if let report = try job.run(notice: announce, measure: measuring(quiet: reporting.quiet)) {
                    try emit(report, options: reporting)
                }
            }
        }

        /// The options as the core's one merge entry takes them.
        private func mergeJob() throws -> MergeJob {
            var job = MergeJob(
                parts: PartSource(parts), output: output, manifest: manifest,
                manifestPolicy: removeParts
                    ? .required(by: "--remove-parts")
                    : verify ? .required(by: "--verify") : noVerify ? .disabled : .automatic,
                makeStore: { try objectStore.makeStore(writing: objectWrites) })
            job.asGiven = asGiven
            job.strategy = strategy
            job.limits = try transfer.limits()
            job.jobs = transfer.jobs(objects: false)
            job.objectJobs = transfer.jobs(objects: true)
            job.overwrite = force
            job.fsync = fsync
            job.allowDuplicates = allowDuplicates
            job.removeParts = removeParts
            job.trustStoredChecksums = !noStoredChecksums
            job.listAlgorithm = algorithm
            job.showsProgress = !reporting.quiet
            return job
        }

        /// Several sets: each set's report (with --report) or error as it ends, a line saying
        /// which were merged, and with --json one document: a signal's too, which lists the sets
        /// already merged (published, they stay) and those it stopped.
        private func mergeSets(_ groups: [SetGrouping.Group], job: MergeJob) throws {
            let json = reporting.json
            var reportLost: GCDCatError?
            let outcome = try job.mergeSets(
                groups, notice: announce, measure: measuring(quiet: reporting.quiet),
                progress: { done, pending in
                    guard json else { return }
                    InterruptHandler.onInterrupt { number, name in
                        let document = SetsReport.interrupted(
                            done: done, pending: pending, published: CleanupRegistry.shared.publishedOutputs,
                            signal: number, name: name)
                        return (try? JSONDocument.encode(document)) ?? []
                    }
                }
            ) { result in
                switch result {
                case .success(let report):
                    // A report that cannot be written fails the run once every set is done.
                    do throws(GCDCatError) {
                        if reporting.report { try StandardStreams.writeErrorReport(report.text + "\n") }
                    } catch {
                        reportLost = reportLost ?? error
                    }
                case .failure(let error):
                    writeToStandardError("gcdcat: \(error)\n")
                    for line in CleanupRegistry.shared.takeLeftBehind() {
                        writeToStandardError("gcdcat: left behind: \(line)\n")
                    }
                }
            }
            // A signal that came as the last set was published ends the run: its sweep reports.
            InterruptHandler.yieldToArrivedSignal()
            if outcome.anyFailed || !reporting.quiet { writeToStandardError("gcdcat: \(outcome.summary)\n") }
            let merged = outcome.report.sets.compactMap { entry in
                if case .report(let report) = entry { report.output } else { nil }
            }
            if let reportLost { try afterPublishing(merged, manifest: nil) { throw reportLost } }
            if reporting.json {
                try afterPublishing(merged, manifest: nil) {
                    InterruptHandler.claimStandardOutput()
                    try StandardStreams.writeOutput(JSONDocument.encode(outcome.report))
                }
            }
            if outcome.report.exitStatus != 0 { throw ExitCode(outcome.report.exitStatus) }
        }

        private func announce(_ notice: MergeOperation.Notice) {
            switch notice {
            case .note(let text): writeToStandardError("gcdcat: note: \(text)\n")
            case .warning(let text): Warnings.warn(text)
            case .verified(let count, let path):
                if !reporting.quiet {
                    writeToStandardError("gcdcat: \(counted(count, "part")) verified against \(path.displayPath)\n")
                }
            case .verifiedByMarks(let count):
                if !reporting.quiet {
                    writeToStandardError(
                        "gcdcat: \(counted(count, "part")) verified against the crc32s their split marked them with\n")
                }
            }
        }
    }
}
