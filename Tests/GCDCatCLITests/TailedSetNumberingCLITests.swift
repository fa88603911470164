import Foundation
import Testing

/// Sets with a tail after the number (GNU split's `--additional-suffix`) read in the numbering
/// they were written in: hex for `-x` (`out_0a.txt` after `out_09.txt`), a tail whose extension
/// ends in digits (`.mp4`, `.tar.bz2`), and the first number of two digits, `00`, whose loss is
/// refused rather than merged short (outside checks a19 #1–#4, a20 F1).
@Suite struct TailedSetNumberingCLITests {
    /// 175,000 bytes in 10,000-byte parts: 18 parts, `00` … `0f`, `10`, `11` in hex.
    func gnuSplit(_ options: String, size: Int = 175_000, then: String = "") throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(size, seed: 4101)
        try scratch.write("f", whole)
        let made = try shell("split \(options) f out_\(then.isEmpty ? "" : " && " + then)", in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        return (scratch, whole)
    }

    /// Read in decimal, `out_00.txt` joined 00–09 then 10, 11: 115,000 wrong bytes with exit 0.
    @Test func aHexSetWithATailIsJoinedInHexOrder() throws {
        let (scratch, whole) = try gnuSplit("-x -b 10000 --additional-suffix=.txt")
        let merged = try gcdcat(["out_00.txt", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
        let globbed = try gcdcat(
            ["merge"] + scratch.listing().filter { $0.hasPrefix("out_") } + ["-o", "g"], in: scratch.path)
        #expect(globbed.status == 0, "\(globbed.stderr)")
        #expect(scratch.read("g") == whole)
    }

    /// A list of all 18 parts vouches for all 18: none is left out as "no part of the set".
    @Test(.enabled(if: toolExists("cksfv"), "needs cksfv (apt-get install cksfv)"))
    func aHexSetWithATailIsJoinedWholeByItsChecksumList() throws {
        let (scratch, whole) = try gnuSplit(
            "-x -b 10000 --additional-suffix=.txt", then: "cksfv -q out_*.txt > out.sfv")
        let merged = try gcdcat(["out.sfv", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 18 parts verified against out.sfv\n")
        #expect(scratch.read("o") == whole)
    }

    /// gcdcat's own `split -x` with a tail merges back, by its list and by its marks alone.
    @Test(arguments: [false, true])
    func gcdcatsOwnHexSplitWithATailMergesBack(listRemoved: Bool) throws {
        let scratch = try Scratch()
        let whole = randomData(175_000, seed: 4102)
        try scratch.write("f", whole)
        let split = try gcdcat(
            ["split", "-x", "-b", "10000", "--additional-suffix=.txt", "f", "out_", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        if listRemoved { try FileManager.default.removeItem(atPath: scratch.file("out.sfv")) }
        let merged = try gcdcat(["out_00.txt", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        let by = listRemoved ? "the crc32s their split marked them with" : "out.sfv"
        #expect(merged.stderr == "gcdcat: 18 parts verified against \(by)\n")
        #expect(scratch.read("o") == whole)
    }

    /// A `.par2` over a hex set with a tail rebuilds its lettered part (`out_0a.txt`), which a
    /// decimal reading had called no part of the set.
    @Test(.enabled(if: toolExists("par2"), "needs par2 (apt-get install par2)"))
    func aHexSetWithATailIsRepairedByItsPar2() throws {
        let (scratch, whole) = try gnuSplit(
            "-x -b 10000 --additional-suffix=.txt", then: "par2 create -q -q -r10 out.par2 out_*.txt && rm out_0a.txt")
        for argument in ["out_00.txt", "out.par2"] {
            let merged = try gcdcat([argument, "-o", argument + ".o"], in: scratch.path)
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stderr.contains("rebuilding out_0a.txt (missing, "), "\(merged.stderr)")
            #expect(scratch.read(argument + ".o") == whole)
        }
    }

    /// An extension that ends in digits (`.mp4`, `.tar.bz2`) is the tail, not the number: the
    /// first part alone merged, exit 0.
    @Test(arguments: [
        "-d -b 10000 --additional-suffix=.tar.bz2", "-b 10000 --additional-suffix=.mp4",
        "-x -b 10000 --additional-suffix=.mp3",
    ])
    func aTailEndingInDigitsIsTheTail(options: String) throws {
        let (scratch, whole) = try gnuSplit(options, size: 45_000)
        let first = scratch.listing().filter { $0.hasPrefix("out_") }.sorted()[0]
        let merged = try gcdcat([first, "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
    }

    /// gcdcat's split takes such a tail, and merge finds its set again.
    @Test func gcdcatSplitsWithATailEndingInDigits() throws {
        let scratch = try Scratch()
        let whole = randomData(45_000, seed: 4103)
        try scratch.write("f", whole)
        let split = try gcdcat(
            ["split", "-d", "-b", "10000", "--additional-suffix=.mp4", "f", "out_", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(scratch.listing().filter { $0.hasPrefix("out_") } == (0...4).map { "out_0\($0).mp4" })
        let merged = try gcdcat(["out_00.mp4"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out.mp4") == whole)
    }

    /// GNU `split -d --additional-suffix=.txt` numbers from `out_00.txt`; with it lost, no list
    /// and no marks, `gcdcat out_01.txt` merged short with exit 0 (a19 #4, a20 F1).
    @Test(arguments: [".txt", ".mp3"])
    func aTailedSetThatLostItsFirstPartIsRefused(tail: String) throws {
        let (scratch, _) = try gnuSplit(
            "-d -b 10000 --additional-suffix=\(tail)", size: 45_000, then: "rm out_00\(tail)")
        let merged = try gcdcat(["out_01\(tail)", "-o", "o"], in: scratch.path)
        #expect(merged.status == 1)
        #expect(
            merged.stderr.hasPrefix(
                "gcdcat: out_01\(tail): no out_00\(tail) before it, so the set's first part may be missing."),
            "\(merged.stderr)")
        #expect(scratch.read("o") == nil)
    }

    /// A list that leaves out `out_00.txt` lying beside it merged short, exit 0 (a19 #3).
    @Test func aListLeavingOutTheFirstTailedPartIsRefused() throws {
        let (scratch, _) = try gnuSplit("-d -b 10000 --additional-suffix=.txt", size: 45_000)
        let merged = try gcdcat(
            ["merge", "out_01.txt", "out_02.txt", "out_03.txt", "out_04.txt", "-o", "o"], in: scratch.path)
        #expect(merged.status == 1)
        #expect(
            merged.stderr
                == "gcdcat: out_01.txt: is the first part listed, but out_00.txt lies beside it: the list leaves out "
                + "the set's start, so the output would lack it. Merge from the first part (gcdcat merge out_00.txt), "
                + "or give --as-given to join the list as it is\n")
        #expect(scratch.read("o") == nil)
    }

    /// A set that really starts at 01 (`--numeric-suffixes=1`) is merged by its list or marks,
    /// and a lone `movie01.mkv` is still a plain file.
    @Test func aTailedSetFromOneIsMergedWhenItsStartIsVouchedFor() throws {
        let scratch = try Scratch()
        let whole = randomData(45_000, seed: 4104)
        try scratch.write("f", whole)
        let split = try gcdcat(
            [
                "split", "--numeric-suffixes=1", "-b", "10000", "--additional-suffix=.txt", "f", "out_",
                "--no-manifest", "-q",
            ],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let merged = try gcdcat(["out_01.txt", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("o") == whole)
        try scratch.write("movie01.mkv", whole)
        let lone = try gcdcat(["movie01.mkv", "-o", "m"], in: scratch.path)
        #expect(lone.status == 0, "\(lone.stderr)")
        #expect(scratch.read("m") == whole)
    }
}
