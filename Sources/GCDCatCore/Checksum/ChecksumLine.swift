/// The shapes of a checksum list line that gcdcat reads and writes.
///
/// - `sfv`: `NAME CRC32`, crc32 only (cksfv, rhash --sfv).
/// - `gnu`: `HEX  NAME` (`HEX *NAME` for binary mode), as `sha256sum` prints it.
/// - `bsd`: `SHA256 (NAME) = HEX`, as `sha256sum --tag` and `rhash --bsd` print it.
/// - `simple`: `HEX  NAME` with the name unescaped (gcdcat's older output; reads as `gnu`).
///
/// In `gnu` and `bsd`, a name holding `\`, a newline or a carriage return is escaped
/// (`\\`, `\n`, `\r`) and the line starts with `\`, exactly as coreutils does it.
public enum ChecksumLineFormat: String, CaseIterable, Sendable, Codable {
    case sfv
    case gnu
    case bsd
    case simple

    /// One line, without its newline. `hex` is lowercase; SFV writes it in capitals.
    public func render(name: String, algorithm: HashAlgorithm, hex: String) -> String {
        switch self {
        case .sfv: return "\(NameEscaping.entryName(for: name)) \(hex.uppercased())"
        case .simple: return "\(hex)  \(name)"
        case .gnu, .bsd:
            let escape = Self.needsGNUEscaping(name)
            let shown = escape ? NameEscaping.escape(name) : name
            let body = self == .gnu ? "\(hex)  \(shown)" : "\(algorithm.tag) (\(shown)) = \(hex)"
            return escape ? "\\" + body : body
        }
    }

    /// coreutils escapes a name with a backslash, a newline or a carriage return.
    static func needsGNUEscaping(_ name: String) -> Bool {
        name.unicodeScalars.contains { $0 == "\\" || $0 == "\n" || $0 == "\r" }
    }
}

/// One line of a GNU or BSD list, taken apart; SFV lines are left to ``ChecksumList``.
struct TaggedOrGNULine: Equatable {
    enum Shape: Equatable {
        case gnu
        /// A BSD line; the algorithm is nil when its tag is not one gcdcat knows.
        case bsd(tag: String, algorithm: HashAlgorithm?)
    }
    var shape: Shape
    var name: String
    var hex: String

    /// Digest lengths a GNU line may carry: crc32/adler32, md5, sha1, sha224 and sha3-224,
    /// sha256 (sha3-256), sha384 (sha3-384), sha512 (sha3-512, blake2b).
    static let gnuLengths: Set<Int> = [8, 32, 40, 56, 64, 96, 128]

    /// `line` (no line end) as a BSD or GNU line, or nil. `sfvShaped` lines (the last field is
    /// 8 hex digits) stay SFV unless they are unmistakably GNU: a long digest and two separators.
    /// `blake2bLengths` admits GNU values of any even length from 2 to 128 digits, as `b2sum -c`
    /// reads a BLAKE2b list (`b2sum -l 8` writes 2 digits).
    init?(_ line: String, sfvShaped: Bool, blake2bLengths: Bool = false) {
        var body = Substring(line)
        while let first = body.first, first == " " || first == "\t" { body = body.dropFirst() }
        let escaped = body.first == "\\"
        if escaped { body = body.dropFirst() }
        func name(_ raw: Substring) -> String? { escaped ? NameEscaping.unescape(raw) : String(raw) }
        if let bsd = Self.bsd(body), let unescaped = name(bsd.name) {
            self.init(
                shape: .bsd(tag: String(bsd.tag), algorithm: HashAlgorithm(tag: bsd.tag)), name: unescaped, hex: bsd.hex
            )
            return
        }
        let hex = body.prefix { $0.isASCII && $0.isHexDigit }
        let blake2bLength = blake2bLengths && hex.count % 2 == 0 && (2...128).contains(hex.count)
        guard Self.gnuLengths.contains(hex.count) || blake2bLength else { return nil }
        let rest = body[hex.endIndex...]
        let raw: Substring
        if rest.hasPrefix("  ") || rest.hasPrefix(" *") {
            guard !sfvShaped || hex.count > 8 else { return nil }
            raw = rest.dropFirst(2)
        } else if rest.hasPrefix(" "), hex.count > 8, !sfvShaped {
            raw = rest.dropFirst()  // `md5 -r` and `sha256sum`'s reversed BSD form: one space
        } else {
            return nil
        }
        guard !raw.isEmpty, let unescaped = name(raw) else { return nil }
        self.init(shape: .gnu, name: unescaped, hex: hex.lowercased())
    }

    private init(shape: Shape, name: String, hex: String) {
        self.shape = shape
        self.name = name
        self.hex = hex
    }

    /// `TAG (NAME) = HEX`; rhash pads the tag (`MD5   (x)`). The name may hold `) = `, so the
    /// last one ends it.
    static func bsd(_ body: Substring) -> (tag: Substring, name: Substring, hex: String)? {
        let tag = body.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        guard !tag.isEmpty, tag.first!.isLetter else { return nil }
        var rest = body[tag.endIndex...]
        while rest.first == " " { rest = rest.dropFirst() }
        guard rest.first == "(", let close = rest.ranges(of: ") = ").last else { return nil }
        let hex = rest[close.upperBound...]
        guard !hex.isEmpty, hex.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        let name = rest[rest.index(after: rest.startIndex)..<close.lowerBound]
        guard !name.isEmpty else { return nil }
        return (tag, name, hex.lowercased())
    }
}
