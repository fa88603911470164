/// Every checksum gcdcat computes: zlib's crc32 and adler32, and the md5/sha/sha3/BLAKE2b
/// digests that download sites publish. One name for the command line, manifests and reports.
public enum HashAlgorithm: String, CaseIterable, Sendable, Codable {
    case crc32
    case adler32
    case md5
    case sha1
    case sha224
    case sha256
    case sha384
    case sha512
    case sha3Bits224 = "sha3-224"
    case sha3Bits256 = "sha3-256"
    case sha3Bits384 = "sha3-384"
    case sha3Bits512 = "sha3-512"
    /// BLAKE2b-512, `b2sum`'s default.
    case blake2b

    /// The zlib checksum this is, if it is one (these split one file across threads).
    public var checksum: ChecksumAlgorithm? { ChecksumAlgorithm(rawValue: rawValue) }

    /// The cryptographic digest this is, if it is one.
    public var digest: DigestAlgorithm? { DigestAlgorithm(rawValue: rawValue) }

    public init(_ checksum: ChecksumAlgorithm) { self = HashAlgorithm(rawValue: checksum.rawValue)! }

    public init(_ digest: DigestAlgorithm) { self = HashAlgorithm(rawValue: digest.rawValue)! }

    /// Hex digits in a value: 8 for crc32 and adler32.
    public var hexLength: Int { digest.map { $0.byteCount * 2 } ?? 8 }

    /// The tag of a BSD-style line, as `sha256sum --tag`, `b2sum --tag` and `rhash --bsd`
    /// write it: `SHA256`, `SHA3-256`, `BLAKE2b`.
    public var tag: String {
        switch self {
        case .blake2b: return "BLAKE2b"
        default: return rawValue.uppercased()
        }
    }

    /// The algorithm a BSD tag (or a list's name, `sha256` of `SHA256SUMS`) names: `SHA256`,
    /// `sha-256` and `SHA2-256` are one, as are `BLAKE2b`, `BLAKE2B-512` and `b2`; nil when unknown.
    public init?(tag: Substring) {
        var name = tag.lowercased().filter { $0 != "-" && $0 != "_" }
        if name.hasPrefix("sha2") && name.count == 7 { name = "sha" + name.dropFirst(4) }  // sha2256 → sha256
        if name.hasPrefix("sha3") && name.count == 7 { name = "sha3-" + name.dropFirst(4) }  // sha3256 → sha3-256
        if ["b2", "blake2", "blake2b512"].contains(name) { name = "blake2b" }
        guard let match = HashAlgorithm(rawValue: name) else { return nil }
        self = match
    }

    /// The digest length in bits a BLAKE2b tag names when it is not 512, as `b2sum -l 256 --tag`
    /// writes `BLAKE2b-256`; nil for any other tag. gcdcat computes BLAKE2b-512 only (OpenSSL 3.0's
    /// libcrypto has no other length), so such a list is refused with this length named.
    public static func otherBLAKE2bLength(tag: Substring) -> Int? {
        let name = tag.lowercased().filter { $0 != "-" && $0 != "_" }
        guard name.hasPrefix("blake2b"), let bits = Int(name.dropFirst(7)), bits != 512 else { return nil }
        return bits
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
    /// a guess from the length may have mistaken (`sha512` for `blake2b`), the commoner first.
    public var alternatives: [HashAlgorithm] {
        let others = Self.allCases.filter { $0 != self && $0.hexLength == hexLength }
        return others.filter { $0 == .blake2b } + others.filter { $0 != .blake2b }
    }
}
