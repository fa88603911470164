import Foundation
import Testing

/// The first two parts swapped by name (`a.bin.001` holds part 2's bytes, `a.bin.002` part 1's):
/// nothing is missing, and the marks the split left say where each part belongs. With the SFV
/// beside the set, it was refused as a set whose first part is missing (`no a.bin.000 before it
/// … a split stopped while naming its parts`), and a `split --par2` set was not mended by its
/// `.par2`, which reads a swapped part from where it is (outside attack a17 #10).
@Suite struct SwappedFirstPartCLITests {
    static func swap(_ a: String, _ b: String, in scratch: Scratch) throws {
        let manager = FileManager.default
        try manager.moveItem(atPath: scratch.file(a), toPath: scratch.file("swap.tmp"))
        try manager.moveItem(atPath: scratch.file(b), toPath: scratch.file(a))
        try manager.moveItem(atPath: scratch.file("swap.tmp"), toPath: scratch.file(b))
    }

    static func outOfPlace(_ the: String) -> String {
        "gcdcat: a.bin.002: is part 1 of the split that made a.bin.001, but stands at place 2 of \(the); give the "
            + "parts in their order, or --as-given to join them as they are\n"
    }

    /// With the set's SFV beside it (as split leaves it) or without, every way to name the set
    /// names the part out of place, and nothing is written.
    @Test(arguments: [true, false])
    func theFirstTwoPartsSwappedAreSaidOutOfPlace(withList: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(300_000, seed: 1710))
        let split = try gcdcat(
            ["split", "a.bin", "--size", "100K", "-q"] + (withList ? [] : ["--no-manifest"]), in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("a.bin"))
        try Self.swap("a.bin.001", "a.bin.002", in: scratch)
        let before = scratch.listing()
        var namings: [([String], String)] = [
            (["a.bin.001"], "the set found from a.bin.001"),
            (["a.bin.001", "a.bin.002", "a.bin.003"], "the parts given"),
        ]
        if withList { namings.append((["a.bin.sfv"], "the set found from a.bin.001")) }
        for (arguments, the) in namings {
            let merged = try gcdcat(arguments, in: scratch.path)
            #expect(merged.status == 1, "\(arguments)")
            #expect(merged.stderr == Self.outOfPlace(the), "\(arguments)")
        }
        #expect(scratch.listing() == before)
    }

    /// A `split --par2` set reads each swapped part from where it is, from its first part, its
    /// SFV or a glob as by its `.par2`; the parts are left as they are.
    @Test(arguments: [["f.bin.001"], ["f.bin.sfv"], ["f.bin.001", "f.bin.002", "f.bin.003", "f.bin.004"]])
    func aSplitPar2SetReadsTheSwappedPartsFromWhereTheyAre(_ arguments: [String]) throws {
        let scratch = try Scratch()
        let whole = randomData(2_000_000, seed: 1711)
        try scratch.write("f.bin", whole)
        let split = try gcdcat(["split", "f.bin", "--size", "500K", "--par2", "40%", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("f.bin"))
        try Self.swap("f.bin.001", "f.bin.002", in: scratch)
        let byPar2 = try gcdcat(["f.bin.par2", "-o", "by-par2"], in: scratch.path)
        #expect(byPar2.status == 0, "\(byPar2.stderr)")
        #expect(scratch.read("by-par2") == whole)
        let merged = try gcdcat(arguments + ["-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: f.bin.001 (damaged): its bytes were found whole in f.bin.002 (by f.bin.par2's MD5s), "
                + "which the merge reads in its place; the parts themselves are left as they are\n"
                + "gcdcat: note: f.bin.002 (damaged): its bytes were found whole in f.bin.001 (by f.bin.par2's MD5s), "
                + "which the merge reads in its place; the parts themselves are left as they are\n")
        #expect(merged.stderr == byPar2.stderr)
        #expect(scratch.read("out") == whole)
        #expect(scratch.read("f.bin.001") == whole[512_000..<1_024_000])
        #expect(scratch.read("f.bin.002") == whole[0..<512_000])
    }
}
