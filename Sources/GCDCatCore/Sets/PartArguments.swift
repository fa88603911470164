import GCDCatSystem

/// Turns merge's part arguments into the list of parts, the default output name and where the
/// set's manifest may be.
///
/// - One argument is a first part: its whole set is discovered (``PartDiscovery``), and checked
///   against the marks its split left (``PartMarkEvidence``). A lone file with no numbered
///   neighbour is merged alone, unless its mark makes it one part of a larger set.
/// - Several arguments that all belong to one set must be in numeric order, with no number
///   missing. A list that is the shell's glob order of a complete set (`x.1000` sorts before
///   `x.101`) is put in numeric order, with a note. Any other disorder or gap is refused,
///   naming the first pair, unless `asGiven`; so is a list that leaves out the set's last
///   parts, lying beside it.
/// - Several arguments of no common set are taken as given.
///
/// Spanned zip and RAR volumes are refused either way.
public enum PartArguments {
    public struct Resolved: Sendable, Equatable {
        public var parts: [String]
        /// The whole file's name, derived from the first part (`movie.zip.001` → `movie.zip`).
        public var defaultOutput: String?
        /// Where a manifest of the set may lie, in order of preference; empty when the parts are
        /// not one numbered set.
        public var manifestCandidates: [String]
        /// True when the parts were found from a first part, rather than all given.
        public var discovered: Bool
        /// True when the set starts above its alphabet's usual first number: discovered with
        /// nothing before it (``PartDiscovery/DiscoveredSet/startsLate``), or listed from there;
        /// false under `asGiven`, which joins such a set as it is.
        public var startsLate: Bool
        /// True when the marks its split left on the parts (``PartMarkEvidence``) say the set
        /// found is the whole set: no part missing after the last one.
        public var markedWhole = false
        /// The check of the parts' bytes against the crc32s their marks record
        /// (``PartMarkEvidence``), which a merge runs before it publishes them; nil for a set
        /// the marks do not place.
        var markedContent: MarkedContentCheck?
        /// The marks say the split repeated its input's header atop every part, which only a
        /// manifest that records it lets a merge drop.
        var markedHeader = false
        /// The name the set's usual first part would have (`x.001`, `xaa`), when it starts late.
        public var usualFirst: String? {
            guard startsLate, let reading = firstReading
            else { return nil }
            return reading.with(number: reading.usualFirstNumber).name
        }
        /// The reading discovery found the set by, else the one under which every part is a
        /// number of one set (hex when a part is spelt with a hex letter), else the first part's
        /// first reading.
        var firstReading: NumberedName? {
            guard let first = parts.first else { return nil }
            return naming ?? PartArguments.commonSet(parts)?.0 ?? NumberedName.readings(of: first).first
        }
        /// Things done to the list that the user should hear about.
        public var notes: [String]
        /// The reading the set was discovered by (`out_` + `02` + `.txt`), or that every part of a
        /// list fits (a GNU widened `x9000` listed is `x` + `90`, which names lack without the
        /// folder). A lone part reads many ways (`out_02.txt` is also `out_02.` + `txt`): messages
        /// name its set's.
        var naming: NumberedName?

        /// The refusal of a set that starts late (``usualFirst``) with no manifest to vouch for
        /// its start, naming the number missing right before its first part; nil when it starts
        /// where sets usually do. One verdict for files and objects: `names` is the file system
        /// or the bucket's listing.
        public func lateStartRefusal(names: any SetNames) -> GCDCatError? {
            guard let usual = usualFirst, let first = parts.first,
                let reading = firstReading
            else { return nil }
            let fix =
                "If the set really starts here (split --start), merge it with its manifest, or "
                + (discovered ? "list its parts with --as-given" : "give --as-given to join the list as it is")
            // The lowest part from 0 (`x000` of `split -a 3 -d`, where sets usually start at 001).
            guard
                let present = (0...max(0, reading.usualFirstNumber)).lazy.compactMap({
                    PartDiscovery.existing(reading.with(number: $0), names)
                }).first
            else {
                return GCDCatError(
                    .missingPart, path: first,
                    message: "no \(usual.displayPath) before it, so the set's first part may be missing. " + fix)
            }
            if !discovered {
                return GCDCatError(
                    .missingPart, path: first,
                    message:
                        "is the first part listed, but \(present.displayPath) lies beside it: the list leaves out the "
                        + "set's start, so the output would lack it. Merge from the first part (gcdcat merge "
                        + "\(present.displayPath)), or give --as-given to join the list as it is")
            }
            // The usual first part is there: what is missing lies between it and this one.
            let before = reading.with(number: reading.number - 1).name
            return GCDCatError(
                .missingPart, path: first,
                message:
                    "no \(before.displayPath) before it, though \(present.displayPath) is there, so the set lacks the "
                    + "parts between them; merge from \(present.displayPath) once they are back. " + fix)
        }
    }

