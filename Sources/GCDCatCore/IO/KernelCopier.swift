import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Copies byte ranges between descriptors inside the kernel, falling back as the kernel demands.
///
/// Order, for a positional copy: a clone (`ioctl(FICLONERANGE)`: the output shares the input's
/// blocks, nothing is read or written) when the range is block-aligned; then `copy_file_range`
/// (which may itself clone, or copy in the kernel; no user-space copy; EXDEV across filesystem types, EINVAL for
/// pipes and devices), then, only for an output written at its own position (a pipe, standard
/// output: one writer), `sendfile`, then `pread` and `pwrite`/`write` through one buffer.
///
/// Cloning is detected by trying: EOPNOTSUPP, EXDEV, ENOTTY (ext4, tmpfs, two filesystems) stop
/// this copier from trying again; EINVAL (a range the filesystem will not share) falls back for
/// that range only.
///
/// Without a clone: `copy_file_range` (no user-space copy; EXDEV across filesystem types, EINVAL for
/// pipes and devices), then, only for an output written at its own position (a pipe, standard
/// output: one writer), `sendfile`, then `pread` and `pwrite`/`write` through one buffer.
///
/// ## Implementation details
/// - A positional copy never touches the output's file offset: several workers write one
///   descriptor, and `lseek` + `sendfile` there raced (parts landed at another worker's
///   offset). `sendfile` cannot take an output offset, so positional copies skip it.
/// - Both offsets are tracked here, so a method that refuses (moving nothing) can hand over at
///   any byte: the next method resumes exactly where the refused call would have started. A
///   method that refuses is not tried again by this copier.
/// - A short count is continued. A kernel copy that returns 0 before `count` bytes is not
///   trusted as end of file (some filesystems report 0 for "cannot"): read/write finishes the
///   range, and only its `pread` of 0 means the input shrank.
public struct KernelCopier {
    public enum Method: String, Sendable, Comparable {
        case clone
        case copyFileRange = "copy_file_range"
        case sendfile
        case readWrite = "read/write"

        public static func < (lhs: Method, rhs: Method) -> Bool {
            lhs.order < rhs.order
        }
        private var order: Int {
            switch self {
            case .clone: return 0
            case .copyFileRange: return 1
            case .sendfile: return 2
            case .readWrite: return 3
            }
        }
    }

    public private(set) var method: Method = .copyFileRange
    /// Whether positional copies try a clone first; false once the filesystem said it cannot.
    public private(set) var cloning: Bool
    /// Bytes shared by clones, and bytes moved by any other method.
    public private(set) var clonedBytes: Int64 = 0
    public private(set) var copiedBytes: Int64 = 0
    /// Positional ranges that could not be cloned because they are not block-aligned.
    public private(set) var unalignedRanges = 0
    /// Whether a clone was asked of the kernel at all (an unaligned range is not asked).
    public private(set) var triedClone = false
    /// The output's block size and size, for the alignment check (read once).
    private var outputGeometry: (block: Int64, size: Int64)?
    /// Bytes per syscall.
    public let sliceSize: Int
    private var buffer: UnsafeMutableRawPointer?

    public init(sliceSize: Int, cloning: Bool = true) {
        self.sliceSize = max(sliceSize, 4096)
        self.cloning = cloning
    }

    /// The slowest method this copier used: `clone` only when every byte was cloned.
    public var slowestMethod: Method {
        copiedBytes == 0 && clonedBytes > 0 ? .clone : method
    }

    /// What a clone attempt did.
    private enum CloneOutcome { case cloned, unaligned, unsupported }

    /// Tries to clone the whole range. A range is cloneable when both offsets are multiples of
    /// the output's block size and so is `count`, unless the range ends both the input and
    /// the output (a clone shares whole blocks: an unaligned tail elsewhere would overwrite the
    /// next part's first bytes).
    private mutating func clone(
        from input: Int32, at inputOffset: Int64, count: Int64, to output: Int32, at outputOffset: Int64,
        paths: (String, String)
    ) -> CloneOutcome {
        if outputGeometry == nil {
            guard let info = try? Syscall.fstat(output, path: paths.1) else { return .unsupported }
            outputGeometry = (max(Int64(info.st_blksize), 512), Int64(info.st_size))
        }
        guard let (block, outputSize) = outputGeometry else { return .unsupported }
        var aligned = inputOffset % block == 0 && outputOffset % block == 0
        if aligned && count % block != 0 {
            let inputSize = (try? Syscall.fstat(input, path: paths.0).st_size).map(Int64.init) ?? -1
            aligned = inputOffset + count == inputSize && outputOffset + count >= outputSize
        }
        guard aligned else { return .unaligned }
        triedClone = true
        while true {
            if Syscall.cloneRange(
                from: input, at: inputOffset, to: output, at: outputOffset, count: count, paths: paths)
                == 0
            {
                return .cloned
            }
            let code = gcdcat_errno()
            if code == EINTR { continue }
            // EINVAL: this range, not the filesystem (say, a tail the kernel will not share).
            return code == EINVAL ? .unaligned : .unsupported
        }
    }

    /// Frees the fallback buffer, if one was needed.
    public mutating func release() {
        free(buffer)
        buffer = nil
    }

    /// Errors that mean "this method cannot do this pair of files", not "the copy failed".
    private static func isUnsupported(_ code: Int32) -> Bool {
        code == EXDEV || code == ENOSYS || code == EOPNOTSUPP || code == EINVAL || code == EBADF
            || code == ESPIPE
    }

