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

    /// The lists beside `parts` (in the first part's folder) that are about them, in the order
    /// a merge prefers them: those whose name starts with the set's output name (`x.bin.sha512`),
    /// then the others, each group in the byte order of their names.
    ///
    /// ## Errors
    /// `.io` when the folder cannot be listed.
    static func find(parts: [PartFile]) throws -> [String] {
        guard let first = parts.first else { return [] }
        let folder = splitPath(first.path).directory
        let shown = { (name: String) in folder == "." && !first.path.hasPrefix("./") ? name : "\(folder)/\(name)" }
        let whole = PartArguments.commonSet(parts.map { splitPath($0.path).name })?.0.wholeName
        let names = try directoryEntries(folder).filter(NotAListHint.isListName).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        let named = { (name: String) in whole.map { name.utf8.starts(with: $0.utf8) } ?? false }
        let ordered = names.filter(named) + names.filter { !named($0) }
        return try ordered.map(shown).filter { try isAbout(list: $0, parts: parts) }
    }

    /// Whether the regular file `list` reads as a checksum list that names one of `parts` or
    /// their whole file.
    static func isAbout(list: String, parts: [PartFile]) throws -> Bool {
        guard let info = try Syscall.statIfExists(list), info.st_mode & S_IFMT == S_IFREG,
            Int64(info.st_size) <= largestList,
            !parts.contains(where: { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) })
        else { return false }
        // An SFV is checked part by part only: its crc32 of a whole file is not one gcdcat
        // checks before publishing.
        let entries: [(name: String, rejection: String?)]
        let wholeCounts: Bool
        do {
            entries = try Manifest.load(list).entries.map { ($0.name, $0.rejection) }
            wholeCounts = false
        } catch let error as GCDCatError where error.code == .malformedManifest {
            guard let read = try? ChecksumList.load(list) else { return false }
            entries = read.entries.map { ($0.name, $0.rejection) }
            wholeCounts = true
        } catch {
            // Unreadable (EACCES): not used, as a list that is not this set's.
            return false
        }
        let roles = try SetListEntries(
            names: entries.map(\.name), rejections: entries.map(\.rejection), listPath: list, parts: parts
        ).roles
        return roles.contains(.part) || (wholeCounts && roles.filter { $0 == .whole }.count == 1)
    }
}
