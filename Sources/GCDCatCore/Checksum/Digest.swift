import COpenSSL

/// The cryptographic digests that download sites publish (`SHA256SUMS`, `MD5SUMS`, …).
public enum DigestAlgorithm: String, CaseIterable, Sendable, Codable {
    case md5
    case sha1
    case sha256
    case sha512

    /// The digest's length in bytes (its hex form is twice as long).
    public var byteCount: Int {
        switch self {
        case .md5: return 16
        case .sha1: return 20
        case .sha256: return 32
        case .sha512: return 64
        }
    }

    /// The algorithm whose hex digest has `hexLength` digits, as `sha256sum -c` lists imply.
    public init?(hexLength: Int) {
        guard let match = Self.allCases.first(where: { $0.byteCount * 2 == hexLength }) else { return nil }
        self = match
    }

    fileprivate var evp: OpaquePointer? {
        switch self {
        case .md5: return EVP_md5()
        case .sha1: return EVP_sha1()
        case .sha256: return EVP_sha256()
        case .sha512: return EVP_sha512()
        }
    }
}

/// A running md5/sha digest over OpenSSL's libcrypto.
///
/// ## Implementation details
/// libcrypto, linked as a system library like zlib, uses the CPU's SHA extensions; measured
/// against swift-crypto and `sha256sum` in the README ("Digest speed"). The context is owned
/// by this non-copyable value and freed when it goes away.
public struct Digester: ~Copyable {
    public let algorithm: DigestAlgorithm
    private let context: OpaquePointer

    /// ## Errors
    /// `.io` (ENOMEM) when OpenSSL cannot allocate or start the digest, as under a tight
    /// `ulimit -v`.
    public init(_ algorithm: DigestAlgorithm) throws(GCDCatError) {
        self.algorithm = algorithm
        guard let context = EVP_MD_CTX_new() else {
            throw GCDCatError(.io, syscall: "EVP_MD_CTX_new", errno: ENOMEM, message: describeErrno(ENOMEM))
        }
        guard EVP_DigestInit_ex(context, algorithm.evp, nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw GCDCatError(
                .io, syscall: "EVP_DigestInit_ex", message: "OpenSSL could not start a \(algorithm) digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        Array(bytes).withUnsafeBytes { update($0) }
    }

    /// The digest of every byte given so far, as lowercase hex.
    public consuming func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest.prefix(Int(length)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }
}

#if canImport(Glibc)
    import Glibc
#endif
