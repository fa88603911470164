import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A part a merge rebuilt from a PAR2 set's recovery blocks (the part itself is left as it was).
public struct RebuiltPart: Sendable, Equatable, Codable {
    /// The part's path, as the set names it.
    public var path: String
    /// `missing` or `damaged`, as verify says.
    public var state: String
    /// Blocks (PAR2 slices) of the part rebuilt.
    public var blocks: Int
    /// The file of the set that holds the part's bytes whole (a renamed or swapped part), read
    /// in its place; nil (left out of JSON) when the part is rebuilt from the recovery blocks.
    public var foundIn: String? = nil
}

extension MergeOperation {
    /// How a merge uses a PAR2 set beside its parts.
    enum Par2Use {
        /// Check the parts against it, and repair from it.
        case check(Par2PartList)
        /// An SFV or list checks the parts as before; the PAR2 repairs a part that fails it.
        case repairOnly(Par2PartList)
        /// The set's list (this path) names it: the `.par2` given lists fewer parts than lie
        /// beside the set, and the list decides, as it does from the first part.
        case byList(String)
    }

    /// How to use a PAR2 index of the set, or nil for today's merge: the set's first part, every
    /// part of it there is (a glob, `gcdcat NAME.0*`), or the `.par2` itself; no `--manifest`,
    /// `--as-given`, `--no-verify` or `--remove-parts`; and a `.par2` beside the set that lists
    /// exactly its parts. With an SFV or list beside it too, or given alone (`gcdcat NAME.sfv`),
    /// the list checks the parts as before, unless a part is missing.
    func par2Use(notes: inout [String]) throws -> Par2Use? {
        guard let argument = partPaths.first, !asGiven, manifest == nil || manifestNamedTheSet,
            manifestPolicy != .disabled, !requiresCRCManifest
        else { return nil }
        if partPaths.count == 1, splitPath(argument).name.lowercased().hasSuffix(".par2") {
            // Named, the .par2 must still list the whole set: no part beside it left out.
            guard let list = try Par2PartList.named(by: argument) else { return nil }
            try Self.refuseUnlistedStart(list)
            try Self.refuseUnlistedGaps(list)
            // Parts beside the set past the index's last, and a list beside it: the list decides,
            // as from the first part (which says so). Without a list, the refusals below.
            var unsaid: [String] = []
            if !(try emptyPartsPastLast(list, notes: &unsaid)),
                let beyond = PartDiscovery.existing(list.naming.with(number: lastNumber(list) + 1), FileSystemNames()),
                let byList = try list.naming.manifestCandidates.first(where: { try Syscall.statIfExists($0) != nil })
            {
                notes.append(
                    "\(list.index.displayPath) does not list \(beyond.displayPath), which lies beside the set; the set's "
                        + "list decides")
                return .byList(byList)
            }
            try Self.refuseShortOfTheSet(list, sfv: Self.sfvBeside(list))
            try refusePartsPastPar2(list, notes: &notes)
            return .check(list)
        }
        if let list = try Self.widestList(naming: argument, notes: &notes) {
            let present = list.paths.map { (try? Syscall.statIfExists($0)) != nil }
            // Given a later part while an earlier one exists: today's "not the first part". The
            // set's first part given while it is gone names the set as its next part does. A list
            // is the set found from its first part when it names every part there is, no other:
            // any other list is today's, refused or joined as given.
            guard let first = present.firstIndex(of: true),
                partPaths.count == 1
                    ? list.paths[first].utf8.elementsEqual(argument.utf8)
                        || (!present[0] && list.paths[0].utf8.elementsEqual(argument.utf8))
                    : Self.namesEvery(
                        zip(list.paths, present).filter(\.1).map(\.0) + partsPastLast(list), in: partPaths)
            else { return nil }
            try Self.refuseUnlistedStart(list)
            try Self.refuseUnlistedGaps(list)
            let hasList =
                try manifestNamedTheSet
                || list.naming.manifestCandidates.contains { try Syscall.statIfExists($0) != nil }
            // Parts beside the set past the index's last: the index is not this set's whole list.
            // An SFV or list beside them decides; with none, the set's extent is in doubt. Unless
            // every one is empty: PAR2 lists no empty file (par2 create leaves them out, and so
            // do `split --par2` and `protect`), and they add nothing to the output.
            let pastLast = try emptyPartsPastLast(list, notes: &notes)
            if !pastLast,
                let beyond = PartDiscovery.existing(list.naming.with(number: lastNumber(list) + 1), FileSystemNames())
            {
                // The mark its split left on it places it in the set as well as a list would.
                let marked = PartMark.readAny(beyond)?.standing == .current
                guard hasList || marked else { throw Self.pastLastRefusal(beyond, list: list) }
                notes.append(
                    "\(list.index.displayPath) does not list \(beyond.displayPath), which lies beside the set; "
                        + "the set's \(hasList ? "list decides" : "marks decide")")
                return nil
            }
            // By the .par2 alone, it must reach as far as the set's marks and SFV say the set goes.
            // So too when the marks put the set's first part under another part's name (the two
            // swapped), which they refuse before the list is read: the .par2 finds it there.
            guard hasList && !present.contains(false),
                !PartMarkEvidence.startStandsElsewhere(list.paths, names: FileSystemNames())
            else {
                try Self.refuseShortOfTheSet(list, sfv: Self.sfvBeside(list))
                return .check(list)
            }
            return .repairOnly(list)
        }
        return nil
    }

