import GCDCatSystem

/// Sorts merge's part arguments into the sets they belong to, as `7z x *.001` takes each
/// archive on its own: `gcdcat *.001` over two downloads is two first parts, and
/// `gcdcat *.00*` two complete lists, each merged to its own output.
///
/// Arguments are read in order; a run of them that numbers one set (``NumberedName``, compared
/// as bytes) is one group. Then:
/// - one run (one set, or one file) is one group, resolved by ``PartArguments`` as before;
/// - runs that are each evidently a set (two parts listed, a padded suffix such as `.001`, a
///   `.partN`, or a numbered neighbour on disk) are several groups, one per set;
/// - a set that comes back after another set's part (`a.001 a.002 b.003 a.004`) is refused,
///   naming the odd part and its set, and so is a part of the same name in another width
///   (`x.001 x.002 x.0003`);
/// - numbered parts beside files that are no part of a set (`m.iso.001 backup.iso`, or the
///   `movie.zip.nfo` a glob took in) are refused, naming those files: joined, they would end
///   up in the output, and the set's checks (order, gaps, its manifest) would be off;
/// - anything else (`a b c`, `log1 data7`) is one list, taken as given.
///
/// `asGiven` says the list is arbitrary: one group, whatever it holds.
public enum SetGrouping {
    /// One set's arguments.
    public struct Group: Sendable, Equatable {
        public var arguments: [String]
        /// The set's numbering; nil for a list that is not one numbered set, and for a checksum
        /// list given to name its set.
        public var naming: NumberedName?
        /// The list the set is checked against, when one list given alone names several sets
        /// (`gcdcat all.sfv`): its lines of the set; nil when the set finds its own.
        public var manifest: String?

        /// The set as messages name it: its whole file's name, or its first argument.
        public var name: String { naming?.wholeName ?? arguments[0] }
    }

    /// The groups `arguments` form, in the order given; `listed` when they are the names a
    /// checksum list gives, where a name such as `in.b2` is a part, not a list a glob took in.
    ///
    /// ## Errors
    /// `.invalidInput` naming a part listed among another set's parts, or a part of the set's
    /// name in another width.
    public static func group(
        _ arguments: [String], asGiven: Bool = false, names: any SetNames = FileSystemNames(), listed: Bool = false
    ) throws -> [Group] {
        guard !asGiven, arguments.count > 1 else { return [Group(arguments: arguments, naming: nil)] }
        // Several checksum lists: each names its own set (`gcdcat *.sfv`).
        if arguments.allSatisfy({ ChecksumListDetector.kind(ofName: $0) != nil }) {
            return arguments.map { Group(arguments: [$0], naming: nil) }
        }
        // A list among parts (`gcdcat a.bin.*` takes in split's `a.bin.sha256`) is refused here,
        // before its digits read as the part number of another set (`a.bin.sha`).
        // Not among the names a list gives (`listed`): those are its parts (`in.b2` of a hex set).
        // A name a split marked as its part is a part whatever it spells (`in.b2` in `gcdcat in.*`),
        // while it has the mark's size (its bytes are checked by the merge).
        if !listed,
            let list = arguments.first(where: {
                ChecksumListDetector.kind(ofName: $0) != nil && (names.mark(of: $0)?.standing ?? .stale) == .stale
            }),
            let kind = ChecksumListDetector.kind(ofName: list)
        {
            throw GCDCatError(
                .invalidInput, path: list, message: "a checksum list (\(kind)), not a part\(MergeOperation.listHint)")
        }
        var runs: [Run] = []
        for argument in arguments {
            if let last = runs.indices.last, runs[last].extend(with: argument) { continue }
            runs.append(Run(argument))
        }
        runs = runs.flatMap { $0.separatingLetterSets(names) }
        if runs.count == 1 { return [Group(arguments: arguments, naming: runs[0].naming)] }
        let namings = runs.map { $0.evidentNaming(names) }
        try refuseInterleaving(runs, namings)
        try refuseStrays(runs, namings, names)
        guard namings.allSatisfy({ $0 != nil }) else { return [Group(arguments: arguments, naming: nil)] }
        return zip(runs, namings).map { Group(arguments: $0.arguments, naming: $1) }
    }

