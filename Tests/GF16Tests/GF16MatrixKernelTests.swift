import CGF16
import Testing

/// gf16_muladd_matrix (a batch of inputs into every output, tile by tile) against GF-Complete
/// applied input by input and output by output: output counts around the group of 64, lengths
/// around the 4096-byte tile (and gfni512's 1024-byte tile of 128-byte steps: a short last tile
/// with and without whole tiles before it), input counts around the 16 whose tables AVX2 builds
/// at once (odd and even: AVX2 folds inputs two at a time), zero rows (alone in a pair, and a
/// whole pair) and zero coefficients, unaligned starts; blocks shorter than any vector step, all
/// tail, word by word (up to 16 words) or by tables.
@Suite struct GF16MatrixKernelTests {
    @Test func scalarMatrixMatchesGFComplete() throws { try checkMatrix(GF16_KERNEL_SCALAR) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_AVX2), "this CPU lacks AVX2"))
    func avx2MatrixMatchesGFComplete() throws { try checkMatrix(GF16_KERNEL_AVX2) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_AVX512), "this CPU lacks AVX-512BW"))
    func avx512MatrixMatchesGFComplete() throws { try checkMatrix(GF16_KERNEL_AVX512) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_GFNI), "this CPU lacks GFNI"))
    func gfniMatrixMatchesGFComplete() throws { try checkMatrix(GF16_KERNEL_GFNI) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_GFNI512), "this CPU lacks GFNI or AVX-512BW/VL"))
    func gfni512MatrixMatchesGFComplete() throws { try checkMatrix(GF16_KERNEL_GFNI512) }

    /// The entry everyone calls runs the selected kernel correctly.
    @Test func selectedMatrixMatchesGFComplete() throws { try checkMatrix(nil) }

    private func checkMatrix(_ kernel: gf16_kernel?) throws {
        let oracle = try Oracle()
        var generator = SeededGenerator(seed: 57 &+ UInt64(kernel?.rawValue ?? 9))
        for (outputs, inputs, length) in [
            (1, 1, 66), (2, 3, 0), (3, 2, 4096), (5, 7, 4098), (64, 3, 8254), (65, 4, 12_414), (102, 5, 8192),
            (7, 16, 20_002), (66, 17, 4160), (3, 33, 8258), (9, 18, 1408), (4, 2, 900), (2, 3, 130),
            (6, 5, 4), (4, 9, 30), (3, 4, 34), (5, 3, 100),
        ] {
            let sources = (0..<inputs).map { _ in Region(count: length + 8, using: &generator) }
            // Rows 1, 6 and 7 are all zero (with 0 and 1, and 6 with 7, folded together by AVX2);
            // elsewhere 0, 1 and 0xFFFF appear too.
            let coefficients: [UInt16] = (0..<inputs * outputs).map { k in
                if [1, 6, 7].contains(k / outputs) { return 0 }
                return k % 11 == 0 ? [0, 1, 0xFFFF][k % 3] : .random(in: 0...UInt16.max, using: &generator)
            }
            let actual = (0..<outputs).map { _ in Region(count: length + 40, using: &generator) }
            let expected = actual.map { Region(copying: $0) }
            let destinations: [UnsafeMutablePointer<UInt8>?] = actual.enumerated().map { $0.element.at($0.offset % 37) }
            let starts: [UnsafePointer<UInt8>?] = sources.enumerated().map {
                UnsafePointer($0.element.at($0.offset % 5))
            }
            if let kernel {
                try #require(
                    gf16_muladd_matrix_with(kernel, destinations, outputs, starts, inputs, coefficients, length) == 0)
            } else {
                gf16_muladd_matrix(destinations, outputs, starts, inputs, coefficients, length)
            }
            for d in 0..<outputs {
                for i in 0..<inputs {
                    try oracle.muladd(
                        expected[d].at(d % 37), sources[i].at(i % 5), length, coefficients[i * outputs + d])
                }
                #expect(
                    actual[d].equals(expected[d]),
                    "\(kernel.map(kernelName) ?? "selected"): output \(d) of \(outputs), \(inputs) inputs, length \(length): first wrong byte \(actual[d].firstDifference(from: expected[d]) ?? -1)"
                )
            }
        }
    }
}
