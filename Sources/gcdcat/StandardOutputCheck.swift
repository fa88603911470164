import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// Checks, as the process exits, that what went to standard output through C's stdio (the
/// help and version text that ArgumentParser `print`s) was written: `gcdcat --help > /dev/full`
/// then says `gcdcat: write error: No space left on device` and exits 1, as coreutils'
/// `close_stdout` does. gcdcat's own output is written through ``StandardStreams``, which
/// checks every write as it happens.
enum StandardOutputCheck {
    /// Registers the check with `atexit`.
    static func atExit() {
        atexit {
            let code = StandardStreams.flushBufferedOutput()
            guard code != 0 else { return }
            // With SIGPIPE at its default, a closed pipe has ended the process already.
            let reason = code > 0 ? ": \(describeErrno(code))" : ""
            StandardStreams.writeError("gcdcat: write error\(reason)\n")
            _exit(1)
        }
    }
}
