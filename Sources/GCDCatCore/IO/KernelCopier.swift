import CSystemShim

#if canImport(Glibc)
    import Glibc
#endif

/// Copies byte ranges between descriptors inside the kernel, falling back as the kernel demands.
///
/// Order: `copy_file_range` (no user-space copy; fails with EXDEV across filesystems on older
/// kernels, EINVAL for pipes and devices), then `sendfile` (any output, but only from a
/// mappable input), then `pread`/`write` through one buffer. A method that refuses once is not
/// tried again by this copier.
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
        buffer?.deallocate()
        buffer = nil
    }

    /// Errors that mean "this method cannot do this pair of files", not "the copy failed".
    private static func isUnsupported(_ code: Int32) -> Bool {
        code == EXDEV || code == ENOSYS || code == EOPNOTSUPP || code == EINVAL || code == EBADF
            || code == ESPIPE
    }

    /// Copies exactly `count` bytes from `input` at `inputOffset` to `output`, at `outputOffset`
    /// or, when nil, at its current position. Returns the number of syscalls made.
    ///
    /// ## Errors
    /// `.inputChanged` when the input ends early; `.io` naming the path and syscall otherwise.
    public mutating func copy(
        from input: Int32, inputPath: String, inputOffset: Int64, count: Int64,
        to output: Int32, outputPath: String, outputOffset: Int64?,
        counter: TransferCounter? = nil
    ) throws -> Int64 {
        var inOffset = inputOffset
        var outOffset = outputOffset
        var remaining = count
        var calls: Int64 = 0
        while remaining > 0 {
            let slice = Int(min(remaining, Int64(sliceSize)))
            let moved: Int
            switch method {
            case .copyFileRange:
                let result = withOptionalPointer(&outOffset) { outPointer in
                    gcdcat_copy_file_range(input, &inOffset, output, outPointer, slice)
                }
                if result < 0 {
                    let code = gcdcat_errno()
                    if code == EINTR { continue }
                    // Only a first refusal means "unsupported": mid-copy, the error is real.
                    if Self.isUnsupported(code) && calls == 0 {
                        method = .sendfile
                        continue
                    }
                    throw copyError(code, syscall: "copy_file_range", inputPath, outputPath)
                }
                moved = result
            case .sendfile:
                if let target = outOffset, lseek(output, off_t(target), SEEK_SET) < 0 {
                    // A positional copy needs a seekable output; read/write handles the rest.
                    method = .readWrite
                    continue
                }
                let result = gcdcat_sendfile(output, input, &inOffset, slice)
                if result < 0 {
                    let code = gcdcat_errno()
                    if code == EINTR { continue }
                    if Self.isUnsupported(code) && calls == 0 {
                        method = .readWrite
                        continue
                    }
                    throw copyError(code, syscall: "sendfile", inputPath, outputPath)
                }
                moved = result
                if outOffset != nil { outOffset! += Int64(result) }
            case .readWrite:
                if buffer == nil {
                    buffer = UnsafeMutableRawPointer.allocate(byteCount: sliceSize, alignment: 4096)
                }
                let read = try Syscall.pread(
                    input, into: buffer!, count: slice, offset: inOffset, path: inputPath)
                if read > 0 {
                    if let target = outOffset {
                        try Syscall.pwriteAll(
                            output, from: buffer!, count: read, offset: target, path: outputPath)
                        outOffset = target + Int64(read)
                    } else {
                        try Syscall.writeAll(output, from: buffer!, count: read, path: outputPath)
                    }
                }
                inOffset += Int64(read)
                moved = read
            }
            calls += 1
            if moved == 0 {
                throw GCDCatError(
                    .inputChanged, path: inputPath,
                    message: "ended after \(count - remaining) of \(count) bytes: it shrank while being copied")
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

private func withOptionalPointer<R>(
    _ value: inout Int64?, _ body: (UnsafeMutablePointer<Int64>?) -> R
) -> R {
    guard var unwrapped = value else { return body(nil) }
    defer { value = unwrapped }
    return body(&unwrapped)
}
