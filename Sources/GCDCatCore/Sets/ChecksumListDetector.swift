import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Recognises a manifest or checksum list among the parts: `gcdcat merge movie.zip.*` takes in
/// `movie.zip.sfv`, and merging it would append its text to the data.
///
/// A list is known by its extension (`.sfv`, `.md5`, `.sha256`, …) or by its first few KiB:
/// every line that is not blank or a comment reads as an SFV line (`NAME CRC32`), a GNU line
/// (`HEX  NAME`, `HEX *NAME`) or a BSD line (`ALGO (NAME) = HEX`).
public enum ChecksumListDetector {
    /// Extensions of checksum lists, lowercased.
    static let extensions: Set<String> = [
        "sfv", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "b2", "b3", "crc", "crc32", "sum",
        "md5sum", "sha1sum", "sha256sum", "sha512sum", "blake2", "blake3", "hash", "digest",
        "sha3", "sha3-224", "sha3-256", "sha3-384", "sha3-512", "blake2b", "sha224sum", "sha384sum", "b2sum",
        "crc32c", "blake2s", "xxh64", "xxh128", "xxh3",
    ]

    /// How much of a file is read to sniff it.
    public static let sniffLength = 4096

    /// The kind of list `path`'s name says it is (`sfv`, `sha256`, …), or nil.
    public static func kind(ofName path: String) -> String? {
        let base = splitPath(path).name
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        let ext = base[base.index(after: dot)...].lowercased()
        return extensions.contains(ext) ? ext : nil
    }

    /// The kind of list `head` (a file's first bytes) reads as, or nil. `truncated` says the file
    /// goes on past `head`, so its last, possibly cut line is not judged.
    public static func kind(ofHead head: [UInt8], truncated: Bool) -> String? {
        guard !head.isEmpty, !head.contains(0) else { return nil }
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false)
        if truncated, lines.count > 1 { lines.removeLast() }
        var kinds = Set<String>()
        for raw in lines {
            var line = raw[...]
            if line.last == 0x0D { line = line.dropLast() }
            if lines.first.map({ $0.startIndex == raw.startIndex }) == true, line.starts(with: [0xEF, 0xBB, 0xBF]) {
                line = line.dropFirst(3)
            }
            let text = PathName.decode(line).trimmingSpaces
            if text.isEmpty || text.hasPrefix(";") || text.hasPrefix("#") { continue }
            guard let kind = lineKind(text[...]) else { return nil }
            kinds.insert(kind)
        }
        return kinds.count == 1 ? kinds.first : kinds.isEmpty ? nil : "checksum"
    }

    /// `sfv`, `gnu` or `bsd` when `line` has that shape.
    static func lineKind(_ line: Substring) -> String? {
        if let space = line.lastIndex(where: { $0 == " " || $0 == "\t" }) {
            let hex = line[line.index(after: space)...]
            if hex.count == 8, hex.allSatisfy(\.isHexDigit), !line[..<space].trimmingSpaces.isEmpty {
                return "sfv"
            }
        }
        var body = line
        if body.first == "\\" { body = body.dropFirst() }
        let hex = body.prefix { $0.isHexDigit && $0.isASCII }
        let rest = body.dropFirst(hex.count)
        // Any even length from 8 up: a list of an algorithm gcdcat does not read (`rhash --tiger`,
        // 48 digits) is still a list, never data to join.
        if hex.count >= 8, hex.count % 2 == 0, rest.hasPrefix("  ") || rest.hasPrefix(" *"),
            rest.count > 2
        {
            return "gnu"
        }
        if let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")"), open < close,
            line[..<open].trimmingSpaces.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }),
            !line[..<open].trimmingSpaces.isEmpty
        {
            let tail = line[line.index(after: close)...].trimmingSpaces
            if tail.hasPrefix("="), tail.dropFirst().trimmingSpaces.allSatisfy(\.isHexDigit),
                tail.dropFirst().trimmingSpaces.count >= 8
            {
                return "bsd"
            }
        }
        return nil
    }

    /// The first `count` bytes of the regular file at `path`.
    static func head(of path: String, count: Int = sniffLength) throws -> [UInt8] {
        let file = try OwnedDescriptor(opening: path, O_RDONLY | O_NONBLOCK)
        var bytes = [UInt8](repeating: 0, count: count)
        let read = try bytes.withUnsafeMutableBytes {
            try Syscall.pread(file.raw, into: $0.baseAddress!, count: count, offset: 0, path: path)
        }
        return Array(bytes.prefix(read))
    }
}
