import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// When merge checks the parts against an SFV manifest.
public enum ManifestPolicy: Sendable, Equatable {
    /// Use `NAME.sfv` beside a discovered `NAME.001`, or `--manifest`, if there is one.
    case automatic
    /// Fail unless a manifest is found: the option that asks for one (`--verify`, or
    /// `--remove-parts`, which deletes the parts only once a manifest has proved the output).
    case required(by: String)

    /// Whether a merge without a manifest is refused.
    public var requiresManifest: Bool {
        if case .required = self { true } else { false }
    }
    /// Never look (`--no-verify`).
    case disabled
}

/// What a merge checked before writing, and what the output must then be.
public struct MergeVerification: Sendable, Equatable {
    /// The manifest used, if any.
    public var manifestPath: String?
    /// The crc32 the output must have: all part CRCs combined. Nil without a manifest.
    public var expectedCRC: UInt32?
    /// Things the user should know that are not errors.
    public var warnings: [String]

    /// The manifest file used, checked as an input: no output may replace it.
    public var manifestFile: PartFile?
    /// Bytes at the head of every part after the first that the output drops: the header a
    /// split repeated (the manifest's `; gcdcat-header:`), or 0.
    public var repeatedHeader: Int64 = 0
    /// True when the list recorded the whole file (a `; gcdcat-whole:` record, or a line for the
    /// whole file), so a set that lost its last parts with their lines cannot pass it.
    public var provesEnd = false
    /// True when no list was in use and the parts passed the crc32s their split recorded in
    /// their marks (``MarkedContentCheck``).
    public var verifiedByMarks = false
    /// Each part's crc32 as the list's check found it (whole parts, in order), where it gives
    /// one for every part: what the marks its split left must agree with.
    public var partCRCs: [UInt32]? = nil

    /// The ranges of `parts` that make the output: whole parts, except that every part after
    /// the first loses its first `repeatedHeader` bytes.
    public static func sources(_ parts: [PartFile], repeatedHeader: Int64) -> [SourceRange] {
        parts.enumerated().map { index, part in
            index > 0 && repeatedHeader > 0
                ? SourceRange(file: part, offset: min(repeatedHeader, part.size)) : SourceRange(file: part)
        }
    }

    /// The manifest to use: `explicit`, or (when `policy` allows) the first of `candidates` that
    /// exists, else the first list beside `besideParts` that names them or their whole file
    /// (``ListsBesideSet``; with several, the others are returned, for ``OtherListsCheck``). A candidate that is not a
    /// regular file (a folder named `NAME.sfv`) is skipped with a warning; an explicit manifest
    /// that is not one is an error.
    ///
    /// ## Errors
    /// `.invalidInput` for an explicit manifest that is not a regular file; `.missingPart` when
    /// `policy` is `.required` and there is none.
    public static func locate(
        explicit: String?, candidates: [String], policy: ManifestPolicy, besideParts: [PartFile] = [],
        outputName: String? = nil
    ) throws -> (manifest: PartFile?, warnings: [String], others: [String]) {
        if let explicit { return (try PartFile.validate(explicit), [], []) }
        var warnings: [String] = []
        if policy != .disabled {
            // Only a numbered set has lists beside it (`candidates` is empty for any other).
            let found =
                candidates.isEmpty
                ? ListsBesideSet.Found() : try ListsBesideSet.find(parts: besideParts, outputName: outputName)
            // A list about the set that gcdcat cannot read is said, never passed over in silence.
            let unreadableLists = found.unreadable + found.contradictory.map { ($0.path ?? "", $0.message) }
            // A list too large to load beside a set is read whole by verify, and by a merge that is given it.
            let unreadable =
                unreadableLists.map { list, why in
                    "\(list.displayPath) beside the set names its parts, but gcdcat cannot read it (\(why)); "
                        + "the parts were not checked against it (gcdcat verify \(list.displayPath) says why)"
                }
                + found.tooLarge.map { list in
                    "\(list.displayPath) beside the set names its parts, but it is over "
                        + "\(ListsBesideSet.largestList >> 20) MiB, more than a merge loads beside a set, so the parts "
                        + "were not checked against it; check them with gcdcat verify \(list.displayPath), or give it "
                        + "with --manifest \(list.displayPath)"
                }
            let unreadableNames = unreadableLists.map(\.0) + found.tooLarge
            // The set's own list, by the rule the object merge finds it with too.
            let (ownList, passedOver) = try Self.ownList(candidates, names: FileSystemNames()) { candidate in
                guard let info = try Syscall.statIfExists(candidate) else { return .absent }
                guard info.st_mode & S_IFMT == S_IFREG else {
                    return .passedOver("\(candidate.displayPath) is not a regular file; not used as the set's manifest")
                }
                return .list
            }
            warnings += passedOver
            if let ownList {
                let own = try PartFile.validate(ownList)
                // The set's own list wins, but the others that also list it are named.
                let isOther = { (list: String) throws -> Bool in
                    guard let info = try Syscall.statIfExists(list) else { return false }
                    return UInt64(info.st_dev) != own.device || UInt64(info.st_ino) != own.inode
                }
                let others = try found.lists.filter(isOther)
                // Its own faults are said when it is read, not as a list beside it.
                let otherUnreadable = try zip(unreadableNames, unreadable).filter { try isOther($0.0) }.map(\.1)
                return (own, warnings + otherUnreadable, others)
            }
            warnings += unreadable
            if let list = found.lists.first {
                let others = Array(found.lists.dropFirst())
                return (try PartFile.validate(list), warnings, others)
            }
            // The only list about the set gives a part two values: one of them is wrong, and
            // merging unchecked would pass a corrupt part it was meant to catch.
            if let contradiction = found.contradictory.first {
                throw GCDCatError(
                    contradiction.code, path: contradiction.path,
                    message:
                        contradiction.message + "; it is the list beside the set that names its parts, so nothing "
                        + "was merged: correct the list, name another with --manifest, or merge unchecked with "
                        + "--no-verify")
            }
        }
        if case .required(let option) = policy {
            // Parts named one by one (--as-given, an explicit list) have no default manifest.
            let needs =
                option == "--remove-parts"
                ? "--remove-parts deletes the parts only once a manifest has proved the output, so it needs one"
                : "\(option) needs a manifest"
            throw GCDCatError(
                .missingPart, path: candidates.first,
                message: candidates.isEmpty
                    ? "\(needs), and parts named one by one have no default one (name it with --manifest PATH)"
                    : "not found: \(needs) (name one with --manifest PATH)")
        }
        return (nil, warnings, [])
    }