    /// The `.par2` list that names `argument` as a part, under the reading of it that makes the
    /// most of the list's files parts: `out_00.txt` is hex beside `out_0a.txt` (`split -x
    /// --additional-suffix=.txt`), where digits would leave `out_0a.txt` … `out_0f.txt` out.
    /// Other readings are tried only while the list leaves files out: each reads the `.par2`.
    static func widestList(naming argument: String, notes: inout [String]) throws -> Par2PartList? {
        var best: (list: Par2PartList, notes: [String])?
        var passedOver: [String] = []
        for naming in NumberedName.listReadings(of: argument) where best?.list.extras.isEmpty != true {
            var said: [String] = []
            defer { passedOver += said.filter { !passedOver.contains($0) } }
            guard let list = try Par2PartList.find(for: naming, notes: &said),
                list.paths.contains(where: { $0.utf8.elementsEqual(argument.utf8) }),
                list.paths.count > best?.list.paths.count ?? 0
            else { continue }
            best = (list, said)
        }
        notes += best?.notes ?? passedOver
        return best?.list
    }

    /// Whether `arguments` are the parts `existing` (in the set's order), each once, in that
    /// order or in the shell's (`x.1000` before `x.101`).
    static func namesEvery(_ existing: [String], in arguments: [String]) -> Bool {
        let same = { (a: [String], b: [String]) in a.elementsEqual(b) { $0.utf8.elementsEqual($1.utf8) } }
        let byBytes = { (a: String, b: String) in PathName.bytes(of: a).lexicographicallyPrecedes(PathName.bytes(of: b))
        }
        if same(arguments, existing) { return true }
        return same(arguments, existing.sorted()) || same(arguments, existing.sorted(by: byBytes))
    }

    /// Whether parts lie past `list`'s last and every one is an empty file (a `split -n` of
    /// fewer bytes than parts, whose empty parts PAR2 cannot list); if so, a note names them.
    func emptyPartsPastLast(_ list: Par2PartList, notes: inout [String]) throws -> Bool {
        let past = partsPastLast(list)
        for path in past {
            guard let info = try Syscall.statIfExists(path), info.st_mode & S_IFMT == S_IFREG, info.st_size == 0
            else { return false }
        }
        guard let first = past.first else { return false }
        let named = past.count == 1 ? first.displayPath : "\(first.displayPath) … \(past.last!.displayPath)"
        notes.append(
            "\(named) past \(list.paths.last!.displayPath) \(past.count == 1 ? "is" : "are") empty, so "
                + "\(list.index.displayPath) does not list \(past.count == 1 ? "it" : "them") (PAR2 lists no empty file); "
                + "\(past.count == 1 ? "it adds" : "they add") nothing to the output")
        return true
    }

    /// The parts beside the set past `list`'s last, in order.
    func partsPastLast(_ list: Par2PartList) -> [String] {
        var past: [String] = []
        while let path = PartDiscovery.existing(
            list.naming.with(number: lastNumber(list) + 1 + past.count), FileSystemNames())
        {
            past.append(path)
        }
        return past
    }

