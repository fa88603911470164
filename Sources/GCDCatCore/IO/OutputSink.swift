import CSystemShim

#if canImport(Glibc)
    import Glibc
#endif

/// Where a result goes, as the user named it.
public enum OutputTarget: Sendable, Equatable {
    case standardOutput
    case path(String)
    /// An `s3://` object, written as a multipart upload (see ``ObjectOutput``).
    case object(ObjectTarget)

    /// The file's path as given (lossless); nil for standard output.
    public var path: String? {
        if case .path(let path) = self { path } else { nil }
    }

    /// The name used in messages.
    public var displayName: String {
        switch self {
        case .standardOutput: return "standard output"
        case .path(let path): return path.displayPath
        case .object(let target): return target.description
        }
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}

/// An open output: either a new file of gcdcat's own (``AtomicOutputFile``), named only when
/// complete, a descriptor written directly (standard output, a pipe, a device such as
/// `/dev/full`, or a symlink to one, which must never be replaced), or an object
/// (``ObjectOutput``, a multipart upload completed at publish; its `fd` is -1).
///
/// The life of every output file is the same, for merge, split parts and manifests alike:
/// ``check(_:inputs:overwrite:)`` before any input is read, then ``produce(_:inputs:overwrite:bytes:fsync:registry:unnamed:reserving:_:)``
/// (open → preallocate → write → finish, or discard on any failure), then publishing with the
/// rest of its job's ``OutputSet``.
public final class OutputSink: Sendable {
    public let fd: Int32
    /// The name used in messages: the final path, never the temporary one.
    public let path: String
    public let isRegularFile: Bool
    /// True for gcdcat's own new file, which takes positional writes from offset 0 and
    /// preallocation. Standard output is written at its position even when it is a file: it may
    /// be open for appending.
    public var allowsPositionalWrites: Bool { atomicFile != nil }
    let atomicFile: AtomicOutputFile?
    /// The object being uploaded, for an `s3://` output.
    public let object: ObjectOutput?

    init(fd: Int32, path: String, isRegularFile: Bool, atomicFile: AtomicOutputFile?, object: ObjectOutput? = nil) {
        self.fd = fd
        self.path = path
        self.isRegularFile = isRegularFile
        self.atomicFile = atomicFile
        self.object = object
    }

    /// The strategy that writes into this output: `kind`'s own, or the multipart uploader for
    /// an object.
    public func strategy(_ kind: MergeStrategyKind) -> any MergeStrategy {
        object != nil ? MultipartUploadMerge() : kind.strategy
    }

    /// Writes a small whole output (a manifest) from its start.
    public func write(_ bytes: [UInt8]) throws {
        if let object {
            object.hold(bytes)
            return
        }
        try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            try Syscall.writeAll(fd, from: base, count: buffer.count, path: path)
        }
    }

    /// Checks `target` against the inputs and opens it.
    ///
    /// ## Errors
    /// Those of ``check(_:inputs:overwrite:)``, and `.io` when it cannot be created.
    public static func open(
        _ target: OutputTarget, inputs: [PartFile], overwrite: Bool,
        registry: CleanupRegistry = .shared, unnamed: Bool = true
    ) throws -> OutputSink {
        switch target {
        case .standardOutput:
            return try standardOutput(inputs: inputs)
        case .object(let target):
            try ObjectOutput.requireAbsent(target, overwrite: overwrite)
            let object = ObjectOutput(target: target, overwrite: overwrite, registry: registry)
            return OutputSink(fd: -1, path: target.description, isRegularFile: false, atomicFile: nil, object: object)
        case .path(let path):
            switch try destination(path, inputs: inputs, overwrite: overwrite) {
            case .standardOutput:
                return try standardOutput(inputs: inputs)
            case .device:
                // A device or FIFO (or a symlink to one): write into it, never replace the node.
                let fd = try Syscall.open(path, O_WRONLY)
                return OutputSink(fd: fd, path: path, isRegularFile: false, atomicFile: nil)
            case .newFile:
                let file = try AtomicOutputFile(
                    finalPath: path, overwrite: overwrite, registry: registry, unnamed: unnamed)
                return OutputSink(fd: file.fd, path: path, isRegularFile: true, atomicFile: file)
            }
        }
    }

