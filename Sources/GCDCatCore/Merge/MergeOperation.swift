import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A whole merge: resolve and validate the parts, open the output safely, run a strategy,
/// and commit the output only if every byte arrived.
///
/// ``merge(notice:measure:)`` does all of it from the user's arguments: discovery or order
/// checks (``PartArguments``), part checks, the output pre-check, manifest verification, the run.
/// ``run(counter:)`` merges `partPaths` exactly as given, for callers that made them.
public struct MergeOperation: Sendable {
    /// The part arguments: a first part, or every part.
    public var partPaths: [String]
    /// The output; ``merge(notice:measure:)`` derives it from the first part when nil.
    public var output: OutputTarget?
    /// A manifest to verify against; otherwise the set's own is looked for, as `policy` says.
    public var manifest: String?
    public var manifestPolicy: ManifestPolicy
    /// Take an explicit list in the order given, gaps included, and skip the content sniff.
    public var asGiven: Bool
    public var strategy: MergeStrategyKind
    public var limits: ChunkLimits
    public var jobs: Int
    public var overwrite: Bool
    public var fsync: Bool
    public var allowDuplicates: Bool
    public var computeCRC: Bool
    /// Show a progress line (on a terminal) while the manifest check reads every part.
    public var showsCheckProgress = false
    /// The parts are to be removed afterwards, which needs the output's own bytes checked:
    /// checksum the output against the parts' crc32s (an SFV's, or those the read of a digest
    /// list gives) as it passes instead of overlapping the check with a copy (whose "parts unchanged" test
    /// cannot see a write through a shared mapping that leaves the mtime alone).
    public var requiresCRCManifest = false
    /// What a md5/sha list's untagged lines are (`--algorithm`), when its name does not say.
    public var listAlgorithm: HashAlgorithm?
    /// Set while the parts are checked against their SFV with a PAR2 beside them held back for
    /// repair (``mergeListed(repairingFrom:notice:measure:)``), or once the PAR2 said the list decides.
    var skipsPar2 = false
    /// `manifest` is the checksum list given alone, which named the set (`gcdcat NAME.sfv`): the
    /// set's own list, as one found beside it is, not a `--manifest` that leaves the PAR2 alone.
    var manifestNamedTheSet = false
    /// The checksum list that named the set (`gcdcat NAME.sfv`) when the first part it names is
    /// gone: refused as missing unless a `.par2` beside the set rebuilds it.
    var firstPartMissingFrom: String?

    public init(
        partPaths: [String], output: OutputTarget, strategy: MergeStrategyKind = .auto,
        limits: ChunkLimits = .default, jobs: Int = 2, overwrite: Bool = false,
        fsync: Bool = false, allowDuplicates: Bool = false, computeCRC: Bool = false
    ) {
        self.init(
            arguments: partPaths, output: output, manifestPolicy: .disabled, strategy: strategy, limits: limits,
            jobs: jobs, overwrite: overwrite, fsync: fsync, allowDuplicates: allowDuplicates)
        self.computeCRC = computeCRC
    }

    /// A merge of the user's arguments, for ``merge(notice:measure:)``.
    public init(
        arguments: [String], output: OutputTarget?, manifest: String? = nil,
        manifestPolicy: ManifestPolicy = .automatic, asGiven: Bool = false, strategy: MergeStrategyKind = .auto,
        limits: ChunkLimits = .default, jobs: Int = 2, overwrite: Bool = false, fsync: Bool = false,
        allowDuplicates: Bool = false
    ) {
        self.partPaths = arguments
        self.output = output
        self.manifest = manifest
        self.manifestPolicy = manifestPolicy
        self.asGiven = asGiven
        self.strategy = strategy
        self.limits = limits
        self.jobs = jobs
        self.overwrite = overwrite
        self.fsync = fsync
        self.allowDuplicates = allowDuplicates
        self.computeCRC = false
    }

    /// Checks every part, in order, before anything is written.
    ///
    /// ## Errors
    /// The first part that is missing, not a regular file, unreadable, (without
    /// `allowDuplicates`) the same file as an earlier part, or named as a checksum list.
    public func validatedParts() throws -> [PartFile] {
        try validatedParts(partPaths)
    }

