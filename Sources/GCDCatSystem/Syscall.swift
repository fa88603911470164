import CSystemShim

#if canImport(Glibc)
    import Glibc
#endif

/// Syscall wrappers that retry on EINTR and turn failures into ``GCDCatError``s naming the path.
///
/// Short reads and writes are looped here, once, rather than at every call site.
package enum Syscall {
    /// Retries `body` while it fails with EINTR; returns its result or throws with `name` and `path`.
    @inline(__always)
    package static func retrying<T: BinaryInteger>(
        _ name: String, path: String, _ body: () -> T
    ) throws(GCDCatError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = gcdcat_errno()
            if code == EINTR { continue }
            throw GCDCatError.syscall(name, path: path, errno: code)
        }
    }

    /// Opens `path` for reading and requires a regular file: its owned descriptor and its size.
    ///
    /// ## Errors
    /// `.io` naming the syscall; `.invalidInput` ("not a regular file") for anything else.
    ///
    /// The open never blocks: a FIFO with no writer would hold it (and the signals it defers)
    /// for ever; it is refused by its type instead, and the flag cleared for the reads.
    package static func openRegularFile(_ path: String) throws(GCDCatError) -> OpenedRegularFile {
        let file = try OwnedDescriptor(opening: path, O_RDONLY | O_NONBLOCK)
        let info = try fstat(file.raw, path: path)
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw GCDCatError(.invalidInput, path: path, message: notRegularReason(info.st_mode))
        }
        _ = fcntl(file.raw, F_SETFL, fcntl(file.raw, F_GETFL) & ~O_NONBLOCK)
        return OpenedRegularFile(descriptor: file, size: Int64(info.st_size))
    }

    /// What a file of `mode`'s type is, said for one that should be regular.
    package static func notRegularReason(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "Is a directory"
        case S_IFIFO: return "not a regular file (a FIFO)"
        case S_IFCHR: return "not a regular file (a character device)"
        case S_IFBLK: return "not a regular file (a block device)"
        case S_IFSOCK: return "not a regular file (a socket)"
        default: return "not a regular file"
        }
    }

    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(GCDCatError) -> Int32 {
        try retrying("open", path: path) {
            PathName.withPathCString(path) { Glibc.open($0, flags | O_CLOEXEC, mode) }
        }
    }

    package static func fstat(_ fd: Int32, path: String) throws(GCDCatError) -> stat {
        var info = stat()
        _ = try retrying("fstat", path: path) { Glibc.fstat(fd, &info) }
        return info
    }

    /// `stat`, or nil when nothing exists at `path` (ENOENT).
    package static func statIfExists(_ path: String, followLinks: Bool = true) throws(GCDCatError) -> stat? {
        var info = stat()
        let result = PathName.withPathCString(path) {
            followLinks ? gcdcat_stat($0, &info) : Glibc.lstat($0, &info)
        }
        if result == 0 { return info }
        let code = gcdcat_errno()
        if code == ENOENT { return nil }
        throw GCDCatError.syscall(followLinks ? "stat" : "lstat", path: path, errno: code)
    }

    /// `realpath(3)`, or nil when the path does not resolve.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = PathName.withPathCString(path, { Glibc.realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return PathName.decode(cString: resolved)
    }

    /// `unlink`, returning the errno on failure (0 on success): clean-up callers decide what a
    /// failure means.
    @discardableResult
    package static func unlink(_ path: String) -> Int32 {
        PathName.withPathCString(path) { Glibc.unlink($0) } == 0 ? 0 : gcdcat_errno()
    }

    /// `rmdir`, returning the errno on failure (0 on success).
    @discardableResult
    package static func rmdir(_ path: String) -> Int32 {
        PathName.withPathCString(path) { Glibc.rmdir($0) } == 0 ? 0 : gcdcat_errno()
    }

    /// `rename`, or `renameat2(RENAME_NOREPLACE)` when `replace` is false.
    /// `link(2)`: a second name `to` for the file at `from` (never replacing one).
    package static func link(_ from: String, to: String) throws(GCDCatError) {
        let result = PathName.withPathCString(from) { source in
            PathName.withPathCString(to) { target in Glibc.link(source, target) }
        }
        if result != 0 { throw GCDCatError.syscall("link", path: to, errno: gcdcat_errno()) }
    }

    package static func rename(_ from: String, to: String, replace: Bool) throws(GCDCatError) {
        let result = PathName.withPathCString(from) { source in
            PathName.withPathCString(to) { target in
                replace ? Glibc.rename(source, target) : gcdcat_rename_noreplace(source, target)
            }
        }
        if result != 0 { throw GCDCatError.syscall("rename", path: to, errno: gcdcat_errno()) }
    }

    /// Runs a counted syscall through the fault-injection seam: an injected failure sets errno
    /// and returns -1 without calling; an injected short count lowers `count` first.
    @inline(__always)
    package static func seam(
        _ call: FaultInjection.Call, count: Int, paths: (String, String?), _ body: (Int) -> Int
    ) -> Int {
        switch FaultInjection.intercept(call, paths: paths) {
        case nil: return body(count)
        case .fail(let code):
            gcdcat_set_errno(code)
            return -1
        case .short(let limit): return body(max(0, min(count, limit)))
        }
    }

    /// Reads up to `count` bytes at `offset`; returns fewer only at end of file.
    package static func pread(
        _ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, offset: Int64, path: String
    ) throws(GCDCatError) -> Int {
        var done = 0
        while done < count {
            let n = try retrying("read", path: path) {
                seam(.pread, count: count - done, paths: (path, nil)) {
                    Glibc.pread(fd, buffer + done, $0, off_t(offset) + off_t(done))
                }
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// One `pread` (retried on EINTR), which may return fewer than `count` bytes before the end:
    /// for a caller that reads a small file whole and must not pay a second call to find its end.
    package static func preadOnce(
        _ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, offset: Int64, path: String
    ) throws(GCDCatError) -> Int {
        try retrying("read", path: path) {
            seam(.pread, count: count, paths: (path, nil)) { Glibc.pread(fd, buffer, $0, off_t(offset)) }
        }
    }

    /// Reads up to `count` bytes from the current position; returns fewer only at end of file.
    package static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, path: String
    ) throws(GCDCatError) -> Int {
        var done = 0
        while done < count {
            let n = try retrying("read", path: path) {
                seam(.read, count: count - done, paths: (path, nil)) { Glibc.read(fd, buffer + done, $0) }
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all `count` bytes at `offset`.
    package static func pwriteAll(
        _ fd: Int32, from buffer: UnsafeRawPointer, count: Int, offset: Int64, path: String
    ) throws(GCDCatError) {
        var done = 0
        while done < count {
            let n = try retrying("write", path: path) {
                seam(.pwrite, count: count - done, paths: (path, nil)) {
                    Glibc.pwrite(fd, buffer + done, $0, off_t(offset) + off_t(done))
                }
            }
            done += n
        }
    }

    /// Writes all `count` bytes at the current position.
    package static func writeAll(
        _ fd: Int32, from buffer: UnsafeRawPointer, count: Int, path: String
    ) throws(GCDCatError) {
        var done = 0
        while done < count {
            let n = try retrying("write", path: path) {
                seam(.write, count: count - done, paths: (path, nil)) { Glibc.write(fd, buffer + done, $0) }
            }
            done += n
        }
    }

    /// One `copy_file_range` call, through the seam; -1 with errno on failure (the copier
    /// decides what a failure means).
    package static func copyFileRange(
        from input: Int32, at inputOffset: inout Int64, to output: Int32,
        at outputOffset: UnsafeMutablePointer<Int64>?, count: Int, paths: (String, String)
    ) -> Int {
        seam(.copyFileRange, count: count, paths: (paths.0, paths.1)) {
            gcdcat_copy_file_range(input, &inputOffset, output, outputOffset, $0)
        }
    }

    /// One `ioctl(FICLONERANGE)` of `count` bytes, through the seam; -1 with errno on failure.
    package static func cloneRange(
        from input: Int32, at inputOffset: Int64, to output: Int32, at outputOffset: Int64, count: Int64,
        paths: (String, String)
    ) -> Int32 {
        Int32(
            seam(.cloneRange, count: 0, paths: (paths.0, paths.1)) { _ in
                Int(gcdcat_clone_range(input, inputOffset, output, outputOffset, count))
            })
    }

    /// One `sendfile` call from `inputOffset` to the output's own position, through the seam.
    package static func sendfile(
        from input: Int32, at inputOffset: inout Int64, to output: Int32, count: Int, paths: (String, String)
    ) -> Int {
        seam(.sendfile, count: count, paths: (paths.0, paths.1)) {
            gcdcat_sendfile(output, input, &inputOffset, $0)
        }
    }

    /// `fallocate` (mode 0) of `length` bytes at `offset`, through the seam; -1 with errno on
    /// failure.
    package static func fallocate(_ fd: Int32, offset: Int64 = 0, length: Int64, path: String) -> Int32 {
        Int32(seam(.fallocate, count: 0, paths: (path, nil)) { _ in Int(gcdcat_fallocate(fd, offset, length)) })
    }

    package static func ftruncate(_ fd: Int32, length: Int64, path: String) throws(GCDCatError) {
        _ = try retrying("ftruncate", path: path) {
            seam(.ftruncate, count: 0, paths: (path, nil)) { _ in Int(gcdcat_ftruncate(fd, length)) }
        }
    }

    /// A read-only mapping of `length` bytes at page-aligned `offset` (MAP_POPULATE).
    ///
    /// ## Errors
    /// `mmap` naming `path`, ENOMEM under an address-space limit.
    package static func mapReadOnly(_ fd: Int32, length: Int, offset: Int64, path: String) throws(GCDCatError)
        -> UnsafeMutableRawPointer
    {
        var pointer: UnsafeMutableRawPointer?
        let result = seam(.mmap, count: length, paths: (path, nil)) {
            pointer = gcdcat_map_readonly(fd, $0, offset, 1)
            return pointer == nil ? -1 : 0
        }
        guard result == 0, let pointer else {
            throw GCDCatError.syscall("mmap", path: path, errno: gcdcat_errno())
        }
        return pointer
    }

    /// True when `fd` is a pipe or socket whose reading end has closed (poll says POLLERR).
    package static func readerGone(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// Checks that `length` more bytes of address space can be mapped, naming `path` and `mmap`
    /// (ENOMEM) when a limit such as `ulimit -v` leaves less.
    package static func requireAddressSpace(_ length: Int, path: String) throws(GCDCatError) {
        let result = seam(.mmap, count: length, paths: (path, nil)) { Int(gcdcat_probe_address_space($0)) }
        if result != 0 { throw GCDCatError.syscall("mmap", path: path, errno: gcdcat_errno()) }
    }

    /// `byteCount` bytes aligned to `alignment`, or an error naming `path` and `malloc` (ENOMEM)
    /// where `UnsafeMutableRawPointer.allocate` would trap. Free it with `free`.
    package static func allocate(byteCount: Int, alignment: Int, path: String) throws(GCDCatError)
        -> UnsafeMutableRawPointer
    {
        var pointer: UnsafeMutableRawPointer?
        let result = seam(.malloc, count: byteCount, paths: (path, nil)) {
            pointer = gcdcat_aligned_alloc(alignment, $0)
            return pointer == nil ? -1 : 0
        }
        guard result == 0, let pointer else {
            throw GCDCatError.syscall("malloc", path: path, errno: gcdcat_errno())
        }
        return pointer
    }

    /// Reads everything left in `fd` (a file, a pipe).
    package static func readToEnd(_ fd: Int32, path: String) throws(GCDCatError) -> [UInt8] {
        var bytes: [UInt8] = []
        let size = 65536
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try read(fd, into: buffer, count: size, path: path)
            if count == 0 { return bytes }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }

    package static func fsync(_ fd: Int32, path: String) throws(GCDCatError) {
        _ = try retrying("fsync", path: path) {
            seam(.fsync, count: 0, paths: (path, nil)) { _ in Int(Glibc.fsync(fd)) }
        }
    }

    /// Closes `fd`. EINTR is not retried: on Linux the descriptor is gone either way.
    package static func close(_ fd: Int32, path: String) throws(GCDCatError) {
        if Glibc.close(fd) != 0 {
            let code = gcdcat_errno()
            if code != EINTR { throw GCDCatError.syscall("close", path: path, errno: code) }
        }
    }
}

/// Reads a whole (small) file.
package func readWholeFile(_ path: String) throws -> [UInt8] {
    let file = try OwnedDescriptor(opening: path, O_RDONLY)
    return try Syscall.readToEnd(file.raw, path: path)
}