    private static func standardOutput(inputs: [PartFile]) throws -> OutputSink {
        let info = try Syscall.fstat(STDOUT_FILENO, path: "standard output")
        try refuseInput(info, path: "standard output", inputs: inputs)
        let isRegular = info.st_mode & S_IFMT == S_IFREG
        return OutputSink(fd: STDOUT_FILENO, path: "standard output", isRegularFile: isRegular, atomicFile: nil)
    }

    /// The one way gcdcat makes an output: opens `target`, reserves `bytes` on a new file,
    /// lets `write` fill it, and finishes writing (with `fsync`, durably) without publishing.
    /// On any failure the output is discarded before the error is rethrown.
    ///
    /// `reserving` names the ranges to reserve once the output is open (those not cloned,
    /// ``copiedRanges(_:into:)``); nil reserves all `bytes`. A full disk, at the reservation or
    /// a later write, says how much was needed and how much was free.
    public static func produce<T>(
        _ target: OutputTarget, inputs: [PartFile], overwrite: Bool, bytes: Int64, fsync: Bool,
        registry: CleanupRegistry = .shared, unnamed: Bool = true,
        reserving: ((OutputSink) -> [Range<Int64>]?)? = nil, _ write: (OutputSink) throws -> T
    ) throws -> (sink: OutputSink, value: T) {
        let sink = try open(target, inputs: inputs, overwrite: overwrite, registry: registry, unnamed: unnamed)
        do {
            // Reserving the blocks up front reports a full disk before any data is written,
            // and made every strategy faster here (ext4 allocates once instead of per write).
            if sink.allowsPositionalWrites && bytes > 0 {
                try preallocate(sink, bytes: bytes, ranges: reserving?(sink))
            }
            let value = try write(sink)
            try sink.finishWriting(fsync: fsync)
            return (sink, value)
        } catch var error as GCDCatError {
            if let code = error.errno, code == ENOSPC || code == EDQUOT, error.code == .io, error.path == sink.path,
                let syscall = error.syscall, syscall != "fallocate"
            {
                error = spaceError(code, syscall: syscall, output: sink, needed: bytes)
            }
            sink.discard()
            throw error
        } catch {
            sink.discard()
            throw error
        }
    }

    /// True when writing to `path` writes into standard output's own file (`/dev/stdout`,
    /// `/dev/fd/1`, or a link to it), where a report on standard output would mix with the data.
    public static func writesToStandardOutput(_ path: String) -> Bool {
        guard let target = try? Syscall.statIfExists(path),
            let standardOutput = try? Syscall.fstat(STDOUT_FILENO, path: "standard output")
        else { return false }
        return target.st_dev == standardOutput.st_dev && target.st_ino == standardOutput.st_ino
    }

    /// What writing to a path means.
    enum Destination {
        /// A new file of gcdcat's own, named when complete.
        case newFile
        /// The path is (a link to) standard output's own file: write into the descriptor.
        case standardOutput
        /// A device, FIFO or socket, or a link to one: write into it.
        case device
    }

    /// Checks that `path` may receive output, without creating anything; returns what is there
    /// already (nil when nothing is).
    ///
    /// Run it before reading any input, so that a bad output fails at once.
    ///
    /// ## Errors
    /// - `.invalidInput` when `path` is empty, is one of `inputs` (same device and inode, so
    ///   links count), is a directory, or links to another descriptor's file;
    /// - `.outputExists` when a regular file or a dangling symlink is there and `overwrite` is
    ///   false;
    /// - `.io` when its folder is missing or cannot be written.
    @discardableResult
    public static func check(_ path: String, inputs: [PartFile], overwrite: Bool) throws -> stat? {
        if ObjectLocation.isObjectPath(path) {
            throw GCDCatError(.invalidInput, path: path, message: "an object, not a file path")
        }
        _ = try destination(path, inputs: inputs, overwrite: overwrite)
        return try Syscall.statIfExists(path)
    }

