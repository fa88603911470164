import Foundation
import Testing

/// Files of a PAR2 set found under other names: parts swapped, or a part saved under another name
/// and given after the `.par2`. Each is found by its size and first 16 KiB's MD5 (the FileDesc
/// packet's hash16k), used only when its whole MD5 matches, and needs no recovery block: verify
/// calls the set repairable, repair copies the bytes to the right names, and a merge reads them
/// from where they are.
@Suite struct Par2FoundFilesCLITests {
    /// `movie.zip.001`…`.003` (100 000, 100 000 and 57 123 bytes) protected by gcdcat with 4 KiB
    /// blocks: 64 source blocks, 6 recovery blocks.
    static func protectedSet() throws -> (Scratch, [String: Data]) {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let protect = try gcdcat(
            ["protect", "movie.zip.001", "movie.zip.002", "movie.zip.003", "--par2-block-size", "4096", "-q"],
            in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        return (scratch, parts)
    }

    static func swap(_ a: String, _ b: String, in scratch: Scratch) {
        #expect(rename(scratch.file(a), scratch.file("swap.tmp")) == 0)
        #expect(rename(scratch.file(b), scratch.file(a)) == 0)
        #expect(rename(scratch.file("swap.tmp"), scratch.file(b)) == 0)
    }

    static func sortedLines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).sorted()
    }

    @Test func swappedPartsAreFoundByVerifyRepairAndMerge() throws {
        let (scratch, parts) = try Self.protectedSet()
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)

        let verify = try gcdcat(["verify", "movie.zip.par2"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stderr)")
        #expect(
            Self.sortedLines(verify.stdoutText)
                == [
                    "", "movie.zip.001: DAMAGED, found whole in movie.zip.002",
                    "movie.zip.002: DAMAGED, found whole in movie.zip.001", "movie.zip.003: OK",
                ])
        #expect(
            verify.stderr
                == "gcdcat: movie.zip.par2: repairable: needs 0 of the 6 recovery blocks present; 2 files found "
                + "whole under other names\n")

        // The merge reads each part from where it is, and leaves the parts as they are.
        let merge = try gcdcat(["movie.zip.001", "-o", "out", "--json"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == parts["movie.zip.001"]! + parts["movie.zip.002"]! + parts["movie.zip.003"]!)
        #expect(scratch.read("movie.zip.001") == parts["movie.zip.002"])
        #expect(scratch.read("movie.zip.002") == parts["movie.zip.001"])
        let document = try JSONSerialization.jsonObject(with: merge.stdout) as! [String: Any]
        let rebuilt = (document["rebuiltParts"] as! [[String: Any]]).map {
            "\($0["path"]!) \($0["state"]!) \($0["blocks"]!) \($0["foundIn"]!)"
        }
        #expect(rebuilt == ["movie.zip.001 damaged 0 movie.zip.002", "movie.zip.002 damaged 0 movie.zip.001"])
        #expect(
            (document["notes"] as! [String]).contains(
                "movie.zip.001 (damaged): its bytes were found whole in movie.zip.002 (by movie.zip.par2's MD5s), "
                    + "which the merge reads in its place; the parts themselves are left as they are"))

        let repair = try gcdcat(["repair", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr == "")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
        #expect(!scratch.listing().contains { $0.contains(".gcdcat-") }, "\(scratch.listing())")
        let again = try gcdcat(["verify", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// The last part (57 123 bytes) swapped with the first (100 000): the first part's name is
    /// short of the set's length, which the merge counted as blocks lost before it looked (`not
    /// repairable: at least 11 blocks missing`).
    @Test func theLastPartSwappedWithAnotherOfOtherSizeMerges() throws {
        let (scratch, parts) = try Self.protectedSet()
        Self.swap("movie.zip.001", "movie.zip.003", in: scratch)
        let merge = try gcdcat(["movie.zip.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == parts["movie.zip.001"]! + parts["movie.zip.002"]! + parts["movie.zip.003"]!)
        #expect(
            merge.stderr.contains(
                "gcdcat: note: movie.zip.001 (damaged): its bytes were found whole in movie.zip.003 (by "
                    + "movie.zip.par2's MD5s), which the merge reads in its place; the parts themselves are left as "
                    + "they are\n"), "\(merge.stderr)")
        let repair = try gcdcat(["repair", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
    }

    /// The documents that name a file found under another name (`foundIn`) follow their schemas.
    @Test func foundFilesFollowTheJSONSchemas() throws {
        let (scratch, _) = try Self.protectedSet()
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)
        for (arguments, name) in [
            (["verify", "movie.zip.par2", "--json"], "verify-par2"),
            (["movie.zip.001", "-o", "out", "--json"], "merge"),
            (["repair", "movie.zip.par2", "--json"], "repair"),
        ] {
            let result = try gcdcat(arguments, in: scratch.path)
            #expect(result.status == (name == "verify-par2" ? 2 : 0), "\(result.stderr)")
            #expect(result.stdoutText.contains("\"foundIn\""), "\(result.stdoutText)")
            let violations = try schema(name).violations(of: try JSONValue.parse(result.stdout))
            #expect(violations == [], "\(arguments): \(result.stdoutText)")
        }
    }

    @Test func repairSaysWhereItCopiedFrom() throws {
        let (scratch, parts) = try Self.protectedSet()
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)
        let repair = try gcdcat(["repair", "movie.zip.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        let said = repair.stderr.split(separator: "\n").map(String.init).filter { $0.contains("repaired") }
        #expect(
            said.sorted() == [
                "gcdcat: movie.zip.001: repaired (copied from movie.zip.002, which held its bytes whole; 0 blocks "
                    + "rebuilt)",
                "gcdcat: movie.zip.002: repaired (copied from movie.zip.001, which held its bytes whole; 0 blocks "
                    + "rebuilt)",
            ])
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
    }

    @Test func aRenamedPartIsFoundInAFileNamedAfterThePar2() throws {
        let (scratch, parts) = try Self.protectedSet()
        #expect(rename(scratch.file("movie.zip.002"), scratch.file("movie.zip.002 (1)")) == 0)

        // Not given: 25 blocks lost, 6 recovery blocks.
        let alone = try gcdcat(["verify", "movie.zip.par2"], in: scratch.path)
        #expect(alone.status == 1)
        #expect(
            alone.stderr == "gcdcat: movie.zip.par2: not repairable: 25 blocks missing, 6 recovery blocks available\n")
        // The merge takes no file to search: `gcdcat NAME.par2 FILE` joined the index's bytes and
        // FILE, exit 0 (outside re-check r23d N2).
        for arguments in [["movie.zip.par2", "movie.zip.002 (1)"], ["merge", "movie.zip.002 (1)", "movie.zip.par2"]] {
            let merged = try gcdcat(arguments + ["-o", "out"], in: scratch.path)
            #expect(merged.status == 1, "\(arguments)")
            #expect(
                merged.stderr
                    == "gcdcat: movie.zip.par2: a PAR2 recovery file, not a part: gcdcat verify movie.zip.par2 checks "
                    + "the set it describes, gcdcat repair movie.zip.par2 mends it\n", "\(arguments)")
            #expect(scratch.read("out") == nil)
        }

        let verify = try gcdcat(["verify", "movie.zip.par2", "movie.zip.002 (1)"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stderr)")
        #expect(
            Self.sortedLines(verify.stdoutText)
                == [
                    "", "movie.zip.001: OK", "movie.zip.002: MISSING, found whole in movie.zip.002 (1)",
                    "movie.zip.003: OK",
                ])
        #expect(
            verify.stderr
                == "gcdcat: movie.zip.par2: repairable: needs 0 of the 6 recovery blocks present; 1 file found whole "
                + "under another name\n")

        let repair = try gcdcat(["repair", "movie.zip.par2", "movie.zip.002 (1)", "--json"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        let document = try JSONSerialization.jsonObject(with: repair.stdout) as! [String: Any]
        let repaired = (document["repaired"] as! [[String: Any]]).map {
            "\($0["path"]!) \($0["blocksRebuilt"]!) \($0["foundIn"]!)"
        }
        #expect(repaired == ["movie.zip.002 0 movie.zip.002 (1)"])
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
        // The file it was found in is left as it is.
        #expect(scratch.read("movie.zip.002 (1)") == parts["movie.zip.002"])
    }

    /// The right size and the right first 16 KiB, other bytes later: its 16 KiB hash matches, its
    /// whole MD5 does not, and it must not be used.
    @Test func aFileWithOnlyTheFirst16KiBRightIsNotUsed() throws {
        let (scratch, parts) = try Self.protectedSet()
        var decoy = parts["movie.zip.002"]!
        decoy[60_000] ^= 0x5A
        try scratch.write("decoy", decoy)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.002"))

        let verify = try gcdcat(["verify", "movie.zip.par2", "decoy"], in: scratch.path)
        #expect(verify.status == 1)
        #expect(
            Self.sortedLines(verify.stdoutText)
                == ["", "movie.zip.001: OK", "movie.zip.002: MISSING (25 blocks)", "movie.zip.003: OK"])
        #expect(
            verify.stderr
                == "gcdcat: note: decoy has the size and first 16 KiB of movie.zip.002, but not its bytes after them "
                + "(its MD5 differs): not used\n"
                + "gcdcat: movie.zip.par2: not repairable: 25 blocks missing, 6 recovery blocks available\n")

        let repair = try gcdcat(["repair", "movie.zip.par2", "decoy", "-q"], in: scratch.path)
        #expect(repair.status == 1)
        #expect(
            repair.stderr == "gcdcat: movie.zip.par2: not repairable: 25 blocks missing, 6 recovery blocks available\n")
        #expect(scratch.read("movie.zip.002") == nil)
        #expect(scratch.read("decoy") == decoy)
    }

    /// A file given to search that is not there (a typo) is said, not silently passed over.
    @Test func aFileGivenToSearchThatIsNotThereIsSaid() throws {
        let (scratch, _) = try Self.protectedSet()
        let verify = try gcdcat(["verify", "movie.zip.par2", "movie.zip.002 (1)"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(
            verify.stderr
                == "gcdcat: note: movie.zip.002 (1): no such file, so not searched\n"
                + "gcdcat: movie.zip.par2: 3 files OK (6 recovery blocks present)\n")
        // A symlink loop is there, and says what it is (it was "no such file": outside re-check r23d N7).
        #expect(symlink("loop", scratch.file("loop")) == 0)
        let loop = try gcdcat(["verify", "movie.zip.par2", "loop"], in: scratch.path)
        #expect(loop.status == 0, "\(loop.stderr)")
        #expect(loop.stderr.hasPrefix("gcdcat: note: loop: Too many levels of symbolic links, so not searched\n"))
    }

    /// The notes the text report prints beside the verdict are in the JSON report too, as the
    /// set's `notes` (verify's and repair's dropped them: outside re-check r23d), and left out
    /// when there are none.
    @Test func theSearchNotesAreInTheJSONReports() throws {
        let (scratch, _) = try Self.protectedSet()
        for command in ["verify", "repair"] {
            let run = try gcdcat([command, "movie.zip.par2", "movie.zip.002 (1)", "--json"], in: scratch.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "")
            let document = try JSONSerialization.jsonObject(with: run.stdout) as! [String: Any]
            let set =
                command == "verify" ? (document["sets"] as! [[String: Any]])[0] : document["set"] as! [String: Any]
            #expect(set["notes"] as? [String] == ["movie.zip.002 (1): no such file, so not searched"], "\(command)")

            let quiet = try gcdcat([command, "movie.zip.par2", "--json"], in: scratch.path)
            let plain = try JSONSerialization.jsonObject(with: quiet.stdout) as! [String: Any]
            let plainSet = command == "verify" ? (plain["sets"] as! [[String: Any]])[0] : plain["set"] as! [String: Any]
            #expect(plainSet["notes"] == nil, "\(command)")
        }
    }

    /// Two parts swapped and the third missing: the merge reads the swapped parts from where they
    /// were found and rebuilds the third from recovery blocks. The rebuild it starts early, before
    /// the check, reads every part at its own name, so it is not used when a part was found
    /// elsewhere (it refused the set as "changed after it was verified": outside re-check r23d N4).
    @Test func aSwapAndAMissingPartMergeWithTheRebuild() throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let names = ["movie.zip.001", "movie.zip.002", "movie.zip.003"]
        let protect = try gcdcat(
            ["protect"] + names + ["--par2-block-size", "4096", "--par2", "30", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.003"))
        let merged = try gcdcat(["movie.zip.001", "-o", "out", "--jobs", "2", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == names.map { parts[$0]! }.reduce(Data(), +))
        #expect(
            merged.stderr.contains("gcdcat: note: rebuilding movie.zip.003 (missing, 14 blocks)"), "\(merged.stderr)")
    }

    /// A missing part whose checked copy a killed repair left beside it (`.NAME.gcdcat-XXXXXX`):
    /// the merge's count before reading passed it over and refused the set, 25 blocks against 6,
    /// where verify and repair found it (outside re-check r23d N3). It is read from there.
    @Test func aMissingPartsLeftoverCopyIsMerged() throws {
        let (scratch, parts) = try Self.protectedSet()
        #expect(rename(scratch.file("movie.zip.002"), scratch.file(".movie.zip.002.gcdcat-Qw12Er")) == 0)
        let merged = try gcdcat(["movie.zip.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            scratch.read("out")
                == ["movie.zip.001", "movie.zip.002", "movie.zip.003"].map { parts[$0]! }.reduce(Data(), +))
        #expect(
            merged.stderr.contains("its bytes were found whole in .movie.zip.002.gcdcat-Qw12Er"), "\(merged.stderr)")
    }

    @Test func aSwapAndADamagedBlockTakeOneRecoveryBlock() throws {
        let (scratch, parts) = try Self.protectedSet()
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)
        var third = parts["movie.zip.003"]!
        third[9_000] ^= 0x5A
        try scratch.write("movie.zip.003", third)

        let verify = try gcdcat(["verify", "movie.zip.par2"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stderr)")
        #expect(
            Self.sortedLines(verify.stdoutText)
                == [
                    "", "movie.zip.001: DAMAGED, found whole in movie.zip.002",
                    "movie.zip.002: DAMAGED, found whole in movie.zip.001",
                    "movie.zip.003: DAMAGED (1 of 14 blocks bad)",
                ])
        #expect(
            verify.stderr
                == "gcdcat: movie.zip.par2: repairable: needs 1 of the 6 recovery blocks present; 2 files found "
                + "whole under other names\n")

        let merge = try gcdcat(["movie.zip.001", "-o", "out", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == parts["movie.zip.001"]! + parts["movie.zip.002"]! + parts["movie.zip.003"]!)
        #expect(scratch.read("movie.zip.003") == third)

        let repair = try gcdcat(["repair", "movie.zip.par2", "--json"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        let document = try JSONSerialization.jsonObject(with: repair.stdout) as! [String: Any]
        let repaired = (document["repaired"] as! [[String: Any]]).map {
            "\($0["path"]!) \($0["blocksRebuilt"]!) \($0["foundIn"] ?? "-")"
        }
        #expect(
            repaired.sorted() == [
                "movie.zip.001 0 movie.zip.002", "movie.zip.002 0 movie.zip.001", "movie.zip.003 1 -",
            ])
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
    }

    /// A set made by par2cmdline-turbo (which finds swapped files itself): gcdcat finds them too.
    @Test(Par2Tool.turbo.required) func swappedPartsOfATurboSetAreFound() throws {
        let fixture = try Par2MergeFixture(.turbo, recovery: 5)
        let scratch = fixture.scratch
        let parts = Dictionary(uniqueKeysWithValues: fixture.parts.map { ($0, scratch.read($0)!) })
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)

        let verify = try gcdcat(["verify", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stderr)")
        #expect(
            Self.sortedLines(verify.stdoutText)
                == [
                    "", "movie.zip.001: DAMAGED, found whole in movie.zip.002",
                    "movie.zip.002: DAMAGED, found whole in movie.zip.001",
                ])

        let merge = try gcdcat(["movie.zip.001", "-o", "out", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == fixture.whole)

        let repair = try gcdcat(["repair", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
        let turbo = try Par2Tool.turbo.execute(["verify", "-q", "movie.zip.par2"], in: scratch.path)
        #expect(turbo.status == 0, "\(turbo.stdoutText)")
    }

    /// Swapped files on two file systems (a subfolder that is a mount) cannot be hard-linked to
    /// each other's folder: the repair goes on without the kept links (EXDEV, injected here).
    @Test(.enabled(if: toolExists("strace"), "needs strace to fail the link with EXDEV"))
    func aKeptLinkAcrossFileSystemsIsLeftOut() throws {
        let (scratch, parts) = try Self.protectedSet()
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)
        let repaired = try runTool(
            "strace",
            [
                "-f", "-o", "/dev/null", "-e", "trace=link", "-e", "inject=link:error=EXDEV", gcdcatPath, "repair",
                "movie.zip.par2", "-q",
            ],
            in: scratch.path)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
        #expect(!scratch.listing().contains { $0.hasPrefix(".movie.zip") }, "\(scratch.listing())")
    }

    /// A repair of two swapped files stopped at any step of naming them: SIGKILL at the hidden
    /// link that keeps a replaced file's bytes, at either copy's link or rename, or a link that
    /// fails (EIO). Every byte keeps a name throughout (a kill at the second copy's link left its
    /// bytes only in an unnamed file, and the set was not repairable: outside re-check r23d N1),
    /// so the rerun finds the bytes in what was left and repairs with no recovery block.
    @Test(
        .enabled(if: toolExists("strace"), "needs strace to stop the repair between two renames"),
        arguments: [
            "link:signal=KILL:when=2", "linkat:signal=KILL:when=1", "linkat:signal=KILL:when=2",
            "rename:signal=KILL:when=1", "rename:signal=KILL:when=2", "linkat:error=EIO:when=2",
        ])
    func aRepairStoppedBetweenTwoSwappedFilesIsFinishedByTheRerun(_ injection: String) throws {
        let (scratch, parts) = try Self.protectedSet()
        Self.swap("movie.zip.001", "movie.zip.002", in: scratch)
        let call = injection.split(separator: ":")[0]
        let stopped = try runTool(
            "strace",
            [
                "-f", "-o", "/dev/null", "-e", "trace=\(call)", "-e", "inject=\(injection)", gcdcatPath, "repair",
                "movie.zip.par2", "-q",
            ],
            in: scratch.path)
        #expect(stopped.status != 0)
        if injection.hasSuffix("EIO:when=2") {
            #expect(stopped.stderr.contains(": linkat: Input/output error; "), "\(stopped.stderr)")
            #expect(
                stopped.stderr.contains(" was repaired already, and copies of the swapped files' bytes are kept in "))
        }
        let leftovers = scratch.listing().filter { $0.hasPrefix(".movie.zip.00") }
        #expect(!leftovers.isEmpty, "\(scratch.listing())")
        let verify = try gcdcat(["verify", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stdoutText)")
        #expect(verify.stdoutText.contains(", found whole in "), "\(verify.stdoutText)")
        #expect(!verify.stdoutText.contains("not repairable"), "\(verify.stdoutText)")
        let repair = try gcdcat(["repair", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
    }

}
