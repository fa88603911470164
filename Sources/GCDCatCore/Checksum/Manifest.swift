import GCDCatSystem

/// An SFV manifest: `NAME CRC32` lines, `;` comments.
///
/// Reading accepts CRLF, tabs, lowercase hex and names with spaces (the CRC is the last field).
/// Names are relative to the manifest's folder; an absolute name or one with a `..` component
/// is kept but marked ``Entry/rejection`` and must never be opened. gcdcat also records the
/// whole file in a comment, `; gcdcat-whole: SIZE CRC32 NAME`, which other tools ignore. A split
/// that repeats the file's header lines atop every part records them in another comment,
/// `; gcdcat-header: SIZE CRC32`: every part after the first starts with those SIZE bytes, which
/// merge drops to restore the file the whole record describes.
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

    /// The header every part after the first repeats: the whole file's first `size` bytes.
    public struct Header: Sendable, Equatable {
        public var size: Int64
        public var crc32: UInt32

        public init(size: Int64, crc32: UInt32) {
            self.size = size
            self.crc32 = crc32
        }

        public var checksum: Checksum { Checksum(.crc32, value: crc32, length: size) }
    }

    public var entries: [Entry]
    public var whole: Whole?
    public var header: Header?

    public init(entries: [Entry], whole: Whole? = nil, header: Header? = nil) {
        self.entries = entries
        self.whole = whole
        self.header = header
    }

    static let wholeTag = "gcdcat-whole:"
    static let headerTag = "gcdcat-header:"

    /// Parses manifest text; `path` names the manifest in errors. The text's escape scalars
    /// (see ``PathName``) stand for the bytes they were decoded from.
    public static func parse(_ text: String, path: String) throws -> Manifest {
        try parse(bytes: PathName.bytes(of: text), path: path)
    }

    /// Parses manifest bytes; names are decoded losslessly with ``PathName/decode(_:)``, so a
    /// Latin-1 name made by cksfv names the same file on disk. A UTF-8 byte-order mark at the
    /// head is skipped.
    ///
    /// ## Errors
    /// `.malformedManifest` naming the line: a line that is not `NAME CRC32` (8 hex digits), a NUL,
    /// a name listed twice (`a.txt` and `./a.txt` are one name); or a manifest with no entries.
    public static func parse(bytes: [UInt8], path: String) throws -> Manifest {
        var entries: [Entry] = []
        var whole: Whole?
        var header: Header?
        var seen: [[UInt8]: Int] = [:]
        var lineNumber = 0
        let body = bytes.starts(with: byteOrderMark) ? bytes.dropFirst(byteOrderMark.count) : bytes[...]
        // Split on LF only: a name may hold any other character, and CR is stripped as CRLF's.
        for rawLine in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let lineBytes = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            func malformed(_ why: String) -> GCDCatError {
                GCDCatError(.malformedManifest, path: path, message: "line \(lineNumber): \(why)")
            }
            guard !lineBytes.contains(0) else { throw malformed("contains a NUL byte") }
            let decoded = PathName.decode(lineBytes)
            let escaped = decoded.hasPrefix("\\") ? EscapedLine(decoded) : nil
            let line = escaped?.text ?? decoded.trimmingSpaces
            if line.isEmpty { continue }
            if escaped == nil && line.hasPrefix(";") {
                whole = whole ?? parseWhole(line)
                header = header ?? parseHeader(line)
                continue
            }
            guard let split = line.lastIndex(where: { $0 == " " || $0 == "\t" }) else {
                throw malformed("expected 'NAME CRC32', found no CRC")
            }
            let hex = line[line.index(after: split)...]
            guard hex.count == 8, let value = UInt32(hex, radix: 16), hex.allSatisfy(\.isHexDigit) else {
                throw malformed("'\(String(hex.prefix(40)).displayPath)' is not a CRC32 of 8 hex digits")
            }
            let name = escaped?.name ?? line[..<split].trimmingSpaces
            guard !name.isEmpty else { throw malformed("no file name before the CRC") }
            let key = PathName.bytes(of: normalized(name))  // bytes: NFC and NFD `café` are two names
            if let earlier = seen[key] {
                throw malformed("'\(name.displayPath)' is listed twice (first on line \(earlier))")
            }
            seen[key] = lineNumber
            entries.append(Entry(name: name, crc32: value, line: lineNumber))
        }
        // An empty input splits into no parts; its manifest records just the empty whole.
        guard !entries.isEmpty || whole?.size == 0 else {
            throw GCDCatError(.malformedManifest, path: path, message: "no entries: nothing to verify")
        }
        return Manifest(entries: entries, whole: whole, header: header)
    }

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Reads and parses the manifest at `path`.
    ///
    /// ## Errors
    /// `.io` when it cannot be read, `.invalidInput` when it is not a regular file (a directory),
    /// and the errors of ``parse(bytes:path:)``.
    public static func load(_ path: String) throws -> Manifest {
        let part = try PartFile.validate(path)
        guard part.size <= 64 << 20 else {
            throw GCDCatError(.malformedManifest, path: path, message: "too large for a manifest (over 64 MiB)")
        }
        return try parse(bytes: try readWholeFile(path), path: path)
    }

    /// Why `name` must not be opened: absolute (`/…`), or climbing out with a `..` component.
    /// Nil when safe. `c:colon` and `a\\b` are ordinary relative names on Linux.
    public static func rejection(for name: String) -> String? {
        if name.hasPrefix("/") { return "absolute path" }
        if name.split(separator: "/").contains("..") { return "'..' component" }
        return nil
    }

    /// `name` with empty and `.` components removed: `./a.txt` and `a.txt` name one file.
    static func normalized(_ name: String) -> String {
        name.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    static func parseWhole(_ line: String) -> Whole? {
        guard let range = line.firstRange(of: wholeTag) else { return nil }
        let fields = line[range.upperBound...].trimmingSpaces.split(separator: " ", maxSplits: 2)
        guard fields.count == 3, let size = Int64(fields[0]), fields[1].count == 8,
            let crc = UInt32(fields[1], radix: 16)
        else { return nil }
        let name = String(fields[2])
        let unescaped = name.hasPrefix("\\") ? NameEscaping.unescape(name.dropFirst()) : nil
        return Whole(name: unescaped ?? name, size: size, crc32: crc)
    }

    static func parseHeader(_ line: String) -> Header? {
        guard let range = line.firstRange(of: headerTag) else { return nil }
        let fields = line[range.upperBound...].trimmingSpaces.split(separator: " ")
        guard fields.count == 2, let size = Int64(fields[0]), size >= 0, fields[1].count == 8,
            let crc = UInt32(fields[1], radix: 16)
        else { return nil }
        return Header(size: size, crc32: crc)
    }

    /// SFV text: a header comment, the whole-file comment when known, then `NAME CRC32` lines.
    /// A name that SFV cannot carry as it is gets an escaped line (see ``NameEscaping``).
    public func render(generator: String) -> String {
        var lines = ["; Generated by \(generator); crc32 as zlib computes it (cksfv, rhash -c read this)"]
        if let whole {
            lines.append("; \(Self.wholeTag) \(whole.size) \(hex8(whole.crc32)) \(NameEscaping.line(for: whole.name))")
        }
        if let header {
            lines.append("; \(Self.headerTag) \(header.size) \(hex8(header.crc32))")
        }
        for entry in entries {
            lines.append("\(NameEscaping.line(for: entry.name)) \(hex8(entry.crc32).uppercased())")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// ``render(generator:)`` as the bytes to write: names go back to their own bytes.
    public func encoded(generator: String) -> [UInt8] {
        PathName.bytes(of: render(generator: generator))
    }
}

#if canImport(Glibc)
    import Glibc
#endif
