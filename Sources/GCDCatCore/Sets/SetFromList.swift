import GCDCatS3
import GCDCatSystem

/// A merge started from a checksum list: `gcdcat movie.zip.sfv`, `gcdcat merge SHA256SUMS`.
///
/// The list names the parts of one set, relative to its folder; the set is merged from its
/// first part, under the set's name, and the list is the manifest it is checked against. A list
/// of one entry naming the whole file (`movie.zip.sha256` naming `movie.zip`) names the set
/// `movie.zip.001` (or `.000`) beside it.
public enum SetFromList {
    /// Whether `path` is named as a checksum list: by its extension (`.sfv`, `.md5`, …) or a
    /// coreutils list name (`SHA256SUMS`, `B2SUMS`, `MD5SUMS`).
    public static func isNamedAsList(_ path: String) -> Bool {
        if ChecksumListDetector.kind(ofName: path) != nil { return true }
        let base = splitPath(path).name
        return base.uppercased().hasSuffix("SUMS")
            && base.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
    }

    /// The argument a merge takes as the checksum list that names its set, or nil: the one
    /// argument given (and not `--as-given`) when its name says it is a list, or when its first
    /// KiB read as one and `isNumberedPart` does not make it a part (a numbered part's head is
    /// the merge's to read).
    public static func loneList(
        _ arguments: [String], asGiven: Bool, isNumberedPart: (String) -> Bool
    ) throws -> String? {
        guard arguments.count == 1, !asGiven, let path = arguments.first else { return nil }
        if isNamedAsList(path) { return path }
        return try !isNumberedPart(path) && readsAsList(path) ? path : nil
    }

    /// Whether `path`, a small regular file, reads as a checksum list: its first KiB are all
    /// list lines.
    public static func readsAsList(_ path: String) throws -> Bool {
        guard let info = try Syscall.statIfExists(path), info.st_mode & S_IFMT == S_IFREG, info.st_size > 0,
            info.st_size <= 64 << 20
        else { return false }
        let head = try ChecksumListDetector.head(of: path)
        return ChecksumListDetector.kind(ofHead: head, truncated: info.st_size > ChecksumListDetector.sniffLength)
            != nil
    }

    /// The first part of the one set `list` names.
    ///
    /// ## Errors
    /// `.malformedManifest` for a list that reads as none; `.invalidInput` for a list that names
    /// no set, several sets, or files that are not one set's parts; `.missingPart` for a whole
    /// file with no parts beside it.
    public static func firstPart(
        of list: String, algorithm: HashAlgorithm? = nil, names: any SetNames = FileSystemNames()
    ) throws -> String {
        try firstPart(
            listing: entryNames(list, algorithm: algorithm).map { ChecksumListVerifier.resolve($0, listPath: list) },
            of: list, names: names)
    }

    /// The first part of the one set a list names, from the names it gives (each resolved
    /// beside it, as `names` spells them): a local list's files, or an object list's keys.
    ///
    /// ## Errors
    /// As ``firstPart(of:algorithm:names:)``, but for reading the list.
    public static func firstPart(listing: [String], of list: String, names: any SetNames) throws -> String {
        let listed = withoutOtherFiles(listing)
        guard let only = listed.first else {
            throw GCDCatError(.invalidInput, path: list, message: "lists no files, so it names no set to merge")
        }
        if listed.count == 1 {
            // The whole file's digest: its parts lie beside it.
            for first in [only + ".001", only + ".000"] where names.exists(first) { return first }
            if names.exists(only) { return only }
            throw GCDCatError(
                .missingPart, path: list,
                message:
                    "names \(only.displayPath), the whole file, and no \((only + ".001").displayPath) lies beside it; "
                    + "give the first part, with --manifest \(list.displayPath)")
        }
        let groups = try SetGrouping.group(listed, names: names, listed: true)
        if groups.count > 1 {
            throw GCDCatError(
                .invalidInput, path: list,
                message:
                    "lists the parts of \(groups.count) sets (\(groups.map(\.name.displayPath).joined(separator: ", "))); "
                    + "merge each from its first part, checked against its own lines of this list: gcdcat merge "
                    + "\(LeftBehindAdvice.shellQuoted(groups[0].arguments[0])) --manifest \(LeftBehindAdvice.shellQuoted(list))"
            )
        }
        guard let naming = groups[0].naming ?? NumberedName.readings(of: only).first,
            let numbers = Optional(listed.compactMap(naming.number(of:))), numbers.count == listed.count,
            let lowest = numbers.min()
        else {
            throw GCDCatError(
                .invalidInput, path: list,
                message:
                    "lists files that are not the parts of one set; give the first part, with --manifest \(list.displayPath)"
            )
        }
        return listed[numbers.firstIndex(of: lowest)!]
    }