    /// `numbered`: the paths are a set found by its numbering, where a name such as `in.b2` (hex)
    /// or `in.sfv` (three letters) is a part's by its number: refused as a list only by its
    /// contents, as is such a name a split marked as its part.
    func validatedParts(_ paths: [String], numbered: Bool = false) throws -> [PartFile] {
        var repeated = RepeatedParts<PartFile>(allowed: allowDuplicates)
        return try paths.map { path in
            let part: PartFile
            do {
                part = try PartFile.validate(path)
            } catch var error as GCDCatError where error.errno == ENOENT {
                // `café.002` typed in NFC, on disk in NFD: say that it is there, spelt otherwise.
                error.message += LookAlikeNames.clause(missing: path, match: "set")
                throw error
            }
            if ChecksumListDetector.kind(ofName: part.path) != nil,
                numbered || (FileSystemNames().mark(of: part.path)?.standing ?? .stale) != .stale
            {
                try refuseListContents([part])
            } else {
                try refuseNonPart(part)
            }
            try repeated.admit(part)
            return part
        }
    }

    static let listHint =
        "; a shell glob such as NAME.* takes it in. Give the first part alone (NAME.001) and the list beside it is used to verify the set"

    /// Refuses a part whose name says it is a checksum list (`.sfv`, `.md5`, …).
    func refuseNonPart(_ part: PartFile) throws {
        if let kind = ChecksumListDetector.kind(ofName: part.path) {
            throw GCDCatError(
                .invalidInput, path: part.path, message: "a checksum list (\(kind)), not a part\(Self.listHint)")
        }
    }

    /// Refuses a part whose first KiB read as a checksum list. Only for listed parts with no
    /// manifest to vouch for them: a discovered name or a verified crc32 says it is a part.
    func refuseListContents(_ parts: [PartFile]) throws {
        for part in parts where part.size > 0 && part.size <= 64 << 20 {
            let head = try ChecksumListDetector.head(of: part.path)
            let truncated = part.size > Int64(ChecksumListDetector.sniffLength)
            if let kind = ChecksumListDetector.kind(ofHead: head, truncated: truncated) {
                throw GCDCatError(
                    .invalidInput, path: part.path,
                    message:
                        "reads as a checksum list (\(kind) lines), not a part\(Self.listHint) (or --as-given if it is data)"
                )
            }
        }
    }

    /// Refuses a first part that begins with the spanned zip signature, whatever its name.
    func refuseSpannedZip(_ first: PartFile?) throws {
        guard let first, first.size >= 4 else { return }
        let head = try ChecksumListDetector.head(of: first.path, count: 4)
        if let refusal = ArchiveVolumes.refusal(for: first.path, head: head) { throw refusal }
    }

    /// Validates, merges, and commits `partPaths` as given; on any failure the output is removed.
    public func run(counter: TransferCounter = TransferCounter()) throws -> (MergeRequest, MergeResult) {
        let request = MergeRequest(
            parts: try validatedParts(), limits: limits, jobs: jobs, computeCRC: computeCRC)
        return (request, try run(request, counter: counter))
    }

    /// What ``merge(notice:measure:)`` tells its caller before the run.
    public enum Notice: Sendable, Equatable {
        /// Something done on the user's behalf (a glob-ordered list sorted).
        case note(String)
        /// Something that may be wrong but is not an error.
        case warning(String)
        /// The parts passed their manifest.
        case verified(parts: Int, manifest: String)
        /// The parts passed the crc32s their split recorded in their marks (no list in use).
        case verifiedByMarks(parts: Int)
    }

    /// A finished merge.
    public struct Outcome: Sendable {
        public var output: OutputTarget
        public var request: MergeRequest
        public var result: MergeResult
        public var verification: MergeVerification
        /// Parts rebuilt from a PAR2 set's recovery blocks into the output, in part order.
        public var rebuiltParts: [RebuiltPart] = []
        /// The set's parts, the rebuilt missing ones included.
        public var partCount: Int? = nil
        /// The notes said on the way (which parts a PAR2 set rebuilds, the SFV's verdict that sent
        /// it there, what the other lists beside the set say), for the report's `notes` as on
        /// standard error.
        public var notes: [String] = []
    }

