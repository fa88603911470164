/// Square matrices over GF(2^16), for a repair's system of equations.
enum Par2Matrix {
    /// The inverse of `matrix` by Gauss-Jordan elimination, or nil when it is singular.
    static func inverse(_ matrix: [[UInt16]]) -> [[UInt16]]? {
        let size = matrix.count
        var left = matrix
        var right = (0..<size).map { row in (0..<size).map { $0 == row ? UInt16(1) : 0 } }
        for column in 0..<size {
            guard let pivot = (column..<size).first(where: { left[$0][column] != 0 }) else { return nil }
            left.swapAt(column, pivot)
            right.swapAt(column, pivot)
            let scale = GaloisField16.inverse(left[column][column])!
            for index in 0..<size {
                left[column][index] = GaloisField16.multiply(left[column][index], scale)
                right[column][index] = GaloisField16.multiply(right[column][index], scale)
            }
            for row in 0..<size where row != column && left[row][column] != 0 {
                let factor = left[row][column]
                for index in 0..<size {
                    left[row][index] ^= GaloisField16.multiply(factor, left[column][index])
                    right[row][index] ^= GaloisField16.multiply(factor, right[column][index])
                }
            }
        }
        return right
    }
}