    /// A set seen again after other arguments, or in another width, is a mixed list.
    static func refuseInterleaving(_ runs: [Run], _ namings: [NumberedName?]) throws {
        for (index, naming) in namings.enumerated() {
            guard let naming,
                let earlier = namings[..<index].lastIndex(where: { $0.map { sameSet($0, naming) } ?? false })
            else { continue }
            let before = runs[earlier].arguments
            let set = namings[earlier]!
            let listed =
                before.count == 1 ? before[0].displayPath : "\(before[0].displayPath) … \(before.last!.displayPath)"
            if earlier == index - 1 {
                let part = runs[index].arguments[0]
                throw GCDCatError(
                    .invalidInput, path: part,
                    message:
                        "does not fit the numbering of \(listed) (mixed widths: \(set.width) "
                        + "\(set.alphabet == .digits ? "digits" : "letters") there); rename or remove it, or use "
                        + "--as-given to merge the list as it is")
            }
            let odd = runs[earlier + 1].arguments[0]
            let whose =
                namings[earlier + 1].flatMap(\.wholeName).map { "belongs to the set of \($0.displayPath), but " } ?? ""
            throw GCDCatError(
                .invalidInput, path: odd,
                message:
                    "\(whose)is listed among the parts of \(set.wholeName?.displayPath ?? listed) (after "
                    + "\(before.last!.displayPath), before \(runs[index].arguments[0].displayPath)); list the parts of one "
                    + "set, or use --as-given if the list is meant to be joined as it is")
        }
    }

    /// Files listed among a set's numbered parts that are no part of any set. A checksum list
    /// named as one is left to the part checks, which say what it is.
    static func refuseStrays(_ runs: [Run], _ namings: [NumberedName?], _ names: any SetNames) throws {
        guard let setIndex = namings.firstIndex(where: { $0 != nil }), let set = namings[setIndex] else { return }
        let strays = zip(runs, namings).filter { $1 == nil }.flatMap(\.0.arguments).filter {
            !SetFromList.isNamedAsList($0)
        }
        guard let first = strays.first else { return }
        // Spanned zip or RAR volumes (`a.z01 a.zip`) have their own refusal, naming the tool.
        for argument in runs.flatMap(\.arguments) {
            if let refusal = ArchiveVolumes.refusal(for: argument, names: names) { throw refusal }
        }
        let listed = strays.prefix(5).map(\.displayPath).joined(separator: ", ") + (strays.count > 5 ? ", …" : "")
        let setParts = zip(runs, namings).filter { $1 != nil }.flatMap(\.0.arguments)
        let whole = set.wholeName?.displayPath ?? runs[setIndex].arguments[0].displayPath
        var message =
            "is not a numbered part of \(whole), yet it is listed with its parts (not parts: \(listed)); joined, "
            + "\(strays.count == 1 ? "it" : "they") would end up in the output. "
        // One whole set and strays (a glob such as `movie.zip.*` over a .nfo): its first part finds it.
        if namings.compactMap({ $0 }).allSatisfy({ sameSet($0, set) }),
            let discovered = try? PartDiscovery.discover(from: setParts[0], names: names),
            discovered.parts.count == setParts.count,
            zip(discovered.parts, setParts).allSatisfy({ $0.utf8.elementsEqual($1.utf8) })
        {
            message += "To merge the set, give its first part alone (gcdcat merge \(setParts[0].displayPath)); "
        } else {
            message += "List only the set's parts; "
        }
        message += "use --as-given to join the files exactly as listed"
        throw GCDCatError(.invalidInput, path: first, message: message)
    }

    /// The same set, whatever width its suffix has: stem, alphabet and tail, as bytes.
    static func sameSet(_ a: NumberedName, _ b: NumberedName) -> Bool {
        a.alphabet == b.alphabet && a.stem.utf8.elementsEqual(b.stem.utf8) && a.tail.utf8.elementsEqual(b.tail.utf8)
    }

    /// Consecutive arguments that number one set under at least one reading.
    struct Run {
        var arguments: [String]
        /// The readings of the first argument every argument so far fits, best first.
        var candidates: [NumberedName]

