import GCDCatS3
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What to say when `gcdcat verify` is given a file that is not a checksum list (`verify
/// x.iso`, `verify x.001`): the list beside it, if one is there, else how to make one.
public enum NotAListHint {
    /// The hint for `path`, whose parse as a list failed with `error`; nil when `path` is (or
    /// reads as) a list with a bad line, or is standard input, a pipe or an object.
    public static func hint(for path: String, error: GCDCatError) -> String? {
        guard error.code == .malformedManifest, path != "-", !ObjectLocation.isObjectPath(path),
            !isListName(splitPath(path).name),
            let info = try? Syscall.statIfExists(path), info.st_mode & S_IFMT == S_IFREG
        else { return nil }
        if let head = try? ChecksumListDetector.head(of: path),
            ChecksumListDetector.kind(ofHead: head, truncated: head.count == ChecksumListDetector.sniffLength) != nil
        {
            return nil
        }
        let (folder, name) = splitPath(path)
        if let list = listsBeside(name, in: folder).first {
            let shown = folder == "." && !path.hasPrefix("./") ? list : "\(folder)/\(list)"
            return "\(path.displayPath) is not a checksum list; verify the list beside it: "
                + "gcdcat verify \(LeftBehindAdvice.shellQuoted(shown))"
        }
        return "\(path.displayPath) is not a checksum list (verify reads SHA256SUMS, *.sfv, *.md5, …); "
            + "to make one: gcdcat checksum --algorithm sha256 \(LeftBehindAdvice.shellQuoted(path)) > "
            + LeftBehindAdvice.shellQuoted(path + ".sha256")
    }

    /// Whether a file's name says it is a checksum list: an extension such as `.sfv` or
    /// `.sha256`, or a name such as `SHA256SUMS`, `B2SUMS`, `CHECKSUM`.
    static func isListName(_ name: String) -> Bool {
        if ChecksumListDetector.kind(ofName: name) != nil || ChecksumList.algorithm(ofListName: name) != nil {
            return true
        }
        let upper = name.uppercased()
        return upper.hasPrefix("CHECKSUM") || upper.hasSuffix("SUMS")
    }

    /// The lists in `folder` other than `name` that are about it: first those whose name starts
    /// as `name` does (up to its first dot: `x.sfv` for `x.001`), then those whose first MiB
    /// holds `name` (a `SHA256SUMS` listing `x.iso`), each group by name.
    static func listsBeside(_ name: String, in folder: String) -> [String] {
        let stem = name.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? name
        let lists = ((try? directoryEntries(folder)) ?? []).filter { $0 != name && isListName($0) }.sorted()
        let related = lists.filter { !stem.isEmpty && $0.hasPrefix(stem + ".") }
        let wanted = PathName.bytes(of: name)
        let naming = lists.filter { list in
            guard !related.contains(list),
                let head = try? ChecksumListDetector.head(of: folder + "/" + list, count: 1 << 20)
            else { return false }
            return head.indices.contains { head[$0...].starts(with: wanted) }
        }
        return related + naming
    }
}
