import GCDCatCore
import Testing

/// How merge's arguments fall into sets (``SetGrouping``), on names alone (``ListedNames``).
@Suite struct SetGroupingTests {
    let nfc = "caf\u{E9}"
    let nfd = "cafe\u{301}"

    /// Two downloads' parts, as `*.001` and `*.00*` give them: one group per set.
    @Test func aGlobOverTwoSetsIsTwoGroups() throws {
        let names = ListedNames((1...3).flatMap { ["a.bin.00\($0)", "b.bin.00\($0)"] })
        let firsts = try SetGrouping.group(["a.bin.001", "b.bin.001"], names: names)
        #expect(firsts.map(\.arguments) == [["a.bin.001"], ["b.bin.001"]])
        #expect(firsts.map(\.name) == ["a.bin", "b.bin"])
        let all = try SetGrouping.group(
            ["a.bin.001", "a.bin.002", "a.bin.003", "b.bin.001", "b.bin.002", "b.bin.003"], names: names)
        #expect(all.map(\.arguments.count) == [3, 3])
        // Letters: `xaa xab yaa yab` is x's set and y's, not one set of no stem.
        let letters = try SetGrouping.group(["xaa", "xab", "yaa", "yab"], names: ListedNames([]))
        #expect(letters.map(\.name) == ["x", "y"])
    }

    /// One set, files that are no numbered parts, and --as-given are one group, as before.
    @Test(arguments: [
        (["x.001", "x.002", "x.003"], false), (["a", "b", "c"], false), (["log1", "data7"], false),
        (["header.csv", "data.001", "data.002"], true), (["a.001", "b.001"], true),
    ])
    func oneSetOrAnArbitraryListIsOneGroup(arguments: [String], asGiven: Bool) throws {
        let groups = try SetGrouping.group(arguments, asGiven: asGiven, names: ListedNames([]))
        #expect(groups.map(\.arguments) == [arguments])
    }

    /// A set that comes back after another's part, or in another width, is refused naming the odd part.
    @Test func aMixedListIsRefusedNamingTheOddPart() throws {
        let mixed = expectGCDCatError {
            _ = try SetGrouping.group(["a.001", "a.002", "b.003", "a.004"], names: ListedNames([]))
        }
        #expect(mixed?.path == "b.003")
        let widths = expectGCDCatError {
            _ = try SetGrouping.group(["x.001", "x.002", "x.0003"], names: ListedNames([]))
        }
        #expect(widths?.path == "x.0003")
    }

    /// Names are bytes: `café` in NFC and in NFD are two names, and two sets.
    @Test func namesInAnotherNormalisationAreOtherNames() throws {
        #expect(nfc == nfd)
        let names = ListedNames([nfc + ".001", nfd + ".002"])
        #expect(names.exists(nfc + ".001"))
        #expect(!names.exists(nfd + ".001"))
        #expect(try names.entries(inFolder: ".").count == 2)
        let groups = try SetGrouping.group([nfc + ".001", nfd + ".002"], names: names)
        #expect(groups.count == 2)
        #expect(NumberedName.readings(of: nfc + ".001").first?.number(of: nfd + ".002") == nil)
        let missing = expectGCDCatError {
            _ = try PartDiscovery.discover(
                from: nfc + ".001", names: ListedNames([nfc + ".001", nfd + ".002", nfc + ".003"]))
        }
        #expect(missing.map { Array(($0.path ?? "").utf8) } == Array((nfc + ".002").utf8))
    }
}
