import Dispatch
import GCDCatS3
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// How to cut.
public enum SplitMode: Sendable, Equatable {
    /// Parts of exactly this many bytes, the last shorter.
    case size(Int64)
    /// This many parts, each size / N bytes and the last also the remainder (GNU's `-n N`).
    case parts(Int)
    /// Parts of at most `limit` bytes ending at newlines, with `headerLines` repeated atop each.
    case lines(limit: Int64, headerLines: Int)
    /// Parts of this many lines each (GNU `split -l`), the last fewer, with `headerLines`
    /// repeated atop each part after the first (the first holds them and as many lines after).
    case lineCount(Int, headerLines: Int = 0)
    /// This many parts of about equal size, each ending at a line's end (GNU `split -n l/N`).
    case lineChunks(Int)
    /// This many parts, the lines dealt to them in turn (GNU `split -n r/N`). The parts do not
    /// join back into the input, so no manifest is written.
    case roundRobin(Int)
}

/// Where the SFV manifest goes.
public enum ManifestDestination: Sendable, Equatable {
    /// Beside the parts, named after the prefix (``PartNaming/defaultManifestPath``).
    case beside
    case path(String)
    case none
}

/// What a split produced.
public struct SplitResult: Sendable, Equatable {
    public var partPaths: [String]
    public var partCRCs: [UInt32]
    public var manifestPath: String?
    public var bytesRead: Int64
    public var bytesWritten: Int64
    public var chunks: Int64
    /// The whole input's crc32, when the parts join back to it (no repeated header).
    public var inputCRC: UInt32?
    /// For `auto`: the slowest way any part's bytes moved (`clone`, `copy_file_range`, …).
    public var copyMethod: String? = nil
    /// For `auto`: bytes the parts share with the input (clones), and bytes copied.
    public var clonedBytes: Int64? = nil
    public var copiedBytes: Int64? = nil
    /// How the bytes moved, where a person should know (parts not cloned, and why).
    public var notes: [String] = []
    /// What a person must hear of even with `-q` (old parts of a replaced set that were removed).
    public var warnings: [String] = []
    /// An object split into objects: pieces copied on the server (`UploadPartCopy`), their
    /// bytes, and the bytes read to checksum the parts that were copied.
    public var serverCopyParts = 0
    public var serverCopiedBytes: UInt64 = 0
    public var checkBytesRead: UInt64 = 0
    /// The PAR2 index and volumes written beside the parts (`--par2`), when any.
    public var recovery: Par2Creator.Result? = nil

    /// This result with `warnings` added.
    func adding(warnings more: [String]) -> SplitResult {
        var result = self
        result.warnings += more
        return result
    }
}

/// A whole split: validate, plan every part and name, refuse clobbering, write every part (and
/// the manifest) under temporary names, and rename them all into place only when all are done.
///
/// ## Implementation details
/// A split part is a merge of ranges of the input: the range itself, after the header's range
/// when header lines repeat. So each part is written by the chosen ``MergeStrategy``: `auto`
/// and `offsets` run `jobs` parts at once (positional reads of the input, kernel copies for
/// `auto`); `stream` and `dispatchdata` go part by part. Part CRCs come from the bytes as they
/// pass, except for `auto`, whose bytes never reach user space: it reads the input once, on its
/// own queue, beside the kernel copies (``PieceChecksums``).
public struct SplitOperation: Sendable {
    public var input: String
    public var mode: SplitMode
    public var naming: PartNaming
    public var manifest: ManifestDestination
    public var strategy: MergeStrategyKind
    public var limits: ChunkLimits
    public var jobs: Int
    public var overwrite: Bool
    public var fsync: Bool
    /// A digest to list too, in a GNU (`sha256sum`) list beside the parts: `NAME.sha256`.
    public var digest: DigestAlgorithm?
    /// The store that holds an `s3://` input, or `s3://` parts and manifest when the prefix names one.
    public var objectStore: (any ObjectStore)?
    /// The multipart part size (and per-worker buffer) for parts uploaded to a store.
    public var objectPartSize = MultipartSizing.defaultPartSize
    /// The byte that ends a line (GNU split's `-t`): `\n` unless given; `\0` for NUL records.
    public var separator: UInt8 = 0x0A
    /// Write no empty parts (GNU split's `-e`): the others take the names in turn.
    public var elideEmpty = false
    /// PAR2 recovery volumes to write beside the parts, from the same read of the input.
    public var recovery: RecoveryRequest?

