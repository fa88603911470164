import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Files in a folder that no checksum list names: what a renamed or extra download leaves.
public enum UnlistedFiles {
    /// The regular files directly in `folder` (sorted, as `folder/name`) whose real path is
    /// none of `listed` and none of `lists` (the lists themselves are not data).
    ///
    /// ## Errors
    /// `.io` naming the folder when it cannot be read.
    public static func find(in folder: String, listed: [String], lists: [String]) throws -> [String] {
        // Bytes, not Strings: Swift's == holds `café` in NFC and in NFD equal, two files here.
        let known = Set((listed + lists).compactMap { ManifestVerifier.realPath($0).map(PathName.bytes(of:)) })
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return try directoryEntries(folder).sorted {
            PathName.bytes(of: $0).lexicographicallyPrecedes(PathName.bytes(of: $1))
        }.map { prefix + $0 }.filter { path in
            guard let info = try? Syscall.statIfExists(path), (info.st_mode & S_IFMT) == S_IFREG else { return false }
            return ManifestVerifier.realPath(path).map { !known.contains(PathName.bytes(of: $0)) } ?? false
        }
    }
}
