import FoundationEssentials
import GCDCatSystem
import Glibc

/// An SSE-C key: 32 bytes the user keeps, sent (with its MD5, so S3 can check it arrived intact)
/// on every request that writes or reads the object's bytes; S3 stores only a salted hash of it.
public struct S3CustomerKey: Sendable, Equatable, CustomStringConvertible {
    /// The key in base64, as the header carries it.
    let base64Key: String
    /// The key's MD5 in base64.
    let base64KeyMD5: String

    public static let length = 32

    /// ## Errors
    /// `.invalidInput` when `key` is not 32 bytes.
    public init(key: [UInt8], source: String) throws(GCDCatError) {
        guard key.count == Self.length else {
            throw GCDCatError(
                .invalidInput, path: source, syscall: "read",
                message:
                    "an SSE-C key is \(Self.length) bytes; this file holds \(key.count) (make one with "
                    + "'head -c 32 /dev/urandom > FILE')")
        }
        base64Key = Data(key).base64EncodedString()
        base64KeyMD5 = Data(key.withUnsafeBytes { RequestDigests.md5($0) }).base64EncodedString()
    }

    /// The key in the file at `path`: exactly 32 raw bytes (read no further, so a device such as
    /// /dev/urandom given by mistake is refused, not read forever).
    ///
    /// ## Errors
    /// `open`/`read` failures naming `path`; `.invalidInput` for another length.
    public static func read(_ path: String) throws(GCDCatError) -> S3CustomerKey {
        let file = try OwnedDescriptor(opening: path, O_RDONLY)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length + 1, alignment: 1)
        defer { buffer.deallocate() }
        let count = try Syscall.read(file.raw, into: buffer.baseAddress!, count: buffer.count, path: path)
        let bytes = Array(buffer.prefix(count))
        guard count <= length else {
            throw GCDCatError(
                .invalidInput, path: path, syscall: "read",
                message:
                    "an SSE-C key is \(length) raw bytes; this file holds more (make one with "
                    + "'head -c 32 /dev/urandom > FILE')")
        }
        return try S3CustomerKey(key: bytes, source: path)
    }

    /// The three headers, each name `prefix` + `algorithm`, `key`, `key-md5`.
    func headers(prefix: String) -> [String: String] {
        [prefix + "algorithm": "AES256", prefix + "key": base64Key, prefix + "key-md5": base64KeyMD5]
    }

    /// Never the key itself.
    public var description: String { "S3CustomerKey(MD5 \(base64KeyMD5))" }
}
