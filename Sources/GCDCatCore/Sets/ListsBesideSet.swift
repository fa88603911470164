import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Checksum lists lying beside a set that are about it: a `SHA256SUMS`, `MD5SUMS`, `B2SUMS`,
/// `x.bin.sha512`, `checksums.md5`, … that names one of the set's parts or the file they join
/// to. A merge with no list named after the set (``NumberedName/manifestCandidates``) checks the
/// parts against the first of these, so that a corrupt part is not joined just because the list
/// that says so has another name.
///
/// A list is found by its name (``NotAListHint/isListName(_:)``), never by sniffing every file;
/// one that names only other files (a `SHA256SUMS` over a download folder without this set) is
/// not this set's and is passed over without a word, as is one gcdcat cannot read.
enum ListsBesideSet {
    /// Lists larger than this are not read to see whether they name the set.
    static let largestList: Int64 = 64 << 20

    /// What the folder of a set holds about it: the lists to check it against, and the lists
    /// that name its parts but that gcdcat cannot read (a `rhash --tiger` list), each with why.
    struct Found {
        var lists: [String] = []
        var unreadable: [(list: String, why: String)] = []
        /// Lists that name its parts but are larger than a merge loads beside a set (``largestList``).
        var tooLarge: [String] = []
        /// Lists that name its parts in an algorithm gcdcat reads, but give a name two values.
        var contradictory: [GCDCatError] = []
    }

    /// The lists beside `parts` (in the first part's folder) that are about them, in the order
    /// a merge prefers them: those whose name starts with the set's output name (`x.bin.sha512`),
    /// then the others, each group in the byte order of their names. A line naming `outputName`,
    /// the name `-o` gives the output, is about the whole file too.
    ///
    /// ## Errors
    /// `.io` when the folder cannot be listed.
    static func find(parts: [PartFile], outputName: String? = nil) throws -> Found {
        guard let first = parts.first else { return Found() }
        let folder = splitPath(first.path).directory
        let shown = { (name: String) in folder == "." && !first.path.hasPrefix("./") ? name : "\(folder)/\(name)" }
        let whole = PartArguments.commonSet(parts.map { splitPath($0.path).name })?.0.wholeName
        let names = try directoryEntries(folder).filter(NotAListHint.isListName).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        let named = { (name: String) in
            [whole, outputName].contains { $0.map { name.utf8.starts(with: $0.utf8) } ?? false }
        }
        var found = Found()
        for list in (names.filter(named) + names.filter { !named($0) }).map(shown) {
            switch try reading(list: list, parts: parts, whole: whole, outputName: outputName) {
            case .about: found.lists.append(list)
            case .unreadable(let why): found.unreadable.append((list, why))
            case .tooLarge: found.tooLarge.append(list)
            case .contradictory(let error): found.contradictory.append(error)
            case .notAbout: break
            }
        }
        return found
    }

    enum Reading: Equatable {
        case about
        case notAbout
        /// It names one of the parts, but no line of it can be read (why: its first bad line).
        case unreadable(String)
        /// It names one of the parts, but is larger than a merge loads beside a set.
        case tooLarge
        /// It names one of the parts, but gives a name two values.
        case contradictory(GCDCatError)
    }

    /// Whether the regular file `list` reads as a checksum list that names one of `parts` or
    /// their whole file. Its malformed lines are skipped, as `verify` skips them: one bad line
    /// does not hide a list from the merge that must check it.
    static func reading(list: String, parts: [PartFile], whole: String?, outputName: String? = nil) throws -> Reading {
        guard let info = try Syscall.statIfExists(list), info.st_mode & S_IFMT == S_IFREG,
            !parts.contains(where: { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) })
        else { return .notAbout }
        // Too large to load, but still looked through for the set's names: passed over in
        // silence, it let a corrupt part merge that the list would have caught.
        if Int64(info.st_size) > largestList {
            let names = parts.map { splitPath($0.path).name } + [whole, outputName].compactMap { $0 }
            guard namesAny(of: names, list: list) else { return .notAbout }
            return .tooLarge
        }
        // A line for the whole file counts, an SFV's too: its crc32 is checked on the parts'
        // crc32s combined (``SFVSetLines``).
        let entries: [(name: String, rejection: String?)]
        var listedTwice = false
        do {
            entries = try Manifest.load(list).entries.map { ($0.name, $0.rejection) }
        } catch let error as GCDCatError where error.code == .malformedManifest {
            do {
                entries = try ChecksumList.loadSkippingMalformed(list, listedTwice: &listedTwice).list.entries.map {
                    ($0.name, $0.rejection)
                }
            } catch let error as GCDCatError where error.code == .malformedManifest {
                let names = parts.map { splitPath($0.path).name } + [whole, outputName].compactMap { $0 }
                guard namesAny(of: names, list: list) else { return .notAbout }
                return listedTwice ? .contradictory(error) : .unreadable(error.message)
            } catch {
                return .notAbout
            }
        } catch {
            // Unreadable (EACCES): not used, as a list that is not this set's.
            return .notAbout
        }
        let roles = try SetListEntries(
            names: entries.map(\.name), rejections: entries.map(\.rejection), listPath: list, parts: parts,
            outputName: outputName
        ).roles
        return roles.contains(.part) || roles.filter { $0 == .whole }.count == 1 ? .about : .notAbout
    }

    /// Whether a line of `list` ends with one of `names` after a blank or a `*`, starts with one
    /// before its last blank (SFV), or has one in a BSD line's parentheses: a list gcdcat cannot
    /// read (or cannot trust) that is about the set.
    static func namesAny(of names: [String], list: String) -> Bool {
        let wanted = Set(names.map { Array($0.utf8) })
        var found = false
        try? ChecksumListSource(list).forEachLine { line, _ in
            guard !found else { return }
            if let open = line.firstIndex(of: 40), let close = line[open...].firstIndex(of: 41),
                wanted.contains(Array(line[(open + 1)..<close]))
            {
                found = true
            } else if let blank = line.lastIndex(where: { $0 == 32 || $0 == 9 }) {
                // `HEX  NAME` (coreutils, rhash) or `NAME HEX` (SFV).
                var name = line[(blank + 1)...]
                if name.first == 42 { name = name.dropFirst() }
                let sfvName = line[..<blank].reversed().drop { $0 == 32 || $0 == 9 }.reversed()
                found = wanted.contains(Array(name)) || wanted.contains(Array(sfvName))
            }
        }
        return found
    }
}
