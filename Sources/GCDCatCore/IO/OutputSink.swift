import CSystemShim
import GCDCatS3
import GCDCatSystem

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

    /// True for `-o -`.
    public var isStandardOutput: Bool {
        if case .standardOutput = self { true } else { false }
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

/// An open output, of one of the kinds in ``Kind``: a new file of gcdcat's own, named only when
/// complete; standard output or a device, written directly; or an object being uploaded.
///
/// The life of every output is the same, for merge, split parts and manifests alike:
/// ``check(_:inputs:overwrite:)`` before any input is read, then ``produce(_:inputs:overwrite:bytes:fsync:registry:unnamed:reserving:_:)``
/// (open → preallocate → write → finish, or discard on any failure), then publishing with the
/// rest of its job's ``OutputSet``.
public final class OutputSink: Sendable {
    /// What an output is; every step of its life switches over it.
    public enum Kind: Sendable {
        /// A new file of gcdcat's own (``AtomicOutputFile``): positional writes from offset 0,
        /// preallocation, and a name only when complete.
        case newFile(AtomicOutputFile)
        /// Standard output, written at its position even when it is a file (it may be open for
        /// appending), and never closed. `isRegularFile` when it is redirected to one.
        case standardOutput(isRegularFile: Bool)
        /// A device, FIFO or socket named by a path (or a symlink to one), opened here: written
        /// into and closed once (by finishing, or by discarding if it did not finish), never
        /// replaced.
        case device(SharedDescriptor)
        /// An `s3://` object, a multipart upload completed at publish (``ObjectOutput``).
        case object(ObjectOutput)
    }

    public let kind: Kind
    /// The name used in messages: the final path, never the temporary one.
    public let path: String

    init(_ kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// The descriptor that takes the bytes.
    ///
    /// ## Errors
    /// `.invalidInput` for an object, which takes its bytes through requests (``object``).
    public var fd: Int32 {
        get throws(GCDCatError) {
            switch kind {
            case .newFile(let file): return file.fd
            case .standardOutput: return STDOUT_FILENO
            case .device(let device): return device.raw
            case .object:
                throw GCDCatError(
                    .invalidInput, path: path, message: "an object is written by requests, not a descriptor")
            }
        }
    }

    public var isRegularFile: Bool {
        switch kind {
        case .newFile: return true
        case .standardOutput(let isRegularFile): return isRegularFile
        case .device, .object: return false
        }
    }

    /// True when the output is a pipe whose reader has gone (poll's POLLERR): libdispatch would
    /// wait for ever for it to become writable (its threads block SIGPIPE).
    var readerGone: Bool {
        switch kind {
        case .standardOutput(let isRegularFile): return !isRegularFile && Syscall.readerGone(STDOUT_FILENO)
        case .device(let device): return Syscall.readerGone(device.raw)
        case .newFile, .object: return false
        }
    }

    /// True for gcdcat's own new file, which takes positional writes from offset 0 and
    /// preallocation. Standard output is written at its position even when it is a file: it may
    /// be open for appending.
    public var allowsPositionalWrites: Bool {
        if case .newFile = kind { return true }
        return false
    }

    /// gcdcat's own new file, for a local output.
    var file: AtomicOutputFile? {
        if case .newFile(let file) = kind { return file }
        return nil
    }

    /// The object being uploaded, for an `s3://` output.
    public var object: ObjectOutput? {
        if case .object(let object) = kind { return object }
        return nil
    }

    /// The strategy that writes into this output: `kind`'s own, or the multipart uploader for
    /// an object.
    public func strategy(_ kind: MergeStrategyKind) -> any MergeStrategy {
        switch self.kind {
        case .object: return MultipartUploadMerge()
        case .newFile, .standardOutput, .device: return kind.strategy
        }
    }

    /// Writes a small whole output (a manifest) from its start.
    public func write(_ bytes: [UInt8]) throws {
        if case .object(let object) = kind {
            object.hold(bytes)
            return
        }
        let fd = try self.fd
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
            return OutputSink(.object(object), path: target.description)
        case .path(let path):
            switch try destination(path, inputs: inputs, overwrite: overwrite) {
            case .standardOutput:
                return try standardOutput(inputs: inputs)
            case .device:
                // A device or FIFO (or a symlink to one): write into it, never replace the node.
                let device = try OwnedDescriptor(opening: path, O_WRONLY)
                return OutputSink(.device(SharedDescriptor(device)), path: path)
            case .newFile:
                let file = try AtomicOutputFile(
                    finalPath: path, overwrite: overwrite, registry: registry, unnamed: unnamed)
                return OutputSink(.newFile(file), path: path)
            }
        }
    }

    private static func standardOutput(inputs: [PartFile]) throws -> OutputSink {
        let info = try Syscall.fstat(STDOUT_FILENO, path: "standard output")
        try refuseInput(info, path: "standard output", inputs: inputs)
        return OutputSink(.standardOutput(isRegularFile: info.st_mode & S_IFMT == S_IFREG), path: "standard output")
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

    /// Names a finished new file, or completes an object; nothing for a direct descriptor.
    public func publish(fsync: Bool) throws {
        switch kind {
        case .newFile(let file): try file.publish(fsync: fsync)
        case .object(let object): try object.publish()
        case .standardOutput, .device: return
        }
    }

    /// Ends writing after the last byte (with `fsync`, durably); a new file stays unnamed until
    /// ``publish(fsync:)``.
    public func finishWriting(fsync: Bool) throws {
        switch kind {
        case .object:
            return  // every part is on the server already
        case .newFile(let file):
            try file.finishWriting(fsync: fsync)
        case .device(let device):
            guard let owned = device.take() else { return }
            if fsync { try Syscall.fsync(owned.raw, path: path) }
            try owned.close(path: path)
        case .standardOutput(let isRegularFile):
            if fsync && isRegularFile { try Syscall.fsync(STDOUT_FILENO, path: path) }
        }
    }

    /// Abandons the output: a new file is removed, an upload aborted, a device closed.
    public func discard() {
        switch kind {
        case .object(let object): object.discard()
        case .newFile(let file): file.discard()
        case .device(let device): _ = device.take()
        case .standardOutput: return
        }
    }

    /// Opens the finished (not yet published) output again for reading, to checksum it.
    func openForReading() throws -> OwnedDescriptor {
        switch kind {
        case .object:
            throw GCDCatError(.invalidInput, path: path, message: "an object cannot be read back for a digest list")
        case .newFile(let file): return try OwnedDescriptor(opening: file.temporaryPath, O_RDONLY)
        case .standardOutput, .device: return try OwnedDescriptor(opening: path, O_RDONLY)
        }
    }

    /// The registry of an output that replaces an existing one (`--force`): a new file or an
    /// object; nil for one that replaces nothing, or writes directly.
    var replacingRegistry: CleanupRegistry? {
        switch kind {
        case .newFile(let file): return file.overwrite ? file.registry : nil
        case .object(let object): return object.overwrite ? object.registry : nil
        case .standardOutput, .device: return nil
        }
    }

    /// The registry whose publishing window a signal waits for while this output is published
    /// (``OutputSet/inPublishingWindow(_:_:)``): an object's, or a new file's that replaces an
    /// existing one (`--force`); nil for one named at once, or written directly.
    var publishingRegistry: CleanupRegistry? {
        switch kind {
        case .object(let object): return object.registry
        case .newFile, .standardOutput, .device: return replacingRegistry
        }
    }

    /// Whether publishing this output replaces an existing file or object: only asked under
    /// `--force` (an `lstat`, or a HEAD), and taken as yes when that check fails, so a rollback
    /// keeps it rather than risk losing the old one.
    func replacesAnOutput() -> Bool {
        switch kind {
        case .object(let object):
            return object.overwrite && ((try? object.keyExists()) ?? true)
        case .newFile(let file):
            guard file.overwrite else { return false }
            do {
                return try Syscall.statIfExists(path, followLinks: false) != nil
            } catch {
                return true
            }
        case .standardOutput, .device:
            return false
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