    func lastNumber(_ list: Par2PartList) -> Int {
        list.naming.number(ofSuffix: Self.suffix(of: list.paths.last!, in: list)) ?? 0
    }

    /// Merges the set `list` describes: its parts are checked against the PAR2 MD5s as they are
    /// copied into the unnamed output (``checkParts(_:copyingInto:counter:)``), so the bytes
    /// checked are the bytes written; missing or damaged parts are rebuilt from the recovery
    /// blocks into the output (never into the parts), their bytes checked against their MD5s as
    /// they are written. Published all or nothing through the ``OutputSet``: nothing is named
    /// unless every part passed.
    ///
    /// ## Errors
    /// `.missingPart` (a part missing) or `.checksumMismatch` (damaged only) when the recovery
    /// blocks do not suffice, before anything is published; `listFailure` (the SFV's verdict that
    /// sent the merge here) when the PAR2 finds every part intact; those of ``Par2Repairer``
    /// and of the output.
    func mergeRepairing(
        _ list: Par2PartList, afterListFailure listFailure: GCDCatError? = nil, notice: (Notice) -> Void,
        measure: (OutputTarget, Int64, (TransferCounter) throws -> MergeResult) throws -> MergeResult
    ) throws -> Outcome {
        let resolved = PartArguments.Resolved(
            parts: list.paths, defaultOutput: list.naming.wholeName, manifestCandidates: [], discovered: true,
            startsLate: false, notes: [])
        try checkRecordedHeader(list)
        let target = try outputTarget(resolved)
        let pending = target.path.map { CleanupRegistry.shared.beginOutput($0) }
        defer { pending.map(CleanupRegistry.shared.endOutput) }
        let presentPaths = try list.paths.filter { try Syscall.statIfExists($0, followLinks: false) != nil }
        let parts = try validatedParts(presentPaths)
        // The extras are read too: no output may be written over one. One that is not there
        // (a dangling link too) is missing, as verify says, and no matter while the parts are intact.
        let extras = try list.extras.map { list.set.path(of: list.set.files[$0]) }.filter {
            try Syscall.statIfExists($0) != nil
        }.map { try PartFile.validate($0) }
        let inputs = parts + extras + [try PartFile.validate(list.index)]
        switch target {
        case .path(let path):
            // A missing part is no input to check against, yet it is the set's: never written over.
            if let part = list.paths.first(where: { samePath($0, path) }) {
                throw GCDCatError(
                    .invalidInput, path: path,
                    message: "is part \(part.displayPath) of the set \(list.index.displayPath) describes; "
                        + "choose another output name")
            }
            try OutputSink.check(path, inputs: inputs, overwrite: overwrite)
        case .object:
            throw GCDCatError(
                .invalidInput, path: list.index,
                message:
                    "a merge checked by a PAR2 set writes a file or standard output, not an object; merge to a file, "
                    + "or check the parts against an SFV")
        case .standardOutput: break
        }
        try refuseShortOfRecoveryBlocks(list)
        for note in [list.extrasNote].compactMap({ $0 }) + list.set.foreignVolumeNotes + list.set.notPar2Notes
            + list.set.damagedPacketNotes
        {
            notice(.note(note))
        }
        let total = list.outputLength
        var operation = self
        operation.output = target
        var rebuilt: [RebuiltPart] = []
        // The notes come once the check has run, inside the write (notice does not escape).
        let result = try withoutActuallyEscaping(notice) { notice in
            try Self.namingTheIndex(of: list, ifReserving: total) {
                try measure(target, total) { counter in
                    try OutputSet.single(target, inputs: inputs, overwrite: overwrite, fsync: fsync, bytes: total) {
                        sink in
                        try operation.checkAndWrite(
                            list, afterListFailure: listFailure, into: sink, counter: counter, rebuilt: &rebuilt,
                            notice: notice)
                    }
                }
            }
        }
        let checked = MergeVerification(
            manifestPath: list.index, expectedCRC: nil, warnings: [], manifestFile: inputs.last)
        var outcome = Outcome(
            output: target, request: MergeRequest(parts: parts, limits: limits, jobs: jobs), result: result,
            verification: checked)
        outcome.rebuiltParts = rebuilt
        outcome.partCount = list.paths.count
        return outcome
    }

