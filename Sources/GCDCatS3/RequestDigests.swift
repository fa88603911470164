import COpenSSL
import GCDCatSystem

/// The one-shot digests the client needs, over OpenSSL's libcrypto: SHA-256 and HMAC-SHA256
/// for SigV4, and MD5 for ETags (a PutObject's ETag is its body's MD5; a multipart one is the
/// MD5 of its parts' MD5s).
///
/// libcrypto is already linked for the md5/sha digests, so signing adds no package (see
/// docs/notes/s3.md, "Client").
package enum RequestDigests {
    package static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        digest(bytes, EVP_sha256(), length: 32)
    }

    package static func md5(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        digest(bytes, EVP_md5(), length: 16)
    }

    private static func digest(_ bytes: UnsafeRawBufferPointer, _ method: OpaquePointer?, length: Int) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        var empty: UInt8 = 0
        withUnsafeMutablePointer(to: &empty) { emptyPointer in
            let base = bytes.baseAddress ?? UnsafeRawPointer(emptyPointer)
            _ = EVP_Digest(base, bytes.count, &digest, &written, method, nil)
        }
        return digest
    }

    package static func sha256<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        Array(bytes).withUnsafeBytes { sha256($0) }
    }

    package static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                var empty: UInt8 = 0
                withUnsafeMutablePointer(to: &empty) { emptyPointer in
                    _ = HMAC(
                        EVP_sha256(), keyBytes.baseAddress ?? UnsafeRawPointer(emptyPointer), Int32(key.count),
                        messageBytes.baseAddress ?? UnsafePointer(emptyPointer), message.count, &mac, &length)
                }
            }
        }
        return mac
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
