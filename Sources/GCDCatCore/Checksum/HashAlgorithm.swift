/// Every checksum gcdcat computes: zlib's crc32 and adler32, and the md5/sha/sha3/BLAKE2b
/// digests that download sites publish (``DigestAlgorithm``, whose cases are not repeated
/// here). One name for the command line, manifests and reports.
///
/// Its ``rawValue`` is that name (`sha256`, `sha3-256`, `blake2b`, `blake2b-256`). ``allCases``
/// holds the fixed-length algorithms; BLAKE2b of another length than 512 bits, as `b2sum -l N`
/// computes it, is ``blake2bBits(_:)``, made by ``blake2b(bits:)``.
public enum HashAlgorithm: Hashable, CaseIterable, Sendable, NamedByRawValue {
    case crc32
    case adler32
    /// A cryptographic digest: `.md5`, `.sha256`, `.blake2b`, … name them below.
    case digest(DigestAlgorithm)

    public static let allCases: [HashAlgorithm] = [.crc32, .adler32] + DigestAlgorithm.allCases.map(digest)

    // The digests by their own names, so that `.sha256` reads as it does for DigestAlgorithm.
    public static let md5 = digest(.md5)
    public static let sha1 = digest(.sha1)
    public static let sha224 = digest(.sha224)
    public static let sha256 = digest(.sha256)
    public static let sha384 = digest(.sha384)
    public static let sha512 = digest(.sha512)
    public static let sha3Bits224 = digest(.sha3Bits224)
    public static let sha3Bits256 = digest(.sha3Bits256)
    public static let sha3Bits384 = digest(.sha3Bits384)
    public static let sha3Bits512 = digest(.sha3Bits512)
    /// BLAKE2b-512, `b2sum`'s default.
    public static let blake2b = digest(.blake2b)
    /// BLAKE2b of 8 to 504 bits, a multiple of 8 (`b2sum -l 256`); 512 is ``blake2b``.
    public static func blake2bBits(_ bits: Int) -> HashAlgorithm { .digest(.blake2bBits(bits)) }

    /// BLAKE2b of `bits` (a multiple of 8 from 8 to 512), as `b2sum -l bits`; nil for another
    /// length.
    public static func blake2b(bits: Int) -> HashAlgorithm? {
        DigestAlgorithm.blake2b(bits: bits).map(HashAlgorithm.init)
    }

    public var rawValue: String {
        switch self {
        case .crc32: return "crc32"
        case .adler32: return "adler32"
        case .digest(let digest): return digest.rawValue
        }
    }

    /// `crc32`, `sha3-256`, `blake2b`, `blake2b-256`, …; `blake2b-512` is `blake2b`.
    public init?(rawValue: String) {
        if let checksum = ChecksumAlgorithm(rawValue: rawValue) {
            self.init(checksum)
        } else if let digest = DigestAlgorithm(rawValue: rawValue) {
            self.init(digest)
        } else {
            return nil
        }
    }

    /// The zlib checksum this is, if it is one (these split one file across threads).
    public var checksum: ChecksumAlgorithm? {
        switch self {
        case .crc32: return .crc32
        case .adler32: return .adler32
        case .digest: return nil
        }
    }

    /// The cryptographic digest this is, if it is one.
    public var digest: DigestAlgorithm? {
        if case .digest(let digest) = self { digest } else { nil }
    }

    public init(_ checksum: ChecksumAlgorithm) {
        switch checksum {
        case .crc32: self = .crc32
        case .adler32: self = .adler32
        }
    }

    public init(_ digest: DigestAlgorithm) {
        self = .digest(digest)
    }

    /// Whether this is BLAKE2b of any length.
    public var isBLAKE2b: Bool { digest?.isBLAKE2b ?? false }

    /// Hex digits in a value: 8 for crc32 and adler32.
    public var hexLength: Int { digest.map { $0.byteCount * 2 } ?? 8 }

    /// The tag of a BSD-style line, as `sha256sum --tag`, `b2sum --tag` and `rhash --bsd`
    /// write it: `SHA256`, `SHA3-256`, `BLAKE2b`, and `BLAKE2b-256` as `b2sum -l 256 --tag`.
    public var tag: String {
        switch digest {
        case .blake2b: return "BLAKE2b"
        case .blake2bBits(let bits): return "BLAKE2b-\(bits)"
        default: return rawValue.uppercased()
        }
    }

    /// The algorithm a BSD tag (or a list's name, `sha256` of `SHA256SUMS`) names: `SHA256`,
    /// `sha-256` and `SHA2-256` are one, as are `BLAKE2b`, `BLAKE2B-512` and `b2`; `BLAKE2b-256`
    /// is BLAKE2b of 256 bits; nil when unknown.
    public init?(tag: Substring) {
        var name = tag.lowercased().filter { $0 != "-" && $0 != "_" }
        if name.hasPrefix("sha2") && name.count == 7 { name = "sha" + name.dropFirst(4) }  // sha2256 → sha256
        if name.hasPrefix("sha3") && name.count == 7 { name = "sha3-" + name.dropFirst(4) }  // sha3256 → sha3-256
        if ["b2", "blake2"].contains(name) { name = "blake2b" }
        if name.hasPrefix("blake2b"), let bits = Int(name.dropFirst(7)) {
            guard let sized = HashAlgorithm.blake2b(bits: bits) else { return nil }
            self = sized
            return
        }
        guard let match = HashAlgorithm(rawValue: name) else { return nil }
        self = match
    }

    /// The algorithm assumed for an untagged value of `hexLength` digits in a list whose name
    /// names none, as `sha256sum -c` lists imply it: 8 crc32, 32 md5, 40 sha1, 56 sha224,
    /// 64 sha256, 96 sha384, 128 sha512. A guess: see ``alternatives``.
    public init?(hexLength: Int) {
        switch hexLength {
        case 8: self = .crc32
        case 32: self = .md5
        case 40: self = .sha1
        case 56: self = .sha224
        case 64: self = .sha256
        case 96: self = .sha384
        case 128: self = .sha512
        default: return nil
        }
    }

    /// The other algorithms gcdcat knows whose values have as many hex digits as this one's: what
    /// a guess from the length may have mistaken (`sha512` for `blake2b`, `sha256` for
    /// `b2sum -l 256`'s `blake2b-256`), BLAKE2b first: b2sum's lists are the commoner.
    public var alternatives: [HashAlgorithm] {
        // From 224 bits, the SHA-2 lengths b2sum -l is used at; an MD5 or SHA-1 list stays quiet.
        let blake = hexLength == 128 ? HashAlgorithm.blake2b : hexLength >= 56 ? Self.blake2b(bits: hexLength * 4) : nil
        let others = Self.allCases.filter { $0 != self && $0 != blake && $0.hexLength == hexLength }
        return (blake.map { $0 == self ? [] : [$0] } ?? []) + others
    }
}