    /// The sets a list given alone names when it names several (`cat a.bin.sfv b.bin.sfv >
    /// all.sfv`): each set's first part, checked against the list; nil when it names one set or
    /// none, which ``firstPart(of:algorithm:names:)`` then finds or refuses.
    ///
    /// ## Errors
    /// `.malformedManifest` for a list that reads as none; `.invalidInput` for a part of a set
    /// listed among another set's parts.
    public static func sets(
        of list: String, algorithm: HashAlgorithm? = nil, names: any SetNames = FileSystemNames()
    ) throws -> [SetGrouping.Group]? {
        let listed = try partNames(of: list, algorithm: algorithm)
        guard listed.count > 1 else { return nil }
        let groups = try SetGrouping.group(listed, names: names, listed: true)
        guard groups.count > 1, groups.allSatisfy({ $0.naming != nil }) else { return nil }
        return groups.map { group in
            let lowest = group.arguments.min {
                (group.naming?.number(of: $0) ?? 0) < (group.naming?.number(of: $1) ?? 0)
            }
            return SetGrouping.Group(arguments: [lowest ?? group.arguments[0]], naming: group.naming, manifest: list)
        }
    }

    /// The names `list` gives, resolved beside it, without the files that are no set's parts
    /// (a SHA256SUMS over a release names its README.txt too).
    private static func partNames(of list: String, algorithm: HashAlgorithm?) throws -> [String] {
        withoutOtherFiles(
            try entryNames(list, algorithm: algorithm).map { ChecksumListVerifier.resolve($0, listPath: list) })
    }

    /// `listed` without the files that are no set's parts (``otherFiles(among:)``).
    private static func withoutOtherFiles(_ listed: [String]) -> [String] {
        zip(listed, otherFiles(among: listed)).filter { !$0.1 }.map(\.0)
    }

    /// Which of `names` (a list's entries, in order) are no part of a numbered set: no digit
    /// suffix (`README.txt` beside `m.iso.001` in a SHA256SUMS), and no letter suffix shared with
    /// another listed name (`README.txt` beside GNU's `xaa`, `xab`). All false when no name is
    /// numbered. A file numbered in another set (`b.bin.001`) is not other: it makes the list one
    /// of several sets.
    public static func otherFiles(among names: [String]) -> [Bool] {
        let readings = names.map { NumberedName.readings(of: $0) }
        let letterSets = readings.map { readings in
            Set(readings.filter { $0.alphabet == .letters }.map { [$0.stem, $0.tail] })
        }
        var sharing: [[String]: Int] = [:]
        for sets in letterSets { for key in sets { sharing[key, default: 0] += 1 } }
        let numbered = zip(readings, letterSets).map { readings, sets in
            readings.contains { $0.alphabet == .digits } || sets.contains { sharing[$0]! > 1 }
        }
        guard numbered.contains(true) else { return names.map { _ in false } }
        return numbered.map { !$0 }
    }

    /// The names `list` gives, in order: an SFV's, or a coreutils/BSD list's.
    static func entryNames(_ list: String, algorithm: HashAlgorithm? = nil) throws -> [String] {
        do {
            return try Manifest.load(list).entries.map(\.name)
        } catch let error as GCDCatError where error.code == .malformedManifest {
            return try ChecksumList.load(list, forced: algorithm).entries.map(\.name)
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif
