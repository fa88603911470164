/// Square matrices over GF(2^16), for a repair's system of equations.
enum Par2Matrix {
    /// Replaces `entries`, a `size` × `size` matrix row by row, by its inverse; false (and the
    /// entries undefined) when it is singular. The rows are reduced on `jobs` cores.
    ///
    /// ## Implementation details
    /// Gauss-Jordan in place: once column c is reduced to a unit vector it holds nothing, so the
    /// inverse's column c is kept there instead of in an identity beside the matrix. That halves
    /// both the memory (n² words, 135 MB for the 8 219 blocks an outside test rebuilt, where the
    /// matrix, its doubled copy and the result took 540 MB) and the work of each row operation.
    /// Row swaps made for the pivots become column swaps of the inverse, undone at the end.
    /// Every row operation is a region multiply-add of 2n bytes on the vector kernels; the
    /// other rows of a step are independent, so they are shared among the cores.
    static func invert(_ entries: inout [UInt16], size: Int, jobs: Int) -> Bool {
        precondition(entries.count == size * size)
        guard size > 0 else { return true }
        var swaps: [(Int, Int)] = []
        let solved = entries.withUnsafeMutableBufferPointer { entries -> Bool in
            let rows = Rows(base: entries.baseAddress!, size: size)
            var scratch = [UInt16](repeating: 0, count: size)
            for column in 0..<size {
                guard let pivot = (column..<size).first(where: { rows[$0][column] != 0 }) else { return false }
                if pivot != column {
                    rows.swap(pivot, column)
                    swaps.append((pivot, column))
                }
                scratch.withUnsafeMutableBufferPointer { rows.normalize(column, scratch: $0.baseAddress!) }
                rows.eliminate(column, jobs: jobs)
            }
            return true
        }
        guard solved else { return false }
        for (pivot, column) in swaps.reversed() {
            for row in 0..<size { entries.swapAt(row * size + pivot, row * size + column) }
        }
        return true
    }

    /// The rows of a matrix being inverted, shared with the threads that reduce them: each
    /// touches rows of its own, and reads the pivot row no one writes during the step.
    private struct Rows: @unchecked Sendable {
        let base: UnsafeMutablePointer<UInt16>
        let size: Int

        subscript(_ row: Int) -> UnsafeMutablePointer<UInt16> { base + row * size }

        func swap(_ a: Int, _ b: Int) {
            for column in 0..<size { (self[a][column], self[b][column]) = (self[b][column], self[a][column]) }
        }

        /// Scales row `column` so that it holds 1 in its pivot's place, the inverse's entry
        /// there being the scale itself (the identity's 1, scaled).
        func normalize(_ column: Int, scratch: UnsafeMutablePointer<UInt16>) {
            let pivotRow = self[column]
            let scale = GaloisField16.inverse(pivotRow[column])!
            pivotRow[column] = 1
            scratch.update(repeating: 0, count: size)
            GaloisField16.multiplyAdd(into: scratch, from: pivotRow, count: 2 * size, coefficient: scale)
            pivotRow.update(from: scratch, count: size)
        }

        /// Clears `column` from every other row with the normalized pivot row; each cleared
        /// place takes the inverse's entry (the row's factor times the pivot's scale).
        func eliminate(_ column: Int, jobs: Int) {
            let reduce: @Sendable (Range<Int>) -> Void = { range in
                let pivotRow = UnsafePointer(self[column])
                for row in range where row != column {
                    let factor = self[row][column]
                    guard factor != 0 else { continue }
                    self[row][column] = 0
                    GaloisField16.multiplyAdd(into: self[row], from: pivotRow, count: 2 * size, coefficient: factor)
                }
            }
            // A step under ~1 MB of multiply-adds is done before a second thread has started.
            let pieces = size * size < 1 << 19 ? 1 : max(1, jobs)
            let stride = (size + pieces - 1) / pieces
            _ = ParallelMap.collect(count: pieces, jobs: pieces, makeState: {}) { _, piece in
                reduce((piece * stride)..<min(size, (piece + 1) * stride))
            }
        }
    }
}
