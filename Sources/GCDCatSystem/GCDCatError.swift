#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every failure gcdcat reports: what went wrong, on which path, in which syscall.
///
/// `description` reads like coreutils: `parts/x.003: open: No such file or directory`.
///
/// ## Errors
/// The ``Code`` decides the process exit status (see ``exitStatus``).
public struct GCDCatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The class of failure, which decides the exit status.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// A syscall failed.
        case io
        /// A part of the set is missing: a gap in the numbering, or a manifest entry with no file.
        case missingPart
        /// The input is not usable as given: a directory, the output is an input, and so on.
        case invalidInput
        /// The output exists and `--force` was not given.
        case outputExists
        /// A checksum did not match.
        case checksumMismatch
        /// A manifest line could not be parsed, or names a path outside its folder.
        case malformedManifest
        /// A file changed size or identity while gcdcat was working on it.
        case inputChanged
        /// SIGINT or SIGTERM.
        case interrupted
    }

    public var code: Code
    public var path: String?
    public var syscall: String?
    public var errno: Int32?
    public var message: String

    public init(
        _ code: Code, path: String? = nil, syscall: String? = nil, errno: Int32? = nil,
        message: String
    ) {
        self.code = code
        self.path = path
        self.syscall = syscall
        self.errno = errno
        self.message = message
    }

    /// A failed syscall; the message is `strerror(errno)`.
    public static func syscall(_ name: String, path: String, errno: Int32) -> GCDCatError {
        GCDCatError(
            .io, path: path, syscall: name, errno: errno, message: describeErrno(errno))
    }

    public var description: String {
        var pieces: [String] = []
        if let path { pieces.append(path.displayPath) }
        if let syscall { pieces.append(syscall) }
        pieces.append(message)
        return pieces.joined(separator: ": ")
    }

    /// 0 success, 1 operation failed, 2 checksum mismatch; SIGINT gives 130 as shells expect.
    public var exitStatus: Int32 {
        switch code {
        case .checksumMismatch: return 2
        case .interrupted: return 128 + (errno ?? SIGINT)
        default: return 1
        }
    }
}

/// `strerror` for an errno value, without the thread-unsafe static buffer.
public func describeErrno(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    // Swift's Glibc module sees the XSI strerror_r, which fills the buffer and returns 0.
    guard strerror_r(code, &buffer, buffer.count) == 0 else { return "errno \(code)" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