        init(_ argument: String) {
            arguments = [argument]
            let readings = NumberedName.listReadings(of: argument)
            // Then the narrower readings of a prefix that ends in a digit, which a set GNU widened
            // may need (`disk089`, `disk09000` of `split -d f disk0`).
            candidates = readings + readings.flatMap(PartDiscovery.narrowerDigitReadings)
        }

        var naming: NumberedName? { candidates.first }

        mutating func extend(with argument: String) -> Bool {
            let fitting = candidates.filter { $0.number(of: argument) != nil }
            guard !fitting.isEmpty else { return false }
            candidates = fitting
            arguments.append(argument)
            return true
        }

        /// The run as one run per argument when its arguments are the first parts of letters sets
        /// that a neighbour confirms (`movie1.mkv.aa` beside `movie1.mkv.ab`), which also read as one
        /// digits set before a tail (`movie` + `1` + `.mkv.aa`): joined, each set's first part made
        /// a made-up `movie.mkv.aa` with exit 0 (`gcdcat *.aa`).
        func separatingLetterSets(_ names: any SetNames) -> [Run] {
            guard arguments.count > 1, let naming, naming.alphabet == .digits, !naming.tail.isEmpty,
                NumberedName.readings(of: arguments[0]).contains(where: {
                    $0.alphabet == .letters && $0.tail.isEmpty && PartDiscovery.hasNeighbour($0, names)
                })
            else { return [self] }
            return arguments.map(Run.init)
        }

        /// The reading under which this run is surely a set's parts, or nil for a plain file.
        func evidentNaming(_ names: any SetNames) -> NumberedName? {
            if arguments.count > 1 { return naming }
            // A set of one that its split vouches for, by the part's mark or a manifest beside
            // (`cd1_00.mp4` with `cd1.sfv`): joined as a list with another, two sets' bytes made one
            // made-up file with exit 0.
            if let reading = PartDiscovery.reading(of: arguments[0], names),
                reading.number <= reading.usualFirstNumber, !PartDiscovery.hasNeighbour(reading, names),
                (names.mark(of: arguments[0]).map { $0.standing != .stale } ?? false)
                    || reading.manifestCandidates.contains(where: names.exists)
            {
                return reading
            }
            for reading in candidates {
                // Digits before an extension are a name's as often (`data2024.csv`): a neighbour tells.
                let padded = reading.alphabet == .digits && reading.width >= 2 && reading.tail.isEmpty
                if padded || reading.stem.lowercased().hasSuffix(".part") || PartDiscovery.hasNeighbour(reading, names)
                {
                    return reading
                }
            }
            return nil
        }
    }
}

extension NumberedName {
    /// The readings a listed name is taken by, best first: ``readings(of:)``, then hex (`x00 …
    /// x09 x0a` is a hex set only once `x0a` comes). A reading that eats the whole name before any
    /// tail (`xaa` as part `xaa` of no stem, `jan.log` as part `jan` + `.log`) only when there is
    /// no other: it would take `xaa xab yaa`, or `jan.log feb.log`, for one set.
    static func listReadings(of path: String) -> [NumberedName] {
        let plain = readings(of: path)
        // One hex symbol (`out_0` … `out_b` of `split -a 1 -x`) only as a digit's other reading.
        let narrowHex = plain.filter { $0.alphabet == .digits && $0.width == 1 }.compactMap(\.hexShape)
        let readings = plain + hexReadings(of: path) + narrowHex
        let stemmed = readings.filter { !splitPath($0.stem + "x").name.dropLast().isEmpty }
        return stemmed.isEmpty ? readings : stemmed
    }

    /// The number `path` has in this set, or nil when it is not one of its names. Names are
    /// compared as bytes: `café.002` in NFD is not a part of `café.001` in NFC's set.
    public func number(of path: String) -> Int? {
        let stemBytes = stem.utf8
        guard path.utf8.starts(with: stemBytes) else { return nil }
        let index = path.utf8.index(path.utf8.startIndex, offsetBy: stemBytes.count)
        // A byte prefix of valid UTF-8 ends on a scalar boundary.
        let rest = String(path.unicodeScalars[index...])
        return number(ofSuffix: rest[...])
    }
}