    /// Refuses, before the output is created or any part read, a set whose recovery blocks
    /// cannot make up for what the sizes on disk already show lost: a part missing loses all its
    /// blocks, a part shorter than the set says loses each block wholly past its end (unless that
    /// block is all zeros, as a file's end read past is). The output's size comes from the
    /// `.par2`, and a few bytes of a hostile one declaring tens of GiB had that much reserved
    /// before anything was checked.
    ///
    /// ## Errors
    /// `.missingPart` (a part missing) or `.checksumMismatch` (parts short only) naming the index.
    private func refuseShortOfRecoveryBlocks(_ list: Par2PartList) throws {
        let set = list.set
        let sliceSize = Int64(set.sliceSize)
        var zeroCRC: UInt32?
        var lost = 0
        var short: [(path: String, what: String)] = []
        var partsLost = 0
        // The parts first: only when one of them needs repair do the extras' blocks count too.
        let files =
            list.order.enumerated().map { (list.paths[$0.offset], $0.element) }
            + list.extras.map { (set.path(of: set.files[$0]), $0) }
        // A file of the set short on disk, whose size another file of it has, may be found whole
        // there (the last part swapped with another: the check looks,
        // ``Par2Verification/findMovedFiles(extras:)``): not counted lost yet. A missing one
        // still is (its bytes under another name leave that name's own bytes lost), unless a
        // killed gcdcat left a scratch copy of its size beside it, which the check looks in.
        var sizes: [Int64: [String]] = [:]
        for file in set.files {
            let path = set.path(of: file)
            if let info = try? Syscall.statIfExists(path), info.st_mode & S_IFMT == S_IFREG {
                sizes[Int64(info.st_size), default: []].append(path)
            }
        }
        let missing = try set.files.filter { try !Par2Verifier.exists(set.path(of: $0)) }
        let leftovers = Self.leftovers(for: missing.map { (set.path(of: $0), $0.length) })
        for (position, (path, index)) in files.enumerated() {
            if position == list.order.count { partsLost = lost }
            let file = set.files[index]
            guard try Par2Verifier.exists(set.path(of: file)) else {
                if leftovers.contains(set.path(of: file)) { continue }
                lost += file.slices.count
                if !file.slices.isEmpty { short.append((path, "missing")) }
                continue
            }
            if sizes[file.length]?.contains(where: { $0 != set.path(of: file) }) == true { continue }
            guard let info = try Syscall.statIfExists(set.path(of: file)), info.st_mode & S_IFMT == S_IFREG,
                Int64(info.st_size) < file.length
            else { continue }
            let size = Int64(info.st_size)
            let first = Int((size + sliceSize - 1) / sliceSize)
            guard first < file.slices.count else { continue }
            if zeroCRC == nil { zeroCRC = Par2Verifier.zeroSliceCRC(set.sliceSize) }
            let past = file.slices[first...].filter { $0.crc32 != zeroCRC }.count
            guard past > 0 else { continue }
            lost += past
            short.append((path, "\(size) bytes on disk, \(file.length) in the set"))
        }
        if list.extras.isEmpty { partsLost = lost }
        guard partsLost > 0, lost > set.recoverySlices.count else { return }
        let named = short.prefix(5).map { "\($0.path.displayPath) (\($0.what))" }.joined(separator: ", ")
        throw GCDCatError(
            short.contains { $0.what == "missing" } ? .missingPart : .checksumMismatch, path: list.index,
            message:
                // The parts present at full size are not read yet: their damage would add to these.
                "not repairable: at least \(counted(lost, "block")) missing, \(counted(set.recoverySlices.count, "recovery block")) "
                + "available (\(named)\(short.count > 5 ? ", …" : "")); nothing was written")
    }

    /// The `files` (paths, with the sizes the set gives them) beside which a killed gcdcat left
    /// a scratch copy (``LeftoverTemporaries``) of that size, held by no process: the check may
    /// find a file's bytes whole there. One look through each folder for all of them.
    private static func leftovers(for files: [(path: String, size: Int64)]) -> Set<String> {
        guard !files.isEmpty else { return [] }
        let sizes = Dictionary(files, uniquingKeysWith: { first, _ in first })
        var found: Set<String> = []
        for candidate in LeftoverTemporaries.find(for: files.map(\.path)) where !found.contains(candidate.output) {
            guard let size = sizes[candidate.output], LeftoverTemporaries.isStale(candidate.leftover),
                let info = (try? Syscall.statIfExists(candidate.leftover)).flatMap({ $0 }), Int64(info.st_size) == size
            else { continue }
            found.insert(candidate.output)
        }
        return found
    }