    public init(
        input: String, mode: SplitMode, naming: PartNaming, manifest: ManifestDestination = .beside,
        strategy: MergeStrategyKind = .auto, limits: ChunkLimits = .default, jobs: Int = 2,
        overwrite: Bool = false, fsync: Bool = false
    ) {
        self.input = input
        self.mode = mode
        self.naming = naming
        self.manifest = manifest
        self.strategy = strategy
        self.limits = limits
        self.jobs = max(1, jobs)
        self.overwrite = overwrite
        self.fsync = fsync
    }

    /// The GNU list's path (the SFV's name with the digest's extension), if one is written.
    public var digestListPath: String? {
        digest.map { String(naming.defaultManifestPath.dropLast(4)) + "." + $0.rawValue }
    }

    /// The PAR2 index's path (the SFV's name with `.par2`), if recovery volumes are written.
    public var recoveryIndexPath: String? {
        recovery.map { _ in String(naming.defaultManifestPath.dropLast(4)) + ".par2" }
    }

    /// The manifest's path, if one is written.
    public var manifestPath: String? {
        switch manifest {
        case .beside: return naming.defaultManifestPath
        case .path(let path): return path
        case .none: return nil
        }
    }

    /// True when the parts go to an object store (the prefix is `s3://…`).
    public var writesObjects: Bool { ObjectLocation.isObjectPath(naming.prefix) }

    /// The output that `name` (a part's, the manifest's) stands for: a file, or an object.
    ///
    /// ## Errors
    /// `.invalidInput` for an `s3://` name that is malformed or has no store to reach it.
    func target(_ name: String) throws -> OutputTarget {
        guard let location = try ObjectLocation(parsing: name) else { return .path(name) }
        guard let objectStore else {
            throw GCDCatError(.invalidInput, path: name, message: "no object store to write it to")
        }
        return .object(ObjectTarget(location: location, store: objectStore, partSize: objectPartSize))
    }

    /// Validates the input and plans every part, before anything is written. `header` is the
    /// input's range that every part after the first repeats, when one does.
    public func plan() throws -> (input: PartFile, parts: [[SourceRange]], header: Range<Int64>?) {
        let file = try PartFile.validate(input)
        var pieces: [[SourceRange]]
        var header: Range<Int64>?
        switch mode {
        case .size, .parts:
            // As GNU split: -n COUNT gives COUNT parts whatever the size, empty ones included (unless elided).
            let ranges = try SplitPlan.byteRanges(for: mode, total: file.size, path: file.path) ?? []
            pieces = ranges.map { [range($0, of: file)] }
        case .lineChunks(let count):
            try SplitLimits.requirePartCount(Int64(count), path: file.path)
            let opened = try file.open()
            let fd = opened.raw
            pieces = try LineChunkPlanner.plan(
                fd: fd, path: file.path, size: file.size, count: count, separator: separator
            ).map { [range($0, of: file)] }
        case .roundRobin:
            throw GCDCatError(
                .invalidInput, path: file.path, message: "a round-robin split deals lines; it has no plan of ranges")
        case .lines(let limit, let headerLines):
            try SplitLimits.requirePartCount(SplitLimits.partCount(total: file.size, size: limit), path: file.path)
            let opened = try file.open()
            let fd = opened.raw
            let plan = try LineBoundaryPlanner.plan(
                fd: fd, path: file.path, size: file.size, limit: limit, headerLines: headerLines,
                separator: separator)
            header = plan.pieces.contains { $0.repeatsHeader } ? plan.header : nil
            pieces = plan.pieces.map { piece in
                (piece.repeatsHeader ? [range(plan.header, of: file)] : []) + [range(piece.range, of: file)]
            }
        case .lineCount(let lines, let headerLines):
            let opened = try file.open()
            let fd = opened.raw
            let ranges = try LineCountPlanner.plan(
                fd: fd, path: file.path, size: file.size, lines: lines, headerLines: headerLines,
                separator: separator)
            if headerLines > 0 && ranges.count > 1 {
                let size = try LineBoundaryPlanner.headerSize(
                    fd: fd, path: file.path, size: file.size, lines: headerLines, separator: separator)
                header = 0..<size
            }
            pieces = ranges.enumerated().map { index, body in
                (index > 0 ? header.map { [range($0, of: file)] } ?? [] : []) + [range(body, of: file)]
            }
        }
        if elideEmpty { pieces.removeAll { $0.allSatisfy { $0.length == 0 } } }
        return (file, pieces, header)
    }

