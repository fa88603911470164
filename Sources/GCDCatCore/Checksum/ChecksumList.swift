import GCDCatSystem

/// A checksum list as people download it: SFV, GNU (`sha256sum`) or BSD (`sha256sum --tag`,
/// `rhash --bsd`) lines, told apart line by line, so one list may mix them.
///
/// Each entry's algorithm comes from its tag (BSD: `SHA256`, `BLAKE2b`, `BLAKE2b-256`,
/// `SHA3-256`), else from the list's name when its digests have that algorithm's length
/// (`SHA384SUMS`, `*.sha3-256`: see ``algorithm(ofListName:)``; in `B2SUMS` and `*.b2` any
/// length is BLAKE2b of that length, as `b2sum -c` reads them), else from the digest's length
/// (8 crc32, 32 md5, 40 sha1, 56 sha224, 64 sha256, 96 sha384, 128 sha512): that last is a
/// guess, marked ``Entry/guessed`` and said by ``guessNotes``, unless the caller forces one. Names
/// are relative to the list's folder; an absolute name or a `..` component is marked
/// ``Entry/rejection`` and must never be opened (see ``Manifest/rejection(for:)``).
public struct ChecksumList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var algorithm: HashAlgorithm
        /// The expected value, lowercase hex.
        public var expected: String
        /// 1-based line number in the list.
        public var line: Int
        public var format: ChecksumLineFormat
        /// Why the name must not be opened, if it must not.
        public var rejection: String?
        /// The algorithm was assumed from the value's length alone: no tag, no `--algorithm`, and
        /// the list's name names none. A mismatch may then mean the guess is wrong, not the file
        /// (see ``ChecksumListVerifier/confirmingGuesses(_:)``).
        public var guessed = false

        public init(
            name: String, algorithm: HashAlgorithm, expected: String, line: Int = 0, format: ChecksumLineFormat
        ) {
            self.name = name
            self.algorithm = algorithm
            self.expected = expected.lowercased()
            self.line = line
            self.format = format
            self.rejection = Manifest.rejection(for: name)
        }

        /// An entry whose value is already lowercase and whose rejection is already known (the
        /// line parser works them out on the line's bytes).
        init(
            name: String, algorithm: HashAlgorithm, lowercaseExpected: String, line: Int,
            format: ChecksumLineFormat, rejection: String?, guessed: Bool
        ) {
            self.name = name
            self.algorithm = algorithm
            self.expected = lowercaseExpected
            self.line = line
            self.format = format
            self.rejection = rejection
            self.guessed = guessed
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The entries of an SFV ``Manifest``, as crc32 entries.
    public init(_ manifest: Manifest) {
        entries = manifest.entries.map {
            var entry = Entry(name: $0.name, algorithm: .crc32, expected: hex8($0.crc32), line: $0.line, format: .sfv)
            entry.rejection = $0.rejection
            return entry
        }
    }

    /// What the list's name says its untagged lines are: `B2SUMS`, `x.b2`, `x.blake2b` are
    /// BLAKE2b; `SHA384SUMS`, `x.sha384`, `x.sha3-256`, `MD5SUMS`, `x.md5sum`, … are theirs.
    /// Each dot-separated part of the file name is tried from the last (`SHA256SUMS.asc`,
    /// `x.iso.sha256`), with a trailing `SUMS`, `SUM` or `sums` dropped; nil when none names one.
    public static func algorithm(ofListName path: String) -> HashAlgorithm? {
        let name = splitPath(path).name.lowercased()
        for part in name.split(separator: ".").reversed() {
            var token = part[...]
            for suffix in ["sums", "sum"] where token.hasSuffix(suffix) && token.count > suffix.count {
                token = token.dropLast(suffix.count)
                break
            }
            if let named = HashAlgorithm(tag: token), named != .adler32 { return named }
        }
        return nil
    }

    /// The algorithm `path`'s name says its values are, when gcdcat does not compute it
    /// (`x.bin.crc32c` by `rhash --crc32c`, `B3SUMS`, `*.xxh128`); nil otherwise. Its lines must
    /// not be read by their length as another algorithm's (a crc32c list as crc32).
    public static func unreadAlgorithm(ofListName path: String) -> String? {
        let name = splitPath(path).name.lowercased()
        for part in name.split(separator: ".").reversed() {
            var token = part.filter { $0 != "-" && $0 != "_" }[...]
            for suffix in ["sums", "sum"] where token.hasSuffix(suffix) && token.count > suffix.count {
                token = token.dropLast(suffix.count)
                break
            }
            if unreadAlgorithms.contains(String(token)) {
                return ["b3": "blake3", "xxh": "xxhash", "blake2s256": "blake2s"][String(token)] ?? String(token)
            }
            if HashAlgorithm(tag: token) != nil { return nil }
        }
        return nil
    }

    /// Algorithms that checksum tools write lists of and gcdcat does not compute, by the names
    /// those lists carry.
    static let unreadAlgorithms: Set<String> = [
        "crc32c", "crc64", "b3", "blake3", "blake2s", "blake2s256", "xxh", "xxh32", "xxh64", "xxh128", "xxh3",
        "tiger", "whirlpool", "ripemd160", "gost", "gost12", "sm3", "edonr256", "edonr512", "has160", "snefru",
        "ed2k", "aich", "tth", "btih",
    ]

    /// One line per algorithm that was guessed from a length, for standard error:
    /// "128 hex digits, sha512 assumed; use --algorithm blake2b or --algorithm sha3-512 if it is
    /// another".
    public var guessNotes: [String] {
        var notes: [String] = []
        var said = Set<HashAlgorithm>()
        for entry in entries where entry.guessed && said.insert(entry.algorithm).inserted {
            notes.append(Self.guessNote(entry.algorithm))
        }
        return notes
    }

    static func guessNote(_ algorithm: HashAlgorithm) -> String {
        let others = algorithm.alternatives.map { "--algorithm \($0.rawValue)" }
        return "\(algorithm.hexLength) hex digits, \(algorithm.rawValue) assumed"
            + (others.isEmpty
                ? " (the list has no tags and its name names no algorithm)"
                : "; use \(others.joined(separator: " or ")) if it is another")
    }

    /// Parses list bytes; `path` names the list in errors, and its file name may name the
    /// algorithm (``algorithm(ofListName:)``). `forced` is the algorithm of every untagged line
    /// (and must match every tagged one). Names are decoded losslessly with
    /// ``PathName/decode(_:)`` and compared as bytes (`café` in NFC and in NFD are two files);
    /// a UTF-8 byte-order mark at the head is skipped.
    ///
    /// ## Errors
    /// `.malformedManifest` naming the line: a line of no known shape, a tag gcdcat does not know,
    /// a digest whose length does not fit its algorithm, a NUL, a name listed twice for one
    /// algorithm (`a.txt` and `./a.txt` are one name); or a list with no entries.
    public static func parse(bytes: [UInt8], path: String, forced: HashAlgorithm? = nil) throws -> ChecksumList {
        var parser = ChecksumLineParser(path: path, forced: forced)
        var entries: [Entry] = []
        try ListLines.forEach(in: bytes) { line, number in
            if let entry = try parser.entry(line, number: number) { entries.append(entry) }
        }
        try parser.finish()
        return ChecksumList(entries: entries)
    }

    /// Reads and parses the list at `path`; `-` reads standard input.
    ///
    /// ## Errors
    /// `.io` when it cannot be read, `.invalidInput` when it is not a regular file (a directory),
    /// and the errors of ``parse(bytes:path:forced:)``.
    public static func load(_ path: String, forced: HashAlgorithm? = nil) throws -> ChecksumList {
        let source = try ChecksumListSource(path)
        var parser = ChecksumLineParser(path: source.shown, forced: forced)
        parser.existing = existsBeside(listPath: source.namesRelativeTo)
        var entries: [Entry] = []
        try source.forEachLine { line, number in
            if let entry = try parser.entry(line, number: number) { entries.append(entry) }
        }
        try parser.finish()
        return ChecksumList(entries: entries)
    }

    /// Reads the list at `path` as `verify` reads it: a malformed line is skipped, and its error
    /// (naming the line) returned with the first 100 of the others, and their count.
    ///
    /// ## Errors
    /// Those of ``load(_:forced:)`` for a list with no valid line, or a name listed twice.
    static func loadSkippingMalformed(_ path: String, forced: HashAlgorithm? = nil) throws -> (
        list: ChecksumList, malformed: [GCDCatError], malformedCount: Int
    ) {
        var listedTwice = false
        return try loadSkippingMalformed(path, forced: forced, listedTwice: &listedTwice)
    }

    /// ``loadSkippingMalformed(_:forced:)``, with `listedTwice` set when what it throws is the
    /// refusal of a name listed twice with another value (``ChecksumLineParser/refusedListedTwice``).
    static func loadSkippingMalformed(_ path: String, forced: HashAlgorithm? = nil, listedTwice: inout Bool) throws
        -> (list: ChecksumList, malformed: [GCDCatError], malformedCount: Int)
    {
        let source = try ChecksumListSource(path)
        var parser = ChecksumLineParser(path: source.shown, forced: forced)
        parser.existing = existsBeside(listPath: source.namesRelativeTo)
        parser.skipsMalformedLines = true
        parser.givesUpOnText = false
        var entries: [Entry] = []
        defer { listedTwice = parser.refusedListedTwice }
        try source.forEachLine { line, number in
            if let entry = try parser.entry(line, number: number) { entries.append(entry) }
        }
        try parser.finish()
        return (ChecksumList(entries: entries), parser.malformed, parser.malformedCount)
    }

    /// The algorithm of a GNU line's `digits`-digit value: `forced`, else the list's `named` one
    /// when its length fits, else the one of that length (`guessed`). `--algorithm blake2b` and a
    /// list named for BLAKE2b take each value's length as its BLAKE2b length, as `b2sum -c` does.
    static func gnuAlgorithm(
        digits: Int, forced: HashAlgorithm?, named: HashAlgorithm?, guessed: inout Bool,
        malformed: (String) -> GCDCatError
    ) throws -> HashAlgorithm {
        let blake2bList = forced.map { $0 == .blake2b } ?? named?.isBLAKE2b ?? false
        if blake2bList, let sized = HashAlgorithm.blake2b(bits: digits * 4) { return sized }
        if let forced { return forced }
        if let named, named.hexLength == digits { return named }
        guard let assumed = HashAlgorithm(hexLength: digits) else {
            throw malformed("no algorithm has a \(digits)-digit value")
        }
        guessed = true
        return assumed
    }

    /// The digit count of a line shaped `HEX  NAME` or `HEX *NAME` (16 digits or more) whose
    /// length is no algorithm's; nil for any other line.
    static func unknownLengthDigits(_ line: String) -> Int? {
        let hex = line.utf8.prefix { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
        let rest = line.utf8.dropFirst(hex.count)
        guard hex.count >= 16, rest.starts(with: "  ".utf8) || rest.starts(with: " *".utf8),
            HashAlgorithm(hexLength: hex.count) == nil
        else { return nil }
        return hex.count
    }

    static func parseLine(
        _ decoded: String, number: Int, forced: HashAlgorithm?, named: HashAlgorithm? = nil,
        malformed: (String) -> GCDCatError, existing: ((String) -> Bool)? = nil
    ) throws -> Entry {
        let sfv = sfvFields(decoded)
        // `--algorithm blake2b-256` wants that length only (``gnuAlgorithm``).
        let blake2bShaped = forced?.isBLAKE2b ?? named?.isBLAKE2b ?? false
        if let parsed = TaggedOrGNULine(decoded, sfvShaped: sfv != nil, blake2bLengths: blake2bShaped) {
            let algorithm: HashAlgorithm
            let format: ChecksumLineFormat
            var guessed = false
            switch parsed.shape {
            case .gnu:
                format = .gnu
                algorithm = try gnuAlgorithm(
                    digits: parsed.hex.count, forced: forced, named: named, guessed: &guessed, malformed: malformed)
            case .bsd(let tag, let tagged):
                format = .bsd
                guard let tagged else {
                    let known = HashAlgorithm.allCases.map(\.tag).joined(separator: ", ")
                    throw malformed("\(tag.displayPath) is not an algorithm gcdcat knows (\(known))")
                }
                if let forced, forced != tagged, !(forced == .blake2b && tagged.isBLAKE2b) {
                    throw malformed("tagged \(tagged.tag), not the \(forced.rawValue) asked for")
                }
                algorithm = tagged
            }
            guard parsed.hex.count == algorithm.hexLength else {
                let tag = if case .bsd(let tag, _) = parsed.shape { tag } else { String?.none }
                throw malformed(
                    wrongLength(digits: parsed.hex.count, algorithm: algorithm, forced: forced, tag: tag))
            }
            var entry = Entry(
                name: parsed.name, algorithm: algorithm, expected: parsed.hex, line: number, format: format)
            entry.guessed = guessed
            return entry
        }
        // `HEX  NAME` with a value of a length no algorithm gcdcat reads has (`rhash --tiger`'s
        // 48 digits): said so, not read as an SFV line whose CRC32 is the name.
        if let digits = unknownLengthDigits(decoded) {
            throw malformed(
                "\(digits) hex digits before the name: no algorithm gcdcat reads has a value of that length (a list of "
                    + "another tool's, such as rhash --tiger?)")
        }
        // A list whose name (or --algorithm) says its algorithm: a line of no shape is said as
        // not one of its lines, not as a bad CRC32.
        if let listAlgorithm = forced ?? named, listAlgorithm.checksum != .crc32,
            (try? sfvEntry(decoded, malformed: malformed)) == nil
        {
            throw malformed(
                "'\(String(decoded.trimmingSpaces.prefix(40)).displayPath)' is not a \(listAlgorithm.rawValue) line "
                    + "('HEX  NAME' or '\(listAlgorithm.tag) (NAME) = HEX')")
        }
        guard let (name, hex) = try sfvEntry(decoded, malformed: malformed, existing: existing) else {
            throw malformed("expected 'NAME CRC32', found no CRC")
        }
        let algorithm = forced ?? .crc32
        guard algorithm.hexLength == 8 else {
            throw malformed(wrongLength(digits: 8, algorithm: algorithm, forced: forced, tag: nil))
        }
        return Entry(name: name, algorithm: algorithm, expected: hex, line: number, format: .sfv)
    }

    /// Why a `digits`-digit value cannot be `algorithm`'s, and the fix: the length says which
    /// algorithm the value is, so a forced one that does not fit is named with the one that does
    /// (`--algorithm md5` over SHA256SUMS). A BSD `tag` that does not fit its value is a bad line.
    static func wrongLength(digits: Int, algorithm: HashAlgorithm, forced: HashAlgorithm?, tag: String?) -> String {
        let count = "\(digits) hex digit\(digits == 1 ? "" : "s")"
        if let tag { return "tagged \(tag.displayPath), but its value has \(count), not \(algorithm.hexLength)" }
        let mismatch = "the value has \(count), but \(algorithm.rawValue) values have \(algorithm.hexLength)"
        guard let forced else { return mismatch }
        let blake2b = forced.isBLAKE2b ? HashAlgorithm.blake2b(bits: digits * 4) : nil
        guard let fitting = HashAlgorithm(hexLength: digits) ?? blake2b else {
            return mismatch + "; no algorithm has \(digits)-digit values: is the line cut short?"
        }
        // --algorithm blake2b reads every BLAKE2b length.
        let fix = fitting.isBLAKE2b ? HashAlgorithm.blake2b.rawValue : fitting.rawValue
        return mismatch + "; \(digits) digits fit \(fitting.rawValue): drop --algorithm \(forced.rawValue), "
            + "or use --algorithm \(fix)"
    }

    /// The name and 8-digit value of an SFV line, when it is one.
    static func sfvFields(_ decoded: String) -> (name: String, hex: String)? {
        try? sfvEntry(decoded) { GCDCatError(.malformedManifest, message: $0) }
    }

    /// An SFV line's name and value; nil when it has no blank at all; the SFV errors otherwise.
    /// ``Manifest`` reads its lines with this too: one SFV reader.
    ///
    /// `existing` says whether a listed name is a file beside the list: where the name as cksfv
    /// reads it (``untrimmedSFVName(_:)``) is one, that one, even with the trimmed look-alike
    /// beside it: `trail  EFDCC385` is cksfv's line for `trail `, and checking `trail` instead
    /// called a corrupt `trail ` OK.
    static func sfvEntry(
        _ decoded: String, malformed: (String) -> GCDCatError, existing: ((String) -> Bool)? = nil
    ) throws -> (name: String, hex: String)? {
        let escaped = decoded.hasPrefix("\\") ? EscapedLine(decoded) : nil
        let line = escaped?.text ?? decoded.trimmingSpaces
        guard let split = line.lastIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        let hex = line[line.index(after: split)...]
        guard hex.count == 8, UInt32(hex, radix: 16) != nil, hex.allSatisfy(\.isHexDigit) else {
            throw malformed("'\(String(hex.prefix(40)).displayPath)' is not a CRC32 of 8 hex digits")
        }
        var name = escaped?.name ?? NameEscaping.entryName(reading: line[..<split].trimmingSpaces)
        if escaped == nil, let existing, let untrimmed = untrimmedSFVName(decoded), untrimmed != name,
            existing(untrimmed)
        {
            name = untrimmed
        }
        guard !name.isEmpty else { throw malformed("no file name before the CRC") }
        return (name, hex.lowercased())
    }

    /// An SFV line's name as cksfv reads it: all before the last blank, as it is (` lead`,
    /// `trail `, which gcdcat's trimmed reading makes `lead` and `trail`); the line's end (a CR,
    /// blanks after the CRC) is trimmed first. Nil for a line with no blank.
    static func untrimmedSFVName(_ decoded: String) -> String? {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        guard let last = decoded.lastIndex(where: { !isBlank($0) && $0 != "\r" && $0 != "\n" }),
            let split = decoded[...last].lastIndex(where: isBlank)
        else { return nil }
        return NameEscaping.entryName(reading: String(decoded[..<split]))
    }

    /// Whether `name`, as a list at `listPath` names it (`-`: the current folder), is there; a
    /// name never opened (absolute, `..`) is not.
    static func existsBeside(listPath: String) -> (String) -> Bool {
        { name in
            guard Manifest.rejection(for: name) == nil else { return false }
            return (try? Syscall.statIfExists(ChecksumListVerifier.resolve(name, listPath: listPath))) != nil
        }
    }
}

/// The OpenPGP clear-signature wrapping of a signed list (Fedora's `CHECKSUM`, many
/// `SHA256SUMS.asc`): its header, its `Hash:` lines and its signature block are not entries.
/// gcdcat does not check the signature; `gpg --verify` does.
struct SignatureArmor {
    private var inHeader = false
    private var inSignature = false

    /// Inside the header or the signature block, where lines are read by ``skips(_:)`` alone.
    var isActive: Bool { inHeader || inSignature }

    /// Whether `line` (trimmed) belongs to the wrapping rather than the list.
    mutating func skips(_ line: String) -> Bool {
        if line == "-----BEGIN PGP SIGNED MESSAGE-----" {
            inHeader = true
            return true
        }
        if inHeader {
            if line.isEmpty || !line.hasPrefix("Hash:") { inHeader = false }
            return line.hasPrefix("Hash:")
        }
        if line == "-----BEGIN PGP SIGNATURE-----" { inSignature = true }
        if inSignature {
            if line == "-----END PGP SIGNATURE-----" { inSignature = false }
            return true
        }
        return false
    }
}