    /// Runs `body`, which makes an output of `bytes`, the size `list`'s index gives the set: a
    /// failure to reserve them (`fallocate`: too large for the filesystem, a full disk) names
    /// the index as where the size came from.
    static func namingTheIndex<T>(of list: Par2PartList, ifReserving bytes: Int64, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as GCDCatError where error.syscall == "fallocate" {
            error.message +=
                "; the output's size, \(bytes) bytes, is what \(list.index.displayPath) declares for the set's files"
            throw error
        }
    }

    /// The body of ``mergeRepairing(_:afterListFailure:notice:measure:)``'s output: checks the
    /// parts (copying them into `sink`), refuses a set that cannot be mended or that the SFV
    /// and the PAR2 disagree on, rebuilds the bad blocks and writes the rest of the set.
    private func checkAndWrite(
        _ list: Par2PartList, afterListFailure listFailure: GCDCatError?, into sink: OutputSink,
        counter: TransferCounter, rebuilt: inout [RebuiltPart], notice: (Notice) -> Void
    ) throws -> MergeResult {
        // The usual repair is of parts that are missing: their blocks are the ones to rebuild,
        // known before the check, so the rebuild starts at once beside it (the check's writes of
        // the intact parts into the output take one core, the rebuild's multiplications the
        // other), and is kept only if the check finds exactly those blocks bad.
        let expected = try Self.missingPartsOnly(list.set)
        let early =
            jobs > 1 && expected.badSliceCount > 0 && expected.isRepairable
            ? BackgroundWork(ownThread: true) { [jobs] in try Par2Repairer.rebuild(expected, jobs: jobs) } : nil
        // Never left running past this merge, whatever it throws.
        defer { _ = early?.outcome() }
        var (verification, copied) = try checkParts(list, copyingInto: sink, counter: counter)
        // A part swapped with another, or renamed to another's name, is read from where it is.
        try verification.findMovedFiles()
        for note in verification.searchNotes { notice(.note(note)) }
        // The SFV rejected a part the PAR2 finds intact: the lists disagree, and neither wins.
        let partsIntact = list.order.allSatisfy { verification.files[$0].state == .ok }
        if var listFailure, partsIntact {
            listFailure.message +=
                "; \(list.index.displayPath) finds every part intact, so the two lists disagree: nothing was written"
            throw listFailure
        }
        try requireSomeBlockMatches(list, verification)
        try requireRecordedHeaders(list, verification)
        rebuilt = try rebuiltParts(list, verification)
        announce(rebuilt, of: list, verification, notice: notice)
        for extra in list.extras where verification.files[extra].state != .ok {
            let file = verification.files[extra]
            notice(
                .note(
                    "\(list.set.path(of: list.set.files[extra]).displayPath), no part of the set, is "
                        + "\(file.state.rawValue) (\(counted(file.badSlices.count, "block"))): "
                        + (partsIntact ? "no matter to the output" : "its blocks are rebuilt too, in memory only")))
        }
        // Empty parts lost or grown have no block to rebuild: they are written as nothing.
        let repaired: Par2Repairer.Rebuilt?
        if partsIntact || verification.badSliceCount == 0 {
            repaired = nil
        } else if let early, zip(expected.files, verification.files).allSatisfy({ $0.badSlices == $1.badSlices }),
            verification.files.allSatisfy({ $0.foundIn == nil })
        {
            // The early rebuild read every part at its own name: right only if none was found elsewhere.
            repaired = try early.wait()
        } else {
            _ = early?.outcome()
            repaired = try Par2Repairer.rebuild(verification, jobs: jobs)
        }
        return try writeSet(
            list, verification, rebuilt: repaired, intactWritten: copied, into: sink, counter: counter,
            listed: ListedCRCs(list))
    }

