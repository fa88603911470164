import Foundation
import Testing

/// The first part of a `split --par2` set gone: its next part, a glob and the `.par2` rebuilt it,
/// but the set's SFV given alone refused it as missing (outside re-check a18 A), and its own
/// name said only `open: No such file or directory` (a18 I). Every form now rebuilds it; without
/// a `.par2`, its name says that it is missing and how to mend it.
@Suite struct FirstPartGoneCLITests {
    static let rebuilding =
        "gcdcat: note: rebuilding f.bin.001 (missing, 512 blocks) from f.bin.par2's recovery blocks; the part itself "
        + "is left as it is\n"

    /// `f.bin` (2 000 000 bytes) split into 500 KiB parts beside `f.bin.sfv` (with 40% recovery
    /// volumes when `par2`), then `f.bin` and `f.bin.001` removed.
    static func setWithoutItsFirstPart(par2: Bool) throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(2_000_000, seed: 1717)
        try scratch.write("f.bin", whole)
        let split = try gcdcat(
            ["split", "f.bin", "--size", "500K", "-q"] + (par2 ? ["--par2", "40%"] : []), in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        for name in ["f.bin", "f.bin.001"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        return (scratch, whole)
    }

    @Test(arguments: [["f.bin.sfv"], ["f.bin.001"], ["merge", "f.bin.sfv"], ["merge", "f.bin.001"]])
    func theSetsListOrItsFirstPartsNameRebuildsItAsItsNextPartDoes(_ arguments: [String]) throws {
        let (scratch, whole) = try Self.setWithoutItsFirstPart(par2: true)
        let before = scratch.listing()
        let fromNext = try gcdcat(["f.bin.002", "-o", "next"], in: scratch.path)
        #expect(fromNext.status == 0, "\(fromNext.stderr)")
        #expect(fromNext.stderr == Self.rebuilding)
        let merged = try gcdcat(arguments + ["-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == Self.rebuilding)
        #expect(scratch.read("out") == whole)
        #expect(scratch.listing() == (before + ["next", "out"]).sorted())
    }

    /// Without an output named, the set's name: as `gcdcat f.bin.002` names it.
    @Test func theFirstPartsNameMergesToTheSetsName() throws {
        let (scratch, whole) = try Self.setWithoutItsFirstPart(par2: true)
        let merged = try gcdcat(["f.bin.001", "--json"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("f.bin") == whole)
        let document = try JSONSerialization.jsonObject(with: merged.stdout) as! [String: Any]
        #expect(document["manifest"] as? String == "f.bin.par2")
        let rebuilt = (document["rebuiltParts"] as? [[String: Any]] ?? []).map {
            "\($0["path"]!) \($0["state"]!) \($0["blocks"]!)"
        }
        #expect(rebuilt == ["f.bin.001 missing 512"])
    }

    /// No `.par2` to rebuild it from: the first part's name says it is missing, with its next
    /// part there, and the ways to mend it; the list's message is as it was, and a name with no
    /// set beside it is still only not there.
    @Test func withoutAPar2TheFirstPartsNameSaysItIsMissing() throws {
        let (scratch, _) = try Self.setWithoutItsFirstPart(par2: false)
        let before = scratch.listing()
        let merged = try gcdcat(["f.bin.001"], in: scratch.path)
        #expect(merged.status == 1)
        #expect(
            merged.stderr
                == "gcdcat: f.bin.001: missing part: it is not there, though the set's next part, f.bin.002, is; put it "
                + "back to merge the set, or merge by a .par2 that protects it (gcdcat merge NAME.par2), which "
                + "rebuilds it\n")
        let listed = try gcdcat(["f.bin.sfv"], in: scratch.path)
        #expect(listed.status == 1)
        #expect(
            listed.stderr
                == "gcdcat: f.bin.001: missing part: f.bin.sfv names it as the set's first part, but it does not exist\n"
        )
        let alone = try gcdcat(["g.bin.001"], in: scratch.path)
        #expect(alone.status == 1)
        #expect(alone.stderr == "gcdcat: g.bin.001: open: No such file or directory\n")
        #expect(scratch.listing() == before)
    }
}
