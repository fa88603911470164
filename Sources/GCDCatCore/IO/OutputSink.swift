#if canImport(Glibc)
    import Glibc
#endif

/// Where a result goes, as the user named it.
public enum OutputTarget: Sendable, Equatable {
    case standardOutput
    case path(String)

    /// The name used in messages.
    public var displayName: String {
        switch self {
        case .standardOutput: return "standard output"
        case .path(let path): return path
        }
    }
}

/// An open output: either a temporary file to be renamed into place, or a descriptor written
/// directly (standard output, a pipe, a device such as `/dev/full`, which must never be replaced).
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

    init(fd: Int32, path: String, isRegularFile: Bool, atomicFile: AtomicOutputFile?) {
        self.fd = fd
        self.path = path
        self.isRegularFile = isRegularFile
        self.atomicFile = atomicFile
    }

    /// Checks `target` against the inputs and opens it.
    ///
    /// ## Errors
    /// - `.invalidInput` when the output is one of `inputs` (same device and inode, so links
    ///   count) or a directory;
    /// - `.outputExists` when a regular file is there and `overwrite` is false;
    /// - `.io` when its folder does not exist or cannot be written.
    public static func open(
        _ target: OutputTarget, inputs: [PartFile], overwrite: Bool,
        registry: CleanupRegistry = .shared
    ) throws -> OutputSink {
        switch target {
        case .standardOutput:
            let info = try Syscall.fstat(STDOUT_FILENO, path: target.displayName)
            try refuseInput(info, path: target.displayName, inputs: inputs)
            let isRegular = info.st_mode & S_IFMT == S_IFREG
            return OutputSink(
                fd: STDOUT_FILENO, path: target.displayName, isRegularFile: isRegular,
                atomicFile: nil)
        case .path(let path):
            if let existing = try check(path, inputs: inputs, overwrite: overwrite),
                existing.st_mode & S_IFMT != S_IFREG
            {
                // A device or FIFO: write into it, never replace the node.
                let fd = try Syscall.open(path, O_WRONLY)
                return OutputSink(fd: fd, path: path, isRegularFile: false, atomicFile: nil)
            }
            let file = try AtomicOutputFile(
                finalPath: path, overwrite: overwrite, registry: registry)
            return OutputSink(fd: file.fd, path: path, isRegularFile: true, atomicFile: file)
        }
    }

    /// Checks that `path` may receive output, without creating anything; returns what is there
    /// already (nil when nothing is), which is then written into if it is not a regular file.
    ///
    /// ## Errors
    /// `.invalidInput` when it is one of `inputs` or a directory; `.outputExists` when a regular
    /// file is there and `overwrite` is false.
    @discardableResult
    public static func check(_ path: String, inputs: [PartFile], overwrite: Bool) throws -> stat? {
        guard let info = try Syscall.statIfExists(path) else { return nil }
        try refuseInput(info, path: path, inputs: inputs)
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw GCDCatError(.invalidInput, path: path, message: "Is a directory")
        case S_IFREG where !overwrite:
            throw GCDCatError(.outputExists, path: path, message: "already exists (use --force to replace it)")
        default:
            return info
        }
    }

    /// Finishes the output: renames a temporary file into place, or closes a direct descriptor.
    public func commit(fsync: Bool) throws {
        try finishWriting(fsync: fsync)
        try publish(fsync: fsync)
    }

    /// Renames a finished temporary file into place; nothing for a direct descriptor.
    public func publish(fsync: Bool) throws {
        try atomicFile?.publish(fsync: fsync)
    }

    /// Closes the output after the last byte (with `fsync`, durably); a temporary file keeps its
    /// temporary name until ``publish(fsync:)``.
    public func finishWriting(fsync: Bool) throws {
        if let atomicFile {
            try atomicFile.finishWriting(fsync: fsync)
        } else if fd != STDOUT_FILENO {
            if fsync { try Syscall.fsync(fd, path: path) }
            try Syscall.close(fd, path: path)
        } else if fsync && isRegularFile {
            try Syscall.fsync(fd, path: path)
        }
    }

    /// Abandons the output: a temporary file is removed; a direct descriptor is closed.
    public func discard() {
        if let atomicFile {
            atomicFile.discard()
        } else if fd != STDOUT_FILENO {
            _ = Glibc.close(fd)
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
        .invalidInput, path: path, message: "is the input file \(input.path); refusing to overwrite it")
}
