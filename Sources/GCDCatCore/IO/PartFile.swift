import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One input part, checked before any byte of output is written.
///
/// Validation opens the file (proving it readable), `fstat`s it, and closes it again, so that a
/// set of thousands of parts never holds thousands of descriptors. ``open()`` later re-opens it
/// and refuses if it is no longer the same file of the same size.
public struct PartFile: Sendable, Hashable {
    /// The path as the user gave it, used in every message.
    public let path: String
    public let size: Int64
    public let device: UInt64
    public let inode: UInt64
    /// Modification and status-change times at validation, in nanoseconds since the epoch (0
    /// when made without a stat): with the rest, they tell whether the part changed since.
    public let modifiedNanoseconds: Int64
    public let changedNanoseconds: Int64

    public init(
        path: String, size: Int64, device: UInt64, inode: UInt64, modifiedNanoseconds: Int64 = 0,
        changedNanoseconds: Int64 = 0
    ) {
        self.path = path
        self.size = size
        self.device = device
        self.inode = inode
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
    }

    init(path: String, info: stat) {
        self.init(
            path: path, size: Int64(info.st_size), device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            modifiedNanoseconds: nanoseconds(info.st_mtim), changedNanoseconds: nanoseconds(info.st_ctim))
    }

    /// Throws `.inputChanged` unless the file at `path` is still the one validated, with the
    /// same size, modification and status-change times: no write, truncation, rename over it
    /// or `touch` happened since. (See docs/notes/cow.md for what timestamps can and cannot see.)
    public func requireUnchangedSinceValidation() throws {
        guard let info = try Syscall.statIfExists(path) else {
            throw GCDCatError(.inputChanged, path: path, message: "removed while gcdcat was using it")
        }
        let now = PartFile(path: path, info: info)
        guard now.device == device, now.inode == inode else {
            throw GCDCatError(.inputChanged, path: path, message: "replaced by another file since it was checked")
        }
        try requireUnchangedSize(now.size)
        guard now.modifiedNanoseconds == modifiedNanoseconds, now.changedNanoseconds == changedNanoseconds else {
            throw GCDCatError(
                .inputChanged, path: path,
                message: "modified while gcdcat was using it (its mtime or ctime changed); nothing was written")
        }
    }

    /// Opens, `fstat`s and closes `path`: it must exist, be readable and be a regular file.
    ///
    /// ## Errors
    /// `.missingPart` when it does not exist, `.invalidInput` when it is not a regular file,
    /// `.io` for any other failure.
    public static func validate(_ path: String) throws -> PartFile {
        try openValidated(path).part
    }

    /// ``validate(_:)`` that keeps the file open: the part and its descriptor, for a caller that
    /// reads it at once (one open instead of two).
    ///
    /// ## Errors
    /// Those of ``validate(_:)``.
    /// `noAccessTime` opens with `O_NOATIME` where the kernel allows it (the caller owns the
    /// file): reading 100,000 files then writes no inode back.
    package static func openValidated(_ path: String, noAccessTime: Bool = false) throws -> OpenedPart {
        let descriptor = try openForReading(path, noAccessTime: noAccessTime)
        let info = try Syscall.fstat(descriptor.raw, path: path)
        try requireRegularFile(info, path: path)
        try requireRealFile(descriptor.raw, path: path)
        return OpenedPart(part: PartFile(path: path, info: info), descriptor: descriptor)
    }

    /// `open(path, O_RDONLY | O_NONBLOCK)`, with `O_NOATIME` when asked and allowed (EPERM for
    /// a file of another owner: then without); `.missingPart` when nothing is at `path`.
    static func openForReading(_ path: String, noAccessTime: Bool) throws(GCDCatError) -> OwnedDescriptor {
        do {
            guard noAccessTime else { return try OwnedDescriptor(opening: path, O_RDONLY | O_NONBLOCK) }
            do {
                return try OwnedDescriptor(opening: path, O_RDONLY | O_NONBLOCK | noAccessTimeFlag)
            } catch  where error.errno == EPERM {
                return try OwnedDescriptor(opening: path, O_RDONLY | O_NONBLOCK)
            }
        } catch  where error.errno == ENOENT {
            throw missing(path)
        }
    }

    /// The error for a part that is not there.
    static func missing(_ path: String) -> GCDCatError {
        GCDCatError(.missingPart, path: path, syscall: "open", errno: ENOENT, message: describeErrno(ENOENT))
    }

    /// Linux's `O_NOATIME` (the same on every architecture Swift runs on), which Glibc's module
    /// leaves out without `_GNU_SOURCE`.
    static let noAccessTimeFlag: Int32 = 0o1_000_000

    /// Opens the part for reading and checks it is still the file that was validated.
    ///
    /// The open never blocks: a part swapped for a FIFO since validation would otherwise wait
    /// forever for a writer; it is refused instead.
    package func open() throws -> OwnedDescriptor {
        let descriptor = OwnedDescriptor(adopting: try Syscall.open(path, O_RDONLY | O_NONBLOCK))
        let fd = descriptor.raw
        let info = try Syscall.fstat(fd, path: path)
        try requireRegularFile(info, path: path)
        // Reads of a regular file never block anyway; clear the flag for DispatchIO's sake.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        guard UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else {
            throw GCDCatError(
                .inputChanged, path: path, message: "replaced by another file since it was checked")
        }
        try requireUnchangedSize(Int64(info.st_size))
        return descriptor
    }

    /// Throws `.inputChanged` unless `currentSize` is the size promised at validation.
    public func requireUnchangedSize(_ currentSize: Int64) throws {
        guard currentSize == size else {
            throw GCDCatError(
                .inputChanged, path: path,
                message: "size changed from \(size) to \(currentSize) bytes while gcdcat was using it")
        }
    }

    /// Re-checks the size of an open part after its bytes were used.
    func requireUnchanged(fd: Int32) throws {
        try requireUnchangedSize(Int64(try Syscall.fstat(fd, path: path).st_size))
    }
}

/// A `timespec` in nanoseconds since the epoch.
func nanoseconds(_ time: timespec) -> Int64 {
    Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
}

/// Throws `.invalidInput` for a file on a pseudo-filesystem (/proc, /sys), which claims to be
/// regular with a size of 0 or 4096 whatever it holds: merging it would silently be wrong.
func requireRealFile(_ fd: Int32, path: String) throws {
    if let name = pseudoFilesystems[gcdcat_fd_filesystem_type(fd)] {
        throw GCDCatError(
            .invalidInput, path: path, message: "not a regular file (a \(name) pseudo-file of unknown size)")
    }
}

/// The filesystems whose files report a size they do not have, by `statfs` magic.
private let pseudoFilesystems: [Int: String] = [
    0x9FA0: "procfs", 0x6265_6572: "sysfs", 0x6462_6720: "debugfs", 0x2762_6420: "configfs",
]

/// Throws `.invalidInput` unless `info` describes a regular file.
func requireRegularFile(_ info: stat, path: String) throws {
    guard info.st_mode & S_IFMT != S_IFREG else { return }
    throw GCDCatError(.invalidInput, path: path, message: Syscall.notRegularReason(info.st_mode))
}

/// A part validated and left open by ``PartFile/openValidated(_:noAccessTime:)``.
package struct OpenedPart: ~Copyable {
    package let part: PartFile
    package let descriptor: OwnedDescriptor
}
