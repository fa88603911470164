import GCDCatSystem

/// The names a shell offers for a file argument being completed, for completions that the
/// shells' own file completion cannot order (`gcdcat verify <Tab>`: checksum lists first).
public enum FileCandidates {
    /// The entries of the folder `prefix` names (up to its last `/`) that start with the rest of
    /// it, as `prefix`'s folder part plus the name; hidden ones only when the rest starts with
    /// a dot. With `listsFirst`, checksum lists (by name: `SHA256SUMS`, `B2SUMS`, `*.sfv`, …)
    /// come first, then every other entry, each group by name.
    public static func complete(_ prefix: String, listsFirst: Bool) -> [String] {
        let slash = prefix.lastIndex(of: "/")
        let shownFolder = slash.map { String(prefix[...$0]) } ?? ""
        let start = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        guard let names = try? directoryEntries(shownFolder.isEmpty ? "." : shownFolder) else { return [] }
        let matching = names.filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) }
            .sorted { PathName.bytes(of: $0).lexicographicallyPrecedes(PathName.bytes(of: $1)) }
        guard listsFirst else { return matching.map { shownFolder + $0 } }
        let lists = matching.filter(NotAListHint.isListName)
        let others = matching.filter { !NotAListHint.isListName($0) }
        return (lists + others).map { shownFolder + $0 }
    }
}