    /// The whole merge from the user's arguments. `notice` hears notes and warnings before the
    /// run; `measure` wraps the run (time, memory, progress over the output and its total bytes)
    /// and hands it the byte counter.
    ///
    /// ## Errors
    /// Those of ``PartArguments/resolve(_:asGiven:)``, ``validatedParts()``, the output check
    /// (before any part is read for verification; the manifest in use counts as an input),
    /// ``MergeVerification``, and the run.
    public func merge(
        notice: (Notice) -> Void,
        measure: (OutputTarget, Int64, (TransferCounter) throws -> MergeResult) throws -> MergeResult
    ) throws -> Outcome {
        if let routed = try mergeByListOrPar2(notice: notice, measure: measure) { return routed }
        // Every note said on the way goes to the report too (`--json`'s `notes`), as it is said:
        // those about other lists beside the set were on standard error only.
        var said: [String] = []
        var outcome = try withoutActuallyEscaping(notice) { notice in
            try mergeParts(
                notice: { told in
                    if case .note(let text) = told { said.append(text) }
                    notice(told)
                }, measure: measure)
        }
        outcome.notes = said
        return outcome
    }

    /// ``merge(notice:measure:)`` of parts (or of the set a list names).
    private func mergeParts(
        notice: (Notice) -> Void,
        measure: (OutputTarget, Int64, (TransferCounter) throws -> MergeResult) throws -> MergeResult
    ) throws -> Outcome {
        var resolved = try PartArguments.resolve(partPaths, asGiven: asGiven)
        if let list = try SetFromList.loneList(
            partPaths, asGiven: asGiven, isNumberedPart: { _ in resolved.discovered })
        {
            return try fromList(list).merge(notice: notice, measure: measure)
        }
        for note in resolved.notes { notice(.note(note)) }
        try Self.requireAddressSpace(parts: resolved.parts.count, path: resolved.parts.first ?? "")
        let target = try outputTarget(resolved)
        let outputName = Self.outputName(target, resolved)
        resolved.manifestCandidates = Self.listCandidates(resolved, outputName: outputName)
        // From here an interruption says that this output was not created.
        let pending = target.path.map { CleanupRegistry.shared.beginOutput($0) }
        defer { pending.map(CleanupRegistry.shared.endOutput) }
        let parts = try validatedParts(resolved.parts, numbered: resolved.discovered)
        try refuseSpannedZip(parts.first)
        let (manifestFile, otherLists, uncheckedHeader, names) = try manifestInUse(
            for: parts, resolved, outputName: outputName, notice: notice)
        let inputs = parts + (manifestFile.map { [$0] } ?? [])
        try checkOutput(target, inputs: inputs)
        if let manifestFile, !otherLists.isEmpty {
            try OtherListsCheck.check(
                otherLists, parts: parts, used: manifestFile.path, jobs: jobs, outputName: outputName
            )
            .forEach { notice(.note($0)) }
        }
        // Parts the marks leave in doubt are read after the list checked them, not during the copy,
        // and "verified" is said once the marks did not refuse the set. Without a list, the marks'
        // crc32s check every part instead, as a list's would.
        let marksPending = manifestFile != nil && resolved.markedContent?.hasDoubts == true
        let marksAfterList = manifestFile != nil && resolved.markedContent != nil
        let marks = manifestFile == nil && manifestPolicy != .disabled ? resolved.markedContent : nil
        // The marks' crc32s are of whole parts: an output that drops an SFV's unchecked header has
        // another, which the copy alongside could not be credited with.
        let overlapping = !marksPending && !(marks != nil && uncheckedHeader > 0)
        var (verification, overlapped) = try verify(
            parts, manifest: manifestFile, namesRelativeTo: names, outputName: outputName, marks: marks, resolved,
            target, overlapping: overlapping, sayVerified: !marksAfterList && !target.isStandardOutput, notice: notice)
        // A part the list vouches for whose current mark records other bytes: the list was made
        // after an edit that put the part's time back.
        if let list = manifestFile, let crcs = verification.partCRCs {
            try resolved.markedContent?.requireAgreement(crcs, list: list.path)
        }
        if let manifestPath = verification.manifestPath, let path = target.path {
            CleanupRegistry.shared.willPublish(path, verifiedAgainst: manifestPath)
        }
        if verification.manifestPath == nil {
            try refuseUnprovenStart(resolved, parts: parts, notice: notice)
        } else if !verification.provesEnd, resolved.discovered, !resolved.markedWhole {
            // A list of the parts alone vouches for each, not for the set's end: its last part
            // may have gone with its line (the marks its split left may vouch for it).
            for warning in MergeVerification.truncationWarning(parts) { notice(.warning(warning)) }
        }
        if !verification.verifiedByMarks { try checkMarkedContent(resolved, provenWhole: verification.provesEnd) }
        if marksAfterList, overlapped == nil, !target.isStandardOutput, let path = verification.manifestPath {
            notice(.verified(parts: parts.count, manifest: path))
        }
        // A split that repeated a header atop every part: the output drops it again (as the
        // manifest in use records it, or, unchecked, the set's SFV beside it).
        let repeatedHeader =
            manifestFile == nil ? uncheckedHeader : (overlapped?.check.repeatedHeader ?? verification.repeatedHeader)
        if repeatedHeader > 0 && verification.verifiedByMarks { verification.expectedCRC = nil }
        // An SFV beside the set that could not give the header says so itself (UncheckedHeader).
        if resolved.markedHeader, repeatedHeader == 0,
            !resolved.manifestCandidates.contains(where: { (try? Syscall.statIfExists($0)) != nil })
        {
            notice(.warning(Self.unrecordedHeaderWarning(parts[0].path)))
        }
        let request = MergeRequest(
            sources: MergeVerification.sources(overlapped?.parts ?? parts, repeatedHeader: repeatedHeader),
            limits: limits, jobs: jobs, computeCRC: overlapped == nil && verification.expectedCRC != nil)
        return try measuredRun(
            request, into: target, otherInputs: inputs, checking: overlapped?.check, verification,
            partCount: parts.count, notice: notice, measure: measure)
    }