    /// The crc32 of `range` of `file`, read now (a header: small, and in the page cache).
    static func checksum(of range: Range<Int64>, in file: PartFile) throws -> Checksum {
        let opened = try file.open()
        let fd = opened.raw
        return try ParallelChecksum.compute(
            .crc32, fd: fd, path: file.path, offset: range.lowerBound, length: Int64(range.count), jobs: 1)
    }

    private func range(_ range: Range<Int64>, of file: PartFile) -> SourceRange {
        SourceRange(file: file, offset: range.lowerBound, length: range.upperBound - range.lowerBound)
    }

    /// Writes only part `k` (1-based) to standard output, and no file (GNU `split -n K/N`,
    /// `l/K/N`, `r/K/N`). Empty parts count, as GNU counts them.
    ///
    /// ## Errors
    /// `.invalidInput` for a mode that does not count parts, `k` outside 1…count, or standard
    /// output that is the input file; read and write errors naming the input or standard output.
    public func extract(chunk k: Int, counter: TransferCounter = TransferCounter()) throws {
        // Standard output goes through the output checks: `>> input` would append to the input.
        let inputs = input == "-" ? [] : [try PartFile.validate(input)]
        try OutputSet.single(.standardOutput, inputs: inputs, overwrite: false, fsync: false, bytes: 0) { sink in
            try extract(chunk: k, to: try sink.fd, outputPath: sink.path, counter: counter)
        }
    }

    private func extract(chunk k: Int, to output: Int32, outputPath: String, counter: TransferCounter) throws {
        switch mode {
        case .roundRobin(let count):
            guard count > 0, (1...count).contains(k) else { throw badChunk(k, of: count) }
            return try RoundRobinSplitter(operation: self, count: count, counter: counter).extract(
                k, to: output, outputPath: outputPath)
        case .parts(let count), .lineChunks(let count):
            guard count > 0, (1...count).contains(k) else { throw badChunk(k, of: count) }
            var whole = self
            whole.elideEmpty = false
            let (_, pieces, _) = try whole.plan()
            let buffer = try Syscall.allocate(byteCount: 1 << 20, alignment: 4096, path: input)
            defer { free(buffer) }
            for source in pieces[k - 1] {
                let opened = try source.file.open()
                let fd = opened.raw
                var offset = source.offset
                while offset < source.offset + source.length {
                    let want = Int(min(Int64(1 << 20), source.offset + source.length - offset))
                    let got = try Syscall.pread(fd, into: buffer, count: want, offset: offset, path: source.file.path)
                    guard got > 0 else {
                        throw GCDCatError(.inputChanged, path: source.file.path, message: "shrank while it was read")
                    }
                    try Syscall.writeAll(output, from: buffer, count: got, path: outputPath)
                    counter.add(bytes: Int64(got), chunks: 1)
                    offset += Int64(got)
                }
            }
        default:
            throw GCDCatError(.invalidInput, path: input, message: "only a split into N parts can give part K of N")
        }
    }

    private func badChunk(_ k: Int, of count: Int) -> GCDCatError {
        GCDCatError(.invalidInput, path: input, message: "there is no part \(k) of \(count)")
    }