    /// The method after `method` for this kind of output.
    private static func fallback(after method: Method, positional: Bool) -> Method {
        method == .copyFileRange && !positional ? .sendfile : .readWrite
    }

    /// Copies exactly `count` bytes from `input` at `inputOffset` to `output`, at `outputOffset`
    /// or, when nil, at its current position (then this must be the descriptor's only writer).
    /// Returns the number of syscalls made.
    ///
    /// ## Errors
    /// `.inputChanged` when the input ends early; `.io` naming the path and syscall otherwise;
    /// `malloc` (ENOMEM) naming the output when the fallback buffer cannot be had.
    public mutating func copy(
        from input: Int32, inputPath: String, inputOffset: Int64, count: Int64,
        to output: Int32, outputPath: String, outputOffset: Int64?,
        counter: TransferCounter? = nil
    ) throws -> Int64 {
        let positional = outputOffset != nil
        let paths = (inputPath, outputPath)
        if let outputOffset, cloning, count > 0 {
            switch clone(from: input, at: inputOffset, count: count, to: output, at: outputOffset, paths: paths) {
            case .cloned:
                clonedBytes += count
                counter?.add(bytes: count)
                return 1
            case .unaligned: unalignedRanges += 1
            case .unsupported: cloning = false
            }
        }
        var inOffset = inputOffset
        var outOffset = outputOffset ?? 0
        var remaining = count
        var calls: Int64 = 0
        while remaining > 0 {
            let slice = Int(min(remaining, Int64(sliceSize)))
            let moved: Int
            switch method {
            case .clone, .copyFileRange, .sendfile:
                // `method` is never `.clone` here: clones are whole ranges, tried before this loop.
                guard
                    let kernelMoved = try kernelSlice(
                        slice, from: input, at: &inOffset, to: output, at: &outOffset, positional: positional,
                        paths: paths, calls: &calls)
                else { continue }
                moved = kernelMoved
            case .readWrite:
                moved = try readWriteSlice(
                    slice, from: input, at: &inOffset, to: output, at: &outOffset, positional: positional, paths: paths)
                calls += 1
                if moved == 0 {
                    throw GCDCatError(
                        .inputChanged, path: inputPath,
                        message: "ended after \(count - remaining) of \(count) bytes: it shrank while being copied")
                }
            }
            remaining -= Int64(moved)
            counter?.add(bytes: Int64(moved))
        }
        copiedBytes += count
        return calls
    }

    /// One `copy_file_range` (or, for a copy at the output's own position, `sendfile`) of up to
    /// `slice` bytes, the offsets advanced past what it moved; nil when it moved nothing (it was
    /// interrupted, refused, or returned 0), and `method` then says what comes next.
    private mutating func kernelSlice(
        _ slice: Int, from input: Int32, at inOffset: inout Int64, to output: Int32, at outOffset: inout Int64,
        positional: Bool, paths: (String, String), calls: inout Int64
    ) throws -> Int? {
        let syscall = method != .sendfile ? "copy_file_range" : "sendfile"
        let moved: Int
        if method != .sendfile {
            moved =
                positional
                ? Syscall.copyFileRange(
                    from: input, at: &inOffset, to: output, at: &outOffset, count: slice, paths: paths)
                : Syscall.copyFileRange(from: input, at: &inOffset, to: output, at: nil, count: slice, paths: paths)
        } else {
            precondition(!positional, "sendfile writes at the shared file offset")
            moved = Syscall.sendfile(from: input, at: &inOffset, to: output, count: slice, paths: paths)
        }
        if moved < 0 {
            let code = gcdcat_errno()
            if code == EINTR { return nil }
            // Nothing moved and the offsets are exact: the next method resumes here.
            if Self.isUnsupported(code) {
                method = Self.fallback(after: method, positional: positional)
                return nil
            }
            throw copyError(code, syscall: syscall, paths.0, paths.1)
        }
        calls += 1
        if moved == 0 {
            // Not trusted as end of file; read/write decides.
            method = .readWrite
            return nil
        }
        return moved
    }

    /// One `pread` of up to `slice` bytes into the fallback buffer (allocated at first use), and
    /// the write of what it read; the offsets advanced. 0 when the input ended.
    private mutating func readWriteSlice(
        _ slice: Int, from input: Int32, at inOffset: inout Int64, to output: Int32, at outOffset: inout Int64,
        positional: Bool, paths: (String, String)
    ) throws -> Int {
        if buffer == nil {
            buffer = try Syscall.allocate(byteCount: sliceSize, alignment: 4096, path: paths.1)
        }
        let read = try Syscall.pread(input, into: buffer!, count: slice, offset: inOffset, path: paths.0)
        if read > 0 {
            if positional {
                try Syscall.pwriteAll(output, from: buffer!, count: read, offset: outOffset, path: paths.1)
                outOffset += Int64(read)
            } else {
                try Syscall.writeAll(output, from: buffer!, count: read, path: paths.1)
            }
        }
        inOffset += Int64(read)
        return read
    }
}

/// The error for a failed kernel copy, blaming the output for space and write errors.
private func copyError(_ code: Int32, syscall: String, _ inputPath: String, _ outputPath: String)
    -> GCDCatError
{
    let outputSide = [ENOSPC, EDQUOT, EFBIG, EPIPE, EROFS].contains(code)
    return GCDCatError.syscall(syscall, path: outputSide ? outputPath : inputPath, errno: code)
}
