import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a checksum list one line at a time, as bytes: the one reader of SFV, GNU and BSD
/// lines (``ChecksumList/parse(bytes:path:forced:)`` collects its entries; `verify` streams
/// them through ``StreamingListVerifier``; ``Manifest`` reads SFV lines with ``sfvEntry(_:malformed:)``).
///
/// ## Implementation details
/// The everyday lines, `HEX  NAME` (`HEX *NAME`) with a digest longer than 8 digits and an
/// SFV `NAME CRC32` of printable ASCII, are taken apart on their bytes, with no `String` but
/// the entry's own name and value. Every other line (a comment, a BSD tag, an escaped name,
/// leading blanks, the PGP armor, an error) goes through ``ChecksumList/parseLine`` on its
/// lossless decoding, so messages and edge cases have one implementation. The fast shapes
/// are exactly those the slow path reads the same way (see ``fastGNU(_:)``, ``fastSFV(_:)``).
struct ChecksumLineParser {
    /// The list's name in errors.
    let path: String
    let forced: HashAlgorithm?
    /// What the list's file name says untagged lines are (``ChecksumList/algorithm(ofListName:)``).
    let named: HashAlgorithm?
    private var armor = SignatureArmor()
    /// A `; gcdcat-whole: 0 …` comment was seen: the list of an empty file's split.
    private(set) var emptyWhole = false
    /// Entries read so far.
    private(set) var count = 0
    /// Algorithms assumed from a length, in the order first seen (for ``ChecksumList/guessNotes``).
    private(set) var guessed: [HashAlgorithm] = []
    /// How names listed twice are found.
    enum DuplicateCheck {
        /// Every name's first line is kept (16 bytes and a line number each): a list read whole.
        case exact
        /// Names go through a ``NameSieve`` of fixed size; none is refused, and those that may
        /// repeat are ``candidates`` for an `.among` pass: a list streamed.
        case sieve
        /// `.exact`, for the names whose ``NameKey/first`` is one of these only.
        case among(Set<UInt64>)
        /// None: a list already checked.
        case none
    }

    private let duplicates: DuplicateCheck
    /// A malformed line is counted and skipped, not thrown (`verify`, as `sha256sum -c` reads a
    /// list with a bad line); a name listed twice is still thrown.
    var skipsMalformedLines = false
    /// Whether a listed name is a file beside the list: an SFV line whose name starts or ends
    /// with a blank is read as cksfv reads it when that file is there
    /// (``ChecksumList/sfvEntry(_:malformed:existing:)``). Nil reads names trimmed.
    var existing: ((String) -> Bool)?
    /// Malformed lines skipped so far.
    private(set) var malformedCount = 0
    /// Whether as many bad lines as are kept, before any entry, end the reading as a file that
    /// is no list. A merge reads a list it found by its name, and not larger than it loads, to
    /// the end: release notes atop a `SHA256SUMS` must not hide its lines.
    var givesUpOnText = true
    /// The errors of the first ``keptMalformed`` lines skipped.
    private(set) var malformed: [GCDCatError] = []
    /// The last malformed line's error.
    private(set) var lastMalformed: GCDCatError?
    static let keptMalformed = 100

    /// Set when ``entry(_:number:)`` refused the list for giving one name two values: a list
    /// gcdcat reads, yet cannot trust, unlike one in an algorithm it does not compute.
    private(set) var refusedListedTwice = false
    /// Each name's first line and value, by a 128-bit digest of its algorithm and normalized
    /// bytes (``NameKey``), instead of the name: a line that repeats another whole
    /// (`sha256sum a b >> SUMS` run twice) says nothing new, as `sha256sum -c` reads it, and is
    /// skipped; one that gives the name another value is refused.
    private var seen = FirstLines()
    private var sieve: NameSieve?

    init(path: String, forced: HashAlgorithm?, duplicates: DuplicateCheck = .exact) {
        self.path = path
        self.forced = forced
        self.duplicates = duplicates
        if case .sieve = duplicates { sieve = NameSieve() }
        named = forced == nil ? ChecksumList.algorithm(ofListName: path) : nil
        unread = forced == nil ? ChecksumList.unreadAlgorithm(ofListName: path) : nil
    }