    /// Splits, then publishes every part and the manifest together. Input `-` is standard input,
    /// split in one pass (``SplitMode/parts(_:)`` needs a known size, so not from a stream).
    public func run(counter: TransferCounter = TransferCounter()) throws -> SplitResult {
        try requireRecoverySupported()
        if let source = try ObjectLocation(parsing: input) {
            guard let objectStore else {
                throw GCDCatError(.invalidInput, path: input, message: "no object store to read it from")
            }
            if writesObjects && digest != nil {
                throw GCDCatError(
                    .invalidInput, path: naming.prefix,
                    message: "a digest list is written for parts of a local file or standard input, not for an "
                        + "object split on the server (its parts never pass through gcdcat); use the SFV")
            }
            return try ObjectSplit(operation: self, source: source, store: objectStore).run(counter: counter)
        }
        if writesObjects && input == "-" {
            return try ObjectStreamSplit(operation: self, fd: STDIN_FILENO, path: "standard input").run(
                counter: counter)
        }
        if case .roundRobin(let count) = mode {
            return try RoundRobinSplitter(operation: self, count: count, counter: counter).run()
        }
        if input == "-" {
            switch mode {
            case .parts, .lineChunks:
                throw GCDCatError(
                    .invalidInput, path: "standard input", message: "--parts needs a file of known size, not a stream")
            default: break
            }
            return try StreamSplitter(operation: self, fd: STDIN_FILENO, path: "standard input", counter: counter).run()
        }
        return try splitFile(counter: counter)
    }

    /// The writer loop for a file: the planned parts written by ``strategy`` into one
    /// ``OutputSet``, side by side or one at a time with every job.
    private func splitFile(counter: TransferCounter) throws -> SplitResult {
        let (file, pieces, header) = try plan()
        let names = try partNames(count: pieces.count, inputs: [file])
        try SplitLimits.requireAddressSpace(parts: pieces.count, jobs: jobs, path: file.path)
        let unnamedParts = SplitLimits.unnamedPartBudget(jobs: jobs)
        // Uploads: parts side by side when there are enough of them, else each part's own
        // multipart upload on every job.
        let parallelParts =
            (strategy == .auto || strategy == .offsets) && !(writesObjects && pieces.count < jobs)
        // The manifest records the crc32s, and so do the marks on parts that are files (PartMark).
        let computeCRC = manifestPath != nil || !writesObjects
        // auto reads the input once for the crc32s while the kernel clones or copies the parts;
        // the other strategies checksum the bytes as they pass.
        // --par2 takes the same read, whatever the cores: its blocks need the bytes.
        let recovery = try recoveryVolumes(pieces: pieces, names: names, file: file)
        // An interruption before the parts are all opened (while the input is read) says every
        // output planned was not created, the list and the PAR2 files too, as it does once they
        // are named: each output's file takes over its note, in this order.
        let planned = writesObjects ? [] : names + [manifestPath].compactMap { $0 } + (recovery?.outputPaths ?? [])
        let pending = planned.map {
            CleanupRegistry.shared.beginOutput($0, mayReplace: overwrite && (try? Syscall.statIfExists($0)) != nil)
        }
        defer { pending.forEach(CleanupRegistry.shared.endOutput) }
        let settled =
            (computeCRC && MergeOperation.canAffordCheckThread || recovery != nil) && strategy == .auto
                && !writesObjects
            ? try MergeOperation.settledParts([file])?.first : nil
        let reader = settled ?? (recovery != nil ? file : nil)
        let pieceCRCs = reader.map { PieceChecksums(pieces: pieces, input: $0, jobs: jobs, recovery: recovery) }
        return try OutputSet.transaction(inputs: [file], overwrite: overwrite, fsync: fsync) { set in
            let finished: [MergeResult]
            do {
                // Uploads wait on the network: a thread per job, not per core.
                finished = try ParallelMap.map(
                    count: pieces.count, jobs: parallelParts ? jobs : 1, pool: writesObjects ? .threads : .cores
                ) { index in
                    let request = MergeRequest(
                        sources: pieces[index], limits: limits, jobs: parallelParts ? 1 : jobs,
                        computeCRC: computeCRC && pieceCRCs == nil)
                    return try set.produce(
                        .part(index), try target(names[index]), bytes: request.totalBytes,
                        unnamed: index < unnamedParts
                    ) { sink in
                        try sink.strategy(strategy).merge(request, into: sink, counter: counter)
                    }.value
                }
            } catch {
                // The reader holds the input open: let it finish before the parts are discarded.
                _ = try? pieceCRCs?.wait()
                throw error
            }
            let crcs = try pieceCRCs?.wait() ?? finished.map { $0.crc32 ?? 0 }
            try reader?.requireUnchangedSinceValidation()
            let (volumes, inputCRC, warnings) = try concludeFile(
                set, names: names, crcs: crcs, pieces: pieces, header: header, file: file, recovery: recovery)
            var result = fileResult(names: names, crcs: crcs, file: file, finished: finished, inputCRC: inputCRC)
            result.recovery = volumes
            return result.adding(warnings: warnings)
        }
    }

