#if canImport(Glibc)
    import Glibc
#endif

/// The names in the folder at `path`, without `.` and `..`, in no particular order.
///
/// ## Errors
/// `.io` naming the folder when `opendir` fails.
public func directoryEntries(_ path: String) throws -> [String] {
    guard let stream = opendir(path) else {
        throw GCDCatError.syscall("opendir", path: path, errno: errno)
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                String(cString: $0)
            }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