    /// ## Errors
    /// Those of ``PartDiscovery/discover(from:)``; `.invalidInput` naming the first pair out of
    /// order, or `.missingPart` naming a number missing from an explicit list.
    ///
    /// `names` is where names are looked up: the file system, or an object listing.
    public static func resolve(
        _ typed: [String], asGiven: Bool = false, names: any SetNames = FileSystemNames()
    ) throws -> Resolved {
        let arguments = oneSpelling(typed)
        if arguments.count == 1 { return try resolve(one: arguments[0], asGiven: asGiven, names: names) }
        for argument in arguments {
            if let refusal = ArchiveVolumes.refusal(for: argument, names: names) { throw refusal }
        }
        // Parts of several sets are merged one set at a time (``SetGrouping``); a list that
        // mixes them is refused here.
        let groups = try SetGrouping.group(arguments, asGiven: asGiven, names: names)
        if groups.count > 1 {
            throw GCDCatError(
                .invalidInput, path: groups[1].arguments[0],
                message:
                    "is a part of \(groups[1].name.displayPath), another set than \(groups[0].name.displayPath)'s; "
                    + "merge one set at a time, or use --as-given to join the list as it is")
        }
        // Files of no one set have no name in common: no `cd1_00.mp` made up from the first of
        // `cd1_00.mp4 cd2_00.mp4`.
        guard let (naming, numbers) = commonSet(arguments, names: names) else {
            if !asGiven, let refusal = PartDiscovery.lostOneLetterStart(ofList: arguments, names) { throw refusal }
            return Resolved(
                parts: arguments, defaultOutput: nil,
                manifestCandidates: [], discovered: false, startsLate: false, notes: [])
        }
        // Files named by year or version join as typed, into an output the user names: no
        // `mysql-8.0.tar.gz` made up from `mysql-8.0.37.tar.gz mysql-8.0.38.tar.gz`.
        if !asGiven && namesPlainFiles(naming, first: numbers.min() ?? 0, names: names) {
            return Resolved(
                parts: arguments, defaultOutput: nil, manifestCandidates: [], discovered: false, startsLate: false,
                notes: [])
        }
        var resolved = Resolved(
            parts: arguments, defaultOutput: naming.wholeName, manifestCandidates: naming.manifestCandidates,
            discovered: false, startsLate: false, notes: [], naming: naming.with(number: numbers.min() ?? naming.number)
        )
        if !asGiven {
            try order(&resolved, numbers: numbers, naming: naming, names: names)
            try refuseOmittedLastParts(resolved.parts, numbers: numbers, naming: naming, names: names)
            // A list from above the usual first number (`x.*` over what a killed split named):
            // refused as a discovered set is, unless a manifest vouches for its start. Only a
            // list that is evidently numbered (a padded number, or two numbers of one set):
            // `merge six six --allow-duplicates` is a word twice, not part `ix` of a set.
            let evident = Set(numbers).count > 1 || (naming.alphabet == .digits && naming.width >= 2)
            // A list is held to the marks its split left as a found set is (`gcdcat p.00*`); one
            // that names a part twice (--allow-duplicates) is not one split's order.
            let vouched =
                Set(numbers).count < numbers.count
                ? PartMarkEvidence.Vouched()
                : try PartMarkEvidence.check(
                    parts: resolved.parts, naming: naming.with(number: numbers.min() ?? naming.number), found: false,
                    manifestBeside: naming.manifestCandidates.contains(where: names.exists), names: names)
            resolved.markedWhole = vouched.whole
            resolved.markedContent = vouched.content
            resolved.markedHeader = vouched.repeatsHeader
            resolved.startsLate = evident && !vouched.start && naming.startsLate(from: numbers.min() ?? 0)
        }
        return resolved
    }

