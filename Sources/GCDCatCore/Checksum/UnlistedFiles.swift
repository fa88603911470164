import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Files in a folder that no checksum list names: what a renamed or extra download leaves.
public enum UnlistedFiles {
    /// The real paths of files a list names, 16 bytes each (``NameKey``), however many: what
    /// `verify --unlisted` gathers while it streams a list, instead of every path.
    public struct Known: Sendable {
        private var keys = Set<NameKey>()

        public init() {}

        /// Adds the file at `path` (nothing when it does not resolve: it cannot be in a folder).
        public mutating func insert(_ path: String) {
            guard let real = Syscall.realPath(path) else { return }
            keys.insert(Self.key(real))
        }

        func contains(_ realPath: String) -> Bool { keys.contains(Self.key(realPath)) }

        // Bytes, not Strings: Swift's == holds `café` in NFC and in NFD equal, two files here.
        private static func key(_ realPath: String) -> NameKey {
            PathName.bytes(of: realPath).withUnsafeBufferPointer { NameKey(nil, $0) }
        }
    }

    /// The regular files directly in `folder` (sorted, as `folder/name`) whose real path is
    /// none of `known` and none of `lists` (the lists themselves are not data).
    ///
    /// ## Errors
    /// `.io` naming the folder when it cannot be read.
    public static func find(in folder: String, known: Known, lists: [String]) throws -> [String] {
        var known = known
        for list in lists { known.insert(list) }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return try directoryEntries(folder).sorted {
            PathName.bytes(of: $0).lexicographicallyPrecedes(PathName.bytes(of: $1))
        }.map { prefix + $0 }.filter { path in
            guard let info = try? Syscall.statIfExists(path), (info.st_mode & S_IFMT) == S_IFREG else { return false }
            return Syscall.realPath(path).map { !known.contains($0) } ?? false
        }
    }
}
