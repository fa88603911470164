import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writes lines to standard output as bytes: names decoded losslessly go back to their own
/// bytes (see ``PathName``), and a failed write (a closed pipe, a full disk) is an error.
enum StandardOutput {
    static func write(_ text: String) throws {
        let bytes = PathName.bytes(of: text)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw GCDCatError.syscall("write", path: "standard output", errno: written < 0 ? errno : EIO)
            }
            offset += written
        }
    }
}
