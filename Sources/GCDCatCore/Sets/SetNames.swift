import GCDCatSystem

/// Where set discovery looks names up: the file system, or the keys an object listing gave.
///
/// ``PartDiscovery``, ``PartArguments`` and ``ArchiveVolumes`` decide from names alone, so one
/// set of rules serves a folder on disk and a bucket (``ObjectDiscovery``).
public protocol SetNames: Sendable {
    /// Whether `path` names something: a file of any type (a dangling symlink too), or an object.
    func exists(_ path: String) -> Bool
    /// The names in `folder` (a path's part before its last `/`, as `splitPath` gives it),
    /// without the folder, in no particular order.
    func entries(inFolder folder: String) throws -> [String]
    /// The mark a split left on the part at `path` (``PartMark/readAny(_:)``), and how it
    /// stands to the file.
    func mark(of path: String) -> (mark: PartMark, standing: PartMark.Standing)?
}

extension SetNames {
    /// Objects carry no mark.
    public func mark(of path: String) -> (mark: PartMark, standing: PartMark.Standing)? { nil }
}

/// Names on disk: `lstat` for one name, `readdir` for a folder.
public struct FileSystemNames: SetNames {
    public init() {}

    public func exists(_ path: String) -> Bool {
        (try? Syscall.statIfExists(path, followLinks: false)) != nil
    }

    public func entries(inFolder folder: String) throws -> [String] {
        try directoryEntries(folder)
    }

    public func mark(of path: String) -> (mark: PartMark, standing: PartMark.Standing)? { PartMark.readAny(path) }
}

/// A fixed list of full paths, such as every key a listing returned, each spelled
/// `s3://BUCKET/KEY`. A folder's entries are the paths directly inside it.
///
/// Names are keys by their bytes: a `Set<String>` would take `café` in NFC and in NFD for one.
public struct ListedNames: SetNames {
    private let paths: Set<[UInt8]>
    private let folders: [[UInt8]: [String]]

    public init(_ paths: some Sequence<String>) {
        var all = Set<[UInt8]>()
        var folders: [[UInt8]: [String]] = [:]
        for path in paths where all.insert(Array(path.utf8)).inserted {
            let (folder, name) = splitPath(path)
            folders[Array(folder.utf8), default: []].append(name)
        }
        self.paths = all
        self.folders = folders
    }

    public func exists(_ path: String) -> Bool { paths.contains(Array(path.utf8)) }

    public func entries(inFolder folder: String) throws -> [String] { folders[Array(folder.utf8)] ?? [] }
}
