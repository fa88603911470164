import Foundation
import Testing

/// A glob or a full list of a set's parts (`gcdcat movie.zip.0*`, `merge movie.zip.001 … .004`)
/// is held to the `.par2` beside it as the set found from its first part is (outside attack a17
/// #1: the list ignored it, so a damaged part was joined with exit 0, and a missing last part
/// made a short output with only a warning).
@Suite struct Par2ListedSetCLITests {
    /// `movie.zip.001` … `.004` (100 000 bytes each, the last 57 123), as a download leaves them
    /// (no marks, no SFV), and `movie.zip.par2` made by `protect` over them.
    struct Fixture {
        let scratch: Scratch
        let whole: Data
        let parts: [String]

        init(name: String = "movie.zip", seed: UInt64 = 1701, percent: String = "10", in scratch: Scratch? = nil)
            throws
        {
            self.scratch = try scratch ?? Scratch()
            whole = randomData(357_123, seed: seed)
            parts = (1...4).map { "\(name).00\($0)" }
            for (number, part) in parts.enumerated() {
                try self.scratch.write(part, whole[(number * 100_000)..<min(whole.count, (number + 1) * 100_000)])
            }
            let protect = try gcdcat(["protect"] + parts + ["--par2", percent, "-q"], in: self.scratch.path)
            #expect(protect.status == 0, "\(protect.stderr)")
        }

        func damage(_ name: String, at offset: Int) throws {
            var data = scratch.read(name)!
            data.replaceSubrange(offset..<offset + 2, with: Data("QQ".utf8))
            try scratch.write(name, data)
        }