    /// What a merge makes of a name among a set's list candidates (``ownList(_:names:kind:)``).
    enum Candidate: Equatable {
        case absent
        /// There, but no list to read (a folder named `NAME.sfv`): passed over, with this warning.
        case passedOver(String)
        case list
    }

    /// The set's own list, by the one rule both merges find it with: the first of `candidates`
    /// (``NumberedName/manifestCandidates``: `NAME.sfv`, then `NAME.sha256`, then `NAME.md5`)
    /// that `names` holds and `kind` takes for a list, and the warnings for those passed over.
    /// `names` is the folder beside local parts (``FileSystemNames``), or the keys beside object
    /// parts: the set's listing (``ListedNames``), or a HEAD per name through `kind`
    /// (``ObjectDiscovery``, where a failed HEAD must be an error, not a list that is not there).
    static func ownList(
        _ candidates: [String], names: some SetNames, kind: (String) throws -> Candidate
    ) rethrows -> (list: String?, passedOver: [String]) {
        var passedOver: [String] = []
        for candidate in candidates where names.exists(candidate) {
            switch try kind(candidate) {
            case .absent: continue
            case .passedOver(let warning): passedOver.append(warning)
            case .list: return (candidate, passedOver)
            }
        }
        return (nil, passedOver)
    }

    /// The same where every name `names` holds is a list (objects: a key is no folder).
    static func ownList(_ candidates: [String], names: some SetNames) -> String? {
        ownList(candidates, names: names, kind: { _ in .list }).list
    }

    /// "MD5SUMS, SHA256SUMS beside the set also list it, and agree with x.bin.b2 about its parts".
    static func othersNote(_ others: [String], used: String) -> String {
        "\(others.map(\.displayPath).joined(separator: ", ")) beside the set also \(others.count == 1 ? "lists" : "list") "
            + "it, and \(others.count == 1 ? "agrees" : "agree") with \(used.displayPath) about its parts"
    }

    /// Checks `parts` against the manifest at `manifestPath` (or, when nil and `policy` allows,
    /// `candidate` if it exists), before a byte is written. `candidate` is nil unless the parts
    /// were discovered from a first part.
    public static func check(
        _ parts: [PartFile], manifestPath explicit: String?, candidate: String?, policy: ManifestPolicy,
        jobs: Int
    ) throws -> MergeVerification {
        let (manifest, warnings, _) = try locate(
            explicit: explicit, candidates: candidate.map { [$0] } ?? [], policy: policy)
        var verification = try check(parts, manifest: manifest, jobs: jobs)
        verification.warnings = warnings + (manifest == nil && candidate != nil ? truncationWarning(parts) : [])
        return verification
    }

