import Foundation
import Testing

/// Sets an outside check (a21) found read in the wrong numbering or grouped wrongly: GNU
/// `split -a 1 -x` (`out_0` … `out_9`, `out_a`, `out_b`), a list of a hex set that skips the
/// parts spelt with a letter, the first parts of two downloads whose names hold a digit
/// (`movie1.mkv.aa`, `movie2.mkv.aa`), a lone `xaa`, and `--hex-suffixes` with a tail.
@Suite struct NarrowAndGroupedSetsCLITests {
    func gnuSplit(_ command: String, size: Int) throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(size, seed: 4401)
        try scratch.write("f", whole)
        let made = try shell(command, in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        return (scratch, whole)
    }

    /// One hex symbol: `out_0` merged `out_0` … `out_9` alone with exit 0, even by a list or a
    /// `.par2` of all twelve ("10 parts verified").
    @Test(arguments: ["out_0", "out.sfv", "glob"])
    func aOneSymbolHexSetIsJoinedWhole(given: String) throws {
        let (scratch, whole) = try gnuSplit("split -a 1 -x -n 12 f out_ && cksfv -q out_? > out.sfv", size: 12_000)
        let arguments = given == "glob" ? ["merge"] + (0..<12).map { "out_" + String($0, radix: 16) } : [given]
        let merged = try gcdcat(arguments + ["-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.hasSuffix("gcdcat: 12 parts verified against out.sfv\n"), "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
    }

    /// A list of a hex set that skips `out_0a.txt` … `out_0f.txt` lying beside it was joined
    /// short with exit 0; so was one that stops at `out_09.txt`.
    @Test func aListSkippingAHexSetsLetteredPartsIsRefused() throws {
        let (scratch, _) = try gnuSplit("split -x -b 1000 --additional-suffix=.txt f out_", size: 17_000)
        let decimal = (0...9).map { "out_0\($0).txt" }
        let skipping = try gcdcat(["merge"] + decimal + ["out_10.txt", "-o", "o"], in: scratch.path)
        #expect(skipping.status == 1)
        #expect(
            skipping.stderr
                == "gcdcat: out_0a.txt: missing from the list between out_09.txt and out_10.txt; give every part, or "
                + "use --as-given to merge the list as it is\n")
        let stopping = try gcdcat(["merge"] + decimal + ["-o", "o"], in: scratch.path)
        #expect(stopping.status == 1)
        #expect(stopping.stderr.hasPrefix("gcdcat: out_0a.txt: lies beside the listed parts but is not in the list"))
        #expect(scratch.read("o") == nil)
    }

    /// `gcdcat *.aa` over two downloads' letters sets wrote their first parts joined into a
    /// made-up `movie.mkv.aa`; `gcdcat *.001` over `movie1.iso.*` and `movie2.iso.*` was refused
    /// as hex (`no movi00.iso.001`). Each set is merged to its own output.
    @Test(arguments: [
        ("split -b 2000 m1 movie1.mkv. && split -b 2000 m2 movie2.mkv.", "aa", "mkv"),
        (
            "split -b 2000 -a 3 --numeric-suffixes=1 m1 movie1.iso. && split -b 2000 -a 3 --numeric-suffixes=1 m2 movie2.iso.",
            "001", "iso"
        ),
    ])
    func twoDownloadsWhoseNamesHoldADigitAreTwoSets(split: String, first: String, kind: String) throws {
        let scratch = try Scratch()
        let one = randomData(4000, seed: 4402)
        let two = randomData(4000, seed: 4403)
        try scratch.write("m1", one)
        try scratch.write("m2", two)
        #expect(try shell(split + " && mkdir od", in: scratch.path).status == 0)
        let merged = try gcdcat(["movie1.\(kind).\(first)", "movie2.\(kind).\(first)", "-o", "od/"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("od/movie1.\(kind)") == one)
        #expect(scratch.read("od/movie2.\(kind)") == two)
    }

    /// One letter (`split -a 1`): `gcdcat out_a.txt -o o` wrote `out_a.txt` alone with exit 0,
    /// though `out_b.txt` … lay beside it and `out.sfv` listed them; a list out of order was
    /// joined as given.
    @Test func aOneLetterSetIsJoinedWholeAndInOrder() throws {
        let (scratch, whole) = try gnuSplit(
            "split -a 1 -b 2000 --additional-suffix=.txt f out_ && cksfv -q out_?.txt > out.sfv", size: 10_000)
        let merged = try gcdcat(["out_a.txt", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.hasSuffix("gcdcat: 5 parts verified against out.sfv\n"), "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
        let middle = try gcdcat(["out_c.txt", "-o", "m"], in: scratch.path)
        #expect(middle.status == 1)
        #expect(
            middle.stderr
                == "gcdcat: out_c.txt: not the first part of its set, which starts at out_a.txt; give the first part "
                + "to merge the whole set\n")
        let swapped = try gcdcat(
            ["merge", "out_b.txt", "out_a.txt", "out_c.txt", "out_d.txt", "out_e.txt", "-o", "s"], in: scratch.path)
        #expect(swapped.status == 1)
        #expect(
            swapped.stderr
                == "gcdcat: out_a.txt: listed after out_b.txt, out of numeric order for its set; give the parts in "
                + "order, or use --as-given to merge them as listed\n")
        #expect(scratch.read("m") == nil && scratch.read("s") == nil)
    }

    /// GNU split of a file smaller than one part leaves `xaa` alone: merged alone, not refused
    /// as hex `aa` with `x00` missing.
    @Test func aLoneXaaIsMergedAlone() throws {
        let (scratch, whole) = try gnuSplit("split f", size: 100)
        let merged = try gcdcat(["xaa", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
    }

    /// `--hex-suffixes=1f` with a tail was a usage error ("use an extension such as .txt").
    @Test func gcdcatSplitsFromAHexStartWithATail() throws {
        let scratch = try Scratch()
        let whole = randomData(45_000, seed: 4404)
        try scratch.write("f", whole)
        let split = try gcdcat(
            ["split", "--hex-suffixes=1f", "-b", "10000", "--additional-suffix=.txt", "f", "out_", "-q"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            scratch.listing().filter { $0.hasPrefix("out_") } == [
                "out_1f.txt", "out_20.txt", "out_21.txt", "out_22.txt", "out_23.txt",
            ])
        let merged = try gcdcat(["out_1f.txt", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
    }

    /// Sets whose confirming neighbour is gone, or that have one part (outside check a22): `cd1.aa`
    /// joined `cd2.aa` as `cd` + `1` + `.aa` with exit 0; `xaa` with `xab` lost, and `out_00.mp4`
    /// with `out_01.mp4` lost, merged their first part alone; a one-part `out_00.mp4` needed -o.
    @Test func aFirstPartWithoutItsNeighbourIsItsOwnSetAndAGapIsSaid() throws {
        let scratch = try Scratch()
        try scratch.write("cd1.aa", Data("one\n".utf8))
        try scratch.write("cd2.aa", Data("two\n".utf8))
        let alone = try gcdcat(["cd1.aa", "-o", "cd"], in: scratch.path)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(scratch.read("cd") == Data("one\n".utf8))
        let whole = randomData(4000, seed: 4405)
        try scratch.write("f", whole)
        for (command, first, gap) in [
            ("split -b 1000 f x && rm xab", "xaa", "xab"),
            ("split -d -b 1000 --additional-suffix=.mp4 f out_ && rm out_01.mp4", "out_00.mp4", "out_01.mp4"),
        ] {
            #expect(try shell(command, in: scratch.path).status == 0)
            let merged = try gcdcat([first, "-o", "o"], in: scratch.path)
            #expect(merged.status == 1, "\(first)")
            #expect(merged.stderr.hasPrefix("gcdcat: \(gap): missing part: the set has "), "\(merged.stderr)")
            #expect(scratch.read("o") == nil)
        }
        try scratch.write("g", whole.prefix(500))
        #expect(try shell("split -d -b 1000 --additional-suffix=.mp4 g one_", in: scratch.path).status == 0)
        let single = try gcdcat(["one_00.mp4"], in: scratch.path)
        #expect(single.status == 0, "\(single.stderr)")
        #expect(scratch.read("one.mp4") == whole.prefix(500))
    }
}
