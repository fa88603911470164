import Testing

@testable import GCDCatCore

/// The line-end count a line split's check reads its parts with (``PartSizes/count(_:in:)``),
/// eight bytes at a time, against a byte-by-byte count.
@Suite struct ByteCountTests {
    @Test(arguments: [0, 1, 7, 8, 9, 63, 64, 65, 4_099])
    func countsEveryByteValueAsOneByOneDoes(length: Int) {
        var generator = SplitMix64(seed: UInt64(length) + 4901)
        // Runs of one value and values one apart from the one counted: where a carry between
        // bytes would count a neighbour.
        let bytes = (0..<length).map { index -> UInt8 in
            index % 11 < 3 ? 0x0A : UInt8(truncatingIfNeeded: generator.next())
        }
        for byte in [UInt8(0x0A), 0x00, 0x09, 0x0B, 0x80, 0xFF, 0x7F] {
            let expected = bytes.count { $0 == byte }
            let counted = bytes.withUnsafeBytes { PartSizes.count(byte, in: $0) }
            #expect(counted == expected, "byte \(byte) in \(length) bytes")
        }
    }
}