    /// The manifest that verifies `parts` (nil for none) and the other lists beside them that
    /// name them, its warnings said; a checksum list among the parts, and one that would vouch
    /// for a late start it says nothing of (``ListedStart``), are refused. Without one,
    /// the header the set's SFV beside the parts records (``UncheckedHeader``), which the merge
    /// still drops: `--no-verify` skips the check, not the restoration. A `--manifest` whose
    /// names are in the parts' folder and not its own is read there (``ManifestNamesFolder``):
    /// `namesRelativeTo` is then a path in that folder.
    private func manifestInUse(
        for parts: [PartFile], _ resolved: PartArguments.Resolved, outputName: String?, notice: (Notice) -> Void
    ) throws -> (manifest: PartFile?, otherLists: [String], uncheckedHeader: Int64, namesRelativeTo: String?) {
        // The marks of a set's split check every part as a list would: they meet --verify and
        // --remove-parts when no list is there.
        let policy = manifestPolicy.requiresManifest && resolved.markedContent != nil ? .automatic : manifestPolicy
        let (manifestFile, warnings, otherLists) = try MergeVerification.locate(
            explicit: manifest, candidates: resolved.manifestCandidates, policy: policy, besideParts: parts,
            outputName: outputName)
        for warning in warnings { notice(.warning(warning)) }
        var uncheckedHeader: Int64 = 0
        if manifestFile == nil {
            // --no-verify reads no part, but a stat still shows one cut short (a17 #6).
            if manifestPolicy == .disabled { try resolved.markedContent?.refuseResized() }
            let header = try UncheckedHeader.read(for: parts, candidates: resolved.manifestCandidates, jobs: jobs)
            for warning in header.warnings { notice(.warning(warning)) }
            if manifestPolicy == .disabled && !asGiven, let warning = header.otherSizeWarning(of: parts) {
                notice(.warning(warning))
            }
            uncheckedHeader = header.size
        }
        // Parts named one by one are sniffed for a list taken in by a glob; not the parts of one
        // numbered set (`xaa xab`, candidates known), whose names say what they are even when a
        // part's text is checksum lines (a split SHA256SUMS).
        if manifestFile == nil && !resolved.discovered && !asGiven && resolved.manifestCandidates.isEmpty {
            try refuseListContents(parts)
        }
        var names: String?
        if let manifestFile {
            try refuseManifestAmongParts(manifestFile, parts: parts)
            if manifest != nil, !manifestNamedTheSet,
                let elsewhere = ManifestNamesFolder.partsFolder(
                    for: manifestFile.path, parts: parts, algorithm: listAlgorithm)
            {
                names = elsewhere.namesRelativeTo
                notice(.note(elsewhere.note))
            }
            // A list of the parts alone says no more of a late start than their names do.
            if let refusal = ListedStart.refusal(
                list: manifestFile.path, namesRelativeTo: names, resolved: resolved, parts: parts,
                algorithm: listAlgorithm)
            {
                throw refusal
            }
        }
        return (manifestFile, otherLists, uncheckedHeader, names)
    }