    /// A file split's tail: its PAR2 volumes added to `set` (recording the repeated `header`, so
    /// that a merge by them drops it), then ``conclude(_:names:crcs:whole:header:hexes:sources:joining:)``.
    /// Returns the volumes, the input's crc32 when the manifest records it, and the warnings,
    /// with one for a header no manifest records and one for an empty input no volume protects.
    private func concludeFile(
        _ set: OutputSet, names: [String], crcs: [UInt32], pieces: [[SourceRange]], header: Range<Int64>?,
        file: PartFile, recovery: SplitRecoveryVolumes?
    ) throws -> (volumes: Par2Creator.Result?, inputCRC: UInt32?, warnings: [String]) {
        // The PAR2 set records the repeated header too, so that a merge by it drops it.
        var recordedHeader: Par2SetRecord.Header?
        if recovery != nil, let header {
            let checksum = try Self.checksum(of: header, in: file)
            recordedHeader = Par2SetRecord.Header(size: checksum.length, crc32: checksum.value)
        }
        let volumes = try recovery?.addOutputs(to: set, header: recordedHeader, target: target)
        let record =
            try manifestPath == nil ? nil : wholeRecord(crcs: crcs, pieces: pieces, header: header, file: file)
        var warnings = try conclude(
            set, names: names, crcs: crcs, whole: record?.whole, header: record?.header, sources: pieces,
            joining: header != nil && names.count > 1 ? .repeatedHeader : .concatenated)
        if manifestPath == nil, header != nil, names.count > 1 {
            // Only the manifest records the header: without it a merge joins the parts as
            // they are, the header once per part (a checksum list checks the parts, not that).
            warnings.append(
                "no manifest records the header, so merging these parts repeats it in each of them; "
                    + "drop --no-manifest to have merge restore \(file.path.displayPath) exactly")
        }
        if self.recovery != nil && volumes == nil {
            // PAR2 has no empty set: par2 create refuses one, and an index of no files repairs nothing.
            warnings.append(
                "\(file.path.displayPath) is empty: no PAR2 recovery volumes were written, since there is no "
                    + "block to protect (par2 create refuses an empty set too)")
        }
        return (volumes, record?.whole.crc32, warnings)
    }

    /// Refuses `--par2` where the volumes cannot come from the one read of a file's pieces.
    ///
    /// ## Errors
    /// `.invalidInput` naming what `--par2` needs.
    private func requireRecoverySupported() throws {
        guard recovery != nil else { return }
        let fromRanges: Bool
        if case .roundRobin = mode { fromRanges = false } else { fromRanges = true }
        guard input == "-" || ObjectLocation.isObjectPath(input) || writesObjects || !fromRanges || strategy != .auto
        else { return }
        throw GCDCatError(
            .invalidInput, path: input == "-" ? "standard input" : input,
            message: "--par2 needs a local file cut into local parts by ranges (--size, --parts, --lines, "
                + "--line-bytes, -n N or l/N) with --strategy auto, whose one read feeds the recovery blocks")
    }

    /// The recovery volumes of `pieces`, planned and their outputs checked, when `--par2` asks.
    private func recoveryVolumes(pieces: [[SourceRange]], names: [String], file: PartFile) throws
        -> SplitRecoveryVolumes?
    {
        guard let recovery, let indexPath = recoveryIndexPath,
            let volumes = try SplitRecoveryVolumes.plan(
                pieces: pieces, partPaths: names, input: file, indexPath: indexPath, request: recovery, jobs: jobs)
        else { return nil }
        for path in volumes.outputPaths {
            if names.contains(where: { samePath($0, path) }) {
                throw GCDCatError(
                    .invalidInput, path: path,
                    message: "a recovery volume would take a part's name; choose another prefix")
            }
            try OutputSink.check(target: try target(path), inputs: [file], overwrite: overwrite)
        }
        return volumes
    }

