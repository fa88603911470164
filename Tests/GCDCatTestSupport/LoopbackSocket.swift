#if canImport(Glibc)
    import Glibc
#endif

/// Blocking reads and writes on a loopback socket, for the tests' small HTTP servers and
/// proxies.
public enum LoopbackSocket {
    /// Appends what one `recv` gives to `pending`; false at end of stream or on an error.
    public static func readMore(_ fd: Int32, _ pending: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        pending += chunk[..<count]
        return true
    }

    /// Sends all of `bytes` (without SIGPIPE); false if the peer went away.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