    /// Checks `parts` against `manifest` (located with ``locate(explicit:candidates:policy:)``),
    /// before a byte is written; without one there is nothing to check.
    ///
    /// ## Errors
    /// - `.missingPart` naming a listed part that is not there (the last one included, which
    ///   numbering alone cannot see), exit 1;
    /// - `.invalidInput` when the parts and the manifest's list differ, or a name is rejected;
    /// - `.checksumMismatch` naming a part whose crc32 differs, exit 2.
    ///
    /// `algorithm` is what the untagged lines of a md5/sha list are (`--algorithm`), when its
    /// name does not say. `names` is a path in the folder the list's names are relative to,
    /// when that is not the list's own (``ManifestNamesFolder``). A line naming `outputName`, the
    /// name `-o` gives the output, is the whole file's (``SetListEntries``).
    public static func check(
        _ parts: [PartFile], manifest file: PartFile?, jobs: Int, counter: TransferCounter? = nil,
        algorithm: HashAlgorithm? = nil, namesRelativeTo names: String? = nil, outputName: String? = nil
    ) throws -> MergeVerification {
        guard let file else {
            return MergeVerification(manifestPath: nil, expectedCRC: nil, warnings: [], manifestFile: nil)
        }
        let path = file.path
        let names = names ?? path
        let manifest: Manifest
        do {
            manifest = try Manifest.load(path)
        } catch let error as GCDCatError where error.code == .malformedManifest {
            // Not SFV: a sha256sum/md5sum or BSD list (NAME.sha256, NAME.md5), or truly malformed.
            // Read as verify reads it: the valid lines are checked, and a malformed line makes
            // the verdict unclean after them (a corrupt part is said first, exit 2).
            let read: (list: ChecksumList, malformed: [GCDCatError], malformedCount: Int)
            do {
                read = try ChecksumList.loadSkippingMalformed(path, forced: algorithm)
            } catch var error as GCDCatError
                where error.code == .malformedManifest && error.message == Manifest.noEntries
            {
                // An empty list beside the set (`: > NAME.sfv`) checks nothing: say so, and the way on.
                error.message =
                    "no entries: an empty checksum list cannot verify the parts, so nothing was "
                    + "written; delete it, or merge with --no-verify"
                throw error
            }
            let verification: MergeVerification
            do {
                verification = try checkDigests(
                    parts, list: read.list, manifest: file, jobs: jobs, namesRelativeTo: names, outputName: outputName)
            } catch var error as GCDCatError where read.malformedCount > 0 {
                error.message += "; \(malformedSummary(read.malformed, count: read.malformedCount, list: path))"
                throw error
            }
            if let first = read.malformed.first {
                throw GCDCatError(
                    .malformedManifest, path: path,
                    message:
                        "\(first.message): a line gcdcat cannot read may be about this set, so it is not "
                        + "verified and nothing was written; its other lines match"
                        + (read.malformedCount > 1
                            ? " (\(read.malformedCount - 1) more malformed lines: gcdcat verify \(path.displayPath))"
                            : "")
                        + ". Fix or remove the line, or merge with --no-verify")
            }
            return verification
        }
        let lines = try SFVSetLines(
            manifest, path: path, parts: parts, namesRelativeTo: names, outputName: outputName)
        try matchEntries(lines.manifest, manifestPath: path, to: lines.matched(parts), namesRelativeTo: names)
        return try PartCRCCheck(
            parts: parts, manifest: lines.manifest, file: file, warnings: lines.notes, wholeLine: lines.whole
        ).run(jobs: jobs, counter: counter)
    }

    /// The stat-level half of ``check(_:manifest:jobs:)`` for an SFV manifest: the manifest is
    /// read and every entry matched to its part (missing, extra, swapped parts are refused
    /// here); the returned check reads the parts. Nil without a manifest or for another kind of
    /// list, which ``check(_:manifest:jobs:)`` handles whole.
    ///
    /// ## Errors
    /// Those of ``check(_:manifest:jobs:)`` that need no part read.
    public static func prepareCRCCheck(
        _ parts: [PartFile], manifest file: PartFile?, namesRelativeTo names: String? = nil,
        outputName: String? = nil
    ) throws -> PartCRCCheck? {
        guard let file else { return nil }
        let manifest: Manifest
        do {
            manifest = try Manifest.load(file.path)
        } catch let error as GCDCatError where error.code == .malformedManifest {
            return nil
        }
        let names = names ?? file.path
        let lines = try SFVSetLines(
            manifest, path: file.path, parts: parts, namesRelativeTo: names, outputName: outputName)
        try matchEntries(lines.manifest, manifestPath: file.path, to: lines.matched(parts), namesRelativeTo: names)
        return PartCRCCheck(
            parts: parts, manifest: lines.manifest, file: file, warnings: lines.notes, wholeLine: lines.whole)
    }