    /// What verifying `set` finds if its files present are intact: each missing file missing,
    /// every other one OK. Nothing is read but the files' names.
    ///
    /// ## Errors
    /// `.io` naming a file whose `lstat` failed.
    static func missingPartsOnly(_ set: Par2RecoverySet) throws -> Par2Verification {
        let files = try set.files.map { file -> Par2FileStatus in
            try Par2Verifier.exists(set.path(of: file))
                ? Par2FileStatus(state: .ok, badSlices: [], sizeOnDisk: nil)
                : Par2FileStatus(state: .missing, badSlices: Array(file.slices.indices), sizeOnDisk: nil)
        }
        return Par2Verification(set: set, files: files)
    }

    /// The merge checked by the set's SFV or list, as without a PAR2; a part that fails it is
    /// rebuilt from `list` instead of failing the merge (the failed attempt's output was
    /// discarded by its ``OutputSet``).
    func mergeListed(
        repairingFrom list: Par2PartList, notice: (Notice) -> Void,
        measure: (OutputTarget, Int64, (TransferCounter) throws -> MergeResult) throws -> MergeResult
    ) throws -> Outcome {
        var listed = self
        listed.skipsPar2 = true
        do {
            return try listed.merge(notice: notice, measure: measure)
        } catch let error as GCDCatError where error.code == .checksumMismatch {
            notice(
                .note(
                    "\(error.path?.displayPath ?? "a part"): \(error.message); checking the set against "
                        + "\(list.index.displayPath) to repair it"))
            return try mergeRepairing(list, afterListFailure: error, notice: notice, measure: measure)
        }
    }

    /// Verifies the set's files against their PAR2 checksums. Into a file of gcdcat's own
    /// (positional writes), each part's bytes are written at its place in the output as they are
    /// hashed, counted by the write's `counter`, so the output holds the very bytes the check
    /// accepted (true in the result; a damaged part is written again from its repair). Else the
    /// check has a progress line of its own, and writes nothing.
    private func checkParts(
        _ list: Par2PartList, copyingInto sink: OutputSink, counter: TransferCounter
    ) throws -> (Par2Verification, Bool) {
        guard sink.allowsPositionalWrites else {
            let counter = TransferCounter()
            let total = list.set.files.reduce(Int64(0)) { $0 + $1.length }
            let meter =
                showsCheckProgress
                ? ProgressMeter(label: "checking " + list.index, total: total, counter: counter) : nil
            defer { meter?.finish() }
            return (try Par2Verifier.verify(list.set, jobs: jobs, counter: counter), false)
        }
        var offsets = [Int64](repeating: 0, count: list.set.files.count)
        var dropped = offsets
        var offset: Int64 = 0
        for (position, index) in list.order.enumerated() {
            offsets[index] = offset
            dropped[index] = list.droppedHeader(at: position)
            offset += list.set.files[index].length - dropped[index]
        }
        var joined = [Bool](repeating: false, count: list.set.files.count)
        for index in list.order { joined[index] = true }
        let (fd, path, starts, drops, parts) = (try sink.fd, sink.path, offsets, dropped, joined)
        let verification = try Par2Verifier.verify(list.set, jobs: jobs, counter: counter) { file, offset, bytes in
            // An extra is checked, never written.
            guard parts[file], let (offset, bytes) = keptBytes(bytes, at: offset, dropping: drops[file]) else { return }
            try Syscall.pwriteAll(
                fd, from: bytes.baseAddress!, count: bytes.count, offset: starts[file] + offset, path: path)
        }
        return (verification, true)
    }

