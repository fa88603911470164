import GCDCatCore
import Testing

@Suite struct ByteSizeTests {
    @Test(
        arguments: [
            ("4096", 4096), ("64K", 65536), ("1M", 1 << 20), ("2MiB", 2 << 20), ("1MB", 1_000_000),
            ("500kb", 500_000), ("1G", 1 << 30), ("3gib", 3 << 30), ("1T", 1 << 40), ("7b", 7),
            (" 12K ", 12 << 10), ("0", 0),
        ] as [(String, Int64)])
    func parsesUnitsAsCoreutilsDoes(text: String, expected: Int64) throws {
        #expect(try ByteSize(parsing: text).bytes == expected)
    }

    @Test func rejectsGarbageWithAReason() {
        #expect(throws: ByteSize.ParseError.notANumber("abc")) { try ByteSize(parsing: "abc") }
        #expect(throws: ByteSize.ParseError.negative("-1M")) { try ByteSize(parsing: "-1M") }
        #expect(throws: ByteSize.ParseError.unknownUnit("x")) { try ByteSize(parsing: "12x") }
        #expect(throws: ByteSize.ParseError.notANumber("1.5M")) { try ByteSize(parsing: "1.5M") }
        #expect(throws: ByteSize.ParseError.empty) { try ByteSize(parsing: "") }
    }

    @Test func rejectsOverflow() {
        #expect(throws: ByteSize.ParseError.tooLarge("9999999999T")) { try ByteSize(parsing: "9999999999T") }
        #expect(throws: ByteSize.ParseError.tooLarge("99999999999999999999")) {
            try ByteSize(parsing: "99999999999999999999")
        }
    }

    @Test func describesWithTheLargestExactUnit() {
        #expect(ByteSize(1 << 20).description == "1M")
        #expect(ByteSize(65536).description == "64K")
        #expect(ByteSize(1536).description == "1536")
        #expect(ByteSize.humanReadable(1536) == "1.50 KiB")
        #expect(ByteSize.humanReadable(12) == "12 B")
    }

    @Test func chunkLimitsNameTheFlag() {
        #expect(throws: ChunkLimitsError.notPositive(flag: "--high-water")) { try ChunkLimits(highWater: 0) }
        #expect(throws: ChunkLimitsError.notPositive(flag: "--low-water")) {
            try ChunkLimits(highWater: 10, lowWater: 0)
        }
        #expect(throws: ChunkLimitsError.lowAboveHigh(low: 20, high: 10)) {
            try ChunkLimits(highWater: 10, lowWater: 20)
        }
        #expect((try? ChunkLimits(highWater: 64 << 10))?.lowWater == nil)
        #expect((try? ChunkLimits(highWater: 64 << 10, lowWater: 1))?.lowWater == 1)
    }
}
