import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Checked writes to standard output and standard error, the only way gcdcat writes to them.
///
/// `print` and `FileHandle.write` either drop a failed write (a full disk cut a manifest short
/// with exit 0) or trap (`--json > /dev/full`). Here a write loops over short counts and EINTR,
/// and any other failure (EPIPE, ENOSPC, EIO) is a ``GCDCatError`` naming the stream, so the
/// command exits 1 with a message instead of succeeding or crashing.
///
/// Text is written as the bytes it stands for: a file name kept losslessly (``PathName``) goes
/// out as its original bytes, not as the UTF-8 of its escape scalars.
public enum StandardStreams {
    /// Writes `text` and a newline to standard output.
    ///
    /// ## Errors
    /// `.io` naming "standard output" and `write` when the write fails.
    public static func printLine(_ text: String) throws(GCDCatError) {
        try write(PathName.bytes(of: text) + [0x0A], to: STDOUT_FILENO, name: "standard output")
    }

    /// Writes `bytes` to standard output.
    public static func writeOutput(_ bytes: [UInt8]) throws(GCDCatError) {
        try write(bytes, to: STDOUT_FILENO, name: "standard output")
    }

    /// Writes `text` to standard error when its failure must change the exit status: a report
    /// asked for (`--report`) that was lost is a failed run, as a lost `--json` document is.
    ///
    /// ## Errors
    /// `.io` naming "standard error" and `write` when the write fails.
    public static func writeErrorReport(_ text: String) throws(GCDCatError) {
        try write(PathName.bytes(of: text), to: STDERR_FILENO, name: "standard error")
    }

    /// Writes `text` to standard error. A failure cannot be reported anywhere, so it is returned
    /// (false) rather than thrown; the caller's exit status still tells the outcome.
    @discardableResult
    public static func writeError(_ text: String) -> Bool {
        (try? write(PathName.bytes(of: text), to: STDERR_FILENO, name: "standard error")) != nil
    }

    /// Flushes what C's stdio holds for standard output (text a library `print`ed): 0 when it
    /// all reached the descriptor, else the errno of the failure (-1 when an earlier write
    /// failed and left none).
    public static func flushBufferedOutput() -> Int32 {
        gcdcat_flush_stdout()
    }

    /// Writes all of `bytes` to `fd`, retrying EINTR and short counts.
    static func write(_ bytes: [UInt8], to fd: Int32, name: String) throws(GCDCatError) {
        var failure: GCDCatError?
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return }
            do throws(GCDCatError) {
                try Syscall.writeAll(fd, from: base, count: buffer.count, path: name)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
