import Foundation
import Testing

/// Sets an outside check (a21, a22) found joined wrongly with exit 0: two one-part splits named
/// together, a `split -a 1 -d` set that lost its `x0`, and two splits whose prefixes differ in
/// their last digit or letter (`disk0`, `disk1`), which read as one set by every name.
@Suite struct SetsOfOneAndGluedSetsCLITests {
    /// Two one-part gcdcat splits, each with its manifest (`cd1_00.mp4` and `cd1.sfv`): `gcdcat
    /// cd1_00.mp4 cd2_00.mp4 -o out/` wrote both into one made-up `out/cd1_00.mp` with exit 0.
    @Test func twoOnePartSplitsWithTheirManifestsAreTwoSets() throws {
        let scratch = try Scratch()
        let one = randomData(800, seed: 4501)
        let two = randomData(700, seed: 4502)
        try scratch.write("cd1.iso", one)
        try scratch.write("cd2.iso", two)
        for name in ["cd1", "cd2"] {
            let split = try gcdcat(
                ["split", "\(name).iso", "\(name)_", "-d", "--additional-suffix", ".mp4", "--size", "1000"],
                in: scratch.path)
            #expect(split.status == 0, "\(split.stderr)")
        }
        #expect(try shell("mkdir out", in: scratch.path).status == 0)
        let merged = try gcdcat(["cd1_00.mp4", "cd2_00.mp4", "-o", "out/"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.hasSuffix("gcdcat: 2 of 2 sets merged (out/cd1.mp4, out/cd2.mp4)\n"), "\(merged.stderr)")
        #expect(scratch.read("out/cd1.mp4") == one)
        #expect(scratch.read("out/cd2.mp4") == two)
        #expect(scratch.read("out/cd1_00.mp") == nil)
    }

    /// The same names from GNU split leave nothing to tell a set of one from a file: they are a
    /// list, joined as typed into a file the user names, never into a name made up from the first.
    @Test func filesOfNoOneSetHaveNoOutputNameMadeUp() throws {
        let scratch = try Scratch()
        try scratch.write("cd1_00.mp4", randomData(800, seed: 4503))
        try scratch.write("cd2_00.mp4", randomData(700, seed: 4504))
        #expect(try shell("mkdir out", in: scratch.path).status == 0)
        let merged = try gcdcat(["cd1_00.mp4", "cd2_00.mp4", "-o", "out/"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: out/: name the file in full\n")
        #expect(try shell("ls out", in: scratch.path).stdoutText == "")
    }

    /// `split -a 1 -d` numbers from `x0`: with it lost, `gcdcat x1` joined `x1` … `x3` with exit
    /// 0 and no word. The whole set still merges from `x0`.
    @Test(arguments: ["x", "out_", "f."])
    func aOneDigitSetWithoutItsZeroIsRefused(prefix: String) throws {
        let scratch = try Scratch()
        let whole = randomData(3500, seed: 4505)
        try scratch.write("orig", whole)
        #expect(try shell("split -a 1 -d -b 1000 orig \(prefix)", in: scratch.path).status == 0)
        let complete = try gcdcat(["\(prefix)0", "-o", "o"], in: scratch.path)
        #expect(complete.status == 0, "\(complete.stderr)")
        #expect(scratch.read("o") == whole)
        #expect(try shell("rm \(prefix)0", in: scratch.path).status == 0)
        let short = try gcdcat(["\(prefix)1", "-o", "s"], in: scratch.path)
        #expect(short.status == 1, "\(short.stderr)")
        #expect(
            short.stderr
                == "gcdcat: \(prefix)1: no \(prefix)0 before it, so the set's first part may be missing. If the set "
                + "really starts here (split --start), merge it with its manifest, or list its parts with --as-given\n")
        #expect(scratch.read("s") == nil)
    }

    /// `split -d a disk0` and `split -d b disk1` read as one set `disk` + `000` … `104`: `gcdcat
    /// disk000` joined both into `disk` with exit 0. Their sizes change where the names could
    /// start the second set, so the merge is refused; each set merges by its parts listed.
    @Test(arguments: [
        ("split -d -n 100 a disk0 && split -d -b 2000 b disk1", "disk000", "disk099", "disk100"),
        ("split -n 676 a xa && split -b 2000 b xb", "xaaa", "xazz", "xbaa"),
    ])
    func twoSplitsWhosePrefixesDifferInTheirLastSymbolAreRefused(
        split: String, first: String, end: String, start: String
    ) throws {
        let scratch = try Scratch()
        let a = randomData(first == "xaaa" ? 67_650 : 10_050, seed: 4506)
        let b = randomData(9_000, seed: 4507)
        try scratch.write("a", a)
        try scratch.write("b", b)
        #expect(try shell(split, in: scratch.path).status == 0)
        let glued = try gcdcat([first, "-o", "o"], in: scratch.path)
        #expect(glued.status == 1, "\(glued.stderr)")
        #expect(
            glued.stderr.hasPrefix(
                "gcdcat: \(start): the set's parts are 100 bytes each up to here, then \(end) has 150 and \(start) 2000, "
                    + "just where the names could start another split's set"), "\(glued.stderr)")
        #expect(scratch.read("o") == nil)
        let letters = "abcdefghijklmnopqrstuvwxyz".map(String.init)
        let firstSet =
            first == "xaaa"
            ? letters.flatMap { one in letters.map { "xa" + one + $0 } }
            : (0..<100).map { "disk0" + String(format: "%02d", $0) }
        let listed = try gcdcat(["merge", "--as-given"] + firstSet + ["-o", "one"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(scratch.read("one") == a)
    }

    /// One byte split keeps one size to its last part, even across `disk099` → `disk100`: merged.
    @Test func oneSetAcrossTheBoundaryIsMerged() throws {
        let scratch = try Scratch()
        let whole = randomData(10_450, seed: 4508)
        try scratch.write("a", whole)
        #expect(try shell("split -d -a 3 -b 100 a disk", in: scratch.path).status == 0)
        let merged = try gcdcat(["disk000", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
    }
}
