import CGF16
import Testing

/// Every region kernel against GF-Complete's multiply_region (multiply-xor) on random data:
/// constants 0, 1, 0xFFFF and random ones; lengths around the vector steps (64 and 128 bytes),
/// the multi kernels' tile (4096) and odd ones; unaligned starts; guard bytes around each
/// region must come back unchanged. The avx512, gfni and gfni512 tests run only on CPUs that have
/// them.
@Suite struct GF16KernelTests {
    static let lengths = [
        0, 1, 2, 3, 30, 62, 63, 64, 66, 126, 127, 128, 130, 192, 254, 256, 1000, 4094, 4096, 4098, 4160, 8254, 12_414,
        65_538,
    ]
    static let offsets = [(0, 0), (1, 3), (2, 0), (31, 17), (0, 33), (64, 64), (5, 62)]
    static let fixedConstants: [UInt16] = [0, 1, 2, 3, 0x100B, 0x8000, 0xFFFF]

    @Test func scalarMuladdMatchesGFComplete() throws { try checkMuladd(GF16_KERNEL_SCALAR) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_AVX2), "this CPU lacks AVX2"))
    func avx2MuladdMatchesGFComplete() throws { try checkMuladd(GF16_KERNEL_AVX2) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_AVX512), "this CPU lacks AVX-512BW"))
    func avx512MuladdMatchesGFComplete() throws { try checkMuladd(GF16_KERNEL_AVX512) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_GFNI), "this CPU lacks GFNI"))
    func gfniMuladdMatchesGFComplete() throws { try checkMuladd(GF16_KERNEL_GFNI) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_GFNI512), "this CPU lacks GFNI or AVX-512BW/VL"))
    func gfni512MuladdMatchesGFComplete() throws { try checkMuladd(GF16_KERNEL_GFNI512) }

    @Test func scalarMultiMatchesRepeatedMuladd() throws { try checkMulti(GF16_KERNEL_SCALAR) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_AVX2), "this CPU lacks AVX2"))
    func avx2MultiMatchesRepeatedMuladd() throws { try checkMulti(GF16_KERNEL_AVX2) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_AVX512), "this CPU lacks AVX-512BW"))
    func avx512MultiMatchesRepeatedMuladd() throws { try checkMulti(GF16_KERNEL_AVX512) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_GFNI), "this CPU lacks GFNI"))
    func gfniMultiMatchesRepeatedMuladd() throws { try checkMulti(GF16_KERNEL_GFNI) }
    @Test(.enabled(if: cpuRuns(GF16_KERNEL_GFNI512), "this CPU lacks GFNI or AVX-512BW/VL"))
    func gfni512MultiMatchesRepeatedMuladd() throws { try checkMulti(GF16_KERNEL_GFNI512) }

    /// The entry points everyone calls run the kernel gf16_kernel_name names, correctly.
    @Test func selectedKernelMatchesGFComplete() throws {
        let oracle = try Oracle()
        var generator = SeededGenerator(seed: 40)
        let source = Region(count: 70_000, using: &generator)
        let actual = Region(count: 70_000, using: &generator)
        let expected = Region(copying: actual)
        gf16_muladd(actual.at(2), source.at(0), 65_538, 0x1234)
        try oracle.muladd(expected.at(2), source.at(0), 65_538, 0x1234)
        #expect(actual.equals(expected), "gf16_muladd (\(String(cString: gf16_kernel_name())))")
        var outputs: [UnsafeMutablePointer<UInt8>?] = [actual.at(0), expected.at(0)]
        let copies = [Region(copying: actual), Region(copying: expected)]
        gf16_muladd_multi(&outputs, [7, 0xFFFF], 2, source.at(0), 65_538)
        try oracle.muladd(copies[0].at(0), source.at(0), 65_538, 7)
        try oracle.muladd(copies[1].at(0), source.at(0), 65_538, 0xFFFF)
        #expect(actual.equals(copies[0]) && expected.equals(copies[1]), "gf16_muladd_multi")
    }

    private func checkMuladd(_ kernel: gf16_kernel) throws {
        let oracle = try Oracle()
        var generator = SeededGenerator(seed: 23 &+ UInt64(kernel.rawValue))
        // Every length with rotating offsets and constants, then every fixed constant and offset
        // at one length that crosses tiles and ends in a tail, then a PAR2-sized 1 MiB block.
        var cases: [(length: Int, source: Int, destination: Int, constant: UInt16)] = []
        for (i, length) in Self.lengths.enumerated() {
            let (s, d) = Self.offsets[i % Self.offsets.count]
            cases.append((length, s, d, Self.fixedConstants[i % Self.fixedConstants.count]))
            cases.append((length, d, s, .random(in: 0...UInt16.max, using: &generator)))
        }
        for c in Self.fixedConstants { for (s, d) in Self.offsets { cases.append((8254, s, d, c)) } }
        cases.append((1 << 20, 0, 0, .random(in: 2...UInt16.max, using: &generator)))
        for test in cases {
            let source = Region(count: test.length + test.source + 64, using: &generator)
            let actual = Region(count: test.length + test.destination + 64, using: &generator)
            let expected = Region(copying: actual)
            let status = gf16_muladd_with(
                kernel, actual.at(test.destination), source.at(test.source), test.length, test.constant)
            try #require(status == 0)
            try oracle.muladd(expected.at(test.destination), source.at(test.source), test.length, test.constant)
            #expect(
                actual.equals(expected),
                "\(kernelName(kernel)): c=\(test.constant) length \(test.length) offsets \(test.source)/\(test.destination): first wrong byte \(actual.firstDifference(from: expected) ?? -1)"
            )
        }
    }

    /// Several outputs per input, against the oracle applied output by output and against the
    /// same kernel's single muladd: output counts around the batch of 32, lengths around the tile.
    private func checkMulti(_ kernel: gf16_kernel) throws {
        let oracle = try Oracle()
        var generator = SeededGenerator(seed: 31 &+ UInt64(kernel.rawValue))
        for (count, length) in [
            (1, 66), (2, 0), (3, 4096), (31, 4098), (32, 12_414), (33, 130), (65, 8254), (102, 20_002),
        ] {
            let sourceOffset = count % 5
            let source = Region(count: length + sourceOffset, using: &generator)
            let constants: [UInt16] = (0..<count).map { d in
                d < 3 ? [0, 1, 0xFFFF][d] : .random(in: 0...UInt16.max, using: &generator)
            }
            let actual = (0..<count).map { _ in Region(count: length + 40, using: &generator) }
            let expected = actual.map { Region(copying: $0) }
            let single = actual.map { Region(copying: $0) }
            var outputs: [UnsafeMutablePointer<UInt8>?] = actual.enumerated().map { $0.element.at($0.offset % 37) }
            try #require(
                gf16_muladd_multi_with(kernel, &outputs, constants, count, source.at(sourceOffset), length) == 0)
            for d in 0..<count {
                try oracle.muladd(expected[d].at(d % 37), source.at(sourceOffset), length, constants[d])
                _ = gf16_muladd_with(kernel, single[d].at(d % 37), source.at(sourceOffset), length, constants[d])
                #expect(
                    actual[d].equals(expected[d]),
                    "\(kernelName(kernel)): output \(d) of \(count), length \(length), c=\(constants[d])")
                #expect(
                    actual[d].equals(single[d]), "\(kernelName(kernel)): output \(d) of \(count) differs from muladd")
            }
        }
    }
}
