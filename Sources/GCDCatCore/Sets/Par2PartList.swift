import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A PAR2 recovery set beside a numbered set, found the way its `.sfv` is (`NAME.par2` for the
/// parts `NAME.001`, …, or the whole file's name plus `.par2`), or an index of another name in
/// its folder that lists them (`movie.par2`), whose files are that set's parts.
///
/// The files of a PAR2 set are listed by file id, not by name: the parts' order is their numbers
/// in the set's naming. A file of the recovery set that is no number of it (the `.nfo` a Usenet
/// release protects with its parts) is one of its ``extras``: checked and, when a part needs
/// repair, rebuilt too (its blocks are in the recovery equations), but never joined.
public struct Par2PartList: Sendable {
    /// The `.par2` file read (the index, or a volume when the index is gone).
    public var index: String
    public var set: Par2RecoverySet
    /// The set's files in part order: indices into `set.files`.
    public var order: [Int]
    /// The parts' paths in order, spelt with the index's folder as given.
    public var paths: [String]
    public var naming: NumberedName
    /// The set's files that are no parts of it (indices into `set.files`), by name.
    public var extras: [Int] = []

    /// The `.par2` names a set of `naming` may have beside it, in order of preference.
    public static func candidates(for naming: NumberedName) -> [String] {
        var names: [String] = []
        for candidate in naming.manifestCandidates where candidate.hasSuffix(".sfv") {
            let name = String(candidate.dropLast(4)) + ".par2"
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The first of `naming`'s candidates that exists and whose files are parts of the set, or
    /// else an index of another name in the set's folder that lists them (``indexNamingTheParts(for:notes:)``);
    /// nil when there is none. An index of the whole file the parts join to is passed over with a
    /// note. An index that exists but lists other files, or cannot be read as a
    /// PAR2 set, adds a note when an SFV or list beside the set checks it instead; with none, the
    /// index was the set's only checksum, and the merge is refused (a damaged index beside a set
    /// that lost its last part merged it short, exit 0).
    ///
    /// ## Errors
    /// `.io` for an index that cannot be read; `.malformedManifest` for one that is unusable
    /// when no list checks the set instead.
    public static func find(for naming: NumberedName, notes: inout [String]) throws -> Par2PartList? {
        for name in candidates(for: naming) {
            guard let candidate = try indexOrVolume(name),
                let info = try Syscall.statIfExists(candidate), info.st_mode & S_IFMT == S_IFREG
            else { continue }
            if let list = try use(candidate, checkedAs: name, for: naming, notes: &notes) { return list }
        }
        return try indexNamingTheParts(for: naming, notes: &notes)
    }

    /// The set `candidate` (an index, or a volume standing in for the index `name`) describes,
    /// when its files are parts of `naming`'s set; nil when it is passed over (with a note).
    private static func use(
        _ candidate: String, checkedAs name: String, for naming: NumberedName, notes: inout [String]
    ) throws -> Par2PartList? {
        let hasList = try naming.manifestCandidates.contains { try Syscall.statIfExists($0) != nil }
        let why: String
        do {
            let set = try Par2RecoverySet.load(indexPath: candidate)
            try requireOneSet(set, index: name)
            if let list = list(set, index: candidate, naming: naming) { return list }
            // `par2 create movie.zip` before the split: the whole file's, which checks the
            // output, not the parts (a merge of the intact set was refused).
            if let whole = naming.wholeName, set.files.count == 1,
                set.files[0].name == splitPath(whole).name
            {
                notes.append(
                    "\(candidate.displayPath) protects \(set.files[0].name.displayPath), the whole file, not its "
                        + "parts; not used (gcdcat verify \(candidate.displayPath) checks the output)")
                return nil
            }
            why = "protects no part of this set"
        } catch let error as GCDCatError where error.code == .malformedManifest {
            why = "is not a usable PAR2 set (\(error.message))"
        }
        guard hasList else {
            throw GCDCatError(
                .malformedManifest, path: candidate,
                message:
                    "\(why), and no SFV or list beside the set checks it instead; nothing was written. "
                    + "Name the set's own checksums: its .par2 or a volume of it (gcdcat merge NAME.par2), or its "
                    + "list (--manifest FILE); or list the parts to join them unchecked (--as-given)")
        }
        // A list beside the set checks it: the index only cannot repair.
        notes.append("\(candidate.displayPath) \(why); not used (gcdcat verify \(candidate.displayPath) checks it)")
        return nil
    }

    /// An index in the set's folder named after neither the set nor its whole file
    /// (`movie.par2` beside `movie.7z.001`, as Usenet releases name it) whose files are parts of
    /// the set, as a checksum list of any name that names them is found (``ListsBesideSet``).
    /// Each `.par2` there that is no volume is read alone, its volumes never, to see which files
    /// it lists; only the one that lists parts of the set is loaded with its volumes. One that
    /// cannot be read, or is too large to be an index, is passed over with a note: another
    /// set's broken file does not stop this merge.
    ///
    /// ## Errors
    /// Those of ``use(_:checkedAs:for:notes:)`` for the index that lists the parts.
    static func indexNamingTheParts(for naming: NumberedName, notes: inout [String]) throws -> Par2PartList? {
        let folder = splitPath(naming.stem + "x").directory
        let tried = Set(candidates(for: naming).map { splitPath($0).name })
        let entries: [String]
        do { entries = try directoryEntries(folder) } catch { return nil }
        let indexes = entries.filter {
            $0.lowercased().hasSuffix(".par2") && !Par2RecoverySet.isVolumeName($0) && !tried.contains($0)
        }
        for name in indexes.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let path = folderPrefix(of: naming.stem) + name
            guard let info = try? Syscall.statIfExists(path), info.st_mode & S_IFMT == S_IFREG else { continue }
            guard Int64(info.st_size) <= ListsBesideSet.largestList else {
                note(
                    "\(path.displayPath) is not read to see whether it protects the set (more than 64 MiB, too large "
                        + "for an index); give it to merge by it (gcdcat merge \(path.displayPath))", in: &notes)
                continue
            }
            do {
                let scanned = try Par2PacketReader.scan(path: path)
                let described = try Par2RecoverySet.assemble(
                    scanned.packets, damaged: scanned.damaged.count, directory: folder, origin: path)
                guard list(described, index: path, naming: naming) != nil else { continue }
            } catch let error as GCDCatError where error.code == .malformedManifest || error.code == .io {
                note(
                    "\(path.displayPath) is not a PAR2 index gcdcat can read (\(error.message)); passed over",
                    in: &notes)
                continue
            }
            if let list = try use(path, checkedAs: path, for: naming, notes: &notes) { return list }
        }
        return nil
    }

    /// Adds `text` to `notes` once: the set's folder is looked through for each reading of its name.
    private static func note(_ text: String, in notes: inout [String]) {
        if !notes.contains(text) { notes.append(text) }
    }

    /// Refuses volumes of more than one recovery set when the index (`index`) that would pick
    /// one is gone: the first by name is as likely an older set's (`vol00+01` sorts before a
    /// newer `vol000+01`), and it would "repair" the parts back into the old file.
    ///
    /// ## Errors
    /// `.invalidInput` naming the index and the volumes of each set.
    static func requireOneSet(_ set: Par2RecoverySet, index: String) throws {
        guard !set.foreignVolumes.isEmpty, try Syscall.statIfExists(index) == nil else { return }
        let others = set.foreignVolumes.map(\.displayPath).joined(separator: ", ")
        let own = (set.ownFiles.isEmpty ? [set.origin] : set.ownFiles).map(\.displayPath).joined(separator: ", ")
        throw GCDCatError(
            .invalidInput, path: index,
            message:
                "not found, and the recovery volumes beside the set belong to more than one recovery set "
                + "(\(own) to one, \(others) to another); nothing was written. Name a volume "
                + "of the set that describes these parts to merge by it (gcdcat merge \(set.origin.displayPath), "
                + "or gcdcat merge \(set.foreignVolumes[0].displayPath) for the other set), or remove the other "
                + "set's volumes")
    }

    /// `index` when it exists; else its first recovery volume (`NAME.vol00+01.par2`), which
    /// repeats the set's description; else nil.
    static func indexOrVolume(_ index: String) throws -> String? {
        if try Syscall.statIfExists(index) != nil { return index }
        let (folder, name) = splitPath(index)
        let base = Par2RecoverySet.volumeBase(name)
        let volume = try directoryEntries(folder).sorted().first {
            $0.hasPrefix(base + ".") && Par2RecoverySet.isVolumeName($0) && Par2RecoverySet.volumeBase($0) == base
        }
        return volume.map { folderPrefix(of: index) + $0 }
    }

    /// The parts of the set that the index `path` describes, named by its own files (for
    /// `gcdcat NAME.par2`): nil unless its files read as one numbered set.
    ///
    /// ## Errors
    /// Those of ``Par2RecoverySet/load(indexPath:)``.
    public static func named(by path: String) throws -> Par2PartList? {
        let set = try Par2RecoverySet.load(indexPath: path)
        let prefix = folderPrefix(of: path)
        let names = set.files.map { prefix + $0.name }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // The first file by name may be an extra (`a.nfo` before `movie.mkv.001`): of the
        // readings of the first few, the one that makes the most files parts.
        var best: Par2PartList?
        for name in names.prefix(8) {
            // Hex last: `out_00.txt` … `out_0f.txt` of `split -x` make more parts as hex than as digits.
            for naming in NumberedName.listReadings(of: name) {
                guard let list = list(set, index: path, naming: naming) else { continue }
                if list.order.count > best?.order.count ?? 0 { best = list }
            }
        }
        return best
    }

    /// `set`'s files that are numbers of `naming`, in its order, the others its extras; nil
    /// when none is, or two have one number.
    static func list(_ set: Par2RecoverySet, index: String, naming: NumberedName) -> Par2PartList? {
        let prefix = folderPrefix(of: index)
        var numbered: [(number: Int, file: Int, path: String)] = []
        var extras: [Int] = []
        for (position, file) in set.files.enumerated() {
            let path = prefix + file.name
            guard let number = number(of: path, in: naming) else {
                extras.append(position)
                continue
            }
            numbered.append((number, position, path))
        }
        numbered.sort { $0.number < $1.number }
        guard let first = numbered.first, Set(numbered.map(\.number)).count == numbered.count else { return nil }
        // Beside other files, the parts must start the set (`.001`, `.000`, `aa`): a name that
        // merely reads as a number (`notes.txt` as `notes.` + `txt`) is no set.
        guard extras.isEmpty || first.number <= 1 else { return nil }
        return Par2PartList(
            index: index, set: set, order: numbered.map(\.file), paths: numbered.map(\.path), naming: naming,
            extras: extras)
    }

    /// Says that the extras are checked but not joined; nil when there are none.
    public var extrasNote: String? {
        guard !extras.isEmpty else { return nil }
        let names = extras.prefix(3).map { set.files[$0].name.displayPath }.joined(separator: ", ")
        let more = extras.count > 3 ? " and \(extras.count - 3) more" : ""
        let one = extras.count == 1
        return "\(index.displayPath) also protects \(names)\(more), \(one ? "which is no part" : "which are no parts") "
            + "of the set: \(one ? "it is" : "they are") checked, and rebuilt if a part needs repair, but not joined"
    }

    /// `path`'s number in `naming`, or nil when it is no part of it.
    static func number(of path: String, in naming: NumberedName) -> Int? {
        guard path.utf8.starts(with: naming.stem.utf8) else { return nil }
        let suffix = String(path.unicodeScalars.dropFirst(naming.stem.unicodeScalars.count))
        return naming.number(ofSuffix: suffix[...])
    }

    /// The index a merge of the numbered set `files` looks for first (``find(for:notes:)``),
    /// named as its manifest is: `x.par2` for GNU split's `xaa` `xab` …, `movie.zip.par2` for
    /// `movie.zip.001` …; nil when they are not parts of one numbered set. A lone file is one
    /// only when its name leaves no doubt, a first part `NAME.001` (or `.000`, `.0001`): 7-Zip
    /// and split leave just that of a file smaller than one part, and its merge looks for
    /// `NAME.par2`, not `NAME.001.par2`.
    public static func indexName(forParts files: [String]) -> String? {
        guard let first = files.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) else { return nil }
        guard files.count > 1 else {
            let lone = NumberedName.readings(of: first).first {
                $0.alphabet == .digits && $0.tail.isEmpty && $0.width >= 3 && $0.number <= 1 && $0.stem.hasSuffix(".")
                    && !splitPath($0.stem).name.dropLast().isEmpty
            }
            return lone.flatMap { candidates(for: $0).first }
        }
        for naming in NumberedName.listReadings(of: first)
        where files.allSatisfy({ number(of: $0, in: naming) != nil }) {
            return candidates(for: naming).first
        }
        return nil
    }

    /// `dir/` for `dir/x.par2`, empty for `x.par2`: the spelling the parts' paths share.
    static func folderPrefix(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }
}