    /// The algorithm the list's name says, when gcdcat does not compute it
    /// (``ChecksumList/unreadAlgorithm(ofListName:)``): an untagged value is not guessed by its
    /// length then.
    let unread: String?

    /// With `.sieve`: the names (their ``NameKey/first``) that may have been listed twice so far.
    var candidates: Set<UInt64> { sieve?.candidates ?? [] }

    /// The entry on `line` (without its line end), or nil for a blank line, a comment or the
    /// armor of a signed list.
    ///
    /// ## Errors
    /// Those of ``ChecksumList/parse(bytes:path:forced:)`` for this line; with
    /// ``skipsMalformedLines``, only a name listed twice.
    mutating func entry(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws -> ChecksumList.Entry? {
        let found: (entry: ChecksumList.Entry, earlier: (line: Int, sameValue: Bool)?)?
        do {
            found = try parse(line, number: number)
        } catch let error as GCDCatError where skipsMalformedLines {
            malformedCount += 1
            lastMalformed = error
            if malformed.count < Self.keptMalformed { malformed.append(error) }
            // A file that is no list (an ISO given as one) is refused without reading it all:
            // a NUL before any entry, or as many bad lines as are kept and no entry, says so.
            let binary = Self.holdsNUL(line)
            if count == 0 && (binary || (givesUpOnText && malformedCount == Self.keptMalformed)) { throw malformed[0] }
            return nil
        }
        guard let (entry, earlier) = found else { return nil }
        if entry.guessed, let unread {
            throw GCDCatError(
                .malformedManifest, path: path,
                message:
                    "line \(number): the list's name says \(unread), an algorithm gcdcat does not compute; check it "
                    + "with the tool that wrote it (or give --algorithm if the name is wrong)")
        }
        if entry.guessed && !guessed.contains(entry.algorithm) { guessed.append(entry.algorithm) }
        if let earlier {
            if earlier.sameValue { return nil }
            refusedListedTwice = true
            throw GCDCatError(
                .malformedManifest, path: path,
                message:
                    "line \(number): '\(entry.name.displayPath)' is listed twice, with another value (first on line "
                    + "\(earlier.line))")
        }
        count += 1
        return entry
    }

    /// The entry on `line` and the line that listed its name before, if any; nil for a blank
    /// line, a comment or the armor.
    private mutating func parse(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws -> (
        entry: ChecksumList.Entry, earlier: (line: Int, sameValue: Bool)?
    )? {
        let path = path  // not self: slowEntry mutates self meanwhile
        func malformed(_ why: String) -> GCDCatError {
            GCDCatError(.malformedManifest, path: path, message: "line \(number): \(why)")
        }
        if Self.holdsNUL(line) { throw malformed(Self.nulByte) }
        if !armor.isActive, let (fast, name) = try fastEntry(line, number: number, malformed: malformed) {
            return (fast, firstLine(of: name, algorithm: fast.algorithm, value: fast.expected, number: number))
        }
        guard let slow = try slowEntry(line, number: number, malformed: malformed) else { return nil }
        if case .none = duplicates { return (slow, nil) }
        let earlier = PathName.bytes(of: slow.name).withUnsafeBufferPointer {
            firstLine(of: $0, algorithm: slow.algorithm, value: slow.expected, number: number)
        }
        return (slow, earlier)
    }

    /// The line that listed `name` for `algorithm` before line `number`, as ``duplicates`` finds it.
    private mutating func firstLine(
        of name: UnsafeBufferPointer<UInt8>, algorithm: HashAlgorithm, value: String, number: Int
    ) -> (line: Int, sameValue: Bool)? {
        switch duplicates {
        case .none: return nil
        case .sieve:
            sieve?.insert(NameKey.hash(algorithm, name, seed: 1))
            return nil
        case .among(let firsts) where !firsts.contains(NameKey.hash(algorithm, name, seed: 1)): return nil
        case .exact, .among: return seen.insert(NameKey(algorithm, name), line: number, value: value.hashValue)
        }
    }

    /// Whether `line` holds a NUL byte, which no line of a list does (a file that is no list
    /// does): refused as ``nulByte`` by SFV manifests and checksum lists alike.
    static func holdsNUL(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.baseAddress.map { memchr($0, 0, line.count) != nil } ?? false
    }

    static let nulByte = "contains a NUL byte"

    /// Throws when the list held no entry (and is not an empty file's manifest): its first
    /// malformed line's error when it had one, so a file that is no list is refused as one.
    func finish() throws {
        guard count > 0 || emptyWhole else {
            throw malformed.first
                ?? GCDCatError(.malformedManifest, path: path, message: Manifest.noEntries)
        }
    }

    /// Any line, through its lossless decoding.
    private mutating func slowEntry(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, malformed: (String) -> GCDCatError
    ) throws -> ChecksumList.Entry? {
        let decoded = PathName.decode(line)
        let trimmed = decoded.trimmingSpaces
        if trimmed.isEmpty { return nil }
        if trimmed.hasPrefix(";") {
            if let whole = Manifest.parseWhole(trimmed), whole.size == 0 { emptyWhole = true }
            return nil
        }
        if armor.skips(trimmed) { return nil }
        // `#` comments, as in Fedora's CHECKSUM files; an SFV line of a `#name` stays a line.
        if trimmed.hasPrefix("#") && ChecksumList.sfvFields(decoded) == nil { return nil }
        return try ChecksumList.parseLine(
            decoded, number: number, forced: forced, named: named, malformed: malformed, existing: existing)
    }

    /// An everyday GNU or SFV line, on its bytes, and its name's bytes; nil for any other shape.
    private func fastEntry(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, malformed: (String) -> GCDCatError
    ) throws -> (ChecksumList.Entry, UnsafeBufferPointer<UInt8>)? {
        if let (digits, nameStart) = Self.fastGNU(line) {
            let hex = lowercaseString(line[0..<digits])
            var guessed = false
            let algorithm = try ChecksumList.gnuAlgorithm(
                digits: digits, forced: forced, named: named, guessed: &guessed, malformed: malformed)
            guard digits == algorithm.hexLength else {
                throw malformed(
                    ChecksumList.wrongLength(digits: digits, algorithm: algorithm, forced: forced, tag: nil))
            }
            let name = UnsafeBufferPointer(rebasing: line[nameStart...])
            let entry = ChecksumList.Entry(
                name: Self.decode(name), algorithm: algorithm, lowercaseExpected: hex, line: number,
                format: .gnu, rejection: Manifest.rejection(of: name), guessed: guessed)
            return (entry, name)
        }
        guard Self.fastSFV(line) else { return nil }
        let algorithm = forced ?? .crc32
        guard algorithm.hexLength == 8 else {
            throw malformed(ChecksumList.wrongLength(digits: 8, algorithm: algorithm, forced: forced, tag: nil))
        }
        let name = UnsafeBufferPointer(rebasing: line[0..<(line.count - 9)])
        let entry = ChecksumList.Entry(
            name: String(decoding: name, as: UTF8.self), algorithm: algorithm,
            lowercaseExpected: lowercaseString(line[(line.count - 8)...]), line: number, format: .sfv,
            rejection: Manifest.rejection(of: name), guessed: false)
        return (entry, name)
    }

    /// `HEX  NAME` or `HEX *NAME` with a digest of a GNU length over 8 digits, no leading blank
    /// or `\`, and a name that starts with an ASCII byte other than `(` (which a BSD line, or a
    /// combining mark after the separator, would make another line): the digest's length and
    /// where the name starts.
    static func fastGNU(_ line: UnsafeBufferPointer<UInt8>) -> (digits: Int, nameStart: Int)? {
        let digits = line.prefix(while: isHexDigit).count
        guard digits > 8, Self.isGNULength(digits), line.count > digits + 2,
            line[digits] == 0x20, line[digits + 1] == 0x20 || line[digits + 1] == 0x2A
        else { return nil }
        let first = line[digits + 2]
        guard first < 0x80, first != 0x28 else { return nil }
        return (digits, digits + 2)
    }

    /// `NAME CRC32` in printable ASCII: one space before 8 hex digits, a name that neither
    /// starts nor ends with a blank nor starts with `;`, `#` or `\`, holds no `(` (a BSD line),
    /// and does not start like a GNU line (a long digest and a space).
    static func fastSFV(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = line.count
        guard count >= 10, line[count - 9] == 0x20, line[count - 10] != 0x20 else { return false }
        guard line[(count - 8)...].allSatisfy(isHexDigit) else { return false }
        guard line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x28 }) else { return false }
        let first = line[0]
        guard first != 0x20, first != 0x3B, first != 0x23, first != 0x5C else { return false }
        let digits = line.prefix(while: isHexDigit).count
        return !(digits > 8 && Self.isGNULength(digits) && line[digits] == 0x20)
    }

