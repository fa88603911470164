import COpenSSL

/// A 16-byte MD5 value as PAR2 stores it: packet hashes, the recovery set id, file ids and
/// file and slice hashes.
///
/// Ordered as par2cmdline orders file ids in the main packet (and so the input slices): as a
/// little-endian 128-bit number, byte 15 first.
public struct Par2Hash: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16)
        self.bytes = Array(bytes)
    }

    public static func < (a: Par2Hash, b: Par2Hash) -> Bool {
        for index in stride(from: 15, through: 0, by: -1) where a.bytes[index] != b.bytes[index] {
            return a.bytes[index] < b.bytes[index]
        }
        return false
    }

    public var description: String { bytes.map { hexByte($0) }.joined() }

    /// The MD5 of `bytes`.
    public static func md5(_ bytes: UnsafeRawBufferPointer) -> Par2Hash {
        let stream = MD5Stream()
        stream.update(bytes)
        return stream.finalize()
    }

    public static func md5(_ bytes: [UInt8]) -> Par2Hash {
        bytes.withUnsafeBytes { md5($0) }
    }
}

private func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

/// A running MD5 over OpenSSL's libcrypto, giving the 16 raw bytes PAR2 compares.
public final class MD5Stream {
    private let context: OpaquePointer

    public init() {
        // An MD5 context holds a few hundred bytes; failing to get them is failing to get memory.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, md5Method.pointer, nil) == 1 else {
            fatalError("OpenSSL could not start an MD5 digest (out of memory)")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public func finalize() -> Par2Hash {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return Par2Hash(digest.prefix(16))
    }
}

/// MD5's method, fetched once (an implicit fetch per context takes a lock every time).
private let md5Method = FetchedMD5(EVP_MD_fetch(nil, "MD5", nil))

private struct FetchedMD5: @unchecked Sendable {
    let pointer: OpaquePointer?
    init(_ pointer: OpaquePointer?) { self.pointer = pointer }
}