    /// Refuses a bad output before spending time reading every part for their CRCs.
    private func checkOutput(_ target: OutputTarget, inputs: [PartFile]) throws {
        if case .path(let path) = target {
            // An empty name, a missing or unwritable folder, a dangling symlink fail here.
            try OutputSink.check(path, inputs: inputs, overwrite: overwrite)
        } else if case .object = target {
            try OutputSink.check(target: target, inputs: inputs, overwrite: overwrite)
        }
    }

    /// How `parts` are checked against the manifest, or without one against the crc32s their
    /// `marks` record: with auto and an SFV manifest or marks, while they are copied
    /// (OverlappedVerification, with the parts as they settled) when `overlapping`; otherwise in
    /// full before the copy. An upload checks the bytes as it sends them instead.
    private func verify(
        _ parts: [PartFile], manifest manifestFile: PartFile?, namesRelativeTo names: String?, outputName: String?,
        marks: MarkedContentCheck?,
        _ resolved: PartArguments.Resolved, _ target: OutputTarget, overlapping: Bool, sayVerified: Bool,
        notice: (Notice) -> Void
    ) throws -> (MergeVerification, overlapped: (check: any OverlappableCheck, parts: [PartFile])?) {
        if overlapping, strategy == .auto, Self.canAffordCheckThread, !target.isObject, !requiresCRCManifest {
            // A list line and a current mark that disagree: the list's verdict on the bytes comes
            // first, before the copy, and then the marks'.
            if let check = try MergeVerification.prepareCRCCheck(
                parts, manifest: manifestFile, namesRelativeTo: names, outputName: outputName),
                resolved.markedContent?.contradiction(check.manifest.entries.map(\.crc32)) == nil,
                let settled = try Self.settledParts(parts)
            {
                let verification = MergeVerification(
                    manifestPath: manifestFile?.path, expectedCRC: nil, warnings: [], manifestFile: manifestFile,
                    provesEnd: check.provesEnd)
                for warning in check.warnings { notice(.note(warning)) }
                return (verification, (check, settled))
            }
            if let marks, let settled = try Self.settledParts(parts) {
                let verification = MergeVerification(
                    manifestPath: nil, expectedCRC: nil, warnings: [], manifestFile: nil, verifiedByMarks: true)
                return (verification, (MarkedPartsCheck(content: marks, parts: settled), settled))
            }
        }
        // Not overlapping: with marks beside a list, the caller says "verified" after their check.
        let verification = try checkBeforeCopying(
            parts, manifest: manifestFile, namesRelativeTo: names, outputName: outputName, marks: marks,
            sayVerified: sayVerified, notice: notice)
        return (verification, nil)
    }

    /// Runs `request` into `target` under `measure`, checking the parts as they are copied when
    /// `check` is given, and says "verified" for the `partCount` parts when the check ended with
    /// the copy (or, to standard output, once every byte went out).
    private func measuredRun(
        _ request: MergeRequest, into target: OutputTarget, otherInputs inputs: [PartFile],
        checking check: (any OverlappableCheck)?,
        _ verification: MergeVerification, partCount: Int, notice: (Notice) -> Void,
        measure: (OutputTarget, Int64, (TransferCounter) throws -> MergeResult) throws -> MergeResult
    ) throws -> Outcome {
        var operation = self
        operation.output = target
        let expectedCRC = verification.expectedCRC
        var checked: MergeVerification?
        let result = try measure(target, request.totalBytes) { counter in
            if let check {
                let (result, verified) = try operation.runOverlapped(
                    request, check: check, counter: counter, otherInputs: inputs)
                checked = verified
                return result
            }
            return try operation.run(request, counter: counter, expectedCRC: expectedCRC, otherInputs: inputs)
        }
        var verification = verification
        if let checked {
            verification = checked
            Self.sayVerified(checked, parts: partCount, notice: notice)
        } else if target.isStandardOutput {
            // Said once the whole output went out: a reader that stopped early (`| head -c 10`)
            // ends gcdcat (141) before it, and no line claims the parts' bytes all reached it.
            Self.sayVerified(verification, parts: partCount, notice: notice)
        }
        return Outcome(output: target, request: request, result: result, verification: verification)
    }