    /// Checks `parts` against an md5/sha (or mixed) list before a byte is written. A list of one
    /// entry that is not a part (`movie.zip.sha256` naming `movie.zip`) holds the digest of the
    /// whole file: the parts are read once, joined, to compute it. Otherwise each entry is the part
    /// at its position, checked with its own algorithm. The same read gives each part's crc32, so
    /// the output must then have their combined crc32, as with an SFV: a part written between
    /// this check and the copy is caught, even through a mapping that leaves its mtime alone.
    ///
    /// ## Errors
    /// Those of ``check(_:manifest:jobs:)``; `.checksumMismatch` names the part, or the list for
    /// the whole file.
    static func checkDigests(
        _ parts: [PartFile], list: ChecksumList, manifest file: PartFile, jobs: Int, namesRelativeTo names: String,
        outputName: String? = nil
    ) throws -> MergeVerification {
        let path = file.path
        var list = list
        let roles = try SetListEntries(
            names: list.entries.map(\.name), rejections: list.entries.map(\.rejection), listPath: names, parts: parts,
            outputName: outputName)
        // The output's own line beside the parts' lines is this set's too: checked, not ignored.
        // Read once: each is a pass over every line, and a pass per line was quadratic (a
        // 4,000-line SHA256SUMS beside a 3-part set took 15 s).
        let wholeIndex = roles.wholeBesideParts
        let whole = wholeIndex.map { list.entries[$0] }.flatMap {
            $0.rejection == nil && joins($0.algorithm) ? $0 : nil
        }
        let others = roles.ignored.filter { $0 != wholeIndex || whole == nil }.map { list.entries[$0] }
        list.entries = try inPartOrder(roles.checked.map { list.entries[$0] }, list: names, parts: parts)
        let ignored = others.isEmpty ? [] : [ignoredNote(others.map(\.name), list: path)]
        if list.entries.count == 1, let entry = list.entries.first, entry.rejection == nil, joins(entry.algorithm),
            try !isPart(ChecksumListVerifier.resolve(entry.name, listPath: names), of: parts),
            try !namesAnotherPart(entry.name, listPath: names, parts: parts)
        {
            let crc32 = try checkWhole(parts, entry: entry, confirmed: false, list: path, jobs: jobs)
            // The whole file's digest proves the set's end too: no "last part as large" warning (a30 F9).
            return MergeVerification(
                manifestPath: path, expectedCRC: crc32.value, warnings: ignored, manifestFile: file, provesEnd: true)
        }
        // A whole line vouches for every part: a list of some parts and the whole needs no more.
        let listed = list.entries.map { (name: $0.name, line: $0.line, rejection: $0.rejection) }
        if whole == nil { try refuseSomeParts(listed.map(\.name), list: path, parts: parts, namesRelativeTo: names) }
        try matchEntries(
            listed, manifestPath: path, to: whole == nil ? parts : Array(parts.prefix(listed.count)),
            namesRelativeTo: names)
        let (crcs, confirmed, mixedNote) = try judge(parts, entries: list.entries, list: path, jobs: jobs)
        let wholeCRC = try whole.map {
            try checkWhole(parts, entry: $0, confirmed: confirmed.contains($0.algorithm), list: path, jobs: jobs)
        }
        return MergeVerification(
            manifestPath: path, expectedCRC: (wholeCRC ?? Checksum.combine(.crc32, crcs)).value,
            warnings: ignored + (mixedNote.map { [$0] } ?? []), manifestFile: file, provesEnd: whole != nil,
            partCRCs: crcs.count == parts.count ? crcs.map(\.value) : nil)
    }

    /// Checks each listed part as verify judges it (``ListVerdict``); returns the parts' crc32s,
    /// the guessed algorithms that lines confirmed, and the note for a list that mixes
    /// algorithms of one length.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the corrupt part; a guess no line confirmed.
    private static func judge(_ parts: [PartFile], entries: [ChecksumList.Entry], list path: String, jobs: Int)
        throws -> (crcs: [Checksum], confirmed: Set<HashAlgorithm>, mixedNote: String?)
    {
        var crcs: [Checksum] = []
        // As verify judges (``ChecksumListVerifier/confirmingGuesses(_:)``): a value whose
        // algorithm was only assumed from its length is corruption only once another part
        // matched that assumption; with no match, the assumption is what is wrong.
        var confirmed = Set<HashAlgorithm>()
        var differing: [(part: PartFile, entry: ChecksumList.Entry, status: ChecksumListVerifier.Status)] = []
        // The algorithm of its length each UNCONFIRMED value matched as, by line.
        var matchedAs: [Int: HashAlgorithm] = [:]
        for (index, entry) in entries.enumerated() {
            let part = parts[index]
            let (actual, crc32) = try digestAndCRC(of: part, algorithm: entry.algorithm, jobs: jobs)
            // verify's verdict (ListVerdict): a value another algorithm of that length gives
            // (a list joined from two tools') is UNCONFIRMED, no corruption.
            var tried: HashAlgorithm?
            let status = try ListVerdict.status(of: entry, actual: actual) {
                tried = $0
                return try digestAndCRC(of: part, algorithm: $0, jobs: jobs).0
            }
            switch status {
            case .ok where entry.guessed: confirmed.insert(entry.algorithm)
            case .ok: break
            case .failed(let actual) where !entry.guessed:
                throw corruptPart(part, entry: entry, actual: actual, list: path)
            case .unconfirmed:
                // The last algorithm hashed is the one that gave the value.
                matchedAs[entry.line] = tried
                differing.append((part, entry, status))
            default: differing.append((part, entry, status))
            }
            crcs.append(crc32)
        }
        // With no line confirming a guess, the guess is what is wrong; once one did, a value
        // no algorithm of its length gives is corruption, and one another algorithm of that
        // length gives (a list joined from two tools') was checked under that one: verify calls
        // it UNCONFIRMED, and the merge says which algorithm it matched as.
        if let guess = differing.first(where: { !confirmed.contains($0.entry.algorithm) }) {
            throw unconfirmedGuess(guess.entry.algorithm, list: path)
        }
        let mixed = differing.filter {
            if case .unconfirmed = $0.status { true } else { false }
        }.map { (part: $0.part, entry: $0.entry, matched: matchedAs[$0.entry.line]) }
        let mixedNote = mixed.first.map { first in
            "\(path.displayPath) mixes algorithms (joined from two tools' lists?): "
                + mixedLine(first.part, entry: first.entry, matched: first.matched)
                + (mixed.count > 1
                    ? ", and \(mixed.count - 1) more \(mixed.count == 2 ? "part" : "parts") likewise" : "")
                + "; each part was checked under the algorithm it matched (gcdcat verify \(path.displayPath) calls "
                + "\(mixed.count == 1 ? "it" : "them") UNCONFIRMED)"
        }
        for (part, entry, status) in differing {
            guard case .failed(let actual) = status else { continue }
            var error = corruptPart(part, entry: entry, actual: actual, list: path)
            if let mixedNote { error.message += "; \(mixedNote)" }
            throw error
        }
        return (crcs, confirmed, mixedNote)
    }

