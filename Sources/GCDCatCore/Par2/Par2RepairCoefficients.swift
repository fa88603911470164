/// The coefficients that multiply a repair's inputs into its rebuilt slices.
///
/// Rebuilt slice m is Σ_j A⁻¹[m][j] · R_j + Σ_i (Σ_j A⁻¹[m][j] · c_i^e_j) · D_i over the
/// recovery slices R_j and the good slices D_i (see ``Par2Repairer``): each input needs one
/// coefficient per output. They come in two ways:
/// - **Any exponents** (``init(inverseByColumn:exponents:constants:)``): A⁻¹ from Gauss-Jordan
///   (k³), and a run of r good slices is one (k × k)·(k × r) product on the region kernels,
///   `gf16_muladd_matrix` over rows of r words. Element by element in Swift that took 421 s for
///   a merge rebuilding one 1 MiB part of a 5 MB set (a debug build; an outside attack).
/// - **Consecutive exponents** e₀ … e₀+k−1 (``consecutive(lost:firstExponent:constants:)``), the
///   usual case: A is a Vandermonde matrix times a diagonal, so both A⁻¹ and each good slice's
///   coefficients have closed forms (Lagrange's basis polynomials), k² and k per slice instead
///   of k³ and k² per slice. An outside test's 8,219 rebuilt 4-byte blocks took over 10 minutes
///   by the product (a debug build).
struct Par2RepairCoefficients {
    /// Outputs: one per rebuilt slice.
    let count: Int
    /// A⁻¹ transposed: entry j·k + m is A⁻¹[m][j], the layout `gf16_muladd_matrix` reads.
    private let inverseByColumn: [UInt16]
    private let goodSlices: GoodSlices
    private let constants: [UInt16]

    /// How a good slice's coefficients are found.
    private enum GoodSlices {
        /// Σ_j A⁻¹[m][j] · c_i^e_j for the recovery slices' exponents.
        case product(exponents: [Int])
        /// (c_i / x_m)^e₀ · L_m(c_i) = c_i^e₀ · P(c_i) · scale_m / (c_i + x_m), where P is the
        /// polynomial whose roots are the lost slices' constants x_m (coefficients from t⁰ up)
        /// and scale_m = 1 / (x_m^e₀ · Π_{l≠m} (x_m + x_l)). In GF(2^16), minus is plus.
        case lagrange(firstExponent: Int, roots: [UInt16], polynomial: [UInt16], scales: [UInt16])
    }

    /// `inverseByColumn` is A⁻¹ transposed (k × k, row by row), as ``Par2Matrix/invert(_:size:jobs:)``
    /// leaves the inverse of Aᵀ; `exponents` are the recovery slices'.
    init(inverseByColumn: [UInt16], exponents: [Int], constants: [UInt16]) {
        let count = exponents.count
        precondition(inverseByColumn.count == count * count)
        self.init(
            count: count, inverseByColumn: inverseByColumn, goodSlices: .product(exponents: exponents),
            constants: constants)
    }

    private init(count: Int, inverseByColumn: [UInt16], goodSlices: GoodSlices, constants: [UInt16]) {
        self.count = count
        self.inverseByColumn = inverseByColumn
        self.goodSlices = goodSlices
        self.constants = constants
    }

    /// The coefficients for rebuilding the slices `lost` (global indices) from the recovery
    /// slices with exponents `firstExponent` ..< `firstExponent + lost.count`.
    ///
    /// ## Implementation details
    /// A[j][m] = x_m^(e₀+j) = V[j][m] · x_m^e₀ with V[j][m] = x_m^j, so A⁻¹[m][j] =
    /// x_m^−e₀ · [t^j] L_m(t), where L_m = Q_m / d_m is m's Lagrange basis polynomial,
    /// Q_m = P / (t + x_m) (synthetic division) and d_m = Q_m(x_m). The constants are distinct,
    /// so no d_m is zero.
    static func consecutive(lost: [Int], firstExponent: Int, constants: [UInt16]) -> Par2RepairCoefficients {
        let count = lost.count
        let roots = lost.map { constants[$0] }
        // P = Π (t + x_m), built one factor at a time: coefficient j gains x·p_j + p_(j−1).
        var polynomial = [UInt16](repeating: 0, count: count + 1)
        polynomial[0] = 1
        for (degree, root) in roots.enumerated() {
            polynomial[degree + 1] = polynomial[degree]
            for j in stride(from: degree, to: 0, by: -1) {
                polynomial[j] = polynomial[j - 1] ^ GaloisField16.multiply(root, polynomial[j])
            }
            polynomial[0] = GaloisField16.multiply(root, polynomial[0])
        }
        var inverseByColumn = [UInt16](repeating: 0, count: count * count)
        var scales = [UInt16](repeating: 0, count: count)
        var quotient = [UInt16](repeating: 0, count: count)
        for (m, root) in roots.enumerated() {
            // Q_m: q_(k−1) = p_k; q_(j−1) = p_j + x_m · q_j. Then d_m = Q_m(x_m) by Horner.
            quotient[count - 1] = polynomial[count]
            for j in stride(from: count - 1, to: 0, by: -1) {
                quotient[j - 1] = polynomial[j] ^ GaloisField16.multiply(root, quotient[j])
            }
            let denominator = evaluate(quotient, at: root)
            let scale = GaloisField16.inverse(
                GaloisField16.multiply(denominator, GaloisField16.power(root, firstExponent)))!
            scales[m] = scale
            for j in 0..<count { inverseByColumn[j * count + m] = GaloisField16.multiply(quotient[j], scale) }
        }
        return Par2RepairCoefficients(
            count: count, inverseByColumn: inverseByColumn,
            goodSlices: .lagrange(firstExponent: firstExponent, roots: roots, polynomial: polynomial, scales: scales),
            constants: constants)
    }

    /// The polynomial with `coefficients` (from t⁰ up) at `point`, by Horner's rule.
    private static func evaluate(_ coefficients: [UInt16], at point: UInt16) -> UInt16 {
        coefficients.reversed().reduce(UInt16(0)) { GaloisField16.multiply($0, point) ^ $1 }
    }

    /// Recovery slice j's coefficient for every output: column j of A⁻¹.
    func recoveryRow(_ j: Int) -> [UInt16] {
        Array(inverseByColumn[(j * count)..<((j + 1) * count)])
    }

    /// For the input slices `slices` (global indices), a row of ``count`` coefficients each,
    /// in the layout ``Par2SliceAccumulator/add(inputs:coefficients:fill:)`` takes.
    func rows(forSlices slices: Range<Int>) -> [UInt16] {
        guard count > 0, !slices.isEmpty else { return [] }
        switch goodSlices {
        case .product(let exponents): return productRows(forSlices: slices, exponents: exponents)
        case .lagrange(let firstExponent, let roots, let polynomial, let scales):
            var rows = [UInt16](repeating: 0, count: slices.count * count)
            for (column, slice) in slices.enumerated() {
                let point = constants[slice]
                let weight = GaloisField16.multiply(
                    Self.evaluate(polynomial, at: point), GaloisField16.power(point, firstExponent))
                for m in 0..<count {
                    // point ≠ roots[m]: a good slice's constant is none of the lost ones'.
                    let share = GaloisField16.multiply(weight, scales[m])
                    rows[column * count + m] = GaloisField16.multiply(share, GaloisField16.inverse(point ^ roots[m])!)
                }
            }
            return rows
        }
    }

    private func productRows(forSlices slices: Range<Int>, exponents: [Int]) -> [UInt16] {
        let width = slices.count
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