    /// The set one argument gives: the set it starts, or the file alone.
    private static func resolve(one argument: String, asGiven: Bool, names: any SetNames) throws -> Resolved {
        if let set = try PartDiscovery.discover(from: argument, names: names) {
            // A start the split's own marks vouch for needs no manifest to vouch for it.
            let vouched =
                asGiven
                ? PartMarkEvidence.Vouched()
                : try PartMarkEvidence.check(
                    parts: set.parts, naming: set.naming, found: true,
                    manifestBeside: set.naming.manifestCandidates.contains(where: names.exists), names: names)
            return Resolved(
                parts: set.parts, defaultOutput: set.naming.wholeName,
                manifestCandidates: set.naming.manifestCandidates, discovered: true,
                startsLate: set.startsLate && !asGiven && !vouched.start, markedWhole: vouched.whole,
                markedContent: vouched.content, markedHeader: vouched.repeatsHeader, notes: [],
                naming: set.naming)
        }
        if !asGiven, let refusal = PartMarkEvidence.loneRefusal(argument, names: names) { throw refusal }
        if !asGiven, let refusal = PartDiscovery.lostOneLetterStart(argument, names) { throw refusal }
        // A lone file whose number is no part number (`report2024.txt`, `report-v2`) has no
        // set to be named after: no `report.txt` made up from it.
        return Resolved(
            parts: [argument], defaultOutput: nil, manifestCandidates: loneManifestCandidates(argument),
            discovered: false, startsLate: false, notes: [])
    }

