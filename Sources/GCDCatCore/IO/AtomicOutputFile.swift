import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A new file that appears under its final name only when complete.
///
/// ## Implementation details
/// The file is created unnamed, with `O_TMPFILE` in the final folder (mode 0666, narrowed by
/// the umask), and given its name by ``publish(fsync:)`` with `linkat` through
/// `/proc/self/fd/N`. Until then it has no name at all: an error, any signal, SIGKILL or a power
/// cut leaves nothing behind, because the kernel frees an unnamed file with its last descriptor.
/// `linkat` never replaces (EEXIST), which is the no-clobber check; with `overwrite` the file is
/// linked to a short unique name in the same folder and renamed over the old one.
///
/// Where `O_TMPFILE` is unsupported (EOPNOTSUPP, EISDIR, EINVAL: some FUSE and network
/// filesystems), where `/proc` is missing, or when the caller asks for a named file (a split
/// into more parts than descriptors allow), the file is created as `.NAME.gcdcat-XXXXXX` beside
/// the final path (NAME cut short so the whole fits in 255 bytes), registered with the
/// ``CleanupRegistry`` while it exists, and renamed into place. Only this fallback can leave a
/// file behind, and only after SIGKILL or a power cut.
public final class AtomicOutputFile: Sendable {
    public let finalPath: String
    /// A path that reaches the unfinished file: `/proc/self/fd/N` for an unnamed file, else the
    /// temporary name.
    public let temporaryPath: String
    /// True for an unnamed (`O_TMPFILE`) file.
    public let isUnnamed: Bool
    /// Owns the descriptor: writers share it until one of finishing, publishing or discarding
    /// closes it, once.
    private let descriptor: SharedDescriptor
    let overwrite: Bool
    let registry: CleanupRegistry
    private let token: Int?
    /// The registry's note that this output is under way (``CleanupRegistry/beginOutput(_:)``).
    private let outputToken: Int

    /// Creates the unfinished file for `finalPath`, unnamed unless `unnamed` is false or the
    /// filesystem cannot.
    ///
    /// With `overwrite` false, publishing fails rather than replace a file that appeared in the
    /// meantime.
    ///
    /// ## Errors
    /// `.interrupted` once an interruption began; `.io` naming `finalPath` and `open`.
    public init(
        finalPath: String, overwrite: Bool, registry: CleanupRegistry = .shared, unnamed: Bool = true
    ) throws {
        self.finalPath = finalPath
        self.overwrite = overwrite
        self.registry = registry
        let directory = splitPath(finalPath).directory
        if unnamed, procDescriptorsAvailable {
            try registry.requireLive()
            let fd = PathName.withPathCString(directory) { gcdcat_open_tmpfile($0, 0o666) }
            if fd >= 0 {
                Self.holdLock(fd)
                self.descriptor = SharedDescriptor(OwnedDescriptor(adopting: fd))
                self.temporaryPath = "/proc/self/fd/\(fd)"
                self.isUnnamed = true
                self.token = nil
                self.outputToken = registry.beginOutput(
                    finalPath, mayReplace: overwrite && (try? Syscall.statIfExists(finalPath)) != nil)
                return
            }
            let code = gcdcat_errno()
            if code != EOPNOTSUPP && code != EISDIR && code != EINVAL {
                throw Self.creationError(finalPath, errno: code)
            }
        }
        self.isUnnamed = false
        var attempt = 0
        while true {
            let candidate = temporaryName(for: finalPath)
            let (fd, token, code) = try registry.create(candidate) {
                PathName.withPathCString(candidate) {
                    Glibc.open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
                }
            }
            if let token {
                Self.holdLock(fd)
                self.temporaryPath = candidate
                self.descriptor = SharedDescriptor(OwnedDescriptor(adopting: fd))
                self.token = token
                self.outputToken = registry.beginOutput(
                    finalPath, mayReplace: overwrite && (try? Syscall.statIfExists(finalPath)) != nil)
                return
            }
            attempt += 1
            if code == EEXIST && attempt < 100 { continue }
            if code == EINTR { continue }
            // Name the final path: the temporary one means nothing to the user.
            throw Self.creationError(finalPath, errno: code)
        }
    }

    /// Locks the new file's descriptor (`flock`) for as long as it is open: what tells a later
    /// run that a `.NAME.gcdcat-XXXXXX` is an output under way, not a leftover of a killed run
    /// (``LeftoverTemporaries``). Where the filesystem cannot lock, nothing is held, and such a
    /// leftover is only named.
    private static func holdLock(_ fd: Int32) {
        _ = flock(fd, LOCK_EX | LOCK_NB)
    }

    /// The descriptor, lent for writing until the file is finished, published or discarded.
    public var fd: Int32 { descriptor.raw }

    /// Why the file for `finalPath` could not be created. A folder that refuses new files
    /// (EACCES, EROFS) is named as the culprit: the output is not there yet to be blamed.
    static func creationError(_ finalPath: String, errno code: Int32) -> GCDCatError {
        guard code == EACCES || code == EROFS else { return .syscall("open", path: finalPath, errno: code) }
        let (directory, name) = splitPath(finalPath)
        return GCDCatError(
            .io, path: directory, syscall: "open", errno: code,
            message: "\(describeErrno(code)): cannot create \(name.displayPath) in this folder")
    }

    /// Makes the data durable (with `fsync`), closes, and gives the file its final name.
    public func commit(fsync: Bool) throws {
        try finishWriting(fsync: fsync)
        try publish(fsync: fsync)
    }