    /// Refuses, before any part is opened, a merge of `parts` parts that an address-space limit
    /// (`ulimit -v`) leaves no room for: the Swift runtime traps when an allocation fails. About
    /// 0.4 KiB a part were measured (20 000 parts trapped at 63 000 KiB and ran at 66 000);
    /// 1 KiB a part and 8 MiB are asked for.
    static func requireAddressSpace(parts: Int, path: String) throws {
        guard gcdcat_address_space_limited() != 0 else { return }
        try AddressSpace.require(
            (8 << 20) + parts * 1024, by: "a merge of \(parts) parts", fix: "raise the limit", path: path)
    }

    /// The merge a checksum list or a `.par2` routes to, or nil when the arguments name parts.
    private func mergeByListOrPar2(
        notice: (Notice) -> Void,
        measure: (OutputTarget, Int64, (TransferCounter) throws -> MergeResult) throws -> MergeResult
    ) throws -> Outcome? {
        // A checksum list alone names its set: merge that set, checked against the list. Before
        // the set is discovered, only a list's name says so.
        if let list = try SetFromList.loneList(partPaths, asGiven: asGiven, isNumberedPart: { _ in true }) {
            // An empty input's SFV lists no parts, and merges to the empty file.
            if let empty = try mergeEmptyWhole(list, notice: notice, measure: measure) { return empty }
            return try fromList(list).merge(notice: notice, measure: measure)
        }
        // A .par2 beside the set (or given) checks the parts, and rebuilds those missing or damaged.
        var par2Notes: [String] = []
        let par2 = skipsPar2 ? nil : try par2Use(notes: &par2Notes)
        for note in par2Notes { notice(.note(note)) }
        // Its notes go to the report too (`--json`'s `notes`), as they are said.
        var said = par2Notes
        let merged = try withoutActuallyEscaping(notice) { notice -> Outcome? in
            let saying = { (told: Notice) in
                if case .note(let text) = told { said.append(text) }
                notice(told)
            }
            switch par2 {
            case .check(let list): return try mergeRepairing(list, notice: saying, measure: measure)
            case .repairOnly(let list): return try mergeListed(repairingFrom: list, notice: saying, measure: measure)
            case .byList(let list):
                // The PAR2 was asked, and said the list decides: not asked again from its first part.
                var byList = try fromList(list)
                byList.skipsPar2 = true
                return try byList.merge(notice: saying, measure: measure)
            case nil: return nil
            }
        }
        guard var outcome = merged else {
            // A PAR2 file, by its name (its magic would also match the first part of a split .par2),
            // alone or among others (`gcdcat NAME.par2 FILE`, verify's form, joined the index).
            if !asGiven, let refusal = partPaths.lazy.compactMap(ArchiveVolumes.par2Refusal).first {
                throw refusal
            }
            // No .par2 rebuilds the first part the set's list names.
            if let list = firstPartMissingFrom, let first = partPaths.first {
                throw GCDCatError(
                    .missingPart, path: first,
                    message:
                        "missing part: \(list.displayPath) names it as the set's first part, but it does not exist")
            }
            return nil
        }
        outcome.notes = said
        return outcome
    }

    /// Checks every part against the manifest (when there is one), or else against the crc32s
    /// their `marks` record, before the merge starts, showing progress: the check reads every
    /// part in full, a long wait.
    private func checkBeforeCopying(
        _ parts: [PartFile], manifest manifestFile: PartFile?, namesRelativeTo names: String?, outputName: String?,
        marks: MarkedContentCheck?, sayVerified: Bool, notice: (Notice) -> Void
    ) throws -> MergeVerification {
        let counter = TransferCounter()
        let byMarks = manifestFile == nil ? marks.map { MarkedPartsCheck(content: $0, parts: parts) } : nil
        let label = manifestFile.map { "checking " + $0.path } ?? byMarks?.label
        let meter = label.flatMap { label in
            showsCheckProgress
                ? ProgressMeter(label: label, total: parts.reduce(0) { $0 + $1.size }, counter: counter) : nil
        }
        let verification: MergeVerification
        do {
            // The progress line is cleared before any note or "verified" line is printed.
            defer { meter?.finish() }
            verification =
                try byMarks?.run(jobs: jobs, counter: counter)
                ?? MergeVerification.check(
                    parts, manifest: manifestFile, jobs: jobs, counter: counter, algorithm: listAlgorithm,
                    namesRelativeTo: names, outputName: outputName)
        }
        for warning in verification.warnings { notice(.note(warning)) }
        if sayVerified { Self.sayVerified(verification, parts: parts.count, notice: notice) }
        return verification
    }

