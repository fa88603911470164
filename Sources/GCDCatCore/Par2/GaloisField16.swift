/// GF(2^16) with PAR2 2.0's generator polynomial 0x1100B: the one place where gcdcat does field
/// arithmetic, so that the scalar bodies here can be swapped for the C kernels (`CGF16`'s
/// `gf16_muladd` and `gf16_muladd_multi`, same shapes) without touching the PAR2 code.
///
/// ## Implementation details
/// Scalar stand-ins: `log`/`exp` tables for single products, and for a region a pair of 256-entry
/// tables per coefficient (the products of the low and of the high byte), so each 16-bit word
/// costs two lookups and two XORs. Regions are little-endian 16-bit words, as PAR2 stores them.
public enum GaloisField16 {
    /// The order of the multiplicative group: 2^16 - 1 = 3 · 5 · 17 · 257.
    public static let order = 65535

    private static let tables: (log: [UInt16], exp: [UInt16]) = {
        var log = [UInt16](repeating: 0, count: 65536)
        var exp = [UInt16](repeating: 0, count: 65536)
        var value: UInt32 = 1
        for power in 0..<order {
            exp[power] = UInt16(value)
            log[Int(value)] = UInt16(power)
            value <<= 1
            if value & 0x10000 != 0 { value ^= 0x1100B }
        }
        exp[order] = exp[0]
        return (log, exp)
    }()

    /// 2 raised to `power` (taken modulo the group's order).
    public static func exp(_ power: Int) -> UInt16 { tables.exp[power % order] }

    public static func multiply(_ a: UInt16, _ b: UInt16) -> UInt16 {
        if a == 0 || b == 0 { return 0 }
        let sum = Int(tables.log[Int(a)]) + Int(tables.log[Int(b)])
        return tables.exp[sum >= order ? sum - order : sum]
    }

    /// The multiplicative inverse; nil for 0.
    public static func inverse(_ a: UInt16) -> UInt16? {
        if a == 0 { return nil }
        let log = Int(tables.log[Int(a)])
        return tables.exp[log == 0 ? 0 : order - log]
    }

    /// `base` raised to `exponent` (0^0 is 1).
    public static func power(_ base: UInt16, _ exponent: Int) -> UInt16 {
        if exponent == 0 { return 1 }
        if base == 0 { return 0 }
        let log = Int(tables.log[Int(base)]) * (exponent % order) % order
        return tables.exp[log]
    }

    /// `destination[i] ^= coefficient · source[i]` over `count` bytes (a multiple of 2).
    public static func multiplyAdd(
        into destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int,
        coefficient: UInt16
    ) {
        multiplyAdd(into: [destination], coefficients: [coefficient], from: source, count: count)
    }

    /// `destinations[k][i] ^= coefficients[k] · source[i]` for every k, reading `source` once per
    /// stretch of words: several outputs per load of input.
    public static func multiplyAdd(
        into destinations: [UnsafeMutableRawPointer], coefficients: [UInt16], from source: UnsafeRawPointer,
        count: Int
    ) {
        precondition(destinations.count == coefficients.count && count % 2 == 0)
        let words = count / 2
        let input = source.assumingMemoryBound(to: UInt16.self)
        let stretch = 2048  // words per pass: a stretch stays in L1 while every output takes it
        var tables = [UInt16](repeating: 0, count: 512 * coefficients.count)
        for (index, coefficient) in coefficients.enumerated() { fill(&tables, at: index * 512, coefficient) }
        tables.withUnsafeBufferPointer { products in
            var start = 0
            while start < words {
                let end = min(start + stretch, words)
                for (output, destination) in destinations.enumerated() where coefficients[output] != 0 {
                    let low = products.baseAddress! + output * 512
                    let high = low + 256
                    let target = destination.assumingMemoryBound(to: UInt16.self)
                    for index in start..<end {
                        let word = UInt16(littleEndian: input[index])
                        let product = low[Int(word & 0xFF)] ^ high[Int(word >> 8)]
                        target[index] ^= product.littleEndian
                    }
                }
                start = end
            }
        }
    }

    /// The products of `coefficient` with every low byte (first 256) and every high byte.
    private static func fill(_ table: inout [UInt16], at offset: Int, _ coefficient: UInt16) {
        for byte in 0..<256 {
            table[offset + byte] = multiply(coefficient, UInt16(byte))
            table[offset + 256 + byte] = multiply(coefficient, UInt16(byte) << 8)
        }
    }
}
