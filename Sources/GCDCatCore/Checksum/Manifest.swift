/// An SFV manifest: `NAME CRC32` lines, `;` comments.
///
/// Reading accepts CRLF, tabs, lowercase hex and names with spaces (the CRC is the last field).
/// Names are relative to the manifest's folder; an absolute name or one with a `..` component
/// is kept but marked ``Entry/rejection`` and must never be opened. gcdcat also records the
/// whole file in a comment, `; gcdcat-whole: SIZE CRC32 NAME`, which other tools ignore.
public struct Manifest: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var crc32: UInt32
        /// 1-based line number in the manifest.
        public var line: Int
        /// Why the name must not be opened, if it must not.
        public var rejection: String?

        public init(name: String, crc32: UInt32, line: Int = 0) {
            self.name = name
            self.crc32 = crc32
            self.line = line
            self.rejection = Manifest.rejection(for: name)
        }
    }

    /// The file the parts came from, as recorded by `gcdcat split`.
    public struct Whole: Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var crc32: UInt32

        public init(name: String, size: Int64, crc32: UInt32) {
            self.name = name
            self.size = size
            self.crc32 = crc32
        }
    }

    public var entries: [Entry]
    public var whole: Whole?

    public init(entries: [Entry], whole: Whole? = nil) {
        self.entries = entries
        self.whole = whole
    }

    static let wholeTag = "gcdcat-whole:"

    /// Parses manifest text; `path` names the manifest in errors.
    ///
    /// ## Errors
    /// `.malformedManifest` naming the line: a line that is not `NAME CRC32` (8 hex digits), a NUL,
    /// a name listed twice; or a manifest with no entries.
    public static func parse(_ text: String, path: String) throws -> Manifest {
        var entries: [Entry] = []
        var whole: Whole?
        var seen: [String: Int] = [:]
        var lineNumber = 0
        // "\r\n" is one Character in Swift, so split on every newline, not on "\n".
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = rawLine.trimmingSpaces
            if line.isEmpty { continue }
            if line.hasPrefix(";") {
                whole = whole ?? parseWhole(line)
                continue
            }
            func malformed(_ why: String) -> GCDCatError {
                GCDCatError(.malformedManifest, path: path, message: "line \(lineNumber): \(why)")
            }
            guard !line.contains("\0") else { throw malformed("contains a NUL byte") }
            guard let split = line.lastIndex(where: { $0 == " " || $0 == "\t" }) else {
                throw malformed("expected 'NAME CRC32', found no CRC")
            }
            let name = line[..<split].trimmingSpaces
            let hex = line[line.index(after: split)...]
            guard hex.count == 8, let value = UInt32(hex, radix: 16), hex.allSatisfy(\.isHexDigit) else {
                throw malformed("'\(hex.prefix(40))' is not a CRC32 of 8 hex digits")
            }
            guard !name.isEmpty else { throw malformed("no file name before the CRC") }
            if let earlier = seen[name] {
                throw malformed("'\(name)' is listed twice (first on line \(earlier))")
            }
            seen[name] = lineNumber
            entries.append(Entry(name: name, crc32: value, line: lineNumber))
        }
        // An empty input splits into no parts; its manifest records just the empty whole.
        guard !entries.isEmpty || whole?.size == 0 else {
            throw GCDCatError(.malformedManifest, path: path, message: "no entries: nothing to verify")
        }
        return Manifest(entries: entries, whole: whole)
    }

    /// Reads and parses the manifest at `path`.
    ///
    /// ## Errors
    /// `.io` when it cannot be read, `.invalidInput` when it is not a regular file (a directory),
    /// and the errors of ``parse(_:path:)``.
    public static func load(_ path: String) throws -> Manifest {
        let part = try PartFile.validate(path)
        guard part.size <= 64 << 20 else {
            throw GCDCatError(.malformedManifest, path: path, message: "too large for a manifest (over 64 MiB)")
        }
        let bytes = try readWholeFile(path)
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// Why `name` must not be opened: absolute, or climbing out with `..`. Nil when safe.
    public static func rejection(for name: String) -> String? {
        if name.hasPrefix("/") || name.hasPrefix("\\") || (name.count > 1 && name.dropFirst().first == ":") {
            return "absolute path"
        }
        let components = name.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        if components.contains("..") { return "'..' component" }
        return nil
    }

    private static func parseWhole(_ line: String) -> Whole? {
        guard let range = line.firstRange(of: wholeTag) else { return nil }
        let fields = line[range.upperBound...].trimmingSpaces.split(separator: " ", maxSplits: 2)
        guard fields.count == 3, let size = Int64(fields[0]), fields[1].count == 8,
            let crc = UInt32(fields[1], radix: 16)
        else { return nil }
        return Whole(name: String(fields[2]), size: size, crc32: crc)
    }

    /// SFV text: a header comment, the whole-file comment when known, then `NAME CRC32` lines.
    public func render(generator: String) -> String {
        var lines = ["; Generated by \(generator); crc32 as zlib computes it (cksfv, rhash -c read this)"]
        if let whole {
            lines.append("; \(Self.wholeTag) \(whole.size) \(hex8(whole.crc32)) \(whole.name)")
        }
        for entry in entries {
            lines.append("\(entry.name) \(hex8(entry.crc32).uppercased())")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Reads a whole (small) file.
func readWholeFile(_ path: String) throws -> [UInt8] {
    let fd = try Syscall.open(path, O_RDONLY)
    defer { close(fd) }
    return try Syscall.readToEnd(fd, path: path)
}

#if canImport(Glibc)
    import Glibc
#endif