    /// "verified", for parts that passed a manifest or their marks.
    private static func sayVerified(_ verification: MergeVerification, parts: Int, notice: (Notice) -> Void) {
        if verification.verifiedByMarks {
            notice(.verifiedByMarks(parts: parts))
        } else if let path = verification.manifestPath {
            notice(.verified(parts: parts, manifest: path))
        }
    }

    /// Without a manifest to say where the set starts or ends: a missing first part is refused,
    /// and a set that may lack its last parts is warned of.
    private func refuseUnprovenStart(
        _ resolved: PartArguments.Resolved, parts: [PartFile], notice: (Notice) -> Void
    ) throws {
        if let refusal = resolved.lateStartRefusal(names: FileSystemNames()) { throw refusal }
        // --no-verify joins the parts as they are, as asked: their sizes are said, not refused.
        if !asGiven, manifestPolicy != .disabled, !resolved.markedWhole, let naming = resolved.firstReading,
            let refusal = PartSizes.refusal(
                parts, naming: naming, discovered: resolved.discovered, lastByte: PartSizes.lastByte(of:),
                separators: PartSizes.lines(of:separator:))
        {
            throw refusal
        }
        // A discovered set, or a list of one set's parts: both may lack parts no one made,
        // unless the marks its split left say it is whole.
        if !resolved.markedWhole && (resolved.discovered || (!asGiven && !resolved.manifestCandidates.isEmpty)) {
            for warning in MergeVerification.truncationWarning(parts) { notice(.warning(warning)) }
        }
    }

    /// Reads the parts whose marks do not vouch for them (``MarkedContentCheck``), after any
    /// list checked them: a list of the parts vouches for each part's bytes, not for one split
    /// having written them all. A list's whole-file line (`provenWhole`) vouches for the set
    /// joined, which the merge checks before it publishes: the marks then yield (the parts a
    /// newer manifest describes, taken beside an older set's). `--no-verify` reads nothing.
    private func checkMarkedContent(_ resolved: PartArguments.Resolved, provenWhole: Bool) throws {
        guard let content = resolved.markedContent, content.hasDoubts, !provenWhole else { return }
        if manifestPolicy == .disabled {
            try content.runWithoutReading()
        } else {
            try content.run(jobs: jobs)
        }
    }

    /// The warning for a set whose marks say its split repeated a header atop every part, with
    /// no manifest that records the header (the merge keeps it in every part).
    static func unrecordedHeaderWarning(_ first: String) -> String {
        "the split that made \(first.displayPath) repeated its input's header lines atop every part, and no "
            + "manifest beside the set records the header, so the output repeats it in each part (a manifest of that "
            + "split records it, unless it was split with --no-manifest: give it with --manifest)"
    }

    /// This merge of the set `list` names, from its first part, with `list` as its manifest.
    private func fromList(_ list: String) throws -> MergeOperation {
        if let manifest {
            throw GCDCatError(
                .invalidInput, path: manifest,
                message:
                    "\(list.displayPath) is the list that names the set and verifies it; give it alone, or give the "
                    + "first part with --manifest \(manifest.displayPath)")
        }
        var operation = self
        do {
            operation.partPaths = [try SetFromList.firstPart(of: list, algorithm: listAlgorithm)]
        } catch let error as GCDCatError where error.code == .malformedManifest {
            // Hex digests and names, of an algorithm gcdcat does not read (`rhash --tiger`):
            // still a list, never data to join.
            throw GCDCatError(
                .malformedManifest, path: list,
                message:
                    "reads as a checksum list, but not one gcdcat can read (\(error.message)), so it names no set "
                    + "to merge; it is not joined as data. Give the set's first part (with --no-verify, or --manifest "
                    + "and a list gcdcat reads), or --as-given to join this file itself")
        }
        // A first part gone is refused once no .par2 beside the set rebuilds it (``par2Use(notes:)``).
        if let first = operation.partPaths.first, try Syscall.statIfExists(first, followLinks: false) == nil {
            operation.firstPartMissingFrom = list
        }
        if manifestPolicy != .disabled {
            operation.manifest = list
            operation.manifestNamedTheSet = true
        }
        return operation
    }