    /// A set whose parts after the first repeat a header: gcdcat's record in the PAR2 set says
    /// how long it is (``Par2PartList/droppedHeader(at:)`` leaves it out), and each of those
    /// parts must be at least that long. Without the record (a set protected after the split),
    /// a set whose SFV says so (`; gcdcat-header:`) is refused: the PAR2 set protects the parts
    /// as written, headers and all, so this merge would keep every repeated header and miss the
    /// SFV's whole-file record. `gcdcat repair` mends the parts themselves; the plain merge then
    /// drops the headers and checks the whole file.
    ///
    /// ## Errors
    /// `.invalidInput` naming the SFV and the fix; `.malformedManifest` naming the index when a
    /// part is shorter than the header it records.
    private func checkRecordedHeader(_ list: Par2PartList) throws {
        if let header = list.set.header {
            for (position, index) in list.order.enumerated() where list.set.files[index].length < header.size {
                throw GCDCatError(
                    .malformedManifest, path: list.index,
                    message:
                        "records a header of \(header.size) bytes atop every part, but it gives "
                        + "\(list.paths[position].displayPath) only \(list.set.files[index].length) bytes; nothing was "
                        + "written. Merge by the set's SFV (--manifest FILE), or join the parts as they are (--as-given)"
                )
            }
            return
        }
        for candidate in list.naming.manifestCandidates where candidate.hasSuffix(".sfv") {
            guard try Syscall.statIfExists(candidate) != nil, (try? Manifest.load(candidate))?.header != nil
            else { continue }
            throw GCDCatError(
                .invalidInput, path: candidate,
                message:
                    "says every part after the first repeats a header that the merge drops, which a merge repairing "
                    + "from \(list.index.displayPath) cannot do (it rebuilds the parts as written, headers and all); "
                    + "nothing was written. Mend the parts with gcdcat repair \(list.index.displayPath), then merge "
                    + "them with gcdcat \(list.paths[0].displayPath)")
        }
    }

    /// Each part present and intact must start with the header the set records (its crc32): a
    /// record that does not fit the parts would drop other bytes than the split repeated. Parts
    /// written from the recovery blocks are the set's bytes, checked by their MD5s.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the part.
    private func requireRecordedHeaders(_ list: Par2PartList, _ verification: Par2Verification) throws {
        guard let header = list.set.header else { return }
        for (position, index) in list.order.enumerated() where verification.files[index].state == .ok {
            let path = list.paths[position]
            let opened = try Syscall.openRegularFile(path)
            let checksum = try ParallelChecksum.compute(
                .crc32, fd: opened.raw, path: path, offset: 0, length: header.size, jobs: 1)
            guard checksum.value != header.crc32 else { continue }
            throw GCDCatError(
                .checksumMismatch, path: path,
                message:
                    "does not start with the header \(list.index.displayPath) records (crc32 \(checksum.hex), not "
                    + "\(hex8(header.crc32))), so the merge cannot tell what to leave out; nothing was written")
        }
    }

    /// Says which parts are rebuilt, or that every part verified.
    /// A part with no block to rebuild is said as what the merge does with it: an empty part
    /// lost adds nothing; one with bytes past the set's length (every block intact) is trimmed.
    private func announce(
        _ rebuilt: [RebuiltPart], of list: Par2PartList, _ verification: Par2Verification, notice: (Notice) -> Void
    ) {
        guard !rebuilt.isEmpty else { return notice(.verified(parts: list.paths.count, manifest: list.index)) }
        let files = Dictionary(
            list.order.enumerated().map { (list.paths[$0.offset], $0.element) }, uniquingKeysWith: { a, _ in a })
        for part in rebuilt {
            if let found = part.foundIn {
                notice(
                    .note(
                        "\(part.path.displayPath) (\(part.state)): its bytes were found whole in \(found.displayPath) "
                            + "(by \(list.index.displayPath)'s MD5s), which the merge reads in its place; the parts "
                            + "themselves are left as they are"))
                continue
            }
            if part.blocks == 0, let index = files[part.path] {
                let length = list.set.files[index].length
                if part.state == "missing" && length == 0 {
                    notice(
                        .note(
                            "\(part.path.displayPath) is missing, but \(list.index.displayPath) records it as an empty "
                                + "part: it adds nothing to the output"))
                    continue
                }
                if let size = verification.files[index].sizeOnDisk, size > length {
                    notice(
                        .note(
                            "trimming \(part.path.displayPath) to the \(length) bytes \(list.index.displayPath) gives "
                                + "it (damaged: \(size - length) bytes longer, every block intact): the output leaves the "
                                + "\(size - length) bytes out; the part itself is left as it is"))
                    continue
                }
            }
            notice(
                .note(
                    "rebuilding \(part.path.displayPath) (\(part.state), \(part.blocks) block\(part.blocks == 1 ? "" : "s")) from "
                        + "\(list.index.displayPath)'s recovery blocks; the part itself is left as it is"))
        }
    }

