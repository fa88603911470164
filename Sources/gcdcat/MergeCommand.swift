import ArgumentParser
import FoundationEssentials
import GCDCatCore
import Glibc

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

        @Flag(help: "Fail unless a manifest is found (NAME.sfv or --manifest).")
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

        @Flag(help: "Delete the parts (not the manifest) after a verified, fsynced merge; needs a manifest.")
        var removeParts = false

        @OptionGroup var transfer: TransferOptions
        @OptionGroup var objectStore: ObjectStoreOptions
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
            try validateObjectNames(parts + [output, manifest])
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
                isFolder(last),
                !NumberedName.readings(of: parts[0]).isEmpty
            {
                throw ValidationError(
                    "\(last.displayPath) is a folder, not a part. To write the merge into it, name it with -o: gcdcat "
                        + "merge \(parts.dropLast().map(\.displayPath).joined(separator: " ")) -o \(last.displayPath)/")
            }
            if !partsAreObjects { try validateSets() }
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
            try reportingFailures {
                if partsAreObjects { return try mergeObjects() }
                let groups = try SetGrouping.group(parts, asGiven: asGiven)
                if groups.count > 1 { return try mergeSets(groups) }
                if let report = try mergeSet(parts) { try emit(report, options: reporting) }
            }
        }

        /// Merges one set (`parts`: a first part, or a list of one set or taken as given) and
        /// returns its report; nil when there was nothing to measure.
        private func mergeSet(_ parts: [String]) throws -> RunReport? {
            let store = try output.flatMap { ObjectLocation.isObjectPath($0) ? try objectStore.makeStore() : nil }
            var operation = MergeOperation(
                arguments: parts, output: try output.map { try target($0, store: store) },
                manifest: manifest,
                manifestPolicy: verify || removeParts ? .required : noVerify ? .disabled : .automatic,
                asGiven: asGiven, strategy: strategy, limits: try transfer.limits(),
                jobs: transfer.jobs(objects: store != nil),
                overwrite: force, fsync: fsync || removeParts, allowDuplicates: allowDuplicates)
            operation.showsCheckProgress = !reporting.quiet
            operation.requiresCRCManifest = removeParts
            operation.listAlgorithm = algorithm
            var measurement: (time: (wall: Double, user: Double, system: Double), memory: MemorySample)?
            // The times cover the manifest check too, which may read every part before the run.
            let clock = ProcessClock()
            let outcome = try operation.merge(notice: announce) { target, total, body in
                let (result, time, memory) = try measured(
                    label: target.displayName, total: total, quiet: reporting.quiet, since: clock, body)
                measurement = (time, memory)
                return result
            }
            guard let measurement else { return nil }
            var removed: [String] = []
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
                do throws(PartRemoval.Failure) {
                    let removal = try PartRemoval.remove(outcome.request.parts)
                    removed = removal.removed
                    removal.warnings.forEach(Warnings.warn)
                } catch let failure {
                    removed = failure.outcome.removed
                    failure.outcome.warnings.forEach(Warnings.warn)
                    throw FailureAfterPublishing(
                        error: failure.error,
                        published: ErrorReport.Published(
                            output: outcome.output.path ?? outcome.output.displayName, verified: true,
                            manifest: outcome.verification.manifestPath))
                }
            }
            var report = RunReport(
                operation: "merge", strategy: strategy.rawValue, parts: outcome.request.parts.count,
                bytes: outcome.result.bytes, limits: operation.limits, chunks: outcome.result.chunks,
                jobs: operation.jobs, time: measurement.time, memory: measurement.memory,
                copyMethod: outcome.result.method, crc32: outcome.result.crc32,
                inputs: outcome.request.parts.map(\.path),
                output: outcome.output.path,
                manifest: outcome.verification.manifestPath,
                clonedBytes: outcome.result.clonedBytes, copiedBytes: outcome.result.copiedBytes,
                notes: outcome.result.notes)
            report.objectStore = store.map(ObjectStoreFacts.init)
            report.verified = outcome.verification.manifestPath != nil
            report.removedParts = removed
            return report
        }

        /// Several sets (`gcdcat *.001`, `gcdcat *.00*`): each is merged on its own, to its own
        /// output, checked against its own manifest, as `7z x *.001` extracts each archive. A
        /// set that fails does not stop the others; the exit status is the worst (1 over 2 over
        /// 0, as for verify); an interruption stops them all.
        private func mergeSets(_ groups: [SetGrouping.Group]) throws {
            var documents: [SetsReport.Entry] = []
            var merged: [String] = []
            var failed: [String] = []
            var worst: Int32 = 0
            for group in groups {
                do {
                    guard let report = try mergeSet(group.arguments) else { continue }
                    if reporting.report { writeToStandardError(report.text + "\n") }
                    documents.append(.report(report))
                    merged.append(report.output ?? group.name)
                } catch let error as GCDCatError where error.code != .interrupted {
                    writeToStandardError("gcdcat: \(error)\n")
                    for line in CleanupRegistry.shared.takeLeftBehind() {
                        writeToStandardError("gcdcat: left behind: \(line)\n")
                    }
                    documents.append(.error(ErrorReport(command: "merge", error: error)))
                    failed.append(group.name)
                    worst = worse(worst, error.exitStatus)
                }
            }
            if !failed.isEmpty || !reporting.quiet {
                var summary = "gcdcat: \(merged.count) of \(groups.count) sets merged"
                if !merged.isEmpty { summary += " (\(merged.map(\.displayPath).joined(separator: ", ")))" }
                if !failed.isEmpty { summary += "; failed: \(failed.map(\.displayPath).joined(separator: ", "))" }
                writeToStandardError(summary + "\n")
            }
            if reporting.json {
                try StandardStreams.writeOutput(JSONDocument.encode(SetsReport(sets: documents, exitStatus: worst)))
            }
            if worst != 0 { throw ExitCode(worst) }
        }

        /// Several sets take a folder as their output, no one set's manifest, and no two of them
        /// the same output: usage errors, like any other contradiction, found before anything is read.
        private func validateSets() throws {
            guard let groups = try? SetGrouping.group(parts, asGiven: asGiven), groups.count > 1 else { return }
            let sets = groups.map { group in
                group.arguments.count == 1
                    ? group.arguments[0].displayPath
                    : "\(group.arguments[0].displayPath) … \(group.arguments.last!.displayPath)"
            }.joined(separator: ", ")
            if let manifest {
                throw ValidationError(
                    "--manifest \(manifest.displayPath) is one set's list, but the parts are \(groups.count) sets "
                        + "(\(sets)); give one set at a time, or let each find its own")
            }
            if let output, !output.hasSuffix("/"), !isFolder(output) {
                throw ValidationError(
                    "-o \(output.displayPath) names one file, but the parts are \(groups.count) sets (\(sets)); give a "
                        + "folder (-o DIR/) to merge each set into it, or --as-given to join the list as it is")
            }
            var destinations: [[UInt8]: SetGrouping.Group] = [:]
            for group in groups {
                guard let whole = group.naming?.wholeName else { continue }
                let destination =
                    output.map {
                        $0 + ($0.hasSuffix("/") ? "" : "/")
                            + whole[(whole.lastIndex(of: "/").map(whole.index(after:)) ?? whole.startIndex)...]
                    } ?? whole
                if let other = destinations.updateValue(group, forKey: PathName.bytes(of: destination)) {
                    throw ValidationError(
                        "\(other.arguments[0].displayPath) and \(group.arguments[0].displayPath) are two sets that would "
                            + "both be merged into \(destination.displayPath); merge them one at a time, with -o")
                }
            }
        }

        /// The worse of two exit statuses: an incomplete merge (1) over a corrupt one (2), as
        /// verify ranks them, over success.
        private func worse(_ a: Int32, _ b: Int32) -> Int32 {
            let rank: (Int32) -> Int = { $0 == 0 ? 0 : $0 == 2 ? 1 : 2 }
            return rank(b) > rank(a) ? b : a
        }

        private func isFolder(_ path: String) -> Bool {
            var info = stat()
            return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }

        /// `-o`'s value as an output: `-`, a file, or an `s3://` object reached through `store`.
        private func target(_ value: String, store: CountingObjectStore?) throws -> OutputTarget {
            if value == "-" { return .standardOutput }
            guard let location = try ObjectLocation(parsing: value.hasSuffix("/") ? value + "." : value) else {
                return .path(value)
            }
            guard let store else { throw GCDCatError(.invalidInput, path: value, message: "no object store") }
            // `s3://b/folder/` keeps its slash: the set's name goes under it.
            var folderAware = location
            if value.hasSuffix("/") { folderAware.key.removeLast() }
            return .object(ObjectTarget(location: folderAware, store: store))
        }

        /// Parts that are objects: resolved from a listing (or HEADed as listed), checked against
        /// their manifest object, and merged on the server (`-o s3://…`, the default) or
        /// downloaded (`-o FILE`, `-o -`).
        private func mergeObjects() throws {
            let store = try objectStore.makeStore()
            let locations = try parts.map { try ObjectLocation(parsing: $0)! }
            let jobs = transfer.jobs(objects: true)
            let set = try ObjectDiscovery.resolve(locations, store: store, asGiven: asGiven, jobs: jobs)
            for note in set.resolved.notes { announce(.note(note)) }
            var manifestObject = try manifest.flatMap { try ObjectLocation(parsing: $0) }
            if manifestObject == nil && !noVerify, let found = set.manifest?.location {
                if found.key.hasSuffix(".sfv") {
                    manifestObject = found
                } else {
                    announce(.warning("\(found) is not an SFV manifest; object parts are checked against an SFV only"))
                }
            }
            if (verify || removeParts) && manifestObject == nil {
                throw GCDCatError(
                    .missingPart, path: parts[0],
                    message: "no SFV manifest object beside the set: verification needs one (name it with --manifest)")
            }
            if manifestObject == nil && set.resolved.discovered, let last = set.parts.last {
                for warning in MergeVerification.truncationWarning(
                    sizes: set.parts.map { Int64($0.size) }, last: last.location.description)
                {
                    announce(.warning(warning))
                }
            }
            let target = try objectOutput(default: set.defaultOutput, store: store)
            var merge = ObjectSetMerge(
                store: store, parts: set.parts, manifest: manifestObject, output: target, jobs: jobs,
                overwrite: force, fsync: fsync)
            merge.allowDuplicates = allowDuplicates
            merge.trustStoredChecksums = !noStoredChecksums
            let total = Int64(set.parts.reduce(0) { $0 + $1.size })
            let (result, time, memory) = try measured(label: target.displayName, total: total, quiet: reporting.quiet) {
                try merge.run(counter: $0)
            }
            if let manifestObject {
                announce(.verified(parts: result.verifiedParts, manifest: manifestObject.description))
            }
            var notes: [String] = []
            if result.serverChecksums > 0 {
                notes.append(
                    "\(result.serverChecksums) part crc32s taken from the server (x-amz-checksum-crc32), not read")
            }
            if result.recordedChecksums > 0 {
                notes.append(
                    "\(result.recordedChecksums) part crc32s taken from gcdcat's record (x-amz-meta-gcdcat-crc32), "
                        + "not read")
            }
            let percent = result.downloadedSmallParts.filter { $0.contains("%") }
            if !percent.isEmpty {
                notes.append(
                    "\(percent.count) parts whose keys contain '%' passed through the client: Ceph RGW decodes a "
                        + "copy source twice, so copying them on the server could copy another object")
            }
            if result.downloadedSmallParts.count > percent.count {
                notes.append(
                    "\(result.downloadedSmallParts.count - percent.count) parts were downloaded, whole or in part, "
                        + "and uploaded joined: S3 copies no part under 5 MiB")
            }
            var report = RunReport(
                operation: "merge", strategy: target.isObject ? "server-copy" : "ranged-get", parts: set.parts.count,
                bytes: result.bytes, limits: try transfer.limits(), chunks: Int64(store.counts.requests),
                jobs: jobs, time: time, memory: memory, crc32: result.crc32,
                inputs: set.parts.map(\.location.description),
                output: target == .standardOutput ? nil : target.displayName,
                manifest: manifestObject?.description, notes: notes)
            report.objectStore = ObjectStoreFacts(
                counts: store.counts, copyParts: result.copyParts, copiedBytes: result.copiedBytes,
                downloadedSmallParts: result.downloadedSmallParts, checkBytesRead: result.checkBytesRead,
                serverChecksums: result.serverChecksums, recordedChecksums: result.recordedChecksums,
                readChecksums: result.readChecksums)
            report.verified = manifestObject != nil
            try emit(report, options: reporting)
        }

        /// The output of an object merge: `-o` as given (a folder gets the set's name), or the
        /// set's name beside its parts.
        private func objectOutput(default defaultObject: ObjectLocation?, store: CountingObjectStore) throws
            -> OutputTarget
        {
            let name = defaultObject.map { String($0.key.split(separator: "/").last ?? Substring($0.key)) }
            guard let output else {
                guard let defaultObject else {
                    throw GCDCatError(
                        .invalidInput, path: parts[0],
                        message: "cannot derive an output name from it; name the output with -o")
                }
                return .object(ObjectTarget(location: defaultObject, store: store))
            }
            let target = try target(output, store: store)
            switch target {
            case .object(var object) where object.location.key.isEmpty || object.location.key.hasSuffix("/"):
                guard let name else {
                    throw GCDCatError(.invalidInput, path: output, message: "name the object in full")
                }
                object.location.key += name
                return .object(object)
            case .path(let path):
                if path.hasSuffix("/") || isFolder(path) {
                    guard let name else {
                        throw GCDCatError(.invalidInput, path: output, message: "name the file in full")
                    }
                    return .path(path.hasSuffix("/") ? path + name : path + "/" + name)
                }
                return target
            default:
                return target
            }
        }

        private func announce(_ notice: MergeOperation.Notice) {
            switch notice {
            case .note(let text): writeToStandardError("gcdcat: note: \(text)\n")
            case .warning(let text): Warnings.warn(text)
            case .verified(let count, let path):
                if !reporting.quiet {
                    writeToStandardError("gcdcat: \(count) parts verified against \(path.displayPath)\n")
                }
            }
        }
    }
}
