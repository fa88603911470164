/// Every checksum gcdcat computes: zlib's crc32 and adler32, and the md5/sha digests that
/// download sites publish. One name for the command line, manifests and reports.
public enum HashAlgorithm: String, CaseIterable, Sendable, Codable {
    case crc32
    case adler32
    case md5
    case sha1
    case sha256
    case sha512

    /// The zlib checksum this is, if it is one (these split one file across threads).
    public var checksum: ChecksumAlgorithm? { ChecksumAlgorithm(rawValue: rawValue) }

    /// The cryptographic digest this is, if it is one.
    public var digest: DigestAlgorithm? { DigestAlgorithm(rawValue: rawValue) }

    public init(_ checksum: ChecksumAlgorithm) { self = HashAlgorithm(rawValue: checksum.rawValue)! }

    public init(_ digest: DigestAlgorithm) { self = HashAlgorithm(rawValue: digest.rawValue)! }

    /// Hex digits in a value: 8 for crc32 and adler32.
    public var hexLength: Int { digest.map { $0.byteCount * 2 } ?? 8 }

    /// The tag of a BSD-style line, as `sha256sum --tag` and `rhash --bsd` write it: `SHA256`.
    public var tag: String { rawValue.uppercased() }

    /// The algorithm a BSD tag names: `SHA256`, `sha-256` and `SHA2-256` are one; nil when unknown.
    public init?(tag: Substring) {
        var name = tag.lowercased().filter { $0 != "-" }
        if name.hasPrefix("sha2") && name.count == 7 { name = "sha" + name.dropFirst(4) }  // sha2256 → sha256
        guard let match = HashAlgorithm(rawValue: name) else { return nil }
        self = match
    }

    /// The digest a hex value of `hexLength` digits implies, as `sha256sum -c` lists imply it;
    /// 8 digits read as crc32 (adler32 needs `--algorithm`).
    public init?(hexLength: Int) {
        if hexLength == 8 {
            self = .crc32
        } else if let digest = DigestAlgorithm(hexLength: hexLength) {
            self = HashAlgorithm(digest)
        } else {
            return nil
        }
    }
}
