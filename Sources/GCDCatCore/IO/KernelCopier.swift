import CSystemShim

#if canImport(Glibc)
    import Glibc
#endif

/// Copies byte ranges between descriptors inside the kernel, falling back as the kernel demands.
///
/// Order: `copy_file_range` (no user-space copy; EXDEV across filesystem types, EINVAL for
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
        case copyFileRange = "copy_file_range"
        case sendfile
        case readWrite = "read/write"

        public static func < (lhs: Method, rhs: Method) -> Bool {
            lhs.order < rhs.order
        }
        private var order: Int {
            switch self {
            case .copyFileRange: return 0
            case .sendfile: return 1
            case .readWrite: return 2
            }
        }
    }

    public private(set) var method: Method = .copyFileRange
    /// Bytes per syscall.
    public let sliceSize: Int
    private var buffer: UnsafeMutableRawPointer?

    public init(sliceSize: Int) {
        self.sliceSize = max(sliceSize, 4096)
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
        var inOffset = inputOffset
        var outOffset = outputOffset ?? 0
        var remaining = count
        var calls: Int64 = 0
        while remaining > 0 {
            let slice = Int(min(remaining, Int64(sliceSize)))
            var moved: Int
            switch method {
            case .copyFileRange, .sendfile:
                let syscall = method == .copyFileRange ? "copy_file_range" : "sendfile"
                if method == .copyFileRange {
                    moved =
                        positional
                        ? Syscall.copyFileRange(
                            from: input, at: &inOffset, to: output, at: &outOffset, count: slice, paths: paths)
                        : Syscall.copyFileRange(
                            from: input, at: &inOffset, to: output, at: nil, count: slice, paths: paths)
                } else {
                    precondition(!positional, "sendfile writes at the shared file offset")
                    moved = Syscall.sendfile(from: input, at: &inOffset, to: output, count: slice, paths: paths)
                }
                if moved < 0 {
                    let code = gcdcat_errno()
                    if code == EINTR { continue }
                    // Nothing moved and the offsets are exact: the next method resumes here.
                    if Self.isUnsupported(code) {
                        method = Self.fallback(after: method, positional: positional)
                        continue
                    }
                    throw copyError(code, syscall: syscall, inputPath, outputPath)
                }
                calls += 1
                if moved == 0 {
                    // Not trusted as end of file; read/write decides.
                    method = .readWrite
                    continue
                }
            case .readWrite:
                if buffer == nil {
                    buffer = try Syscall.allocate(byteCount: sliceSize, alignment: 4096, path: outputPath)
                }
                let read = try Syscall.pread(
                    input, into: buffer!, count: slice, offset: inOffset, path: inputPath)
                if read > 0 {
                    if positional {
                        try Syscall.pwriteAll(output, from: buffer!, count: read, offset: outOffset, path: outputPath)
                        outOffset += Int64(read)
                    } else {
                        try Syscall.writeAll(output, from: buffer!, count: read, path: outputPath)
                    }
                }
                inOffset += Int64(read)
                moved = read
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
        return calls
    }
}

/// The error for a failed kernel copy, blaming the output for space and write errors.
private func copyError(_ code: Int32, syscall: String, _ inputPath: String, _ outputPath: String)
    -> GCDCatError
{
    let outputSide = [ENOSPC, EDQUOT, EFBIG, EPIPE, EROFS].contains(code)
    return GCDCatError.syscall(syscall, path: outputSide ? outputPath : inputPath, errno: code)
}
