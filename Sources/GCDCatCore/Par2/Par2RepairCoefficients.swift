/// The coefficients that multiply good input slices into a repair's rebuilt slices.
///
/// Rebuilt slice m is Σ_j A⁻¹[m][j] · R_j + Σ_i (Σ_j A⁻¹[m][j] · c_i^e_j) · D_i over the good
/// slices D_i (see ``Par2Repairer``): each good slice needs one coefficient per output, a sum of
/// k products. Element by element in Swift, that is k² field operations a slice: a merge
/// rebuilding one 1 MiB part of a 5 MB set took 421 s in a debug build (an outside attack; such
/// a set here rebuilds 414 blocks of ~2.5 KB from ~1560 good ones). Here a run of r slices is one (k × k)·(k × r) product on the region
/// kernels, `gf16_muladd_matrix` over rows of r words: the same k²·r operations, vectorized,
/// the order of the inversion's k³.
struct Par2RepairCoefficients {
    /// Outputs: one per rebuilt slice.
    let count: Int
    /// A⁻¹ transposed: entry j·k + m is A⁻¹[m][j], the layout `gf16_muladd_matrix` reads.
    private let inverseByColumn: [UInt16]
    private let exponents: [Int]
    private let constants: [UInt16]

    /// `inverseByColumn` is A⁻¹ transposed (k × k, row by row), as ``Par2Matrix/invert(_:size:jobs:)``
    /// leaves the inverse of Aᵀ.
    init(inverseByColumn: [UInt16], exponents: [Int], constants: [UInt16]) {
        let count = exponents.count
        precondition(inverseByColumn.count == count * count)
        self.count = count
        self.inverseByColumn = inverseByColumn
        self.exponents = exponents
        self.constants = constants
    }

    /// Recovery slice j's coefficient for every output: column j of A⁻¹.
    func recoveryRow(_ j: Int) -> [UInt16] {
        Array(inverseByColumn[(j * count)..<((j + 1) * count)])
    }

    /// For the input slices `slices` (global indices), a row of ``count`` coefficients each,
    /// in the layout ``Par2SliceAccumulator/add(inputs:coefficients:fill:)`` takes.
    func rows(forSlices slices: Range<Int>) -> [UInt16] {
        let width = slices.count
        guard count > 0, width > 0 else { return [] }
        // powers row j: c_i^e_j for each slice i; products row m: Σ_j A⁻¹[m][j] · powers row j.
        var powers = [UInt16](repeating: 0, count: count * width)
        for (j, exponent) in exponents.enumerated() {
            for (column, slice) in slices.enumerated() {
                powers[j * width + column] = GaloisField16.power(constants[slice], exponent)
            }
        }
        var products = [UInt16](repeating: 0, count: count * width)
        products.withUnsafeMutableBytes { products in
            powers.withUnsafeBytes { powers in
                GaloisField16.multiplyAdd(
                    into: (0..<count).map { products.baseAddress! + $0 * width * 2 },
                    from: (0..<count).map { powers.baseAddress! + $0 * width * 2 },
                    coefficients: inverseByColumn, count: width * 2)
            }
        }
        var rows = [UInt16](repeating: 0, count: width * count)
        for m in 0..<count {
            for column in 0..<width { rows[column * count + m] = products[m * width + column] }
        }
        return rows
    }
}