    /// `entries` in the order of the parts they name: an md5/sha list has no order of its own
    /// (`find -exec sha256sum` writes one in the folder's order, and `sha256sum -c` passes it).
    /// Entries that name no part keep their order, after the others, for ``matchEntries`` to
    /// refuse.
    static func inPartOrder(_ entries: [ChecksumList.Entry], list: String, parts: [PartFile]) throws
        -> [ChecksumList.Entry]
    {
        let lookup = ListedPartLookup<FileIdentity>.files(listPath: list)
        let positions = try entries.map { entry -> Int in
            guard entry.rejection == nil, let identity = try lookup.identity(lookup.resolve(entry.name)) else {
                return parts.count
            }
            return parts.firstIndex { FileIdentity(device: $0.device, inode: $0.inode) == identity } ?? parts.count
        }
        return entries.indices.sorted { (positions[$0], $0) < (positions[$1], $1) }.map { entries[$0] }
    }

    /// A list of some of the set's parts only (each name one of them, and no line for the whole
    /// file) cannot vouch for the set: refused, saying so (it was "part 1, but the list lists
    /// m.bin.003 there", which reads as a wrong order).
    ///
    /// ## Errors
    /// `.invalidInput` naming the list.
    static func refuseSomeParts(
        _ names: [String], list: String, parts: [PartFile], namesRelativeTo base: String? = nil
    ) throws {
        guard !names.isEmpty, names.count < parts.count else { return }
        let lookup = ListedPartLookup<FileIdentity>.files(listPath: base ?? list)
        for name in names {
            guard let identity = try lookup.identity(lookup.resolve(name)),
                parts.contains(where: { FileIdentity(device: $0.device, inode: $0.inode) == identity })
            else { return }
        }
        let shown = names.prefix(3).map(\.displayPath).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
        throw GCDCatError(
            .invalidInput, path: list,
            message:
                "lists only \(names.count) of the set's \(parts.count) parts (\(shown)), so it cannot vouch for the set "
                + "and nothing was written; merge with --no-verify to join the parts without it, or give a list of "
                + "every part with --manifest")
    }

    /// Checks the whole file's line `entry` by reading the parts once, joined, and returns their
    /// crc32. A value whose algorithm was only assumed (and not `confirmed` by a part) that
    /// differs says the assumption is wrong, not the parts.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the list, exit 2.
    static func checkWhole(
        _ parts: [PartFile], entry: ChecksumList.Entry, confirmed: Bool, list path: String, jobs: Int
    ) throws -> Checksum {
        guard let actual = try joined(parts, algorithm: entry.algorithm, jobs: jobs) else {
            preconditionFailure("checked by the caller")
        }
        if actual.value != entry.expected, entry.guessed, !confirmed {
            throw unconfirmedGuess(entry.algorithm, list: path)
        }
        guard actual.value == entry.expected else {
            throw GCDCatError(
                .checksumMismatch, path: path,
                message:
                    "line \(entry.line) gives \(entry.name.displayPath) \(entry.algorithm.rawValue) \(entry.expected), but "
                    + "\(parts.count == 1 ? "the one part has" : "the \(parts.count) parts join to") \(actual.value): a "
                    + "part is corrupt or missing"
            )
        }
        return actual.crc32
    }

    /// Whether a line of `algorithm` for the whole file can be checked on the parts joined: an
    /// md5/sha/BLAKE2b digest, or a crc32 (cksfv's, rhash's), combined from the parts' own.
    static func joins(_ algorithm: HashAlgorithm) -> Bool {
        algorithm.digest != nil || algorithm.checksum == .crc32
    }

    /// The value `algorithm` gives `parts` joined in order, as the file they rejoin to would
    /// have it, and their crc32; nil for an algorithm that ``joins(_:)`` does not take.
    static func joined(_ parts: [PartFile], algorithm: HashAlgorithm, jobs: Int) throws -> (
        value: String, crc32: Checksum
    )? {
        if let digest = algorithm.digest {
            let (value, crc32) = try FileHash.ofJoined(parts, algorithm: digest)
            return (value, crc32)
        }
        guard algorithm.checksum == .crc32 else { return nil }
        let crc32 = Checksum.combine(.crc32, try FileChecksum.of(parts, jobs: jobs))
        return (crc32.hex, crc32)
    }

    /// `manifest` without the entries that are not this set's (``SetListEntries``: a
    /// `README.txt` that cksfv listed with `xaa`, `xab`, or another set's parts in one SFV over
    /// two sets), and the note that says them.
    static func setEntries(of manifest: Manifest, path: String, parts: [PartFile]) throws -> (Manifest, [String]) {
        setEntries(
            of: manifest, path: path,
            roles: try SetListEntries(
                names: manifest.entries.map(\.name), rejections: manifest.entries.map(\.rejection), listPath: path,
                parts: parts))
    }

    /// `manifest` without the entries `roles` finds no part of the set, and the note that says them.
    static func setEntries(of manifest: Manifest, path: String, roles: SetListEntries) -> (Manifest, [String]) {
        let others = roles.ignored
        guard !others.isEmpty else { return (manifest, []) }
        var kept = manifest
        kept.entries = roles.checked.map { manifest.entries[$0] }
        // The whole and header records above this set's lines, not another set's (one SFV made
        // of two sets' manifests).
        if let first = roles.checked.first { (kept.whole, kept.header) = manifest.records(of: first) }
        return (kept, [ignoredNote(others.map { manifest.entries[$0].name }, list: path)])
    }