    /// The manifest's record of the whole input, as the parts restore it: a repeated header is
    /// recorded, so merge can drop it again, and each later part counts without it.
    private func wholeRecord(crcs: [UInt32], pieces: [[SourceRange]], header: Range<Int64>?, file: PartFile) throws
        -> (whole: Manifest.Whole, header: Manifest.Header?)
    {
        let lengths = pieces.map { $0.reduce(0) { $0 + $1.length } }
        let headerChecksum = try header.map { try Self.checksum(of: $0, in: file) }
        let restored = zip(crcs, lengths).enumerated().map { index, part in
            let checksum = Checksum(.crc32, value: part.0, length: part.1)
            guard index > 0, let headerChecksum else { return checksum }
            return checksum.removingPrefix(headerChecksum)
        }
        let combined = Checksum.combine(.crc32, restored)
        return (
            Manifest.Whole(name: splitPath(file.path).name, size: combined.length, crc32: combined.value),
            headerChecksum.map { Manifest.Header(size: $0.length, crc32: $0.value) }
        )
    }

    /// What a split of a file did, from its parts' merge results.
    private func fileResult(
        names: [String], crcs: [UInt32], file: PartFile, finished: [MergeResult], inputCRC: UInt32?
    ) -> SplitResult {
        let kernel = strategy == .auto && !writesObjects
        return SplitResult(
            partPaths: names, partCRCs: crcs, manifestPath: manifestPath, bytesRead: file.size,
            bytesWritten: finished.reduce(0) { $0 + $1.bytes }, chunks: finished.reduce(0) { $0 + $1.chunks },
            inputCRC: inputCRC,
            copyMethod: kernel
                ? finished.compactMap { $0.method.flatMap(KernelCopier.Method.init(rawValue:)) }.max()?.rawValue : nil,
            clonedBytes: kernel ? finished.reduce(0) { $0 + ($1.clonedBytes ?? 0) } : nil,
            copiedBytes: kernel ? finished.reduce(0) { $0 + ($1.copiedBytes ?? 0) } : nil,
            notes: Self.cloneNotes(finished))
    }

    /// One note for the parts that were not cloned for want of alignment, if any.
    static func cloneNotes(_ results: [MergeResult]) -> [String] {
        let unaligned = results.filter { !$0.notes.isEmpty && $0.crc32 == nil }.count
        guard unaligned > 0 else { return [] }
        return [
            "\(unaligned) of \(results.count) parts not cloned: their ranges of the input are not block-aligned; copied instead"
        ]
    }

    /// Checks every output before any byte of input is read: each part (those known so far;
    /// a stream split checks the rest as it starts them) and the manifest may be written, none
    /// is an input (or standard input's file), and the manifest is not one of the parts.
    ///
    /// ## Errors
    /// `.invalidInput` naming the clash; those of ``OutputSink/check(_:inputs:overwrite:)``.
    func checkOutputs(parts names: [String], inputs: [PartFile]) throws {
        if let manifestPath {
            if let clash = names.first(where: { samePath($0, manifestPath) }) {
                throw GCDCatError(
                    .invalidInput, path: manifestPath,
                    message: "the manifest would be part \(clash.displayPath); name another manifest")
            }
            if let other = otherListClash(manifestPath) {
                throw GCDCatError(
                    .invalidInput, path: manifestPath, message: "the manifest would \(other); name another manifest")
            }
            // A stream split does not know its names yet: refuse a chosen manifest that is a
            // name of the series (each part is checked again as it starts).
            if input == "-", case .path = manifest, naming.isPartName(manifestPath) {
                throw GCDCatError(
                    .invalidInput, path: manifestPath,
                    message: "the manifest would take the name of a part; name another manifest")
            }
        }
        let paths = names + (manifestPath.map { [$0] } ?? []) + (digestListPath.map { [$0] } ?? [])
        // Objects are HEADed `jobs` at a time (a round trip each); the first refusal in order wins.
        let outcomes = try ParallelMap.map(
            count: paths.count, jobs: writesObjects && !overwrite ? jobs : 1, pool: .threads
        ) { index in
            Result<Void, any Error> {
                try OutputSink.check(target: try target(paths[index]), inputs: inputs, overwrite: overwrite)
            }
        }
        for outcome in outcomes { try outcome.get() }
    }