    /// The output: `-o`, the set's name inside a folder `-o` names, or the set's name.
    /// An output named after the set that is another set's part is refused, whatever route gave
    /// the set (its first part, a list: `gcdcat m.001.sfv --force`, a26 C3).
    func outputTarget(_ resolved: PartArguments.Resolved) throws -> OutputTarget {
        let target = try MergeOutputName.resolve(
            output, derived: resolved.defaultOutput.map(OutputTarget.path), first: partPaths.first)
        guard case .path(let destination) = target, destination != output?.path,
            let other = MergeOutputName.anotherSetsParts(at: destination, besides: resolved.parts)
        else { return target }
        throw GCDCatError(
            .invalidInput, path: destination,
            message:
                "is a part of another set lying there (\(other[0].displayPath) … \(other.last!.displayPath)), "
                + "and this set's output would be named after it: that set's bytes would be lost; name the output with -o"
        )
    }

    /// The name `-o` gives the output when it is not the set's own (`gcdcat xaa -o orig`): a list
    /// beside the parts that names it (`sha256sum orig > SHA256SUMS` before the split) is about
    /// the whole file, and is checked. Nil for the set's own name, a folder's, or standard output.
    static func outputName(_ target: OutputTarget, _ resolved: PartArguments.Resolved) -> String? {
        guard case .path(let path) = target else { return nil }
        let name = splitPath(path).name
        guard !name.isEmpty, name != ".", name != "..",
            name != resolved.defaultOutput.map({ splitPath($0).name })
        else { return nil }
        return name
    }

    /// The set's own list names, then those of the output's name from `-o` in the parts' folder:
    /// `orig.sfv` beside `xaa` merged with `-o orig` is the whole file's list. A set of no
    /// numbering (candidates empty) has no lists beside it.
    static func listCandidates(_ resolved: PartArguments.Resolved, outputName: String?) -> [String] {
        let candidates = resolved.manifestCandidates
        guard let outputName, !candidates.isEmpty, let first = resolved.parts.first else { return candidates }
        let folder = splitPath(first).directory
        let stem = folder == "." && !first.hasPrefix("./") ? outputName : "\(folder)/\(outputName)"
        return candidates + [".sfv", ".sha256", ".md5"].map { stem + $0 }.filter { !candidates.contains($0) }
    }

    /// The manifest in use may not be merged as a part (listed explicitly, or by a link).
    private func refuseManifestAmongParts(_ manifest: PartFile, parts: [PartFile]) throws {
        if let part = parts.first(where: { $0.device == manifest.device && $0.inode == manifest.inode }) {
            throw GCDCatError(
                .invalidInput, path: part.path,
                message: "is the manifest \(manifest.path.displayPath) that verifies the set, not a part")
        }
    }

    /// Merges already-validated parts and commits the output.
    ///
    /// With `expectedCRC`, the crc32 of the bytes that passed must equal it, or the output is
    /// discarded with a `.checksumMismatch` error.
    /// `otherInputs` are files the run reads besides the parts (the manifest): the output may
    /// not be one of them either.
    public func run(
        _ request: MergeRequest, counter: TransferCounter, expectedCRC: UInt32? = nil, otherInputs: [PartFile] = []
    ) throws -> MergeResult {
        guard let output else {
            throw GCDCatError(.invalidInput, message: "no output named")
        }
        return try OutputSet.single(
            output, inputs: request.parts + otherInputs, overwrite: overwrite, fsync: fsync, bytes: request.totalBytes,
            reserving: strategy == .auto ? { copiedRanges(request, into: $0) } : nil
        ) { sink in
            let result = try sink.strategy(strategy).merge(request, into: sink, counter: counter)
            try Self.requireCRC(result.crc32, expected: expectedCRC, output: sink.path)
            return result
        }
    }
}
