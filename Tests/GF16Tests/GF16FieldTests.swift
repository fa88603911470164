import CGF16
import Testing

/// gf16_mul, gf16_inv and gf16_pow (the Reed-Solomon matrix math) against GF-Complete.
@Suite struct GF16FieldTests {
    @Test func mulMatchesGFCompleteOnWholeRowsAndRandomPairs() throws {
        let oracle = try Oracle()
        for a: UInt16 in [0, 1, 2, 3, 0x100B, 0x8000, 0xFFFF] {
            for b in 0...UInt16.max where gf16_mul(a, b) != oracle.mul(a, b) || gf16_mul(b, a) != oracle.mul(a, b) {
                Issue.record("gf16_mul(\(a), \(b)) = \(gf16_mul(a, b)), GF-Complete says \(oracle.mul(a, b))")
                return
            }
        }
        var generator = SeededGenerator(seed: 16)
        for _ in 0..<5000 {
            let a = UInt16.random(in: 0...UInt16.max, using: &generator)
            let b = UInt16.random(in: 0...UInt16.max, using: &generator)
            #expect(gf16_mul(a, b) == oracle.mul(a, b), "gf16_mul(\(a), \(b))")
        }
    }

    @Test func inverseTimesValueIsOneForEveryNonZeroValue() throws {
        let oracle = try Oracle()
        for a in 1...UInt16.max {
            let inverse = gf16_inv(a)
            if oracle.mul(a, inverse) != 1 || gf16_mul(inverse, a) != 1 {
                Issue.record("gf16_inv(\(a)) = \(inverse), and \(a)·\(inverse) = \(oracle.mul(a, inverse))")
                return
            }
        }
        #expect(gf16_inv(0) == 0)
    }

    @Test func powMatchesRepeatedSquaringWithGFComplete() throws {
        let oracle = try Oracle()
        func reference(_ a: UInt16, _ e: UInt32) -> UInt16 {
            var result: UInt16 = 1
            var base = a
            var exponent = e
            while exponent > 0 {
                if exponent & 1 == 1 { result = oracle.mul(result, base) }
                base = oracle.mul(base, base)
                exponent >>= 1
            }
            return result
        }
        var generator = SeededGenerator(seed: 17)
        let exponents: [UInt32] = [0, 1, 2, 15, 16, 65534, 65535, 65536, 131_071, .max]
        let bases: [UInt16] =
            [0, 1, 2, 0x8000, 0xFFFF] + (0..<20).map { _ in .random(in: 2...UInt16.max, using: &generator) }
        for a in bases {
            for e in exponents + (0..<20).map({ _ in UInt32.random(in: 0...UInt32.max, using: &generator) }) {
                #expect(gf16_pow(a, e) == reference(a, e), "gf16_pow(\(a), \(e))")
            }
        }
    }

    /// PAR2's recovery constants are powers of 2, which must reach all 65535 non-zero values.
    @Test func twoGeneratesTheWholeMultiplicativeGroup() {
        var seen = [Bool](repeating: false, count: 65536)
        for e in UInt32(0)..<65535 { seen[Int(gf16_pow(2, e))] = true }
        #expect(!seen[0] && seen[1...].allSatisfy { $0 })
    }

    /// Checks the gfni kernel's matrices on every CPU: gf16_affine_byte does in C what
    /// gf2p8affineqb does, and Intel's identity matrix 0x0102040810204080 anchors its layout.
    @Test func gfniMatricesMultiplyLikeTheField() throws {
        let oracle = try Oracle()
        for x in 0...UInt8.max { #expect(gf16_affine_byte(0x0102_0408_1020_4080, x) == x) }
        var generator = SeededGenerator(seed: 18)
        let constants: [UInt16] =
            [0, 1, 2, 0x8000, 0xFFFF] + (0..<200).map { _ in .random(in: 0...UInt16.max, using: &generator) }
        for c in constants {
            var m: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &m) {
                gf16_gfni_matrices(c, $0.baseAddress!.assumingMemoryBound(to: UInt64.self))
            }
            for _ in 0..<64 {
                let x = UInt16.random(in: 0...UInt16.max, using: &generator)
                let low = UInt8(truncatingIfNeeded: x), high = UInt8(x >> 8)
                let productLow = gf16_affine_byte(m.0, low) ^ gf16_affine_byte(m.1, high)
                let productHigh = gf16_affine_byte(m.2, low) ^ gf16_affine_byte(m.3, high)
                #expect(UInt16(productHigh) << 8 | UInt16(productLow) == oracle.mul(c, x), "c=\(c) x=\(x)")
            }
        }
    }
}
