import Testing

@testable import GCDCatCore

/// The naming table's tail: GNU split's `--additional-suffix` after the numbered suffix.
@Suite struct AdditionalSuffixTests {
    @Test func partNamesCarryTheSuffix() throws {
        let naming = PartNaming(prefix: "out_", style: .gnuNumeric, additionalSuffix: ".txt")
        #expect(try (0..<3).map(naming.name(at:)) == ["out_00.txt", "out_01.txt", "out_02.txt"])
        #expect(try naming.name(at: 90) == "out_9000.txt")
        #expect(naming.isPartName("out_05.txt") && !naming.isPartName("out_05") && !naming.isPartName("out_05.tx"))
    }

    @Test func aSuffixedNameReadsWithItsTailAfterThePlainReadings() throws {
        let reading = NumberedName.readings(of: "dir/out_00.txt").first { $0.alphabet == .digits }
        #expect(reading == NumberedName(stem: "dir/out_", alphabet: .digits, width: 2, number: 0, tail: ".txt"))
        #expect(reading?.spellings(of: 90) == ["dir/out_90.txt", "dir/out_9000.txt"])
        #expect(reading?.wholeName == "dir/out.txt")
        #expect(reading?.number(ofSuffix: "9000.txt") == 90)
        #expect(reading?.number(ofSuffix: "01") == nil)
        // The plain reading of a plain set stays first; one digit before a tail is a part number
        // only beside a neighbour (`part1.txt`, `part2.txt` of `split -a 1 --numeric-suffixes=1`).
        #expect(NumberedName.readings(of: "movie.zip.001").first?.tail == "")
        #expect(NumberedName.readings(of: "file1.txt").first?.tail == "")
        #expect(try PartDiscovery.discover(from: "file1.txt", names: ListedNames(["file1.txt"])) == nil)
        let pair = try PartDiscovery.discover(from: "part1.txt", names: ListedNames(["part1.txt", "part2.txt"]))
        #expect(pair?.parts == ["part1.txt", "part2.txt"])
        #expect(NumberedName.extensionTails(of: "x00.tar.gz") == [".gz", ".tar.gz"])
    }

    /// An object listing covers a suffixed set, while letters before a tail do not widen it.
    @Test func listingPrefixesReadDigitsBeforeATailOnly() {
        #expect(ObjectDiscovery.listingPrefix(for: "d/out_00.txt") == "d/out")
        #expect(ObjectDiscovery.listingPrefix(for: "d/report.txt") == "d/report.")
        #expect(ObjectDiscovery.listingPrefix(for: "d/movie.zip.001") == "d/movie.zip.")
    }
}