    /// "also SHA256SUMS line 4 is malformed (…)", for an error found beside malformed lines.
    static func malformedSummary(_ malformed: [GCDCatError], count: Int, list path: String) -> String {
        "\(path.displayPath) also has \(count == 1 ? "a malformed line" : "\(count) malformed lines"), not checked: "
            + (malformed.first?.message ?? "")
    }

    /// "x.sfv also lists README.txt, no part of the set; not checked here (…)".
    static func ignoredNote(_ names: [String], list path: String) -> String {
        "\(path.displayPath) also lists \(names.prefix(5).map(\.displayPath).joined(separator: ", "))"
            + "\(names.count > 5 ? ", …" : ""), no part of the set; not checked here (gcdcat verify "
            + "\(path.displayPath) checks every file it lists)"
    }

    static func corruptPart(_ part: PartFile, entry: ChecksumList.Entry, actual: String, list: String)
        -> GCDCatError
    {
        // A guessed algorithm is said as a guess, with the others of that length it was judged under.
        let others = entry.algorithm.alternatives.map(\.rawValue)
        let guess =
            !entry.guessed
            ? ""
            : " (\(entry.algorithm.rawValue) assumed from its \(entry.algorithm.hexLength) digits"
                + (others.isEmpty
                    ? ")"
                    : "; \(others.joined(separator: " and ")) \(others.count == 1 ? "does" : "do") not give it either)")
        return GCDCatError(
            .checksumMismatch, path: part.path,
            message:
                "\(entry.algorithm.rawValue) is \(actual), but \(list.displayPath) line \(entry.line) says \(entry.expected)"
                + "\(guess): the part is corrupt"
        )
    }

    /// "m.bin.002 (line 2) matched as blake2b-256, not as the sha256 assumed from its 64 digits".
    static func mixedLine(_ part: PartFile, entry: ChecksumList.Entry, matched: HashAlgorithm?) -> String {
        "\(part.path.displayPath) (line \(entry.line)) matched as \(matched?.rawValue ?? "another algorithm"), not as the "
            + "\(entry.algorithm.rawValue) assumed from its \(entry.algorithm.hexLength) digits"
    }

    /// A list whose values were read as `algorithm` only by their length, and nothing matched:
    /// the assumption is probably wrong, not the parts; exit 1, naming the option.
    static func unconfirmedGuess(_ algorithm: HashAlgorithm, list: String) -> GCDCatError {
        let others = algorithm.alternatives.map { "--algorithm \($0.rawValue)" }
        return GCDCatError(
            .invalidInput, path: list,
            message:
                "no part matched its \(algorithm.hexLength)-digit values as \(algorithm.rawValue), which was only "
                + "assumed from the length: the list is probably of another algorithm, not the parts corrupt; nothing was "
                + "written. "
                + (others.isEmpty
                    ? "Give the list's algorithm with --algorithm"
                    : "Try \(others.joined(separator: " or "))"))
    }

    /// `algorithm`'s value of `part` and its crc32: one read for md5/sha; for adler32 a second
    /// read gives the crc32.
    private static func digestAndCRC(of part: PartFile, algorithm: HashAlgorithm, jobs: Int) throws -> (
        String, Checksum
    ) {
        if let digest = algorithm.digest {
            let (value, crc32) = try FileHash.digestAndCRC(of: part, algorithm: digest)
            return (value, crc32)
        }
        let crc32 = try FileChecksum.of(part.path, algorithm: .crc32, jobs: jobs)
        if algorithm.checksum == .crc32 { return (crc32.hex, crc32) }
        return (try FileHash.of(part.path, algorithm: algorithm, jobs: jobs), crc32)
    }

    /// Whether `path` exists and is one of `parts` (same device and inode).
    static func isPart(_ path: String, of parts: [PartFile]) throws -> Bool {
        try part(path, of: parts) != nil
    }

