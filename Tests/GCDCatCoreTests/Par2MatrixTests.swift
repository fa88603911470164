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

    /// `matrix` inverted in place on `jobs` cores, as rows again; nil when singular.
    static func inverse(_ matrix: [[UInt16]], jobs: Int = 1) -> [[UInt16]]? {
        let size = matrix.count
        var entries = matrix.flatMap { $0 }
        guard Par2Matrix.invert(&entries, size: size, jobs: jobs) else { return nil }
        return (0..<size).map { Array(entries[($0 * size)..<(($0 + 1) * size)]) }
    }

    /// Sizes past the one where the rows are shared among threads (724² > 2^19), on 1 and 2 cores.
    @Test(arguments: [(1, 1), (2, 1), (7, 1), (40, 2), (725, 2)])
    func inverseTimesMatrixIsTheIdentity(size: Int, jobs: Int) throws {
        // Seeded random entries: singular with odds of about 1 in 65 536, and these are not.
        let bytes = seededBytes(2 * size * size, seed: UInt64(size) + 300)
        let matrix = (0..<size).map { row in
            (0..<size).map { column in
                let at = 2 * (row * size + column)
                return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
            }
        }
        let inverse = try #require(Self.inverse(matrix, jobs: jobs))
        // The full products are n³ scalar steps: for the large size, a few rows of each.
        let rows = min(size, 8)
        #expect(Self.product(Array(matrix.prefix(rows)), inverse) == Array(Self.identity(size).prefix(rows)))
        #expect(Self.product(Array(inverse.suffix(rows)), matrix) == Array(Self.identity(size).suffix(rows)))
    }

    @Test func singularMatricesHaveNoInverse() {
        #expect(Self.inverse([[1, 2], [1, 2]]) == nil)
        #expect(Self.inverse([[0, 0, 0], [1, 2, 3], [4, 5, 6]]) == nil)
        #expect(Self.inverse([[0]]) == nil)
        // A zero pivot that a row swap mends: the swaps are undone in the inverse's columns.
        let swapped: [[UInt16]] = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
        #expect(Self.inverse(swapped) == [[0, 0, 1], [1, 0, 0], [0, 1, 0]])
    }

    /// The system a repair of 300 lost blocks solves: rows are recovery exponents, columns the
    /// lost blocks' constants (PAR2 picks them so that this is never singular).
    @Test func repairSystemOfThreeHundredBlocksInverts() throws {
        let constants = Par2SliceConstants.constants(count: 600)
        let lost = Array(stride(from: 1, to: 600, by: 2))
        let matrix = (0..<300).map { exponent in lost.map { GaloisField16.power(constants[$0], exponent) } }
        let inverse = try #require(Self.inverse(matrix))
        let check = Self.product(Array(matrix.prefix(3)), inverse)
        #expect(check == Array(Self.identity(300).prefix(3)))
    }
}
