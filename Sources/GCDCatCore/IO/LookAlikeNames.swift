import GCDCatSystem

/// Files whose names read the same as a missing file's but are spelt with other bytes: `café`
/// in NFD where a list says `café` in NFC. gcdcat compares names as bytes, as the kernel and
/// `sha256sum -c` do, so such a file is another file; a note says it is there.
public enum LookAlikeNames {
    /// For each of `missing` (paths), the entry beside it that reads the same but differs in
    /// bytes, in order; each folder is read once (Swift's String equality is canonical
    /// equivalence, so a dictionary keyed by String finds the other spelling).
    public static func find(for missing: [String]) -> [(missing: String, lookAlike: String)] {
        var folders: [String: [String: String]] = [:]
        var found: [(missing: String, lookAlike: String)] = []
        for path in missing {
            let (folder, name) = splitPath(path)
            if folders[folder] == nil {
                let entries = (try? directoryEntries(folder)) ?? []
                folders[folder] = Dictionary(entries.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
            }
            guard let entry = folders[folder]?[name], !entry.utf8.elementsEqual(name.utf8) else { continue }
            found.append((path, !path.contains("/") ? entry : folder == "/" ? "/" + entry : folder + "/" + entry))
        }
        return found
    }

    /// "; x/café looks the same but is spelt with other bytes (…): rename it to match the
    /// `what`", when a file beside the missing `path` reads the same; else empty. For a message
    /// that names `path` as missing.
    public static func clause(missing path: String, match what: String) -> String {
        guard let found = find(for: [path]).first else { return "" }
        return "; \(found.lookAlike.displayPath) looks the same but is spelt with other bytes (another Unicode "
            + "normalisation), so it is another file: rename it to match the \(what)"
    }

    /// "x/café looks the same as x/café but is spelt with other bytes (…)".
    public static func note(missing: String, lookAlike: String) -> String {
        "\(missing.displayPath) is missing, but \(lookAlike.displayPath) looks the same and is spelt with other "
            + "bytes (another Unicode normalisation), so it is another file: rename it to match the list"
    }
}
