import Foundation
import Testing

/// Two GNU line splits whose prefixes differ in their last symbol read as one set by name:
/// `split -d -l 10 a x` writes `x00` … `x09`, `split -a 1 -d -l 10 b x1` writes `x10` …, and
/// `gcdcat x00` joined both with exit 0 (outside check a28 F1). `split -l N` writes every part
/// but its last with N lines, so a part with fewer just before such a boundary ends a set.
@Suite struct GluedLineSetsCLITests {
    /// The first set's last part 5, 8 (lines of two widths, a29 C1) or 80 lines short of 100.
    @Test(arguments: [
        ("split -d -l 10 a.txt x && split -a 1 -d -l 10 b.txt x1", "x00", "x09", "x10", 95, 10),
        ("split -d -l 10 a.txt x && split -a 1 -d -l 10 b.txt x1", "x00", "x09", "x10", 98, 10),
        ("split -d -l 100 a.txt x && split -a 1 -d -l 100 b.txt x1", "x00", "x09", "x10", 980, 100),
        ("split -l 10 a.txt x && split -a 1 -l 10 b.txt xb", "xaa", "xaz", "xba", 255, 10),
    ])
    func aSecondLineSplitAtTheBoundaryIsRefused(
        split: String, first: String, end: String, next: String, lines: Int, each: Int
    ) throws {
        let scratch = try Scratch()
        #expect(try shell("seq 1 \(lines) > a.txt && seq 1000 1049 > b.txt && \(split)", in: scratch.path).status == 0)
        let merged = try gcdcat([first, "-o", "out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        let parts = lines / each + 1
        #expect(
            merged.stderr
                == "gcdcat: \(end): the set's parts have \(each) lines each up to here, which has \(lines % each), and "
                + "\(next) after it starts where another split's names could: split -l writes every part but its last "
                + "with one line count, so these look like two sets read as one (another split whose prefix differs in "
                + "its last symbol, or split run again over an older set's names); nothing was written. If the first "
                + "set ends here, merge its \(parts) parts with --as-given (gcdcat merge --as-given \(first) … \(end) -o "
                + "FILE); if this is one set, merge it by its manifest, or with --as-given\n")
        #expect(scratch.read("out") == nil)
        // The advice works.
        let listed = try shell("ls x* | head -n \(parts) | tr '\\n' ' '", in: scratch.path).stdoutText
        let alone = try gcdcat(
            ["merge", "--as-given"] + listed.split(separator: " ").map(String.init) + ["-o", "a.out"], in: scratch.path)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(scratch.read("a.out") == scratch.read("a.txt"))
    }

    /// `split -l` run twice over the same names (a25 C5): the second, shorter input's last part
    /// `x01`, then the first run's `x02` … `x09`, were joined with exit 0.
    @Test func aLineSplitRunAgainOverOlderNamesIsRefused() throws {
        let scratch = try Scratch()
        #expect(
            try shell(
                "seq 1 300 > big.txt && seq 1000 1040 > small.txt && split -d -l 30 big.txt x "
                    + "&& split -d -l 30 small.txt x", in: scratch.path
            ).status == 0)
        let merged = try gcdcat(["x00", "-o", "small.out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: x01: the set's parts have 30 lines each up to here, which has 11, and the parts after it "
                + "have 30 each: split -l writes every part but its last with one line count, so these look like two "
                + "sets read as one (another split whose prefix differs in its last symbol, or split run again over an "
                + "older set's names); nothing was written. If the first set ends here, merge its 2 parts with "
                + "--as-given (gcdcat merge --as-given x00 … x01 -o FILE); if this is one set, merge it by its "
                + "manifest, or with --as-given\n")
        #expect(scratch.read("small.out") == nil)
        let alone = try gcdcat(["merge", "--as-given", "x00", "x01", "-o", "small.out"], in: scratch.path)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(scratch.read("small.out") == scratch.read("small.txt"))
    }

    /// Run again with another line count (a29 C2): `-l 3` over `-l 10`'s names, and `-l 10` over
    /// `-l 3`'s, whose last part is longer than the older parts.
    @Test(arguments: [
        ("seq 1 60 > a.txt && split -d -l 10 a.txt x && seq 500 506 > b.txt && split -d -l 3 b.txt x", "x02", 3, 1, 10),
        ("seq 1 30 > a.txt && split -d -l 3 a.txt x && seq 500 514 > b.txt && split -d -l 10 b.txt x", "x01", 10, 5, 3),
    ])
    func aLineSplitRunAgainWithAnotherCountIsRefused(
        splits: String, end: String, each: Int, short: Int, older: Int
    ) throws {
        let scratch = try Scratch()
        #expect(try shell(splits, in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "gcdcat: \(end): the set's parts have \(each) lines each up to here, which has \(short), and the "
                    + "parts after it have \(older) each: "),
            "\(merged.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// More of a30's: a rerun of one part (F2), a rerun's short part with only the last old part
    /// after it (F3), and a second split at the boundary after a first of whole parts, its parts
    /// longer (F4) or shorter (F8, where the advice named the second set's first part).
    @Test(arguments: [
        ("seq 1000 1099 > a.txt && split -d -l 10 a.txt x && seq 5000 5004 > b && split -d -l 10 b x", "x00"),
        ("seq 1000 1099 > a.txt && split -d -l 10 a.txt x && seq 5000 5084 > b && split -d -l 10 b x", "x08"),
        ("seq 100 199 > a.txt && seq 500 549 > b && split -d -l 10 a.txt x && split -a 1 -d -l 20 b x1", "x09"),
        ("seq 100 199 > a.txt && seq 500 529 > b && split -d -l 10 a.txt x && split -a 1 -d -l 5 b x1", "x09"),
    ])
    func moreTwoSetLayoutsAreRefusedWhereTheFirstEnds(splits: String, end: String) throws {
        let scratch = try Scratch()
        #expect(try shell(splits, in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr.hasPrefix("gcdcat: \(end): "), "\(merged.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// One line split across the boundary merges: every part but the last has 10 lines, even
    /// where the part before `x10` is the smallest (short lines), and a `-C` split whose parts
    /// hold more or fewer lines.
    @Test(arguments: [
        "seq 1 195 > a.txt && split -d -l 10 a.txt x",
        "(seq 1 90; yes x | head -n 10; seq 1 95) > a.txt && split -d -l 10 a.txt x",
        "seq 1 400 > a.txt && split -d -C 70 a.txt x",
        "seq -w 1 1234 > a.txt && split -d -n l/12 a.txt x",
        "seq -w 1 9999 > a.txt && split -d -n l/20 a.txt x",
        // -C where the lines widen: the part of both widths has fewer lines, but the next line
        // would not have fitted in it.
        "(seq -f %04g 1 50; seq -f %09g 1 100) > a.txt && split -d -C 100 a.txt x",
        "seq 1 997 > a.txt && split -d -l 7 a.txt x",
        // -n l/K of lines that widen (a30 F1): counts 8 5 5 … 7, 7 4 5 5 5, 86 65 62 62 62 63.
        "seq 1 60 > a.txt && split -d -n l/11 a.txt x",
        "seq 5 30 > a.txt && split -d -n l/5 a.txt x",
        "seq 1 400 > a.txt && split -d -n l/6 a.txt x",
        // A symbol as the separator (a30 F5).
        "printf 'a|bb|c|ddd|eeee|f|gg|' > a.txt && split -d -t '|' -l 1 a.txt x",
    ])
    func oneLineSplitAcrossTheBoundaryMerges(split: String) throws {
        let scratch = try Scratch()
        #expect(try shell(split, in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == scratch.read("a.txt"))
    }

    /// `split -C SIZE` cuts a line longer than SIZE into parts of SIZE bytes that end mid-line;
    /// such a set was refused as two sets, with the advice `--as-given xaa … xaa` (a29 M3).
    @Test(arguments: [
        "{ echo short; head -c 150 /dev/zero | tr '\\0' y; echo; echo end; } > a.txt && split -d -C 64 a.txt x",
        "{ seq 1 30; head -c 300 /dev/zero | tr '\\0' z; echo; seq 1 40; } > a.txt && split -d -C 64 a.txt x",
    ])
    func aColumnSplitThatCutsALongLineMerges(split: String) throws {
        let scratch = try Scratch()
        #expect(try shell(split, in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == scratch.read("a.txt"))
    }
}
