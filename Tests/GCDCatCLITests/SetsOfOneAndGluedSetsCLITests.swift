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
                "gcdcat: \(end): the set's parts are 100 bytes each up to here, which has 150: one byte split writes "
                    + "every part but its last at one size, and a line split's parts end at a line end, as these do not"
            ),
            "\(glued.stderr)")
        #expect(glued.stderr.contains("The first set seems to end at \(end):"), "\(glued.stderr)")
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

    /// Files named by hand with one symbol before an extension (`track1.mp3` … beside each other)
    /// were joined into a made-up `track.mp3` with exit 0. Their sizes are none a byte split
    /// writes: refused, and joined when listed with an output named.
    @Test(arguments: [["track1.mp3", "track2.mp3", "track3.mp3"], ["report-a.pdf", "report-b.pdf", "report-c.pdf"]])
    func filesNamedByHandAreNoSet(files: [String]) throws {
        let scratch = try Scratch()
        let contents = [3000, 5000, 4000].enumerated().map { randomData($1, seed: 4510 + UInt64($0)) }
        for (name, data) in zip(files, contents) { try scratch.write(name, data) }
        let found = try gcdcat([files[0]], in: scratch.path)
        #expect(found.status == 1, "\(found.stderr)")
        #expect(
            found.stderr
                == "gcdcat: \(files[0]): its name reads as the first of 3 numbered files (\(files.joined(separator: " "))), "
                + "but they are 3000, 5000, 4000 bytes, sizes no byte split writes (each part but the last of one size), "
                + "and they do not end at line ends as a line split's parts do: files named by hand, not one split's parts, so no set was merged and nothing was written. To join "
                + "them, list them and name the output (gcdcat merge \(files.joined(separator: " ")) -o FILE); a set "
                + "that is one split's parts merges by its manifest, or with --as-given\n")
        #expect(try shell("ls", in: scratch.path).stdoutText == files.joined(separator: "\n") + "\n")
        let listed = try gcdcat(["merge"] + files + ["-o", "all"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(scratch.read("all") == contents.reduce(Data(), +))
    }

    /// `split -a 1 --numeric-suffixes=1 --additional-suffix=.txt`, by size or by count (whose
    /// last part takes the remainder), is one split's parts: merged from `part1.txt`.
    @Test(arguments: ["-b 1000", "-n 3"])
    func oneSplitsOneDigitPartsBeforeATailAreASet(size: String) throws {
        let scratch = try Scratch()
        let whole = randomData(3002, seed: 4520)
        try scratch.write("f", whole)
        let split = try shell(
            "split -a 1 --numeric-suffixes=1 --additional-suffix=.txt \(size) f part", in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let merged = try gcdcat(["part1.txt", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
    }

    /// GNU split run again over an older set's names leaves the new parts, a short one among
    /// them, then the older set's last parts: joined as one set with exit 0 (outside check a23 #4).
    @Test func splitRunAgainOverAnOlderSetIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("old", randomData(9500, seed: 4530))
        let new = randomData(2500, seed: 4531)
        try scratch.write("new", new)
        #expect(try shell("split -b 1000 -d old x && split -b 1000 -d new x", in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "o"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "gcdcat: x02: the set's parts are 1000 bytes each up to here, which has 500: one byte split writes "
                    + "every part but its last at one size"), "\(merged.stderr)")
        #expect(
            merged.stderr.contains(
                "The first set seems to end at x02: merge the parts you mean with --as-given (gcdcat merge --as-given "
                    + "x00 … x02 -o FILE)"), "\(merged.stderr)")
        #expect(scratch.read("o") == nil)
        let listed = try gcdcat(["merge", "--as-given", "x00", "x01", "x02", "-o", "n"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(scratch.read("n") == new)
    }

    /// A first set of whole parts, then another split's at the boundary of its names (`xyz`, then
    /// `xzaaa` of `split -a 3 … xz`): refused, and the fix it gives merges the first set whole
    /// (a23 #6 gave `xa?`, 26 of 650 parts).
    @Test func aFirstSetOfWholePartsThenAnotherAtTheBoundaryIsRefused() throws {
        let scratch = try Scratch()
        let a = randomData(19_500, seed: 4532)
        try scratch.write("A", a)
        try scratch.write("B", randomData(100, seed: 4533))
        #expect(try shell("split -b 30 A x && split -a 3 -b 20 B xz", in: scratch.path).status == 0)
        let merged = try gcdcat(["xaa", "-o", "o"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr.contains(
                "The first set seems to end at xyz: merge the parts you mean with --as-given (gcdcat merge --as-given "
                    + "xaa … xyz -o FILE)"), "\(merged.stderr)")
        let letters = "abcdefghijklmnopqrstuvwxy".map(String.init)
        let first = letters.flatMap { one in "abcdefghijklmnopqrstuvwxyz".map { "x" + one + String($0) } }
        #expect(first.count == 650)
        let listed = try gcdcat(["merge", "--as-given"] + first + ["-o", "a"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(scratch.read("a") == a)
    }

    /// Honest single sets whose sizes change where the names' first symbol does: a line split,
    /// and `-n` of an input smaller than its parts (outside check a23 #9).
    @Test(arguments: ["seq 100 1099 > f && split -l 90 -d f x", "head -c 10 /dev/urandom > f && split -d -n 20 f x"])
    func oneSetWhoseSizesChangeAtTheBoundaryIsMerged(make: String) throws {
        let scratch = try Scratch()
        #expect(try shell(make, in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == scratch.read("f"))
    }

    /// A set of one part left of a tailed or letters set, its manifest beside listing the parts
    /// lost: merged short with exit 0, and with --remove-parts its part deleted (a23 #1, #2).
    @Test(arguments: [
        (
            "split -d -b 1000 --additional-suffix=.mp4 f cd1_ && cksfv -q cd1_0*.mp4 > cd1.sfv", "cd1_00.mp4",
            "cd1_01.mp4", "cd1.sfv"
        ),
        ("split -b 1000 f cd1. && cksfv -q cd1.a? > cd1.sfv", "cd1.aa", "cd1.ab", "cd1.sfv"),
        ("split -b 1000 f p. && sha256sum p.a? > p.sha256", "p.aa", "p.ab", "p.sha256"),
    ])
    func aLoneFirstPartIsHeldToItsManifest(split: String, first: String, lost: String, list: String) throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(1500, seed: 4534))
        #expect(try shell(split + " && rm f \(lost)", in: scratch.path).status == 0)
        for extra in [[], ["--remove-parts"]] {
            let merged = try gcdcat([first, "-o", "o"] + extra, in: scratch.path)
            #expect(merged.status == 1, "\(merged.stderr)")
            #expect(merged.stderr.hasPrefix("gcdcat: \(lost): missing part: \(list) lists it"), "\(merged.stderr)")
            #expect(scratch.read("o") == nil)
            #expect(scratch.read(first)?.count == 1000)
        }
    }

    /// `--force` over two sets, one named after the other's part (`a.001.001` splits `a.001`
    /// again): the first set's output replaced the other's input part (a23 #3).
    @Test func aSetIsNeverMergedOverAnotherSetsPart() throws {
        let scratch = try Scratch()
        let a = randomData(1500, seed: 4535)
        try scratch.write("a", a)
        try scratch.write("b", randomData(1300, seed: 4536))
        let split =
            "split -d -a 3 --numeric-suffixes=1 -b 1000 a a. && split -d -a 3 --numeric-suffixes=1 -b 1000 b a.001."
        #expect(try shell(split + " && rm a b", in: scratch.path).status == 0)
        let merged = try gcdcat(["--force", "a.001.001", "a.001"], in: scratch.path)
        #expect(merged.status == 64, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "Error: a.001.001's set would be merged into a.001, a part (or list) of a.001's set, given too: its bytes would "
                    + "be lost; merge the sets one at a time, with -o\n"), "\(merged.stderr)")
        #expect(scratch.read("a.001") == a.prefix(1000))
    }

    /// Sets a second outside check (a24) found joined with exit 0: a `.001` set split again over
    /// an older one's names, GNU split run again at another size, and `disk1`'s split of two
    /// parts after `disk0`'s whole ones. No byte split writes such sizes, and the parts do not end
    /// at line ends.
    @Test(arguments: [
        (
            "split -a 3 --numeric-suffixes=1 -b 1000 old m.zip. && split -a 3 --numeric-suffixes=1 -b 1000 new m.zip.",
            "m.zip.001"
        ),
        ("split -d -b 1000 old x && split -d -b 2000 new x", "x00"),
        ("split -d -n 100 old disk0 && split -d -b 2000 new disk1", "disk000"),
    ])
    func partsOfSizesNoSplitWritesAreRefused(make: String, first: String) throws {
        let scratch = try Scratch()
        try scratch.write("old", randomData(10_000, seed: 4540))
        try scratch.write("new", randomData(2_300, seed: 4541))
        #expect(try shell(make, in: scratch.path).status == 0)
        let merged = try gcdcat([first, "-o", "o"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr.contains("one byte split writes every part but its last at one size"), "\(merged.stderr)")
        #expect(scratch.read("o") == nil)
    }

    /// Line splits end each part at a line end, whatever its size: merged (a24 #7, #8).
    @Test(arguments: [
        ("split -n l/7 f x", "xaa"), ("split -l 10 f x", "xaa"), ("split -C 100 -d f x", "x00"),
        ("split -a 1 --numeric-suffixes=1 -l 10 --additional-suffix=.txt f part", "part1.txt"),
    ])
    func lineSplitsOfAnySizesAreMerged(make: String, first: String) throws {
        let scratch = try Scratch()
        let lines = (1...90).map { String(repeating: "l", count: $0 % 7 + 1) + "\n" }.joined()
        try scratch.write("f", Data(lines.utf8))
        #expect(try shell(make, in: scratch.path).status == 0)
        let merged = try gcdcat([first, "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == Data(lines.utf8))
    }

    /// `--force` over two sets, one named after the other's list (`p.sfv.001`): its output
    /// replaced `p.sfv`, the list the first set is checked by (a24 #4).
    @Test func aSetIsNeverMergedOverAnotherSetsList() throws {
        let scratch = try Scratch()
        try scratch.write("p", randomData(1500, seed: 4542))
        try scratch.write("q", randomData(1500, seed: 4543))
        let make = "split -b 1000 p p. && cksfv -q p.a? > p.sfv && split -a 3 --numeric-suffixes=1 -b 1000 q p.sfv."
        #expect(try shell(make + " && cp p.sfv keep", in: scratch.path).status == 0)
        let merged = try gcdcat(["p.aa", "p.sfv.001", "-o", "./", "--force"], in: scratch.path)
        #expect(merged.status == 64, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "Error: p.sfv.001's set would be merged into ./p.sfv, a part (or list) of p.aa's set, given too"),
            "\(merged.stderr)")
        #expect(scratch.read("p.sfv") == scratch.read("keep"))
    }

    /// A stream's segments (`seg_001.ts` …) are of any size: found from the first they are
    /// refused, as no split wrote them, and listed they are joined as typed.
    @Test func segmentsOfAnySizeAreJoinedWhenListed() throws {
        let scratch = try Scratch()
        let segments = (1...4).map { randomData(1000 + 37 * $0, seed: 4550 + UInt64($0)) }
        let names = (1...4).map { "seg_00\($0).ts" }
        for (name, data) in zip(names, segments) { try scratch.write(name, data) }
        let found = try gcdcat(["seg_001.ts", "-o", "o"], in: scratch.path)
        #expect(found.status == 1, "\(found.stderr)")
        #expect(
            found.stderr.hasPrefix("gcdcat: seg_002.ts: the set's parts are 1037 bytes each up to here, which has 1074")
        )
        let listed = try gcdcat(["merge"] + names + ["-o", "all.ts"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(scratch.read("all.ts") == segments.reduce(Data(), +))
    }
}
