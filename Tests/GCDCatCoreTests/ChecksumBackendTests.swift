import CZlib
import GCDCatCore
import Testing

/// Every fast backend must give zlib's values: zlib is the oracle.
@Suite struct ChecksumBackendTests {
    static let data = seededBytes((1 << 20) + 17 + 64, seed: 0xC0FFEE)

    @Test(arguments: ChecksumBackend.allCases, ChecksumAlgorithm.allCases)
    func matchesZlibOverRandomLengthsAndUnalignedStarts(
        backend: ChecksumBackend, algorithm: ChecksumAlgorithm
    ) {
        var generator = SplitMix64(seed: 42)
        let lengths =
            [0, 1, 2, 7, 15, 16, 17, 31, 63, 64, 65, 255, 4095, 4096, 4097, (1 << 20) + 17]
            + (0..<40).map { _ in Int(generator.next() % UInt64((1 << 20) + 18)) }
        Self.data.withUnsafeBytes { buffer in
            for length in lengths {
                let start = Int(generator.next() % 64)
                let slice = buffer.baseAddress! + start
                let expected = zlibValue(algorithm, slice, length)
                let actual = backend.update(algorithm, algorithm.initialValue, slice, length)
                #expect(actual == expected, "\(backend) \(algorithm) length \(length) start \(start)")
                // Continuing from an earlier value must chain exactly as zlib does.
                let cut = length / 3
                let first = backend.update(algorithm, algorithm.initialValue, slice, cut)
                let chained = backend.update(algorithm, first, slice + cut, length - cut)
                #expect(chained == expected, "\(backend) \(algorithm) chained at \(cut) of \(length)")
            }
        }
    }

    private func zlibValue(_ algorithm: ChecksumAlgorithm, _ bytes: UnsafeRawPointer, _ count: Int) -> UInt32 {
        let pointer = bytes.assumingMemoryBound(to: Bytef.self)
        switch algorithm {
        case .crc32: return UInt32(crc32_z(0, pointer, count))
        case .adler32: return UInt32(adler32_z(1, pointer, count))
        }
    }
}
