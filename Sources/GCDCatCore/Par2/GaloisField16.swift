import CGF16

/// GF(2^16) with PAR2 2.0's generator polynomial 0x1100B: the one place where the PAR2 code
/// reaches field arithmetic, which `CGF16` does (scalar, AVX2, AVX-512BW or GFNI kernels, picked
/// by CPUID at first use; `GCDCAT_GF16_KERNEL` forces one).
///
/// Regions are little-endian 16-bit words, as PAR2 stores them.
public enum GaloisField16 {
    /// The order of the multiplicative group: 2^16 - 1 = 3 · 5 · 17 · 257.
    public static let order = 65535

    /// 2 raised to `power` (taken modulo the group's order).
    public static func exp(_ power: Int) -> UInt16 { gf16_pow(2, UInt32(power % order)) }

    public static func multiply(_ a: UInt16, _ b: UInt16) -> UInt16 { gf16_mul(a, b) }

    /// The multiplicative inverse; nil for 0.
    public static func inverse(_ a: UInt16) -> UInt16? { a == 0 ? nil : gf16_inv(a) }

    /// `base` raised to `exponent` (0^0 is 1).
    public static func power(_ base: UInt16, _ exponent: Int) -> UInt16 {
        gf16_pow(base, UInt32(exponent % order))
    }

    /// The kernel the region multiplies run ("avx2", …), for reports.
    public static var kernelName: String { String(cString: gf16_kernel_name()) }

    /// `destination[i] ^= coefficient · source[i]` over `count` bytes (a multiple of 2).
    public static func multiplyAdd(
        into destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int,
        coefficient: UInt16
    ) {
        precondition(count % 2 == 0)
        gf16_muladd(
            destination.assumingMemoryBound(to: UInt8.self), source.assumingMemoryBound(to: UInt8.self), count,
            coefficient)
    }

    /// `destinations[k][i] ^= coefficients[k] · source[i]` for every k: the kernel loads each
    /// stretch of `source` once for several outputs.
    public static func multiplyAdd(
        into destinations: [UnsafeMutableRawPointer], coefficients: [UInt16], from source: UnsafeRawPointer,
        count: Int
    ) {
        precondition(destinations.count == coefficients.count && count % 2 == 0)
        var outputs = destinations.map { Optional($0.assumingMemoryBound(to: UInt8.self)) }
        outputs.withUnsafeMutableBufferPointer { outputs in
            coefficients.withUnsafeBufferPointer { coefficients in
                gf16_muladd_multi(
                    outputs.baseAddress, coefficients.baseAddress, coefficients.count,
                    source.assumingMemoryBound(to: UInt8.self), count)
            }
        }
    }

    /// `destinations[k][i] ^= Σ_j coefficients[j · destinations.count + k] · sources[j][i]`: a
    /// batch of inputs into every output, tile by tile, so the outputs stay in cache while all
    /// the inputs go through them (the kernels' `gf16_muladd_matrix`).
    static func multiplyAdd(
        into destinations: [UnsafeMutableRawPointer], from sources: [UnsafeRawPointer], coefficients: [UInt16],
        count: Int
    ) {
        precondition(coefficients.count == destinations.count * sources.count && count % 2 == 0)
        let outputs = destinations.map { Optional($0.assumingMemoryBound(to: UInt8.self)) }
        let inputs = sources.map { Optional($0.assumingMemoryBound(to: UInt8.self)) }
        gf16_muladd_matrix(outputs, outputs.count, inputs, inputs.count, coefficients, count)
    }
}