    /// The part of `parts` that `path` is (same device and inode), if any.
    static func part(_ path: String, of parts: [PartFile]) throws -> PartFile? {
        guard let info = try Syscall.statIfExists(path) else { return nil }
        return parts.first { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) }
    }

    /// Each manifest entry must be the part at the same position (same device and inode).
    static func matchEntries(
        _ manifest: Manifest, manifestPath: String, to parts: [PartFile], namesRelativeTo names: String? = nil
    ) throws {
        try matchEntries(
            manifest.entries.map { (name: $0.name, line: $0.line, rejection: $0.rejection) },
            manifestPath: manifestPath, to: parts, namesRelativeTo: names)
    }

    /// Each listed name must be the part at the same position (same device and inode); names
    /// are relative to the folder of `names`, or else of the list.
    static func matchEntries(
        _ entries: [(name: String, line: Int, rejection: String?)], manifestPath: String, to parts: [PartFile],
        namesRelativeTo names: String? = nil
    ) throws {
        try matchEntries(
            entries, manifestPath: manifestPath,
            parts: parts.map { (path: $0.path, identity: FileIdentity(device: $0.device, inode: $0.inode)) },
            lookup: .files(listPath: names ?? manifestPath))
    }

    /// A file's identity: device and inode, so that symlinks and hard links count as the file.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// How a list's names are found and told apart: files by device and inode, objects by key.
    struct ListedPartLookup<Identity: Equatable> {
        /// The path (or object) a listed name stands for.
        var resolve: (String) -> String
        /// The identity of what is at a resolved name; nil when nothing is there.
        var identity: (String) throws -> Identity?
        /// What to add to the missing-part message (a look-alike name), if anything.
        var missingNote: (String) -> String = { _ in "" }
    }

    /// Each listed name must be the part at the same position (by `lookup`'s identity), every
    /// listed name must exist, and no part may be past the list's end: the one rule for files
    /// and objects.
    static func matchEntries<Identity: Equatable>(
        _ entries: [(name: String, line: Int, rejection: String?)], manifestPath: String,
        parts: [(path: String, identity: Identity)], lookup: ListedPartLookup<Identity>
    ) throws {
        for entry in entries {
            if let rejection = entry.rejection {
                throw GCDCatError(
                    .invalidInput, path: manifestPath,
                    message:
                        "line \(entry.line): '\(entry.name.displayPath)' rejected (\(rejection)); it was not opened")
            }
        }
        try refuseAnotherSetsList(entries, manifestPath: manifestPath, parts: parts, lookup: lookup)
        for (index, entry) in entries.enumerated() {
            let resolved = lookup.resolve(entry.name)
            guard let identity = try lookup.identity(resolved) else {
                throw GCDCatError(
                    .missingPart, path: resolved,
                    message:
                        "missing part: \(manifestPath.displayPath) lists it (line \(entry.line)) but it does not exist"
                        + lookup.missingNote(resolved))
            }
            guard index < parts.count else {
                throw GCDCatError(
                    .missingPart, path: resolved,
                    message:
                        "\(manifestPath.displayPath) lists it (line \(entry.line)), but it is not among the parts being merged"
                )
            }
            guard identity == parts[index].identity else {
                throw GCDCatError(
                    .invalidInput, path: parts[index].path,
                    message:
                        "is part \(index + 1), but \(manifestPath.displayPath) line \(entry.line) lists "
                        + "\(entry.name.displayPath) there; give the parts it lists, in its order, or add --no-verify to join "
                        + "them as given, unchecked")
            }
        }
        if parts.count > entries.count {
            throw GCDCatError(
                .invalidInput, path: parts[entries.count].path,
                message: "is not listed in \(manifestPath.displayPath), which lists \(counted(entries.count, "part"))")
        }
    }

    /// A list that names none of the parts is another set's (`--manifest b.bin.sfv` for
    /// `a.bin`'s parts, or a `NAME.sfv` beside them that lists other names): said as such, not as
    /// a missing part.
    private static func refuseAnotherSetsList<Identity: Equatable>(
        _ entries: [(name: String, line: Int, rejection: String?)], manifestPath: String,
        parts: [(path: String, identity: Identity)], lookup: ListedPartLookup<Identity>
    ) throws {
        guard let first = entries.first, !parts.isEmpty else { return }
        for entry in entries {
            guard let identity = try lookup.identity(lookup.resolve(entry.name)) else { continue }
            if parts.contains(where: { $0.identity == identity }) { return }
        }
        let listed = lookup.resolve(first.name)
        // Only a padded number names a set (`b.bin.001`); `cd1.mp4` is no part of a `cd1.mp`.
        let set =
            NumberedName.readings(of: listed).first { $0.alphabet == .digits && $0.width >= 2 }.flatMap(\.wholeName)
            .map { " (\($0.displayPath))" } ?? ""
        // A list of one file that is not there may be the whole file's (`cksfv -q orig > x.sfv`):
        // named as the output, it checks the parts joined (a29 M2).
        let wholeHint =
            entries.count == 1 && set.isEmpty && (try? lookup.identity(listed)) == .some(nil)
            ? "; if it is the whole file's list, name the output after it (-o \(splitPath(first.name).name.displayPath))"
            : ""
        throw GCDCatError(
            .invalidInput, path: manifestPath,
            message:
                "belongs to another set\(set): it lists none of the parts being merged (line \(first.line) names "
                + "\(first.name.displayPath), not \(parts[0].path.displayPath)); give this set's own list with --manifest, "
                + "or merge without one (--no-verify)\(wholeHint)")
    }

    /// Whether a list's only entry names a file of another numbered set (`b.bin.001` in a list
    /// given for `a.bin`'s parts) rather than the whole file the parts join to.
    static func namesAnotherPart(_ name: String, listPath: String, parts: [PartFile]) throws -> Bool {
        let resolved = ChecksumListVerifier.resolve(name, listPath: listPath)
        let padded = NumberedName.readings(of: resolved).contains { $0.alphabet == .digits && $0.width >= 2 }
        return try padded && Syscall.statIfExists(resolved) != nil && !isPart(resolved, of: parts)
    }

    /// A set whose last part is as large as the others may have lost later parts unseen; files
    /// and objects alike.
    static func truncationWarning(_ parts: [some ReadablePart]) -> [String] {
        guard parts.count > 1, let last = parts.last, last.byteCount > 0,
            parts.allSatisfy({ $0.byteCount == last.byteCount })
        else { return [] }
        return [
            "the last part, \(last.name), is exactly as large as the others: if the set had more parts, "
                + "they are missing and the output is short. A manifest (NAME.sfv, see 'gcdcat split') would tell."
        ]
    }
}

