import CSystemShim
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A new file written under a temporary name in its final folder, then renamed into place.
///
/// The temporary name (`.NAME.gcdcat-XXXXXX`) lives beside the final path, so the rename never
/// crosses a filesystem. It is created with `O_EXCL` and mode 0666, which the kernel narrows by
/// the umask. Until ``commit(fsync:)`` succeeds the temporary file is registered with the
/// ``CleanupRegistry`` and removed on any error or signal.
public final class AtomicOutputFile: Sendable {
    public let finalPath: String
    public let temporaryPath: String
    public let fd: Int32
    private let overwrite: Bool
    private let registry: CleanupRegistry
    private let token: Int
    private let state = Mutex(DescriptorState())

    /// Creates the temporary file for `finalPath`.
    ///
    /// With `overwrite` false the final rename fails rather than replace a file that appeared
    /// in the meantime.
    public init(
        finalPath: String, overwrite: Bool, registry: CleanupRegistry = .shared
    ) throws {
        self.finalPath = finalPath
        self.overwrite = overwrite
        self.registry = registry
        let (directory, name) = splitPath(finalPath)
        var attempt = 0
        while true {
            let candidate = "\(directory)/.\(name).gcdcat-\(randomSuffix())"
            let token = registry.register(candidate)
            let fd = Glibc.open(candidate, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 {
                self.temporaryPath = candidate
                self.fd = fd
                self.token = token
                return
            }
            let code = gcdcat_errno()
            registry.forget(token)
            attempt += 1
            if code == EEXIST && attempt < 100 { continue }
            if code == EINTR { continue }
            // Name the final path: the temporary one means nothing to the user.
            throw GCDCatError.syscall("open", path: finalPath, errno: code)
        }
    }

    /// Makes the data durable (with `fsync`), closes, and renames into place.
    public func commit(fsync: Bool) throws {
        try finishWriting(fsync: fsync)
        try publish(fsync: fsync)
    }

    /// Makes the data durable (with `fsync`) and closes the descriptor; the file stays under
    /// its temporary name until ``publish(fsync:)``. On failure the file is removed.
    public func finishWriting(fsync: Bool) throws {
        guard state.withLock({ $0.closeOnce() }) else { return }
        do {
            if fsync { try Syscall.fsync(fd, path: finalPath) }
            try Syscall.close(fd, path: finalPath)
        } catch {
            discardAfterClose()
            throw error
        }
    }

    /// Renames the finished file into place (without replacing an existing file unless
    /// `overwrite`); with `fsync`, makes the rename durable.
    public func publish(fsync: Bool) throws {
        try registry.commit(forgetting: [token]) {
            let result =
                overwrite
                ? rename(temporaryPath, finalPath)
                : gcdcat_rename_noreplace(temporaryPath, finalPath)
            guard result == 0 else {
                let code = gcdcat_errno()
                unlink(temporaryPath)
                if code == EEXIST {
                    throw GCDCatError(
                        .outputExists, path: finalPath,
                        message: "already exists (use --force to replace it)")
                }
                throw GCDCatError.syscall("rename", path: finalPath, errno: code)
            }
        }
        if fsync { try syncDirectory(of: finalPath) }
    }

    /// Closes and removes the temporary file.
    public func discard() {
        if state.withLock({ $0.closeOnce() }) { _ = Glibc.close(fd) }
        discardAfterClose()
    }

    private func discardAfterClose() {
        unlink(temporaryPath)
        registry.forget(token)
    }
}

/// Whether a descriptor was closed, so it is closed exactly once.
private struct DescriptorState {
    var closed = false

    /// True the first time only.
    mutating func closeOnce() -> Bool {
        defer { closed = true }
        return !closed
    }
}

/// `fsync`s the folder that holds `path`, so a rename into it survives a crash.
func syncDirectory(of path: String) throws {
    let directory = splitPath(path).directory
    let fd = try Syscall.open(directory, O_RDONLY | O_DIRECTORY)
    defer { _ = Glibc.close(fd) }
    try Syscall.fsync(fd, path: directory)
}

/// `a/b/c` → (`a/b`, `c`); `c` → (`.`, `c`); `/c` → (`/`, `c`).
func splitPath(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let name = String(path[path.index(after: slash)...])
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, name)
}

private func randomSuffix() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    return String((0..<6).map { _ in alphabet.randomElement()! })
}
