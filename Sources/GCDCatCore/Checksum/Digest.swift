import CBlake2
import COpenSSL
import GCDCatSystem

/// The cryptographic digests that download sites publish (`SHA256SUMS`, `MD5SUMS`, `B2SUMS`, …).
///
/// ``allCases`` holds the fixed-length ones; BLAKE2b of another length is ``blake2bBits(_:)``.
public enum DigestAlgorithm: Hashable, CaseIterable, Sendable, NamedByRawValue {
    case md5
    case sha1
    case sha224
    case sha256
    case sha384
    case sha512
    case sha3Bits224
    case sha3Bits256
    case sha3Bits384
    case sha3Bits512
    /// BLAKE2b-512, as `b2sum` computes it by default.
    case blake2b
    /// BLAKE2b of 8 to 504 bits, a multiple of 8, as `b2sum -l 256` computes it; made by
    /// ``blake2b(bits:)``, which keeps 512 as ``blake2b``.
    case blake2bBits(Int)

    public static let allCases: [DigestAlgorithm] = [
        .md5, .sha1, .sha224, .sha256, .sha384, .sha512, .sha3Bits224, .sha3Bits256, .sha3Bits384, .sha3Bits512,
        .blake2b,
    ]

    /// BLAKE2b of `bits`, a multiple of 8 from 8 to 512 (what `b2sum -l` accepts); nil otherwise.
    public static func blake2b(bits: Int) -> DigestAlgorithm? {
        guard bits >= 8, bits <= 512, bits % 8 == 0 else { return nil }
        return bits == 512 ? .blake2b : .blake2bBits(bits)
    }

    /// Whether this is BLAKE2b of any length.
    public var isBLAKE2b: Bool {
        switch self {
        case .blake2b, .blake2bBits: return true
        default: return false
        }
    }

    /// `md5`, `sha3-256`, `blake2b`, `blake2b-256`, … as the command line and reports name it.
    public var rawValue: String {
        switch self {
        case .md5: return "md5"
        case .sha1: return "sha1"
        case .sha224: return "sha224"
        case .sha256: return "sha256"
        case .sha384: return "sha384"
        case .sha512: return "sha512"
        case .sha3Bits224: return "sha3-224"
        case .sha3Bits256: return "sha3-256"
        case .sha3Bits384: return "sha3-384"
        case .sha3Bits512: return "sha3-512"
        case .blake2b: return "blake2b"
        case .blake2bBits(let bits): return "blake2b-\(bits)"
        }
    }

    public init?(rawValue: String) {
        if let named = Self.allCases.first(where: { $0.rawValue == rawValue }) {
            self = named
        } else if rawValue.hasPrefix("blake2b-"), let bits = Int(rawValue.dropFirst(8)),
            let sized = Self.blake2b(bits: bits)
        {
            self = sized
        } else {
            return nil
        }
    }

    /// The digest's length in bytes (its hex form is twice as long).
    public var byteCount: Int {
        switch self {
        case .md5: return 16
        case .sha1: return 20
        case .sha224, .sha3Bits224: return 28
        case .sha256, .sha3Bits256: return 32
        case .sha384, .sha3Bits384: return 48
        case .sha512, .sha3Bits512, .blake2b: return 64
        case .blake2bBits(let bits): return bits / 8
        }
    }

    /// The algorithm assumed for a hex digest of `hexLength` digits, as `sha256sum -c` lists
    /// imply it (md5, sha1 and sha2 only; see ``HashAlgorithm/init(hexLength:)``).
    public init?(hexLength: Int) {
        guard let assumed = HashAlgorithm(hexLength: hexLength)?.digest else { return nil }
        self = assumed
    }

    /// OpenSSL's name for it, as `EVP_MD_fetch` takes it; nil for BLAKE2b of another length
    /// than 512 bits, which OpenSSL 3.0 cannot compute (see CBlake2).
    fileprivate var openSSLName: String? {
        switch self {
        case .md5: return "MD5"
        case .sha1: return "SHA1"
        case .sha224: return "SHA2-224"
        case .sha256: return "SHA2-256"
        case .sha384: return "SHA2-384"
        case .sha512: return "SHA2-512"
        case .sha3Bits224: return "SHA3-224"
        case .sha3Bits256: return "SHA3-256"
        case .sha3Bits384: return "SHA3-384"
        case .sha3Bits512: return "SHA3-512"
        case .blake2b: return "BLAKE2B-512"
        case .blake2bBits: return nil
        }
    }

