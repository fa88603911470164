import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The names in the folder at `path`, without `.` and `..`, in no particular order.
///
/// ## Errors
/// `.io` naming the folder when `opendir` fails.
public func directoryEntries(_ path: String) throws -> [String] {
    let folder = try DirectoryStream(opening: path)
    var names: [String] = []
    while let entry = readdir(folder.stream) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                PathName.decode(cString: $0)
            }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// A folder open for reading its names (`opendir`), closed exactly once, when it goes.
private struct DirectoryStream: ~Copyable {
    let stream: OpaquePointer

    init(opening path: String) throws(GCDCatError) {
        guard let stream = PathName.withPathCString(path, { opendir($0) }) else {
            throw GCDCatError.syscall("opendir", path: path, errno: errno)
        }
        self.stream = stream
    }

    deinit { closedir(stream) }
}

/// Removes `path` and, if it is a folder, everything below it; symlinks are removed, not
/// followed. Errors are ignored: this is clean-up of gcdcat's own scratch files.
public func removeTree(_ path: String) {
    guard let info = try? Syscall.statIfExists(path, followLinks: false) else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
        for name in (try? directoryEntries(path)) ?? [] { removeTree("\(path)/\(name)") }
        Syscall.rmdir(path)
    } else {
        Syscall.unlink(path)
    }
}
