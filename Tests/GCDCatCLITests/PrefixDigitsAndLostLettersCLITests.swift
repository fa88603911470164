import Foundation
import Testing

/// How a set is read when its prefix ends in a digit, when a one-letter set lost its first part,
/// when a list is spelt two ways, and what a lone part's whole-file list says (outside checks
/// a23 #7, #8, #10, #11 and a24 #6, #9).
@Suite struct PrefixDigitsAndLostLettersCLITests {
    /// GNU `split -d` with a prefix that ends in a digit (`cd1`) names `cd100`, `cd101`, …, and
    /// past 90 parts widens to `cd19000`. They were refused as `cd` + `100` with 100 parts lost
    /// ("no cd001 before it"), or named a `cd190` that no split makes. `split -d … disk0` past 90
    /// parts (`disk089`, `disk09000`) was refused as "mixed widths".
    @Test(arguments: [("cd1", 1_200, "cd100"), ("cd1", 12_000, "cd100"), ("disk0", 3_000, "disk000")])
    func aPrefixEndingInADigitReadsAsTheSplitWroteIt(prefix: String, size: Int, first: String) throws {
        let scratch = try Scratch()
        let whole = randomData(size, seed: 4601)
        try scratch.write("f", whole)
        #expect(try shell("split -d -b \(size <= 1_200 ? 100 : size / 100) f \(prefix)", in: scratch.path).status == 0)
        let merged = try gcdcat([first, "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// A set whose digits follow a separator keeps its whole number: `movie.zip.100` beside
    /// `.101` is a set that lost `.001` … `.099`, not `movie.zip.1` + `00`.
    @Test func digitsAfterASeparatorStayOneNumber() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(300, seed: 4602))
        #expect(
            try shell("split -b 100 -a 3 --numeric-suffixes=100 f movie.zip.", in: scratch.path).status == 0)
        let merged = try gcdcat(["movie.zip.100", "-o", "out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr.hasPrefix("gcdcat: movie.zip.100: no movie.zip.001 before it"), "\(merged.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// `out_b` of `split -a 1` with `out_a` lost: "name the output with -o", and with `-o` the
    /// one part was written with exit 0. It is now refused as a set whose start is gone;
    /// `--as-given` takes the file alone.
    @Test(arguments: ["out_", "f.", "x"])
    func aLaterOneLetterPartWithoutItsFirstIsRefused(prefix: String) throws {
        let scratch = try Scratch()
        let whole = randomData(25, seed: 4603)
        try scratch.write("in", whole)
        #expect(try shell("split -a 1 -b 10 in \(prefix) && rm \(prefix)a", in: scratch.path).status == 0)
        let merged = try gcdcat(["\(prefix)b", "-o", "out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        if prefix == "x" {
            // `xb` also reads as two letters: refused by that reading, as before.
            #expect(merged.stderr.hasPrefix("gcdcat: xb: no "), "\(merged.stderr)")
        } else {
            #expect(
                merged.stderr
                    == "gcdcat: \(prefix)b: no \(prefix)a before it, though \(prefix)c lies beside it: read as one "
                    + "letter's parts (split -a 1), the set's first part may be missing, so nothing was written. If "
                    + "this file stands alone, give --as-given\n")
        }
        #expect(scratch.read("out") == nil)
        let alone = try gcdcat(["merge", "--as-given", "\(prefix)b", "-o", "alone"], in: scratch.path)
        #expect(alone.status == 0, "\(alone.stderr)")
        // `xb` reads as two letters, whose set `xb`, `xc` --as-given starts; `out_b` is a file alone.
        #expect(scratch.read("alone") == whole.subdata(in: 10..<(prefix == "x" ? 25 : 20)))
    }

    /// A list of one set spelt two ways (`m.001 … m.004 ./m.005`) was refused as two sets, and the
    /// fix the message gave (`-o DIR/`) failed too.
    @Test func aListSpeltTwoWaysIsOneSet() throws {
        let scratch = try Scratch()
        let whole = randomData(4_500, seed: 4604)
        try scratch.write("f", whole)
        #expect(try shell("split -b 1000 -a 3 --numeric-suffixes=1 f m. && mkdir out", in: scratch.path).status == 0)
        let merged = try gcdcat(["merge", "m.001", "m.002", "m.003", "m.004", "./m.005", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
        // An absolute path and `d/../` spell the folder too (a25 M4).
        #expect(try shell("mkdir d", in: scratch.path).status == 0)
        let intoFolder = try gcdcat(
            ["m.001", "./m.002", "\(scratch.path)/m.003", "d/../m.004", ".//m.005", "-o", "out/"], in: scratch.path)
        #expect(intoFolder.status == 0, "\(intoFolder.stderr)")
        #expect(scratch.read("out/m") == whole)
    }

    /// A lone first part beside cksfv's list of the whole file (`cksfv -q cd1.mp4 >
    /// cd1.mp4.sfv`), its second part lost, was refused as "another set (cd1.mp)", a garbled name,
    /// and the suggested `--no-verify` wrote a short file. The whole line is now checked: the
    /// part is short of it, exit 2, nothing written.
    @Test(arguments: ["cd1.mp4.sfv", "cd1.sfv"])
    func aLoneFirstPartIsCheckedAgainstItsWholeFileLine(list: String) throws {
        let scratch = try Scratch()
        try scratch.write("cd1.mp4", randomData(3_000, seed: 4605))
        #expect(
            try shell(
                "cksfv -q cd1.mp4 > \(list) && split -d -b 2000 --additional-suffix=.mp4 cd1.mp4 cd1_ "
                    + "&& crc=$(grep -v '^;' \(list) | cut -d' ' -f2) && mv cd1.mp4 orig && rm cd1_01.mp4 && echo $crc",
                in: scratch.path
            ).status == 0)
        let expected = try shell("grep -v '^;' \(list) | cut -d' ' -f2", in: scratch.path).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let actual = try shell("rhash --simple --crc32 cd1_00.mp4 | cut -d' ' -f1", in: scratch.path).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let line = try shell("grep -n -v '^;' \(list) | cut -d: -f1", in: scratch.path).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let merged = try gcdcat(["cd1_00.mp4"], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: \(list): line \(line) gives cd1.mp4 crc32 \(expected), but the one part has \(actual): a "
                + "part is corrupt or missing\n")
        #expect(scratch.read("cd1.mp4") == nil)
    }

    /// `merge disk000 disk001` of `split -a 3 -d` said "or the first alone: gcdcat merge disk001",
    /// which is refused ("disk000 exists too"): the first part is `disk000`.
    @Test func aShortListNamesItsRealFirstPart() throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(2_500, seed: 4606))
        #expect(try shell("split -b 500 -a 3 -d in disk", in: scratch.path).status == 0)
        let merged = try gcdcat(["merge", "disk000", "disk001", "-o", "O"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: disk002: lies beside the listed parts but is not in the list, which stops at disk001: the "
                + "output would lack 3 parts (disk002 … disk004). Give every part (or the first alone: gcdcat merge "
                + "disk000), or use --as-given to merge the list as it is\n")
        #expect(scratch.read("O") == nil)
    }

    /// A part GNU split widened (`x9000` after `x89`, `xzaaa`, `xf000`, `cd19000`), given alone,
    /// was read as the first part of a set `x9` + `000`: its tail was merged with exit 0, and with
    /// `--remove-parts` and the set's `x.sfv` beside it, 13 parts were deleted (a25 C1, C2).
    @Test(arguments: [
        ("split -d -b 20 f x", 2_050, "x9000", "x00"), ("split -b 20 f x", 13_610, "xzaaa", "xaa"),
        ("split -x -b 20 f x", 5_050, "xf000", "x00"), ("split -d -b 20 f cd1", 2_050, "cd19000", "cd100"),
    ])
    func aWidenedPartAloneIsNoSetsFirstPart(split: String, size: Int, given: String, first: String) throws {
        let scratch = try Scratch()
        let whole = randomData(size, seed: 4607)
        try scratch.write("f", whole)
        #expect(try shell("\(split) && cksfv -q \(first.dropLast(2))* > set.sfv", in: scratch.path).status == 0)
        let before = scratch.listing()
        let merged = try gcdcat([given, "--remove-parts"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: \(given): not the first part of its set, which starts at \(first); give the first part to "
                + "merge the whole set\n")
        #expect(scratch.listing() == before)
        let all = try gcdcat([first, "-o", "out"], in: scratch.path)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// A glob over `split -a 1`'s parts that lost `out_a` was joined as typed, without its first
    /// part, with exit 0 (a25 C3); `--as-given` still joins them.
    @Test(arguments: [("out_", ""), ("x", ".txt")])
    func aListOfOneLetterPartsWithoutItsFirstIsRefused(prefix: String, tail: String) throws {
        let scratch = try Scratch()
        let whole = randomData(550, seed: 4608)
        try scratch.write("f", whole)
        let suffix = tail.isEmpty ? "" : " --additional-suffix=\(tail)"
        #expect(
            try shell("split -a 1 -b 100\(suffix) f \(prefix) && rm \(prefix)a\(tail)", in: scratch.path).status == 0)
        let parts = "bcdef".map { "\(prefix)\($0)\(tail)" }
        let merged = try gcdcat(["merge"] + parts + ["-o", "o"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: \(prefix)b\(tail): no \(prefix)a\(tail) before it: read as one letter's parts (split -a 1), "
                + "the set's first part may be missing, so nothing was written. If these files are not one split's "
                + "parts, give --as-given to join them as listed\n")
        #expect(scratch.read("o") == nil)
        let given = try gcdcat(["merge", "--as-given"] + parts + ["-o", "o"], in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(scratch.read("o") == whole.subdata(in: 100..<550))
    }

    /// Globs and lists of `split -d` sets whose prefix ends in a digit were refused (`v2*`: "no
    /// v001 before it"; `cd1*` past the widening: "cd190 missing"; `disk0*`: "mixed widths"), and
    /// so was `202400` of the prefix `2024` (a25 M1).
    @Test(arguments: [
        ("v2", 1_150, 100, "v2*"), ("cd1", 2_050, 20, "cd1*"), ("disk0", 2_050, 20, "disk0*"),
        ("2024", 1_150, 100, "202400"),
    ])
    func aPrefixEndingInADigitMergesByGlob(prefix: String, size: Int, part: Int, given: String) throws {
        let scratch = try Scratch()
        let whole = randomData(size, seed: 4609)
        try scratch.write("src", whole)
        #expect(try shell("split -d -b \(part) src \(prefix) && rm src", in: scratch.path).status == 0)
        let merged = try shell("\(gcdcatPath) \(given) -o out", in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// A widened part lost past the boundary is named as GNU spells it: `x9000`, not an `x90` no
    /// split makes (a22 L2).
    @Test func aMissingWidenedPartIsNamedAsSpelt() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(95, seed: 4610))
        #expect(try shell("split -d -b 1 f x && rm x9000", in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: x9000: missing part: the set has x9001 but not this one\n")
        #expect(scratch.read("out") == nil)
    }

    /// `gcdcat m.001.001` whose output, named after the set, is `m.001`, the first part of another
    /// set lying there: "already exists (use --force to replace it)", and `--force` replaced that
    /// part, its set's bytes lost (a25 M5). Both are refused; `-o` names another output.
    @Test func anOutputOverAnotherSetsFirstPartIsRefusedEvenWithForce() throws {
        let scratch = try Scratch()
        let a = randomData(250, seed: 4611)
        let b = randomData(250, seed: 4612)
        try scratch.write("a", a)
        try scratch.write("b", b)
        #expect(
            try shell(
                "split -d -a 3 --numeric-suffixes=1 -b 100 a m. && split -d -a 3 --numeric-suffixes=1 -b 100 b m.001.",
                in: scratch.path
            ).status == 0)
        let before = scratch.read("m.001")
        for force in [[], ["--force"]] {
            let merged = try gcdcat(["m.001.001"] + force, in: scratch.path)
            #expect(merged.status == 64, "\(merged.stderr)")
            #expect(
                merged.stderr.hasPrefix(
                    "Error: m.001.001's set would be merged into m.001, a part of another set lying there "
                        + "(m.001 … m.003): its bytes would be lost; name the output with -o\n"), "\(merged.stderr)")
            #expect(scratch.read("m.001") == before)
        }
        let named = try gcdcat(["m.001.001", "-o", "b.out"], in: scratch.path)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(scratch.read("b.out") == b)
        let other = try gcdcat(["m.001", "-o", "a.out"], in: scratch.path)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(scratch.read("a.out") == a)
    }

    /// A middle part of a three-digit set (`x100` of `split -a 3 -d`, `disk200` of gcdcat's own
    /// `--prefix disk` copied without its marks) was read as `x1` + `00`: its tail merged with
    /// exit 0, and `--remove-parts` deleted 50 parts (a26 C1). A part just below it keeps the
    /// whole number.
    @Test(arguments: [
        ("split -a 3 -d -b 10 f x", 1_495, "x100", "x000"),
        ("\(gcdcatPath) split f --prefix disk -b 10 -q && rm disk.sfv", 2_495, "disk200", "disk001"),
    ])
    func aMiddlePartOfAThreeDigitSetIsNotATwoDigitSet(split: String, size: Int, given: String, first: String) throws {
        let scratch = try Scratch()
        let whole = randomData(size, seed: 4613)
        try scratch.write("f", whole)
        #expect(try shell("\(split) && mkdir c && cp \(first.dropLast(3))[0-9]* c/", in: scratch.path).status == 0)
        let folder = scratch.path + "/c"
        let before = try shell("ls", in: folder).stdoutText
        let merged = try gcdcat([given, "--remove-parts"], in: folder)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: \(given): not the first part of its set, which starts at \(first); give the first part to "
                + "merge the whole set\n")
        #expect(try shell("ls", in: folder).stdoutText == before)
        let all = try gcdcat([first, "-o", "out"], in: folder)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(scratch.read("c/out") == whole)
    }

    /// Widened parts listed or globbed (`gcdcat x9* -o out`, `x9000 x9001 x9002`) were merged as a
    /// set `x9` + `000`, with exit 0, and `--remove-parts` deleted them (a26 C2).
    @Test func widenedPartsListedAreNoSetOfTheirOwn() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(1_850, seed: 4614))
        #expect(try shell("split -d -b 20 f x && rm f && cksfv -q x[0-9]* > x.sfv", in: scratch.path).status == 0)
        let before = scratch.listing()
        let merged = try shell("\(gcdcatPath) x9* -o out --remove-parts", in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: x9000: is the first part listed, but x00 lies beside it: the list leaves out the set's "
                + "start, so the output would lack it. Merge from the first part (gcdcat merge x00), or give "
                + "--as-given to join the list as it is\n")
        #expect(scratch.listing() == before)
    }

    /// `split -d f disk0` past its widening, `disk000` lost, globbed: merged without its first part
    /// with exit 0 (a26 C4); a three-digit set that lost its first 100 parts, `gcdcat x100`:
    /// merged `x100` … `x199` as `x1` + `00` (a26 H2). Both are refused as starting late.
    @Test(arguments: [
        ("split -d -b 20 f disk0 && rm disk000", 1_950, "disk0*", "disk001: no disk000 before it"),
        ("split -a 3 -d -b 10 f x && rm x0*", 3_000, "x100", "x100: no x001 before it"),
    ])
    func aSetThatLostItsStartIsRefusedUnderEitherReading(
        split: String, size: Int, given: String, message: String
    ) throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(size, seed: 4615))
        #expect(try shell("\(split) && rm f", in: scratch.path).status == 0)
        let merged = try shell("\(gcdcatPath) \(given) -o out", in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr.hasPrefix("gcdcat: \(message)"), "\(merged.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// `m.001.001`'s set given by its checksum list (`gcdcat m.001.sfv --force`, `SHA256SUMS`)
    /// replaced `m.001`, the first part of another set, with exit 0 (a26 C3).
    @Test(arguments: ["cksfv -q m.001.0* > m.001.sfv", "sha256sum m.001.0* > SHA256SUMS"])
    func aListsSetIsNotMergedOverAnotherSetsFirstPart(list: String) throws {
        let scratch = try Scratch()
        let a = randomData(100, seed: 4616)
        try scratch.write("m.001", a)
        try scratch.write("m.002", randomData(100, seed: 4617))
        try scratch.write("c", randomData(100, seed: 4618))
        #expect(
            try shell("split -b 20 -d -a 3 --numeric-suffixes=1 c m.001. && rm c && \(list)", in: scratch.path).status
                == 0)
        let name = list.components(separatedBy: "> ").last!
        let merged = try gcdcat([name, "--force"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr.hasSuffix(
                "gcdcat: m.001: is a part of another set lying there (m.001 … m.002), and this set's output "
                    + "would be named after it: that set's bytes would be lost; name the output with -o\n"),
            "\(merged.stderr)")
        #expect(scratch.read("m.001") == a)
    }

    /// A stretch of a three-letter or hex set given alone (`xbaa` beside `xazz` of `split -a 3`;
    /// `xe0` beside `xdf` of `split -x`) was read as the first part of a set `xb` + `aa`, `xe` +
    /// `0`: its tail merged with exit 0 (a27 F3, F4). Listed (`x100 x101` beside `x099` of `split
    /// -a 3 -d`), the same was a set `x1` (a27 F2).
    @Test(arguments: [
        ("split -a 3 -b 10 f x", 6_875, ["xbaa"], "xbaa: not the first part of its set, which starts at xaaa"),
        ("split -x -b 10 f x", 2_505, ["xe0"], "xe0: not the first part of its set, which starts at x00"),
        (
            "split -a 3 -d -b 10 f x", 1_015, ["x100", "x101"],
            "x100: is the first part listed, but x000 lies beside it"
        ),
    ])
    func aStretchOfASetIsNoSetOfItsOwn(split: String, size: Int, given: [String], message: String) throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(size, seed: 4619))
        #expect(try shell("\(split) && rm f", in: scratch.path).status == 0)
        let merged = try gcdcat(["merge"] + given + ["-o", "out"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr.hasPrefix("gcdcat: \(message)"), "\(merged.stderr)")
        // With the set's list beside it, --remove-parts deletes nothing either.
        #expect(try shell("cksfv -q x* > x.sfv", in: scratch.path).status == 0)
        let before = scratch.listing()
        let removing = try gcdcat(["merge"] + given + ["-o", "out", "--remove-parts"], in: scratch.path)
        #expect(removing.status == 1, "\(removing.stderr)")
        #expect(scratch.listing() == before)
    }

    /// `m.002.001`'s set, whose output is named `m.002`, a middle part of the set `m.001` …
    /// `m.003`: `--force` replaced it with exit 0 (a27 F5).
    @Test func anOutputOverAnotherSetsMiddlePartIsRefused() throws {
        let scratch = try Scratch()
        for (index, name) in ["m.001", "m.002", "m.003"].enumerated() {
            try scratch.write(name, randomData(100, seed: 4620 + UInt64(index)))
        }
        try scratch.write("c", randomData(100, seed: 4623))
        #expect(try shell("split -b 20 -d -a 3 --numeric-suffixes=1 c m.002. && rm c", in: scratch.path).status == 0)
        let before = scratch.read("m.002")
        let merged = try gcdcat(["m.002.001", "--force"], in: scratch.path)
        #expect(merged.status == 64, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "Error: m.002.001's set would be merged into m.002, a part of another set lying there (m.001 … "
                    + "m.003): its bytes would be lost; name the output with -o\n"), "\(merged.stderr)")
        #expect(scratch.read("m.002") == before)
    }
}
