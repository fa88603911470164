import CIsal
import FoundationEssentials

/// CRC-32C (Castagnoli, the iSCSI polynomial 0x1EDC6F41, reflected, initial and final value
/// all ones): the checksum S3 keeps as `x-amz-checksum-crc32c`. CRC32C("123456789") is
/// 0xE3069283.
///
/// ISA-L's `crc32_iscsi` takes and returns the register without the final inversion, so a
/// value is `~crc32_iscsi(bytes, ~previous)`; it takes an `int` length, hence the slices.
public enum CRC32C {
    /// The CRC-32C of `bytes`, continuing from `previous` (the CRC of what came before them).
    public static func of(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        var register = ~previous
        var offset = 0
        while offset < bytes.count {
            let length = min(bytes.count - offset, 1 << 30)
            let start = UnsafeMutablePointer(
                mutating: bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self))
            register = crc32_iscsi(start, Int32(length), register)
            offset += length
        }
        return ~register
    }

    /// The CRC-32C of A followed by B, from A's CRC, B's CRC and B's length, without the bytes
    /// (zlib's `crc32_combine` method: multiply A's CRC by x^(8·length) modulo the polynomial).
    /// This is how the CRC of a whole object follows from its parts' CRCs.
    public static func combine(_ first: UInt32, _ second: UInt32, secondLength: UInt64) -> UInt32 {
        multiplyModP(xToThe8N(secondLength), first) ^ second
    }

    /// `x-amz-checksum-crc32c`'s form: the four big-endian bytes in base64.
    public static func base64(_ value: UInt32) -> String {
        Data([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
            .base64EncodedString()
    }

    /// A value in `x-amz-checksum-crc32c`'s form; nil for anything else, including a composite
    /// (`…-N`), which is a checksum of the parts' checksums, not of the bytes.
    public static func parse(base64 text: String) -> UInt32? {
        guard !text.contains("-"), let bytes = Data(base64Encoded: text), bytes.count == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The reflected polynomial.
    private static let polynomial: UInt32 = 0x82F6_3B78

    /// a·b modulo the polynomial, both reflected (bit 31 is x^0).
    private static func multiplyModP(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var mask: UInt32 = 1 << 31
        var product: UInt32 = 0
        var b = b
        while mask != 0 {
            if a & mask != 0 { product ^= b }
            mask >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
        return product
    }

    /// x^(2^k) modulo the polynomial, for k = 0..<32 (x^(2^k) repeats with period dividing 2^32 − 1).
    private static let powersOfTwo: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 32)
        table[0] = 1 << 30  // x^1
        for k in 1..<32 { table[k] = multiplyModP(table[k - 1], table[k - 1]) }
        return table
    }()

    /// x^(8·n) modulo the polynomial: n zero bytes appended.
    private static func xToThe8N(_ n: UInt64) -> UInt32 {
        var power: UInt32 = 1 << 31  // x^0
        var n = n
        var k = 3
        while n != 0 {
            if n & 1 != 0 { power = multiplyModP(powersOfTwo[k & 31], power) }
            n >>= 1
            k += 1
        }
        return power
    }
}