        func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: scratch.file(name)) }
    }

    /// The shell's `movie.zip.0*` and every part listed by hand repair a damaged part as the
    /// first part does: the same output, messages and exit status.
    @Test(arguments: [[], ["merge"]])
    func aDamagedPartOfAListedSetIsRepairedAsFromTheFirstPart(command: [String]) throws {
        let set = try Fixture()
        try set.damage("movie.zip.003", at: 50)
        let fromFirst = try gcdcat(command + ["movie.zip.001"], in: set.scratch.path)
        #expect(fromFirst.status == 0, "\(fromFirst.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
        #expect(
            fromFirst.stderr.contains(
                "gcdcat: note: rebuilding movie.zip.003 (damaged, 1 block) from movie.zip.par2's recovery blocks; "
                    + "the part itself is left as it is\n"), "\(fromFirst.stderr)")
        try set.remove("movie.zip")
        let listed = try gcdcat(command + set.parts, in: set.scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr == fromFirst.stderr)
        #expect(set.scratch.read("movie.zip") == set.whole)
    }

    @Test func aListedSetsJSONReportsTheRepairAsTheFirstPartsDoes() throws {
        let set = try Fixture()
        try set.damage("movie.zip.003", at: 50)
        let listed = try gcdcat(set.parts + ["-o", "out", "--json"], in: set.scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(set.scratch.read("out") == set.whole)
        let document = try JSONSerialization.jsonObject(with: listed.stdout) as! [String: Any]
        #expect(document["verified"] as? Bool == true)
        #expect(document["manifest"] as? String == "movie.zip.par2")
        let rebuilt = (document["rebuiltParts"] as? [[String: Any]] ?? []).map { "\($0["path"]!) \($0["blocks"]!)" }
        #expect(rebuilt == ["movie.zip.003 1"])
    }

    /// The last part gone: the glob names the three left, and is refused as the first part is,
    /// with nothing written, where it made a short output with exit 0.
    @Test func aListedSetMissingItsLastPartIsRefusedAsFromTheFirstPart() throws {
        let set = try Fixture()
        try set.remove("movie.zip.004")
        let before = set.scratch.listing()
        let fromFirst = try gcdcat(["movie.zip.001"], in: set.scratch.path)
        #expect(fromFirst.status == 1, "\(fromFirst.stderr)")
        #expect(fromFirst.stderr.hasPrefix("gcdcat: movie.zip.par2: not repairable: "), "\(fromFirst.stderr)")
        let listed = try gcdcat(Array(set.parts.prefix(3)), in: set.scratch.path)
        #expect(listed.status == 1, "\(listed.stderr)")
        #expect(listed.stderr == fromFirst.stderr)
        #expect(set.scratch.listing() == before)
    }

    /// With enough recovery blocks the missing last part is rebuilt, from a list as from the
    /// first part.
    @Test func aListedSetMissingItsLastPartIsRebuiltWhenTheBlocksSuffice() throws {
        let set = try Fixture(percent: "50")
        try set.remove("movie.zip.004")
        let listed = try gcdcat(Array(set.parts.prefix(3)) + ["-o", "out"], in: set.scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("gcdcat: note: rebuilding movie.zip.004 (missing, "), "\(listed.stderr)")
        #expect(set.scratch.read("out") == set.whole)
    }

    /// `--verify` is met by the `.par2` for a glob as for the first part.
    @Test func aListedSetIsVerifiedAgainstItsPar2() throws {
        let set = try Fixture()
        let fromFirst = try gcdcat(["movie.zip.001", "-o", "out", "--verify"], in: set.scratch.path)
        #expect(fromFirst.status == 0, "\(fromFirst.stderr)")
        #expect(fromFirst.stderr == "gcdcat: 4 parts verified against movie.zip.par2\n")
        try set.remove("out")
        let listed = try gcdcat(set.parts + ["-o", "out", "--verify"], in: set.scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr == fromFirst.stderr)
        #expect(set.scratch.read("out") == set.whole)
    }

    /// A list that leaves out a part lying beside the set is still refused as it was.
    @Test func aListShortOfTheSetIsStillRefused() throws {
        let set = try Fixture()
        let listed = try gcdcat(Array(set.parts.prefix(2)), in: set.scratch.path)
        #expect(listed.status == 1, "\(listed.stderr)")
        #expect(
            listed.stderr.hasPrefix(
                "gcdcat: movie.zip.003: lies beside the listed parts but is not in the list, which stops at "
                    + "movie.zip.002"), "\(listed.stderr)")
        #expect(set.scratch.read("movie.zip") == nil)
    }

    /// README's `gcdcat *.00*` over two sets, each with its own `.par2` and a damaged part: each
    /// is repaired, as `gcdcat *.001` repairs them.
    @Test func twoListedSetsAreEachRepairedFromTheirOwnPar2() throws {
        let a = try Fixture(name: "a.bin", seed: 1)
        let b = try Fixture(name: "b.bin", seed: 2, in: a.scratch)
        try a.damage("a.bin.002", at: 50)
        try b.damage("b.bin.002", at: 50)
        let globbed = try gcdcat(a.parts + b.parts, in: a.scratch.path)
        #expect(globbed.status == 0, "\(globbed.stderr)")
        for name in ["a.bin", "b.bin"] {
            #expect(
                globbed.stderr.contains(
                    "gcdcat: note: rebuilding \(name).002 (damaged, 1 block) from \(name).par2's recovery blocks; "),
                "\(globbed.stderr)")
        }
        #expect(a.scratch.read("a.bin") == a.whole)
        #expect(a.scratch.read("b.bin") == b.whole)
    }

    /// One set of two not repairable: it is refused (exit 1), the other merged, as from their
    /// first parts.
    @Test func twoListedSetsOneNotRepairableExit1() throws {
        let a = try Fixture(name: "a.bin", seed: 3)
        let b = try Fixture(name: "b.bin", seed: 4, in: a.scratch)
        try b.remove("b.bin.004")
        let globbed = try gcdcat(a.parts + Array(b.parts.prefix(3)), in: a.scratch.path)
        #expect(globbed.status == 1, "\(globbed.stderr)")
        #expect(globbed.stderr.contains("gcdcat: b.bin.par2: not repairable: "), "\(globbed.stderr)")
        #expect(a.scratch.read("a.bin") == a.whole)
        #expect(a.scratch.read("b.bin") == nil)
    }

    /// A `split --par2` set of `f.bin` (357 123 bytes: four parts), its third part damaged;
    /// `options` are split's (`--no-manifest`).
    static func damagedSplitPar2Set(_ options: [String] = []) throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(357_123, seed: 1702)
        try scratch.write("f.bin", whole)
        let split = try gcdcat(
            ["split", "f.bin", "--size", "100000", "--par2", "40", "-q"] + options, in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("f.bin"))
        var data = scratch.read("f.bin.003")!
        data.replaceSubrange(50..<52, with: Data("QQ".utf8))
        try scratch.write("f.bin.003", data)
        return (scratch, whole)
    }

    /// A `split --par2` set (SFV and PAR2; or marks and PAR2): a damaged part fails the SFV (the
    /// marks) and is mended from the `.par2`, given as a list or as the SFV alone as from the
    /// first part (it was refused as corrupt, or as changed since the split, exit 2).
    @Test(arguments: [
        ([], ["f.bin.001", "f.bin.002", "f.bin.003", "f.bin.004"]), ([], ["f.bin.sfv"]),
        (["--no-manifest"], ["f.bin.001", "f.bin.002", "f.bin.003", "f.bin.004"]),
    ])
    func aSplitPar2SetListedRepairsWhatItsSFVOrMarksRefuse(split: [String], arguments: [String]) throws {
        let (scratch, whole) = try Self.damagedSplitPar2Set(split)
        let fromFirst = try gcdcat(["f.bin.001", "-o", "out"], in: scratch.path)
        #expect(fromFirst.status == 0, "\(fromFirst.stderr)")
        #expect(
            fromFirst.stderr.contains(
                "gcdcat: note: rebuilding f.bin.003 (damaged, 1 block) from f.bin.par2's recovery blocks; "),
            "\(fromFirst.stderr)")
        #expect(scratch.read("out") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("out"))
        let listed = try gcdcat(arguments + ["-o", "out"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr == fromFirst.stderr)
        #expect(scratch.read("out") == whole)
    }

    /// `split --header-lines --par2` whose SFV is gone: the `.par2` records the header, and the
    /// glob drops it from every part after the first as the first part does (it kept it).
    @Test func aListedHeaderSetIsRestoredByItsPar2() throws {
        let scratch = try Scratch()
        let csv = Data(("id,name\n" + (1...20_000).map { "\($0),row\($0)\n" }.joined()).utf8)
        try scratch.write("d.csv", csv)
        let split = try gcdcat(
            ["split", "d.csv", "--size", "50K", "--line-boundary", "--header-lines", "1", "--par2", "30", "-q"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        for name in ["d.csv", "d.csv.sfv"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        let parts = scratch.files(startingWith: "d.csv.0")
        #expect(parts.count > 2)
        let listed = try gcdcat(parts + ["-o", "out"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr == "gcdcat: \(parts.count) parts verified against d.csv.par2\n")
        #expect(scratch.read("out") == csv)
    }

    /// `par2 create movie.zip` before the split protects the whole file, not the parts: it is
    /// passed over with a note, found from the first part or listed, and the intact set merges
    /// (it was refused as "protects no part of this set": outside re-check a18 G).
    @Test(.enabled(if: toolExists("par2"), "par2 is not installed (apt-get install par2)"))
    func aPar2OfTheWholeFileIsPassedOverWithANote() throws {
        let scratch = try Scratch()
        let whole = randomData(300_000, seed: 1812)
        try scratch.write("movie.zip", whole)
        let create = try runTool("par2", ["create", "-q", "movie.zip"], in: scratch.path)
        #expect(create.status == 0, "\(create.stderr)")
        let made = try runTool(
            "split", ["-b", "100K", "-a", "3", "--numeric-suffixes=1", "movie.zip", "movie.zip."], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(unlink(scratch.file("movie.zip")) == 0)
        let note =
            "gcdcat: note: movie.zip.par2 protects movie.zip, the whole file, not its parts; not used (gcdcat verify "
            + "movie.zip.par2 checks the output)\n"
        for (arguments, output) in [
            (["movie.zip.001"], "a"), (["merge", "movie.zip.001", "movie.zip.002", "movie.zip.003"], "b"),
        ] {
            let result = try gcdcat(arguments + ["-o", output], in: scratch.path)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr == note, "\(arguments)")
            #expect(scratch.read(output) == whole, "\(arguments)")
        }
    }
}