    /// The method, fetched from the default provider once per algorithm and kept: an implicit
    /// fetch (`EVP_sha256()` given to `EVP_DigestInit_ex`) looks it up again, under a lock, for
    /// every file (its share of verifying many small files was not measured on its own).
    fileprivate var method: OpaquePointer? {
        Self.allCases.firstIndex(of: self).flatMap { Self.methods[$0].pointer }
    }

    private static let methods: [FetchedMethod] = allCases.map {
        FetchedMethod($0.openSSLName.flatMap { EVP_MD_fetch(nil, $0, nil) })
    }
}

/// An `EVP_MD` fetched once and never freed (it lives as long as the process).
private struct FetchedMethod: @unchecked Sendable {
    let pointer: OpaquePointer?
    init(_ pointer: OpaquePointer?) { self.pointer = pointer }
}

/// A running md5/sha/BLAKE2b digest.
///
/// ## Implementation details
/// libcrypto, linked as a system library like zlib, uses the CPU's SHA extensions; measured
/// against swift-crypto and `sha256sum` in the README ("Digest speed"). BLAKE2b of another length
/// than 512 bits is CBlake2's (OpenSSL 3.0 cannot set BLAKE2b's length). The state is owned by
/// this non-copyable value and freed when it goes away.
public struct Digester: ~Copyable {
    public let algorithm: DigestAlgorithm
    private let engine: Engine

    private enum Engine {
        case openSSL(OpaquePointer)
        case blake2b(UnsafeMutablePointer<gcdcat_blake2b_state>)
    }

    /// ## Errors
    /// `.io` (ENOMEM) when OpenSSL cannot allocate or start the digest, as under a tight
    /// `ulimit -v`.
    public init(_ algorithm: DigestAlgorithm) throws(GCDCatError) {
        self.algorithm = algorithm
        if case .blake2bBits(let bits) = algorithm {
            let state = UnsafeMutablePointer<gcdcat_blake2b_state>.allocate(capacity: 1)
            guard gcdcat_blake2b_init(state, bits / 8) == 0 else {
                state.deallocate()
                throw GCDCatError(.invalidInput, message: "BLAKE2b cannot have \(bits) bits")
            }
            engine = .blake2b(state)
            return
        }
        guard let context = EVP_MD_CTX_new() else {
            throw GCDCatError(.io, syscall: "EVP_MD_CTX_new", errno: ENOMEM, message: describeErrno(ENOMEM))
        }
        guard let method = algorithm.method, EVP_DigestInit_ex(context, method, nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw GCDCatError(
                .io, syscall: "EVP_DigestInit_ex", message: "OpenSSL could not start a \(algorithm.rawValue) digest")
        }
        engine = .openSSL(context)
    }

    deinit {
        switch engine {
        case .openSSL(let context): EVP_MD_CTX_free(context)
        case .blake2b(let state): state.deallocate()
        }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        switch engine {
        case .openSSL(let context): EVP_DigestUpdate(context, base, bytes.count)
        case .blake2b(let state): gcdcat_blake2b_update(state, base, bytes.count)
        }
    }

    public mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        Array(bytes).withUnsafeBytes { update($0) }
    }

    /// The digest of every byte given so far, as lowercase hex.
    public consuming func finalize() -> String {
        finalizeAndRestart()
    }

    /// The digest of every byte given so far, as lowercase hex; the context then starts afresh
    /// for the next file, so a thread checking many files sets one up once.
    public mutating func finalizeAndRestart() -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { digest in
            var length: UInt32 = 0
            switch engine {
            case .openSSL(let context):
                EVP_DigestFinal_ex(context, digest.baseAddress, &length)
                // Same method, same context: no allocation, no provider lookup.
                EVP_DigestInit_ex(context, algorithm.method, nil)
            case .blake2b(let state):
                gcdcat_blake2b_final(state, digest.baseAddress)
                length = UInt32(algorithm.byteCount)
                _ = gcdcat_blake2b_init(state, algorithm.byteCount)  // the length init accepted at first
            }
            return String(unsafeUninitializedCapacity: Int(length) * 2) { hex in
                for index in 0..<Int(length) {
                    hex[2 * index] = Self.hexDigits[Int(digest[index] >> 4)]
                    hex[2 * index + 1] = Self.hexDigits[Int(digest[index] & 0xF)]
                }
                return Int(length) * 2
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

#if canImport(Glibc)
    import Glibc
#endif