    /// `arguments` spelt one way when they name one folder in several spellings (`m.001 …
    /// m.004 ./m.005`, `$PWD/m.003`, `d/../m.002`: a list typed out, or globs of two forms), which
    /// read as several sets: each in the first one's folder, as typed there. The folders are
    /// compared by their real paths, so a symlink to elsewhere stays another folder. A list spelt
    /// one way is kept as typed, for the messages.
    public static func oneSpelling(_ arguments: [String]) -> [String] {
        // The folder as typed: `splitPath` reads `m.001` and `./m.005` as one folder already.
        let typedFolder = { (path: String) in
            path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? ""
        }
        let folders = arguments.map(typedFolder)
        guard Set(folders).count > 1, !arguments.contains(where: { $0.contains("://") }) else { return arguments }
        let real = Set(folders).map { Syscall.realPath($0.isEmpty ? "." : $0) }
        guard let one = real.first, one != nil, real.allSatisfy({ $0 == one }) else { return arguments }
        let folder = normalizedPath(folders[0])
        let spelt = arguments.map { path in
            let name = String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])
            return folder.isEmpty ? name : folder == "/" ? "/" + name : folder + "/" + name
        }
        // One name in two spellings (`a.001 ./a.001`) stays as typed: refused as a set given twice.
        return Set(spelt).count == spelt.count ? spelt : arguments
    }

    /// The manifests a lone file's set would have, when it reads as a set's first part: one
    /// such (`p.aa`, its `p.ab` lost) is checked by its set's manifest, if one lies beside it,
    /// and the later parts it lists are missing, not a lone file merged short.
    static func loneManifestCandidates(_ path: String) -> [String] {
        let firsts = (NumberedName.readings(of: path) + NumberedName.oneLetterReadings(of: path)).filter {
            $0.number == $0.usualFirstNumber
        }
        var seen = Set<String>()
        return firsts.flatMap(\.manifestCandidates).filter { seen.insert($0).inserted }
    }

    /// The last argument when it looks like an output given as `cp` takes one (`merge A.001
    /// OUT`): at least two arguments, the first a numbered part, and the last no file, no number
    /// of the first's set, and not named as a part itself (`b.001`: a missing part).
    public static func misplacedOutput(_ arguments: [String], names: any SetNames = FileSystemNames()) -> String? {
        guard arguments.count >= 2, let last = arguments.last, !names.exists(last),
            !NumberedName.readings(of: last).contains(where: { $0.alphabet == .digits && $0.width >= 2 })
        else { return nil }
        let readings = NumberedName.readings(of: arguments[0])
        guard !readings.isEmpty, !readings.contains(where: { $0.number(of: last) != nil }) else { return nil }
        return last
    }

    /// True when a list's numbers are those of files named by year or version, not a split's
    /// parts: before an extension, above where sets start, unpadded (`report2023.txt`, not
    /// `out_02.txt`), with the set's usual first part (`report0001.txt`) not there. The list
    /// is joined as typed: `report2025.txt` beside `merge report2023.txt report2024.txt` is no
    /// part the list left out, nor is `report2023.txt` missing between 2022 and 2024.
    static func namesPlainFiles(_ naming: NumberedName, first: Int, names: any SetNames) -> Bool {
        naming.alphabet == .digits && !naming.tail.isEmpty && first > naming.usualFirstNumber
            && !naming.startsLate(from: first)
            && PartDiscovery.existing(naming.with(number: naming.usualFirstNumber), names) == nil
    }

    /// The reading of the first argument under which every argument is a number of one set.
    /// Digits that a name beside them proves hex are read as hex (``NumberedName/provenHex(_:)``):
    /// `out_00.txt … out_09.txt out_10.txt` with `out_0a.txt` there leaves out six parts.
    /// One letter after a separator (`out_b out_a out_c` of `split -a 1`) is a set when its `a` is there.
    static func commonSet(_ arguments: [String], names: (any SetNames)? = nil) -> (NumberedName, [Int])? {
        let oneLetter = names.map { NumberedName.oneLetterReadings(of: arguments[0], names: $0) }
        let fit = { (reading: NumberedName) -> (NumberedName, [Int])? in
            let numbers = arguments.map { reading.number(of: $0) }
            return numbers.allSatisfy({ $0 != nil }) ? (reading, numbers.compactMap { $0 }) : nil
        }
        // Parts GNU split widened (`x9000 x9001`, `gcdcat x9*`) are later parts of a two-symbol
        // set, never a set `x9` + `000` (a26 C2).
        if let names, let widened = PartDiscovery.widenedReading(of: arguments[0], names), let whole = fit(widened) {
            return whole
        }
        for reading in NumberedName.listReadings(of: arguments[0]) + (oneLetter ?? []) {
            for candidate in [names.flatMap(reading.provenHex), reading].compactMap({ $0 }) {
                // A prefix that ends in a digit (`v2*` of `split -d f v2`: `v2` + `00`, not `v` +
                // `200` with its start lost; `disk0*` widened to `disk09000`, which `disk` + `000`
                // does not fit): a narrower reading that starts a set.
                let fitting = PartDiscovery.narrowerDigitReadings(of: candidate).compactMap(fit)
                let narrower = fitting.first {
                    ($0.1.min() ?? 0) <= $0.0.usualFirstNumber && !arguments.contains($0.0.stem + "90" + $0.0.tail)
                }
                guard let whole = fit(candidate) else {
                    // Widened past the whole reading: the narrower one, held to its start even when
                    // late (`disk001` … `disk09000` with `disk000` lost, a26 C4).
                    if let reading = narrower ?? fitting.first { return reading }
                    continue
                }
                // Not where a part lies just below the whole reading's first (`x100 x101` beside
                // `x099` of `split -a 3 -d`: a middle stretch, not a set `x1`, a27 F2).
                let lowest = whole.1.min() ?? 0
                if let narrower, whole.0.startsLate(from: lowest), let names,
                    PartDiscovery.existing(whole.0.with(number: lowest - 1), names) == nil
                {
                    return narrower
                }
                return whole
            }
        }
        return nil
    }

    /// A list of one set's parts that stops before parts lying beside it (`c.001 c.002` with
    /// `c.003` there) would make a short output, silently: refused, naming them.
    static func refuseOmittedLastParts(
        _ parts: [String], numbers: [Int], naming: NumberedName, names: any SetNames
    ) throws {
        guard let last = numbers.max() else { return }
        var omitted: [String] = []
        while omitted.count < 1000,
            let next = PartDiscovery.existing(naming.with(number: last + omitted.count + 1), names)
        {
            omitted.append(next)
        }
        guard let first = omitted.first, let listedLast = parts.last else { return }
        // The set's usual first part when it lies there (a list from `.002` stops short too), or
        // the list's lowest when that is lower (`disk000` of `split -a 3 -d`, not `disk001`), or
        // a part 0 lying there (`x000` for `x01*` of `split -a 3 -d`, a28).
        let lowest = min(numbers.min() ?? naming.usualFirstNumber, naming.usualFirstNumber)
        let start =
            (lowest > 0 ? PartDiscovery.existing(naming.with(number: 0), names) : nil)
            ?? PartDiscovery.existing(naming.with(number: lowest), names) ?? parts[0]
        // `merge a.001 a.001`: the list is short because a part is given twice; say that.
        if let twice = numbers.indices.first(where: { numbers[..<$0].contains(numbers[$0]) }) {
            throw GCDCatError(
                .invalidInput, path: parts[twice],
                message:
                    "is given twice, so the list stops short of the set (\(first.displayPath) lies beside it). Give "
                    + "each part once (or the first alone: gcdcat merge \(start.displayPath)); --allow-duplicates "
                    + "joins a part twice on purpose, with every part listed")
        }
        let named = omitted.count == 1 ? first.displayPath : "\(first.displayPath) … \(omitted.last!.displayPath)"
        throw GCDCatError(
            .missingPart, path: first,
            message:
                "lies beside the listed parts but is not in the list, which stops at \(listedLast.displayPath): "
                + "the output would lack \(omitted.count == 1 ? "this part" : "\(omitted.count) parts (\(named))"). Give "
                + "every part (or the first alone: gcdcat merge \(start.displayPath)), or use --as-given to merge the "
                + "list as it is")
    }

    /// Checks an explicit list of one set's parts is in numeric order with no gap; repairs the
    /// shell's glob order of a complete set.
    static func order(
        _ resolved: inout Resolved, numbers: [Int], naming: NumberedName, names: any SetNames
    ) throws {
        // A number listed twice is the same file twice: the duplicate check reports it.
        let inOrder = zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 }
        if inOrder { return }
        let arguments = resolved.parts
        let distinct = Array(Set(numbers)).sorted()
        let complete = distinct.count == numbers.count && distinct.last! - distinct.first! == numbers.count - 1
        // Compared as bytes: a String's == takes NFC and NFD spellings for one name.
        let byBytes = { (a: String, b: String) in PathName.bytes(of: a).lexicographicallyPrecedes(PathName.bytes(of: b))
        }
        let globSorted =
            arguments.elementsEqual(arguments.sorted(), by: { $0.utf8.elementsEqual($1.utf8) })
            || arguments.elementsEqual(arguments.sorted(by: byBytes), by: { $0.utf8.elementsEqual($1.utf8) })
        if complete && globSorted {
            resolved.parts = zip(numbers, arguments).sorted { $0.0 < $1.0 }.map(\.1)
            let pair = (0..<(numbers.count - 1)).first { numbers[$0 + 1] < numbers[$0] }!
            resolved.notes.append(
                "the parts were listed in the shell's order (\(arguments[pair].displayPath) before "
                    + "\(arguments[pair + 1].displayPath)); merging them in numeric order")
            return
        }
        // The shell's order of a set with a gap: the gap is found in numeric order (`.1000` sorts
        // before `.101`, which the shell's order made look missing).
        let listed = zip(numbers, arguments).map { (number: $0, argument: $1) }
        let checked = globSorted ? listed.sorted { $0.number < $1.number } : listed
        for index in 0..<(checked.count - 1) {
            let (this, next) = (checked[index].number, checked[index + 1].number)
            let (before, after) = (checked[index].argument, checked[index + 1].argument)
            if next < this {
                throw GCDCatError(
                    .invalidInput, path: after,
                    message:
                        "listed after \(before.displayPath), out of numeric order for its set; "
                        + "give the parts in order, or use --as-given to merge them as listed")
            }
            if next > this + 1 {
                let missing = naming.with(number: this + 1)
                let existing = PartDiscovery.existing(missing, names)
                throw GCDCatError(
                    .missingPart, path: existing ?? missing.name,
                    message:
                        "missing from the list between \(before.displayPath) and "
                        + "\(after.displayPath); give every part, or use --as-given to merge the list as it is"
                        + (existing == nil && names is FileSystemNames
                            ? LookAlikeNames.clause(missing: missing.name, match: "set") : "")
                )
            }
        }
    }
}
