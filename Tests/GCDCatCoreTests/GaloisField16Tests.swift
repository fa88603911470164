import Testing

@testable import GCDCatCore

@Suite struct GaloisField16Tests {
    /// Multiplication by shift-and-reduce with 0x1100B: the definition the tables must agree with.
    static func slowMultiply(_ a: UInt16, _ b: UInt16) -> UInt16 {
        var product: UInt32 = 0
        var a = UInt32(a)
        var b = b
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            a <<= 1
            if a & 0x10000 != 0 { a ^= 0x1100B }
            b >>= 1
        }
        return UInt16(product)
    }

    @Test func productsMatchShiftAndReduce() {
        var state: UInt32 = 1
        for _ in 0..<20000 {
            state = state &* 1_103_515_245 &+ 12345
            let a = UInt16(truncatingIfNeeded: state >> 8)
            let b = UInt16(truncatingIfNeeded: state >> 16 ^ state)
            #expect(GaloisField16.multiply(a, b) == Self.slowMultiply(a, b))
        }
        #expect(GaloisField16.multiply(0x8000, 2) == 0x100B)
    }

    @Test func inversesAndPowers() {
        for a in stride(from: 1, through: 65535, by: 97) {
            let value = UInt16(a)
            #expect(GaloisField16.multiply(value, GaloisField16.inverse(value)!) == 1)
            #expect(
                GaloisField16.power(value, 3) == GaloisField16.multiply(value, GaloisField16.multiply(value, value)))
        }
        #expect(GaloisField16.inverse(0) == nil)
        #expect(GaloisField16.power(0, 0) == 1)
        #expect(GaloisField16.exp(65535) == 1)
    }

    @Test func regionMultiplyAddMatchesWordByWord() {
        let words = 5000
        let source = seededBytes(words * 2, seed: 7)
        let coefficients: [UInt16] = [0, 1, 2, 0x1234, 0xFFFF]
        var expected = coefficients.map { _ in seededBytes(words * 2, seed: 8) }
        var single = expected
        var multi = expected
        for (k, coefficient) in coefficients.enumerated() {
            for index in 0..<words {
                let word = UInt16(source[2 * index]) | UInt16(source[2 * index + 1]) << 8
                let product = Self.slowMultiply(word, coefficient)
                expected[k][2 * index] ^= UInt8(product & 0xFF)
                expected[k][2 * index + 1] ^= UInt8(product >> 8)
            }
            source.withUnsafeBytes { input in
                single[k].withUnsafeMutableBytes { output in
                    GaloisField16.multiplyAdd(
                        into: output.baseAddress!, from: input.baseAddress!, count: words * 2, coefficient: coefficient)
                }
            }
        }
        var flat = multi.flatMap { $0 }
        flat.withUnsafeMutableBytes { raw in
            source.withUnsafeBytes { input in
                GaloisField16.multiplyAdd(
                    into: (0..<coefficients.count).map { raw.baseAddress! + $0 * words * 2 },
                    coefficients: coefficients,
                    from: input.baseAddress!, count: words * 2)
            }
        }
        multi = (0..<coefficients.count).map { Array(flat[$0 * words * 2..<($0 + 1) * words * 2]) }
        #expect(single == expected)
        #expect(multi == expected)
    }

    @Test func sliceConstantsSkipExponentsSharingAFactorWith65535() {
        let constants = Par2SliceConstants.constants(count: 8)
        #expect(constants == [1, 2, 4, 7, 8, 11, 13, 14].map { GaloisField16.exp($0) })
        #expect(Set(Par2SliceConstants.constants(count: 32768)).count == 32768)
    }
}