    /// Makes the data durable (with `fsync`). A named temporary is closed here; an unnamed file
    /// keeps its descriptor until ``publish(fsync:)``, as closing it would free it. On failure
    /// the file is removed.
    public func finishWriting(fsync: Bool) throws {
        do {
            if isUnnamed {
                if fsync {
                    try descriptor.ifOpen { (fd) throws(GCDCatError) in try Syscall.fsync(fd, path: finalPath) }
                }
                return
            }
            guard let owned = descriptor.take() else { return }
            if fsync { try Syscall.fsync(owned.raw, path: finalPath) }
            try owned.close(path: finalPath)
        } catch {
            discard()
            throw error
        }
    }

    /// Gives the finished file its final name (without replacing an existing file unless
    /// `overwrite`); with `fsync`, makes the new name durable. On failure the file is removed.
    ///
    /// With `registeringFinalName`, the final name is registered for removal in the same step
    /// (so a signal between two publishes of a set removes it) and its token returned.
    /// `beforeNaming` runs last before the final name is placed (after the link of an unnamed
    /// file to its scratch name): a replacement checks there that the file it replaces is still
    /// the one it read, and throws to publish nothing.
    ///
    /// ## Errors
    /// `.outputExists` when the final name is taken and `overwrite` is false; `.interrupted`
    /// once an interruption began; `.io` naming the final path; those of `beforeNaming`.
    @discardableResult
    public func publish(
        fsync: Bool, registeringFinalName: Bool = false, beforeNaming: () throws -> Void = {}
    ) throws -> Int? {
        let finalToken: Int?
        do {
            finalToken = try registry.commit(
                forgetting: token.map { [$0] } ?? [], registering: registeringFinalName ? .file(finalPath) : nil,
                ending: outputToken
            ) {
                try isUnnamed ? linkIntoPlace(beforeNaming) : renameIntoPlace(beforeNaming)
            }
        } catch {
            discard()
            throw error
        }
        if isUnnamed { _ = descriptor.take() }
        if fsync { try syncDirectory(of: finalPath) }
        return finalToken
    }

    /// Closes and removes the unfinished file.
    public func discard() {
        _ = descriptor.take()
        if !isUnnamed { Syscall.unlink(temporaryPath) }
        if let token { registry.forget(token) }
        registry.endOutput(outputToken)
    }

    private func renameIntoPlace(_ beforeNaming: () throws -> Void) throws {
        try beforeNaming()
        do {
            try Syscall.rename(temporaryPath, to: finalPath, replace: overwrite)
        } catch let error where error.errno == EEXIST {
            throw Self.exists(finalPath)
        }
    }

    /// Links the unnamed file in; with `overwrite`, through a unique name renamed over the old
    /// file (`linkat` cannot replace). Runs under the registry's lock, so no signal handler sees
    /// that name; SIGKILL between the two leaves it, named `.NAME.gcdcat-XXXXXX` so it says whose
    /// it is (``LeftoverTemporaries``).
    private func linkIntoPlace(_ beforeNaming: () throws -> Void) throws {
        guard overwrite else {
            try beforeNaming()
            guard PathName.withPathCString(finalPath, { gcdcat_link_descriptor(fd, $0) }) == 0 else {
                let code = gcdcat_errno()
                if code == EEXIST { throw Self.exists(finalPath) }
                throw GCDCatError.syscall("linkat", path: finalPath, errno: code)
            }
            return
        }
        var attempt = 0
        while true {
            let scratch = temporaryName(for: finalPath)
            if PathName.withPathCString(scratch, { gcdcat_link_descriptor(fd, $0) }) != 0 {
                let code = gcdcat_errno()
                attempt += 1
                if code == EEXIST && attempt < 100 { continue }
                throw GCDCatError.syscall("linkat", path: finalPath, errno: code)
            }
            do {
                try beforeNaming()
                try Syscall.rename(scratch, to: finalPath, replace: true)
            } catch {
                Syscall.unlink(scratch)
                throw error
            }
            return
        }
    }

    private static func exists(_ path: String) -> GCDCatError {
        GCDCatError(.outputExists, path: path, message: "already exists (use --force to replace it)")
    }
}

/// Whether `/proc/self/fd` can name an open descriptor, which linking an unnamed file needs.
private let procDescriptorsAvailable = access("/proc/self/fd", X_OK) == 0

/// `.NAME.gcdcat-XXXXXX` beside `finalPath`, with NAME cut so the name fits in 255 bytes: it
/// says whose it is (see ``LeftoverTemporaries``).
func temporaryName(for finalPath: String) -> String {
    let (directory, name) = splitPath(finalPath)
    return "\(directory)/.\(temporaryStem(of: name)).gcdcat-\(randomSuffix())"
}

/// NAME as ``temporaryName(for:)`` keeps it: whole, or its first bytes where the whole would
/// not fit in 255 bytes (NAME_MAX).
func temporaryStem(of name: String) -> String {
    let decoration = ".gcdcat-XXXXXX".utf8.count + 1
    let bytes = PathName.bytes(of: name)
    return bytes.count + decoration <= 255 ? name : PathName.decode(bytes.prefix(255 - decoration))
}

/// `fsync`s the folder that holds `path`, so a rename into it survives a crash.
func syncDirectory(of path: String) throws {
    let directory = splitPath(path).directory
    let folder = try OwnedDescriptor(opening: directory, O_RDONLY | O_DIRECTORY)
    try Syscall.fsync(folder.raw, path: directory)
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