    /// What else of the set `manifest` would be named as (the digest list, the PAR2 index or a
    /// volume), said as `be the sha256 list a.sha256`; nil when nothing. One name for two outputs
    /// published one over the other: the summary named both.
    private func otherListClash(_ manifest: String) -> String? {
        if let digestListPath, let digest, samePath(digestListPath, manifest) {
            return "be the \(digest.rawValue) list \(digestListPath.displayPath)"
        }
        guard let index = recoveryIndexPath else { return nil }
        if samePath(index, manifest) { return "be the PAR2 index \(index.displayPath)" }
        let (indexFolder, indexName) = splitPath(index)
        let (folder, name) = splitPath(manifest)
        let volume = String(indexName.dropLast(5)) + ".vol"
        guard samePath(folder, indexFolder),
            // Volumes are found whatever the case of their names, as par2 finds them.
            name.lowercased().hasPrefix(volume.lowercased()), name.lowercased().hasSuffix(".par2")
        else { return nil }
        return "take the name of a PAR2 recovery volume"
    }

    /// The part names as the manifest at `manifestPath` must list them: relative to its folder.
    /// Folders spelt alike are compared as spelt; others (an absolute manifest beside relative
    /// parts, `../x.sfv`) by their real paths, so every spelling of one folder gives one answer.
    ///
    /// ## Errors
    /// `.invalidInput` when a part lies outside the manifest's folder (a reader would reject
    /// the `..` such a name needs).
    public static func manifestNames(_ names: [String], manifestPath: String) throws -> [String] {
        let folder = splitPath(manifestPath).directory
        return try names.map { name in
            let partFolder = splitPath(name).directory
            if partFolder == folder { return splitPath(name).name }
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            if folder == "." && !name.hasPrefix("/") && !name.hasPrefix("../") && !name.contains("/../") {
                return name.hasPrefix("./") ? String(name.dropFirst(2)) : name
            }
            if name.hasPrefix(prefix) && !name.contains("/../") { return String(name.dropFirst(prefix.count)) }
            return try realManifestName(name, folder: folder, manifestPath: manifestPath)
        }
    }

    /// `name` relative to the manifest's `folder`, both resolved to their real paths.
    private static func realManifestName(_ name: String, folder: String, manifestPath: String) throws -> String {
        let (partFolder, base) = splitPath(name)
        // Keys are compared as spelt: a bucket has no other spelling of a prefix.
        if manifestPath.hasPrefix("s3://") || name.hasPrefix("s3://") {
            throw GCDCatError(
                .invalidInput, path: manifestPath,
                message: "the manifest must sit in the parts' folder or above it (\(name) is elsewhere)")
        }
        // A folder that does not resolve (not made yet) is named with realpath's error.
        guard let realFolder = Syscall.realPath(folder) else {
            throw GCDCatError.syscall("realpath", path: folder, errno: errno)
        }
        guard let realPartFolder = Syscall.realPath(partFolder) else {
            throw GCDCatError.syscall("realpath", path: partFolder, errno: errno)
        }
        if realPartFolder == realFolder { return base }
        guard ListFolder.lies(realPartFolder, inside: realFolder) else {
            throw GCDCatError(
                .invalidInput, path: manifestPath,
                message:
                    "the manifest must sit in the parts' folder or above it, where its names can reach them: "
                    + "\(name.displayPath) is in \(realPartFolder.displayPath), which is not inside "
                    + "\(realFolder.displayPath)")
        }
        return String(realPartFolder.dropFirst(realFolder == "/" ? 1 : realFolder.count + 1)) + "/" + base
    }
}