    /// ``PathName/decode(_:)``, with an ASCII name (most) decoded here, where the compiler sees
    /// the buffer's type: through the generic call each byte went by witness tables.
    private static func decode(_ name: UnsafeBufferPointer<UInt8>) -> String {
        var ascii = true
        for byte in name where byte >= 0x80 {
            ascii = false
            break
        }
        return ascii ? String(decoding: name, as: UTF8.self) : PathName.decode(name)
    }

    /// ``TaggedOrGNULine/gnuLengths`` as a switch: a `Set` hashes every line's length.
    private static func isGNULength(_ digits: Int) -> Bool {
        switch digits {
        case 8, 32, 40, 56, 64, 96, 128: return true
        default: return false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }

    /// ASCII hex digits as a lowercase `String`.
    private func lowercaseString(_ hex: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(unsafeUninitializedCapacity: hex.count) { out in
            for (index, byte) in hex.enumerated() { out[index] = (0x41...0x46).contains(byte) ? byte | 0x20 : byte }
            return hex.count
        }
    }
}

/// Each name's first line in a list and the value it was listed with (a hash), by its
/// ``NameKey``: the one table an SFV manifest (``Manifest/parse(bytes:path:)``) and a checksum
/// list (``ChecksumLineParser``) find a name listed twice with.
struct FirstLines {
    private var lines: [NameKey: (line: Int, value: Int)] = [:]