    /// Refuses a set of which no block of any part present matches its recorded checksums: such
    /// a recovery set is another file's (an older version's index or volumes left beside a new
    /// split), and rebuilding every part from it would publish that file. Damage, even heavy,
    /// leaves some block intact; a set overwritten whole is `gcdcat repair`'s to mend, by name.
    /// Unless every such part shows damage rather than other contents (``showsDamage(_:listed:)``):
    /// a part overwritten whole with zeros, beside another part lost, was refused although its
    /// set was repairable and the SFV beside it also said the part was bad.
    ///
    /// ## Errors
    /// `.invalidInput` naming the index and the parts.
    private func requireSomeBlockMatches(_ list: Par2PartList, _ verification: Par2Verification) throws {
        let present = list.order.enumerated().filter { verification.files[$0.element].state != .missing }
        let unmatched = present.filter { _, file in
            verification.files[file].badSlices.count >= list.set.files[file].slices.count
        }
        guard !present.isEmpty, unmatched.count == present.count,
            present.contains(where: { !list.set.files[$0.element].slices.isEmpty })
        else { return }
        // An extra protected with the parts (an `.nfo`) that matches shows the set is this one.
        if list.extras.contains(where: { verification.files[$0].state == .ok && !list.set.files[$0].slices.isEmpty }) {
            return
        }
        let listed = ListedCRCs(list)
        if try present.allSatisfy({ try Self.showsDamage(list.paths[$0.offset], listed: listed) }) { return }
        let named = present.prefix(5).map { list.paths[$0.offset].displayPath }.joined(separator: ", ")
        throw GCDCatError(
            .invalidInput, path: list.index,
            message:
                "the recovery set describes other contents: not one block of \(named)\(present.count > 5 ? ", …" : "") "
                + "matches its checksums, so it is another file's set (an older version's?); nothing was written. "
                + "Remove it and merge again, or, if these parts are what was overwritten, "
                + "gcdcat repair \(list.index.displayPath) rebuilds them")
    }

    /// Whether the part at `path`, none of whose blocks matches the recovery set, reads as damage
    /// rather than as another version's bytes: it holds only zeros (wiped, or a hole), or the
    /// SFV beside the set (`listed`) gives it another crc32 too, so both of the set's lists call
    /// it bad (a part written from the recovery set must then have the SFV's crc32, which
    /// ``writeSet(_:_:rebuilt:intactWritten:into:counter:listed:)`` checks). Reads the part once,
    /// and without an SFV line for it stops at its first byte that is not zero.
    ///
    /// ## Errors
    /// `.io` naming the part.
    static func showsDamage(_ path: String, listed: ListedCRCs?) throws -> Bool {
        let expected = listed?.crcs[splitPath(path).name]?.0
        let opened = try Syscall.openRegularFile(path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var crc = Checksum(.crc32)
        var zeros = true
        var offset: Int64 = 0
        while true {
            let got = try Syscall.pread(
                opened.raw, into: buffer.baseAddress!, count: buffer.count, offset: offset, path: path)
            if got == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<got])
            if zeros && bytes.contains(where: { $0 != 0 }) {
                zeros = false
                if expected == nil { return false }
            }
            crc.update(bytes)
            offset += Int64(got)
        }
        return zeros || expected.map { $0 != crc.value } ?? false
    }

    /// The parts to rebuild, in part order; refuses, before anything is written, a set whose
    /// recovery blocks do not suffice.
    private func rebuiltParts(_ list: Par2PartList, _ verification: Par2Verification) throws -> [RebuiltPart] {
        let rebuilt = list.order.enumerated().compactMap { position, file -> RebuiltPart? in
            let status = verification.files[file]
            guard status.state != .ok else { return nil }
            return RebuiltPart(
                path: list.paths[position], state: status.state.rawValue, blocks: status.badSlices.count,
                foundIn: status.foundIn)
        }
        // Parts intact: an extra's damage is no matter to the output.
        guard !rebuilt.isEmpty, !verification.isRepairable else { return rebuilt }
        let missing = rebuilt.contains { $0.state == "missing" }
        let named = rebuilt.prefix(5).map { "\($0.path.displayPath) (\($0.state))" }.joined(separator: ", ")
        throw GCDCatError(
            missing ? .missingPart : .checksumMismatch, path: list.index,
            message:
                "not repairable: \(counted(verification.badSliceCount, "block")) missing, "
                + "\(counted(list.set.recoverySlices.count, "recovery block")) available (\(named)\(rebuilt.count > 5 ? ", …" : "")); "
                + "nothing was written")
    }
}
