import Testing

@testable import GCDCatCore

/// Digits and letters in a plain file's name that are no part number (outside re-check a18 C),
/// on names alone (``ListedNames``).
@Suite struct PlainNamesTests {
    /// A number before an extension says a first part is missing only when a split would have
    /// padded it so; one at the end of the name, or letters, whenever it is above the start.
    @Test func aLateStartIsAZeroPaddedNumber() {
        let year = NumberedName(stem: "report", alphabet: .digits, width: 4, number: 2024, tail: ".txt")
        #expect(!year.startsLate(from: 2023))
        #expect(year.startsLate(from: 7))
        let gnu = NumberedName(stem: "out_", alphabet: .digits, width: 2, number: 2, tail: ".txt")
        // Two digits before a tail start at 00, as GNU `split -d --additional-suffix` numbers them.
        #expect(gnu.startsLate(from: 1) && !gnu.startsLate(from: 0) && !gnu.startsLate(from: 12))
        let trailing = NumberedName(stem: "a.bin.", alphabet: .digits, width: 4, number: 1000)
        #expect(trailing.startsLate(from: 1000))
    }

    /// A lone file numbered before its extension above where sets start is no set; one at the
    /// start is a set of one; a neighbour makes a set of any, which, found from a number above
    /// where sets start, may have lost its start (`mysql-8.0.36.tar.gz` beside `…37…` was joined
    /// to it with exit 0, and `p10.txt` … `p12.txt` with 1–9 lost: outside re-check a19 #6).
    @Test func aLoneNumberBeforeAnExtensionIsAPlainFile() throws {
        for name in ["report2024.txt", "ubuntu-24.04.iso", "mysql-8.0.36.tar.gz", "backup.tar.gz"] {
            #expect(try PartDiscovery.discover(from: name, names: ListedNames([name])) == nil, "\(name)")
        }
        #expect(try PartDiscovery.discover(from: "x00.iso", names: ListedNames(["x00.iso"]))?.parts == ["x00.iso"])
        #expect(try PartDiscovery.discover(from: "x01.iso", names: ListedNames(["x01.iso"])) == nil)
        let pair = try PartDiscovery.discover(
            from: "report2023.txt", names: ListedNames(["report2023.txt", "report2024.txt"]))
        #expect(pair?.parts == ["report2023.txt", "report2024.txt"])
        #expect(pair?.startsLate == true)
        let late = try PartDiscovery.discover(from: "p10.txt", names: ListedNames(["p10.txt", "p11.txt", "p12.txt"]))
        #expect(late?.parts == ["p10.txt", "p11.txt", "p12.txt"] && late?.startsLate == true)
    }

    /// A reading that eats the whole name before its extension is no common set of a list when
    /// the name has another reading: `jan.log feb.log` and `2023.csv 2024.csv` are plain files.
    @Test func aWholeNameBeforeItsExtensionIsNoPartNumber() {
        #expect(PartArguments.commonSet(["jan.log", "feb.log"]) == nil)
        #expect(PartArguments.commonSet(["2023.csv", "2024.csv"]) == nil)
        #expect(PartArguments.commonSet(["xaa", "xab"])?.0.stem == "x")
        #expect(PartArguments.commonSet(["aa", "ab"])?.1 == [0, 1])
    }
}