    static func destination(_ path: String, inputs: [PartFile], overwrite: Bool) throws -> Destination {
        guard !path.isEmpty else {
            throw GCDCatError(.invalidInput, message: "the output name is empty")
        }
        let link = try Syscall.statIfExists(path, followLinks: false)
        let isLink = link.map { $0.st_mode & S_IFMT == S_IFLNK } ?? false
        guard let info = try Syscall.statIfExists(path) else {
            // A dangling symlink is an existing name like any other: replaced only with `overwrite`.
            if isLink && !overwrite {
                throw GCDCatError(
                    .outputExists, path: path,
                    message: "already exists, a symlink to nothing (use --force to replace it)")
            }
            try requireWritableFolder(of: path)
            return .newFile
        }
        try refuseInput(info, path: path, inputs: inputs)
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw GCDCatError(.invalidInput, path: path, message: "Is a directory")
        case S_IFREG:
            // `/dev/stdout` (or `/proc/self/fd/1`) naming a redirected file: replacing the link
            // would lose the output, so it is written through, with or without `overwrite`.
            if isLink, let out = try? Syscall.fstat(STDOUT_FILENO, path: "standard output"),
                out.st_dev == info.st_dev && out.st_ino == info.st_ino
            {
                return .standardOutput
            }
            // Another descriptor's file (`/dev/stderr`, `/dev/fd/3`): replacing the link would
            // break it, and writing from offset 0 would clobber what it holds.
            if isLink && namesOpenDescriptor(path) {
                throw GCDCatError(
                    .invalidInput, path: path,
                    message: "is a link to an open descriptor's file, which gcdcat will not replace")
            }
            guard overwrite else {
                throw GCDCatError(.outputExists, path: path, message: "already exists (use --force to replace it)")
            }
            try requireWritableFolder(of: path)
            return .newFile
        default:
            return .device
        }
    }

    /// ``check(_:inputs:overwrite:)`` for any target: an object is HEADed (unless `overwrite`).
    public static func check(target: OutputTarget, inputs: [PartFile], overwrite: Bool) throws {
        switch target {
        case .standardOutput: return
        case .path(let path): try check(path, inputs: inputs, overwrite: overwrite)
        case .object(let target): try ObjectOutput.requireAbsent(target, overwrite: overwrite)
        }
    }

    /// True when `path` is, or links (through up to 8 links) to, `/proc/self/fd/N`,
    /// `/proc/PID/fd/N`, `/proc/thread-self/fd/N` or `/dev/fd/N`: an alias of a descriptor.
    static func namesOpenDescriptor(_ path: String) -> Bool {
        func isDescriptorPath(_ text: String) -> Bool {
            let parts = normalizedPath(text).split(separator: "/")
            if parts.count == 3 && parts[0] == "dev" && parts[1] == "fd" { return true }
            return parts.count == 4 && parts[0] == "proc" && parts[2] == "fd"
                && (parts[1] == "self" || parts[1] == "thread-self" || parts[1].allSatisfy(\.isNumber))
        }
        var current = path
        for _ in 0..<8 {
            if isDescriptorPath(current) { return true }
            var buffer = [CChar](repeating: 0, count: 4097)
            let count = PathName.withPathCString(current) { readlink($0, &buffer, 4096) }
            guard count > 0 else { return false }
            let target = PathName.decode(buffer.prefix(count).map { UInt8(bitPattern: $0) })
            current = target.hasPrefix("/") ? target : splitPath(current).directory + "/" + target
        }
        return false
    }

    /// Throws unless the folder that will hold `path` exists and may be written.
    private static func requireWritableFolder(of path: String) throws {
        let folder = splitPath(path).directory
        guard let info = try Syscall.statIfExists(folder) else {
            throw GCDCatError(
                .io, path: path, syscall: "open", errno: ENOENT,
                message:
                    "\(describeErrno(ENOENT)) (its folder \(folder.displayPath) does not exist; create it with "
                    + "mkdir -p, or name another output)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw GCDCatError(
                .io, path: path, syscall: "open", errno: ENOTDIR,
                message: "\(describeErrno(ENOTDIR)) (\(folder.displayPath) is not a folder)")
        }
        if PathName.withPathCString(folder, { access($0, W_OK | X_OK) }) != 0 {
            let code = gcdcat_errno()
            throw GCDCatError(
                .io, path: path, syscall: "open", errno: code,
                message: "\(describeErrno(code)) (its folder \(folder.displayPath) cannot be written)")
        }
    }

    /// Finishes the output: names a new file, or closes a direct descriptor.
    public func commit(fsync: Bool) throws {
        try finishWriting(fsync: fsync)
        try publish(fsync: fsync)
    }

    /// Names a finished new file; nothing for a direct descriptor.
    public func publish(fsync: Bool) throws {
        try atomicFile?.publish(fsync: fsync)
        try object?.publish()
    }

    /// Ends writing after the last byte (with `fsync`, durably); a new file stays unnamed until
    /// ``publish(fsync:)``.
    public func finishWriting(fsync: Bool) throws {
        if object != nil {
            return  // every part is on the server already
        } else if let atomicFile {
            try atomicFile.finishWriting(fsync: fsync)
        } else if fd != STDOUT_FILENO {
            if fsync { try Syscall.fsync(fd, path: path) }
            try Syscall.close(fd, path: path)
        } else if fsync && isRegularFile {
            try Syscall.fsync(fd, path: path)
        }
    }

    /// Abandons the output: a new file is removed; a direct descriptor is closed.
    public func discard() {
        if let object {
            object.discard()
        } else if let atomicFile {
            atomicFile.discard()
        } else if fd != STDOUT_FILENO {
            _ = Glibc.close(fd)
        }
    }

    /// Opens the finished (not yet published) output again for reading, to checksum it.
    func openForReading() throws -> Int32 {
        if object != nil {
            throw GCDCatError(.invalidInput, path: path, message: "an object cannot be read back for a digest list")
        }
        return try Syscall.open(atomicFile?.temporaryPath ?? path, O_RDONLY)
    }

    /// Publishes a set of finished outputs together: all of them, or none.
    ///
    /// Each new file is named in turn; the names placed so far are registered, so a signal
    /// removes them too. If one fails, the files this call placed are removed and the rest
    /// discarded. Only files gcdcat created are ever removed: a direct descriptor (a device, a
    /// symlink to `/dev/null`) is closed, never unlinked, and an output that replaced an existing
    /// file or object (`--force`) is kept, since removing it would lose the old one as well; the
    /// error then names what was replaced. On return nothing stays registered.
    ///
    /// When every output is an object and `jobs` > 1, all but the last (a split's manifest)
    /// are completed `jobs` at a time, then the last: each completion is a round trip (a HEAD
    /// and CompleteMultipartUpload), and a set of many parts would otherwise wait for them one
    /// by one.
    ///
    /// `prepare` runs first, inside the window in which a signal waits for the set (a split
    /// with `--force` removes the old first part there, ``PublishOrder``).
    public static func publishAll(
        _ sinks: [OutputSink], fsync: Bool, jobs: Int = 1, prepare: () throws -> Void = {}
    ) throws {
        // Replacing (--force), a signal waits for the whole set: stopping halfway would leave
        // some old outputs replaced and the new ones rolled back, the old set broken. Without
        // replacing, a rollback loses nothing, and a signal still leaves nothing behind.
        let replacing = sinks.filter { $0.object?.overwrite ?? $0.atomicFile?.overwrite ?? false }
        let registry =
            replacing.isEmpty ? nil : replacing.first.flatMap { $0.object?.registry ?? $0.atomicFile?.registry }
        try registry?.beginPublishing()
        defer { registry?.endPublishing() }
        var placed: [(remove: () -> Void, token: Int, registry: CleanupRegistry, replaced: String?)] = []
        defer { for entry in placed { entry.registry.forget(entry.token) } }
        do {
            try prepare()
            let together = jobs > 1 && sinks.count > 2 && sinks.allSatisfy { $0.object != nil } ? sinks.count - 1 : 0
            if together > 0 {
                let objects = sinks.prefix(together).map { $0.object! }
                // Every completion is tried; the ones that succeeded are undone if any failed.
                let outcomes = try ParallelMap.map(count: together, jobs: jobs, pool: .threads) { index in
                    Result<(token: Int?, replaces: Bool), any Error> {
                        let replaces = sinks[index].replacesAnOutput()
                        return (try objects[index].publish(registeringFinalName: true), replaces)
                    }
                }
                for (object, outcome) in zip(objects, outcomes) {
                    guard case .success(let published) = outcome, let token = published.token else { continue }
                    placed.append(
                        (
                            object.deleteAgain, token, object.registry,
                            published.replaces ? object.location.description : nil
                        ))
                }
                for outcome in outcomes { _ = try outcome.get() }
            }
            for sink in sinks.dropFirst(together) {
                if let object = sink.object {
                    // An object placed is deleted if a later one fails, unless it replaced one.
                    let replaces = sink.replacesAnOutput()
                    guard let token = try object.publish(registeringFinalName: true) else { continue }
                    placed.append(
                        (object.deleteAgain, token, object.registry, replaces ? object.location.description : nil))
                    continue
                }
                guard let file = sink.atomicFile else { continue }
                let replaces = sink.replacesAnOutput()
                guard let token = try file.publish(fsync: fsync, registeringFinalName: true) else { continue }
                let path = sink.path
                placed.append(({ _ = Syscall.unlink(path) }, token, file.registry, replaces ? path : nil))
            }
        } catch {
            for entry in placed where entry.replaced == nil { entry.remove() }
            for sink in sinks { sink.discard() }
            let kept = placed.compactMap(\.replaced)
            guard !kept.isEmpty, var failure = error as? GCDCatError else { throw error }
            let shown = kept.prefix(3).map(\.displayPath).joined(separator: ", ")
            failure.message +=
                "; \(kept.count) output(s) had already replaced existing ones and were kept (removing them would "
                + "lose the old ones too), so the set there is mixed: \(shown)\(kept.count > 3 ? ", …" : "")"
            throw failure
        }
    }

    /// Whether publishing this output replaces an existing file or object: only asked under
    /// `--force` (an `lstat`, or a HEAD), and taken as yes when that check fails, so a rollback
    /// keeps it rather than risk losing the old one.
    private func replacesAnOutput() -> Bool {
        if let object { return object.overwrite && ((try? object.keyExists()) ?? true) }
        guard let atomicFile, atomicFile.overwrite else { return false }
        do {
            return try Syscall.statIfExists(path, followLinks: false) != nil
        } catch {
            return true
        }
    }
}

/// Refuses an output that is one of the inputs, as `cat` does ("input file is output file").
func refuseInput(_ info: stat, path: String, inputs: [PartFile]) throws {
    let device = UInt64(info.st_dev)
    let inode = UInt64(info.st_ino)
    guard info.st_mode & S_IFMT == S_IFREG,
        let input = inputs.first(where: { $0.device == device && $0.inode == inode })
    else { return }
    throw GCDCatError(
        .invalidInput, path: path,
        message: "is the input file \(input.path.displayPath); refusing to overwrite it")
}
