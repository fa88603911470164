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

        /// Why the parts, each matching its line, do not make this file; nil when they do.
        /// Fewer bytes than recorded is a short set (a last part removed with its line: exit 1,
        /// after `lastPart`), anything else a mismatch (exit 2). `dropped` says the crc32 is of
        /// the parts with their repeated headers dropped.
        func mismatch(joined: Checksum, lastPart: String, manifestPath: String, dropped: Bool = false) -> GCDCatError? {
            guard size != joined.length || crc32 != joined.value else { return nil }
            if joined.length < size {
                return GCDCatError(
                    .missingPart, path: manifestPath,
                    message:
                        "records \(size) bytes for \(name.displayPath), but its parts join to \(joined.length): the "
                        + "set lacks \(size - joined.length) bytes after \(lastPart.displayPath), its last part listed "
                        + "(a part removed with its line?); find the set's last parts, or merge the parts as they are "
                        + "with --no-verify")
            }
            return GCDCatError(
                .checksumMismatch, path: manifestPath,
                message:
                    "the parts join to \(joined.length) bytes with crc32 \(joined.hex)\(dropped ? " (their repeated headers dropped)" : ""), but the manifest records \(size) bytes with \(hex8(crc32)) for \(name.displayPath)"
            )
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

    /// Where each run of records starts: split writes a set's records above its lines, so in SFVs
    /// concatenated over several sets (`cat a.bin.sfv b.bin.sfv`) the records at `entry` (an
    /// index into ``entries``) belong to the lines that follow, up to the next run.
    struct Section: Sendable, Equatable {
        var entry: Int
        var whole: Whole?
        var header: Header?
    }

    var sections: [Section] = []

    /// The records written just above the entry at `index`, as ``whole`` and ``header``: split
    /// writes a set's records right above its first line, so records above another set's lines
    /// (`cat a.bin.sfv b.sfv`, the second made by cksfv) say nothing of the lines that follow
    /// those.
    func records(of index: Int) -> (whole: Whole?, header: Header?) {
        guard !sections.isEmpty else { return (whole, header) }
        let section = sections.last { $0.entry == index }
        return (section?.whole, section?.header)
    }

    public static func == (a: Manifest, b: Manifest) -> Bool {
        a.entries == b.entries && a.whole == b.whole && a.header == b.header
    }

    public init(entries: [Entry], whole: Whole? = nil, header: Header? = nil) {
        self.entries = entries
        self.whole = whole
        self.header = header
    }

    static let wholeTag = "gcdcat-whole:"
    static let headerTag = "gcdcat-header:"
    /// What a list with no entry (an empty file, or only comments) is said to be, by verify and merge.
    static let noEntries = "no entries: nothing to verify"

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
    ///
    /// `existing` says whether a listed name is a file beside the manifest, for a name that
    /// starts or ends with a blank (``ChecksumList/sfvEntry(_:malformed:existing:)``).
    public static func parse(bytes: [UInt8], path: String, existing: ((String) -> Bool)? = nil) throws -> Manifest {
        var entries: [Entry] = []
        var whole: Whole?
        var header: Header?
        var sections: [Section] = []
        var seen = FirstLines()
        try ListLines.forEach(in: bytes) { lineBytes, lineNumber in
            func malformed(_ why: String) -> GCDCatError {
                GCDCatError(.malformedManifest, path: path, message: "line \(lineNumber): \(why)")
            }
            if ChecksumLineParser.holdsNUL(lineBytes) { throw malformed(ChecksumLineParser.nulByte) }
            let decoded = PathName.decode(lineBytes)
            if !decoded.hasPrefix("\\") || EscapedLine(decoded) == nil {
                let line = decoded.trimmingSpaces
                if line.isEmpty { return }
                if line.hasPrefix(";") {
                    let lineWhole = parseWhole(line)
                    let lineHeader = parseHeader(line)
                    guard lineWhole != nil || lineHeader != nil else { return }
                    whole = whole ?? lineWhole
                    header = header ?? lineHeader
                    if sections.last?.entry != entries.count { sections.append(Section(entry: entries.count)) }
                    sections[sections.count - 1].whole = sections[sections.count - 1].whole ?? lineWhole
                    sections[sections.count - 1].header = sections[sections.count - 1].header ?? lineHeader
                    return
                }
            }
            // The SFV line reader checklists use too: one reader of `NAME CRC32`.
            guard let (name, hex) = try ChecksumList.sfvEntry(decoded, malformed: malformed, existing: existing) else {
                throw malformed("expected 'NAME CRC32', found no CRC")
            }
            let key = PathName.bytes(of: name).withUnsafeBufferPointer { NameKey(nil, $0) }
            // Any repeat is refused, the same value too (a checksum list skips that one).
            if let earlier = seen.insert(key, line: lineNumber, value: 0) {
                throw malformed("'\(name.displayPath)' is listed twice (first on line \(earlier.line))")
            }
            entries.append(Entry(name: name, crc32: UInt32(hex, radix: 16)!, line: lineNumber))
        }
        // An empty input splits into no parts; its manifest records just the empty whole.
        guard !entries.isEmpty || whole?.size == 0 else {
            throw GCDCatError(.malformedManifest, path: path, message: noEntries)
        }
        var manifest = Manifest(entries: entries, whole: whole, header: header)
        manifest.sections = sections
        return manifest
    }

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
        return try parse(
            bytes: try readWholeFile(path), path: path, existing: ChecksumList.existsBeside(listPath: path))
    }

    /// Why `name` must not be opened: absolute (`/…`), or climbing out with a `..` component.
    /// Nil when safe. `c:colon` and `a\\b` are ordinary relative names on Linux.
    public static func rejection(for name: String) -> String? {
        PathName.bytes(of: name).withUnsafeBufferPointer { rejection(of: $0) }
    }

    /// The same, on the name's bytes, as the kernel reads it: `/` then a combining mark is
    /// still absolute.
    static func rejection(of name: UnsafeBufferPointer<UInt8>) -> String? {
        if name.first == 0x2F { return "absolute path" }
        // A `..` between slashes, found without an array of the components (once per listed name).
        var length = 0
        var dots = 0
        for byte in name {
            if byte == 0x2F {
                if length == 2 && dots == 2 { return "'..' component" }
                (length, dots) = (0, 0)
            } else {
                length += 1
                dots += byte == 0x2E ? 1 : 0
            }
        }
        return length == 2 && dots == 2 ? "'..' component" : nil
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
            lines.append("\(NameEscaping.entryName(for: entry.name)) \(hex8(entry.crc32).uppercased())")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// ``render(generator:)`` as the bytes to write: names go back to their own bytes.
    public func encoded(generator: String) -> [UInt8] {
        PathName.bytes(of: render(generator: generator))
    }
}