/// The reading half of an SFV verification: each part's crc32 against its manifest line, and
/// the whole file's size and crc32 when the manifest records them. The entries were already
/// matched to the parts (``MergeVerification/prepareCRCCheck(_:manifest:)``).
public struct PartCRCCheck: Sendable {
    /// Bytes the output drops at the head of every part after the first (see
    /// ``MergeVerification/repeatedHeader``).
    public var repeatedHeader: Int64 { manifest.header?.size ?? 0 }

    let parts: [PartFile]
    let manifest: Manifest
    let file: PartFile
    /// Said whatever the parts read: the manifest's entries that are no part of the set.
    public let warnings: [String]
    /// The manifest's line for the whole output (``SFVSetLines``), checked on the parts' crc32s
    /// combined; the part lines may then cover only the first parts.
    var wholeLine: Manifest.Entry? = nil

    /// Whether the manifest records the whole file, so that a set short of its last parts fails it.
    var provesEnd: Bool { manifest.whole != nil || wholeLine != nil }

    /// Reads every part (`jobs` threads a part) and compares.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the first corrupt part (or the manifest, for the whole file);
    /// read errors naming the part.
    public func run(jobs: Int, counter: TransferCounter? = nil) throws -> MergeVerification {
        let path = file.path
        let checksums = try FileChecksum.of(parts, jobs: jobs, counter: counter)
        for (index, checksum) in checksums.enumerated()
        where index < manifest.entries.count && checksum.value != manifest.entries[index].crc32 {
            throw GCDCatError(
                .checksumMismatch, path: parts[index].path,
                message:
                    "crc32 is \(checksum.hex), but \(path.displayPath) line \(manifest.entries[index].line) says \(hex8(manifest.entries[index].crc32)): the part is corrupt"
            )
        }
        // A repeated header (`; gcdcat-header:`) is dropped from every part after the first: the
        // output's crc32 is that of what remains, and the whole record must describe it.
        var restored = checksums
        if let header = manifest.header {
            for index in checksums.indices.dropFirst() {
                guard parts[index].size >= header.size else {
                    throw GCDCatError(
                        .checksumMismatch, path: parts[index].path,
                        message:
                            "is \(parts[index].size) bytes, shorter than the \(header.size)-byte header \(path.displayPath) says every part after the first repeats"
                    )
                }
                try requireHeader(header, atHeadOf: parts[index], jobs: jobs)
                restored[index] = checksums[index].removingPrefix(header.checksum)
            }
        }
        let combined = Checksum.combine(.crc32, restored)
        if let error = manifest.whole?.mismatch(
            joined: combined, lastPart: parts.last?.path ?? path, manifestPath: path, dropped: manifest.header != nil)
        {
            throw error
        }
        if let line = wholeLine, combined.value != line.crc32 {
            throw GCDCatError(
                .checksumMismatch, path: path,
                message:
                    "line \(line.line) gives \(line.name.displayPath) crc32 \(hex8(line.crc32)), but "
                    + "\(parts.count == 1 ? "the one part has" : "the \(parts.count) parts join to") \(combined.hex)\(manifest.header != nil ? " (their repeated headers dropped)" : ""): "
                    + "a part is corrupt or missing")
        }
        return MergeVerification(
            manifestPath: path, expectedCRC: combined.value, warnings: warnings, manifestFile: file,
            repeatedHeader: manifest.header?.size ?? 0, provesEnd: provesEnd,
            partCRCs: checksums.map(\.value))
    }

    /// The bytes a merge drops from `part` must be the header the record describes: a record
    /// written by hand, or another set's, would otherwise cut bytes that no check looked at (the
    /// whole record, when there is one, is checked only after the drop).
    private func requireHeader(_ header: Manifest.Header, atHeadOf part: PartFile, jobs: Int) throws {
        let input = try part.open()
        let head = try ParallelChecksum.compute(.crc32, fd: input.raw, path: part.path, length: header.size, jobs: jobs)
        guard head.value != header.crc32 else { return }
        throw GCDCatError(
            .checksumMismatch, path: part.path,
            message:
                "its first \(header.size) bytes have crc32 \(head.hex), but \(file.path.displayPath) says every part after the first repeats a \(header.size)-byte header with \(hex8(header.crc32)): the header record does not describe this set, so nothing was dropped or written"
        )
    }
}

extension MergeVerification.ListedPartLookup where Identity == MergeVerification.FileIdentity {
    /// Files, as a list at `listPath` names them.
    static func files(listPath: String) -> Self {
        Self(
            resolve: { ChecksumListVerifier.resolve($0, listPath: listPath) },
            identity: { path in
                try Syscall.statIfExists(path).map { Identity(device: UInt64($0.st_dev), inode: UInt64($0.st_ino)) }
            },
            missingNote: { path in
                LookAlikeNames.find(for: [path]).first.map {
                    "; \($0.lookAlike.displayPath) looks the same but is spelt with other bytes (another Unicode "
                        + "normalisation), so it is another file: rename it to match the list"
                } ?? ""
            })
    }
}