    /// Records `key` as listed on line `number` with `value`, unless listed before: then the
    /// line that listed it first, and whether it gave the same value.
    mutating func insert(_ key: NameKey, line number: Int, value: Int) -> (line: Int, sameValue: Bool)? {
        if let earlier = lines[key] { return (earlier.line, earlier.value == value) }
        lines[key] = (number, value)
        return nil
    }
}

/// A listed name's identity for "listed twice", in 16 bytes: two independently seeded 64-bit
/// hashes (SipHash, the process's seed) of its algorithm and its bytes with empty and `.`
/// components removed (`./a.txt` is `a.txt`). Bytes, not a `String`: Swift's `==` holds
/// `café` in NFC and in NFD equal, two files to the kernel. Two distinct names collide with a
/// chance of about n²/2¹²⁹: never, for any list that fits in 64 MiB.
struct NameKey: Hashable, Sendable {
    let first: UInt64
    let second: UInt64

    init(_ algorithm: HashAlgorithm?, _ name: UnsafeBufferPointer<UInt8>) {
        first = Self.hash(algorithm, name, seed: 1)
        second = Self.hash(algorithm, name, seed: 2)
    }

    /// One of the two hashes: ``first`` is seed 1 (what a ``NameSieve`` takes), ``second`` seed 2.
    static func hash(_ algorithm: HashAlgorithm?, _ name: UnsafeBufferPointer<UInt8>, seed: UInt8) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(seed)
        if let algorithm { hasher.combine(algorithm) }
        var separator = false
        var start = 0
        // The components between slashes, but for empty and `.` ones, without an array of them.
        for end in 0...name.count where end == name.count || name[end] == 0x2F {
            defer { start = end + 1 }
            let length = end - start
            guard length > 0, !(length == 1 && name[start] == 0x2E) else { continue }
            if separator { hasher.combine(UInt8(0x2F)) }
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: name[start..<end])))
            separator = true
        }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
