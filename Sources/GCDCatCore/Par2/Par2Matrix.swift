/// Square matrices over GF(2^16), for a repair's system of equations.
enum Par2Matrix {
    /// The inverse of `matrix` by Gauss-Jordan elimination, or nil when it is singular.
    ///
    /// ## Implementation details
    /// The matrix and the identity sit side by side in one flat buffer, a row of 2n words each,
    /// so every row operation ("row r ^= f · row c", "row c = s · row c") is one region
    /// multiply-add on the vector kernels: n² of them, 4n bytes each. Element by element in
    /// Swift, through arrays of arrays, the n³ products took minutes for n = 501 (a debug build;
    /// seconds in release).
    static func inverse(_ matrix: [[UInt16]]) -> [[UInt16]]? {
        let size = matrix.count
        guard size > 0 else { return [] }
        let width = 2 * size
        var rows = [UInt16](repeating: 0, count: size * width)
        for (index, row) in matrix.enumerated() {
            precondition(row.count == size)
            for column in 0..<size { rows[index * width + column] = row[column] }
            rows[index * width + size + index] = 1
        }
        var scaled = [UInt16](repeating: 0, count: width)
        let solved = rows.withUnsafeMutableBufferPointer { rows -> Bool in
            scaled.withUnsafeMutableBufferPointer { scaled in
                eliminate(rows.baseAddress!, size: size, scratch: scaled.baseAddress!)
            }
        }
        guard solved else { return nil }
        return (0..<size).map { row in Array(rows[(row * width + size)..<(row * width + width)]) }
    }

    /// Reduces the left half of `rows` (size × 2·size words) to the identity; false if singular.
    private static func eliminate(
        _ rows: UnsafeMutablePointer<UInt16>, size: Int, scratch: UnsafeMutablePointer<UInt16>
    )
        -> Bool
    {
        let width = 2 * size
        let bytes = width * 2
        func row(_ index: Int) -> UnsafeMutablePointer<UInt16> { rows + index * width }
        for column in 0..<size {
            guard let pivot = (column..<size).first(where: { row($0)[column] != 0 }) else { return false }
            if pivot != column {
                scratch.update(from: row(column), count: width)
                row(column).update(from: row(pivot), count: width)
                row(pivot).update(from: scratch, count: width)
            }
            let scale = GaloisField16.inverse(row(column)[column])!
            scratch.update(repeating: 0, count: width)
            GaloisField16.multiplyAdd(into: scratch, from: row(column), count: bytes, coefficient: scale)
            row(column).update(from: scratch, count: width)
            for other in 0..<size where other != column {
                let factor = row(other)[column]
                if factor != 0 {
                    GaloisField16.multiplyAdd(into: row(other), from: row(column), count: bytes, coefficient: factor)
                }
            }
        }
        return true
    }
}
