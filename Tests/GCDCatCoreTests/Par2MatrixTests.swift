import Testing

@testable import GCDCatCore

/// Gauss-Jordan over GF(2^16) on the region kernels: A·A⁻¹ is the identity, singular matrices
/// have none, and a repair-sized system (PAR2's constants, 300 lost blocks) inverts.
@Suite struct Par2MatrixTests {
    static func product(_ a: [[UInt16]], _ b: [[UInt16]]) -> [[UInt16]] {
        a.map { row in
            (0..<b.count).map { column in
                row.indices.reduce(UInt16(0)) { $0 ^ GaloisField16.multiply(row[$1], b[$1][column]) }
            }
        }
    }

    static func identity(_ size: Int) -> [[UInt16]] {
        (0..<size).map { row in (0..<size).map { $0 == row ? 1 : 0 } }
    }

    @Test(arguments: [1, 2, 7, 40])
    func inverseTimesMatrixIsTheIdentity(size: Int) throws {
        // Seeded random entries: singular with odds of about 1 in 65 536, and these are not.
        let bytes = seededBytes(2 * size * size, seed: UInt64(size) + 300)
        let matrix = (0..<size).map { row in
            (0..<size).map { column in
                let at = 2 * (row * size + column)
                return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
            }
        }
        let inverse = try #require(Par2Matrix.inverse(matrix))
        #expect(Self.product(matrix, inverse) == Self.identity(size))
        #expect(Self.product(inverse, matrix) == Self.identity(size))
    }

    @Test func singularMatricesHaveNoInverse() {
        #expect(Par2Matrix.inverse([[1, 2], [1, 2]]) == nil)
        #expect(Par2Matrix.inverse([[0, 0, 0], [1, 2, 3], [4, 5, 6]]) == nil)
        #expect(Par2Matrix.inverse([[0]]) == nil)
    }

    /// The system a repair of 300 lost blocks solves: rows are recovery exponents, columns the
    /// lost blocks' constants (PAR2 picks them so that this is never singular).
    @Test func repairSystemOfThreeHundredBlocksInverts() throws {
        let constants = Par2SliceConstants.constants(count: 600)
        let lost = Array(stride(from: 1, to: 600, by: 2))
        let matrix = (0..<300).map { exponent in lost.map { GaloisField16.power(constants[$0], exponent) } }
        let inverse = try #require(Par2Matrix.inverse(matrix))
        let check = Self.product(Array(matrix.prefix(3)), inverse)
        #expect(check == Array(Self.identity(300).prefix(3)))
    }
}
