import GCDCatCore
import Testing

@Suite struct ChecksumTests {
    @Test func knownValues() {
        var crc = Checksum(.crc32)
        crc.update(Array("123456789".utf8))
        #expect(crc.hex == "cbf43926")
        var adler = Checksum(.adler32)
        adler.update(Array("Wikipedia".utf8))
        #expect(adler.hex == "11e60398")
        #expect(Checksum(.crc32).value == 0)
        #expect(Checksum(.adler32).value == 1)
    }

    @Test(arguments: ChecksumAlgorithm.allCases)
    func combiningPiecesEqualsTheWhole(algorithm: ChecksumAlgorithm) {
        let bytes = seededBytes(100_003, seed: 7)
        var whole = Checksum(algorithm)
        whole.update(bytes)
        for cuts in [[0], [1], [50_000], [1, 2, 99_999], [0, 0, 100_003]] {
            var pieces: [Checksum] = []
            var start = 0
            for cut in cuts + [bytes.count] {
                var piece = Checksum(algorithm)
                piece.update(bytes[start..<max(start, cut)])
                pieces.append(piece)
                start = max(start, cut)
            }
            #expect(Checksum.combine(algorithm, pieces) == whole, "cuts \(cuts)")
        }
    }

    @Test func hexIsEightDigits() {
        #expect(hex8(0) == "00000000")
        #expect(hex8(0xABC) == "00000abc")
    }

    /// crc32 is linear: the checksum of what follows a known prefix needs no read.
    @Test func removingAPrefixLeavesTheRestsChecksum() {
        let header = Array("id,name\n".utf8)
        let body = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var whole = Checksum(.crc32)
        whole.update(header + body)
        var prefix = Checksum(.crc32)
        prefix.update(header)
        var rest = Checksum(.crc32)
        rest.update(body)
        #expect(whole.removingPrefix(prefix) == rest)
        #expect(whole.removingPrefix(Checksum(.crc32)) == whole)
    }
}
