import Foundation
import Testing

/// `f`, 250 000 random bytes, protected with 4 KiB blocks: 62 blocks, 6 recovery blocks in
/// `f.vol0+1.par2`, `f.vol1+2.par2` and `f.vol3+3.par2` beside `f.par2`.
func protectedFile(_ scratch: Scratch, seed: UInt64 = 61) throws -> Data {
    let whole = randomData(250_000, seed: seed)
    try scratch.write("f", whole)
    let protect = try gcdcat(["protect", "f", "--par2-block-size", "4K", "-q"], in: scratch.path)
    #expect(protect.status == 0, "\(protect.stderr)")
    #expect(scratch.listing() == ["f", "f.par2", "f.vol0+1.par2", "f.vol1+2.par2", "f.vol3+3.par2"])
    return whole
}

/// The offset of the first packet of `type` (its `PAR2\0PKT` magic) in `data`.
func packetOffset(_ data: Data, type: String) -> Int? {
    guard let found = data.range(of: Data("PAR 2.0\0\(type)".utf8)) else { return nil }
    return found.lowerBound - data.startIndex - 48
}

/// `protect`'s limits, checked before the input is read, and what a signal or a lost report
/// says of the set.
extension Par2ProtectCLITests {
    /// `--par2 1000%` of 10 000 blocks asked for 100 000 recovery blocks: exit 1 after the
    /// input's heads were read. A usage error naming PAR2's limit and the highest share.
    @Test func moreRecoveryBlocksThanPar2AllowsIsAUsageError() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(40_000, seed: 62))
        let result = try gcdcat(
            ["protect", "f", "--par2-block-size", "4", "--par2", "1000%"], in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: --par2 1000% of 10000 blocks makes 100000 recovery blocks, more than PAR2's 65535: give at "
                    + "most 655% (or a larger --par2-block-size)\n"), "\(result.stderr)")
        #expect(scratch.listing() == ["f"])
    }

    /// `--par2-volumes 500` for 6 recovery blocks made 3 volumes without a word; par2cmdline
    /// refuses it ("Too many recovery files specified"), and so does gcdcat now.
    @Test func moreVolumesThanRecoveryBlocksIsAUsageError() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(250_000, seed: 63))
        let result = try gcdcat(
            ["protect", "f", "--par2-block-size", "4K", "--par2-volumes", "7"], in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: --par2-volumes 7 is more than the 6 recovery blocks to spread over them (each volume holds "
                    + "at least one): give at most 6, or a larger --par2\n"), "\(result.stderr)")
        #expect(scratch.listing() == ["f"])
        // Six fit, but volumes of 1, 2, 4, … blocks hold six in three: a note says so.
        let doubling = try gcdcat(["protect", "f", "--par2-block-size", "4K", "--par2-volumes", "6"], in: scratch.path)
        #expect(doubling.status == 0, "\(doubling.stderr)")
        #expect(
            doubling.stderr.contains(
                "gcdcat: note: --par2-volumes 6 made 3: volumes of 1, 2, 4, … blocks hold the 6 recovery blocks in "
                    + "fewer; --uniform makes 6\n"), "\(doubling.stderr)")
        let uniform = try gcdcat(
            ["protect", "f", "--par2-block-size", "4K", "--par2-volumes", "6", "--uniform", "--force", "-q"],
            in: scratch.path)
        #expect(uniform.status == 0, "\(uniform.stderr)")
        #expect(scratch.listing().filter { $0.contains(".vol") }.count == 6)
    }

    /// `--uniform` alone, as par2's `-u` alone: one volume per bit of the recovery block count
    /// (200 blocks: 8 volumes of 25, the names `par2 c -r10 -u` gives), where it was a usage error.
    @Test func uniformAloneMakesAsManyVolumesAsPar2() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(2_000_000, seed: 77))
        let result = try gcdcat(
            ["protect", "a.bin", "-o", "p.par2", "--par2", "10%", "--uniform", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            scratch.listing().filter { $0.contains(".vol") }
                == (0..<8).map { String(format: "p.vol%03d+25.par2", $0 * 25) })
        let verify = try gcdcat(["verify", "p.par2"], in: scratch.path)
        #expect(verify.status == 0)
        #expect(verify.stderr == "gcdcat: p.par2: 1 file OK (200 recovery blocks present)\n")
    }

    /// PAR2 names each file by its path from the index's folder: `x ./x` was refused for sharing
    /// no name, and `x x` with exit 1 after reading. (`d1/x d2/x` are two names in `s.par2`'s set.)
    @Test(arguments: [["x", "./x"], ["x", "x"], ["d1/x", "d1/../d1/x"]])
    func twoFilesOfTheSameNameAreAUsageErrorNamingBoth(files: [String]) throws {
        let scratch = try Scratch()
        for folder in ["d1", "d2"] {
            try FileManager.default.createDirectory(atPath: scratch.file(folder), withIntermediateDirectories: true)
        }
        for name in ["x", "d1/x", "d2/x"] { try scratch.write(name, randomData(1000, seed: 64)) }
        let result = try gcdcat(["protect", "-o", "s.par2"] + files, in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: \(files[0]) and \(files[1]) have the same name \(files[0]), and PAR2 names a set's files by "
                    + "their paths from its .par2's folder: give each file once, under names that differ\n"),
            "\(result.stderr)")
        #expect(!scratch.listing().contains { $0.hasSuffix(".par2") })
    }

    /// A file in a subfolder of the set's folder is named by its path from there, as par2
    /// create names it (protect refused it as "not in s.par2's folder"): verify reads it, repair
    /// restores it, and par2 verifies the set. A file outside the folder is still refused.
    @Test func aFileInASubfolderIsNamedByItsPathFromTheSetsFolder() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("set/sub"), withIntermediateDirectories: true)
        let b = randomData(5000, seed: 2515)
        try scratch.write("set/a.bin", randomData(5000, seed: 2516))
        try scratch.write("set/sub/b.bin", b)
        try scratch.write("c.bin", randomData(100, seed: 2517))
        let protect = try gcdcat(
            ["protect", "a.bin", "./sub/b.bin", "-o", "s.par2", "--par2", "100%", "-q"], in: scratch.file("set"))
        #expect(protect.status == 0, "\(protect.stderr)")
        let verify = try gcdcat(["verify", "s.par2"], in: scratch.file("set"))
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdoutText.split(separator: "\n").sorted() == ["a.bin: OK", "sub/b.bin: OK"])
        if Par2Tool.cmdline.isInstalled {
            let par2 = try Par2Tool.cmdline.execute(["verify", "-q", "s.par2"], in: scratch.file("set"))
            #expect(par2.status == 0, "\(par2.stdoutText)")
        }
        try FileManager.default.removeItem(atPath: scratch.file("set/sub"))
        let repair = try gcdcat(["repair", "s.par2", "-q"], in: scratch.file("set"))
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(scratch.read("set/sub/b.bin") == b)
        let outside = try gcdcat(["protect", "a.bin", "../c.bin", "-o", "t.par2"], in: scratch.file("set"))
        #expect(outside.status == 64)
        #expect(
            outside.stderr.hasPrefix(
                "Error: ../c.bin is not in t.par2's folder or below it; a set's names are relative to its .par2's "
                    + "folder\n"), "\(outside.stderr)")
    }

    /// `--par2-block-size 1G --par2 1000%` on small files held 1 GiB a recovery block and wrote
    /// 10 GiB of volumes for 100 kB. Refused before anything is read, naming the limit. 20
    /// files make 200 blocks of 1 GiB, more than half the memory of any machine that runs this.
    @Test func recoveryBlocksBeyondMemoryAreAUsageError() throws {
        let scratch = try Scratch()
        let names = (0..<20).map { String(format: "f.%03d", $0) }
        for name in names { try scratch.write(name, randomData(100, seed: 65)) }
        let result = try gcdcat(
            ["protect", "--par2-block-size", "1G", "--par2", "1000%"] + names, in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: 200 recovery blocks of 1073741824 bytes take 214748364800 bytes of memory while they are "
                    + "computed, more than half of this machine's ("), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                " bytes): give a smaller --par2-block-size (or --par2), or protect fewer files at once\n"),
            "\(result.stderr)")
        #expect(scratch.listing() == names)
        // A split's recovery blocks are held the same way: 100 one-byte parts, 100 blocks of 1 GiB.
        let split = try gcdcat(
            ["split", "f.000", "--parts", "100", "--par2", "100%", "--par2-block-size", "1G", "-d", "s."],
            in: scratch.path)
        #expect(split.status == 64)
        #expect(
            split.stderr.hasPrefix(
                "Error: 100 recovery blocks of 1073741824 bytes take 107374182400 bytes of memory while they are "
                    + "computed, more than half of this machine's ("), "\(split.stderr)")
        #expect(split.stderr.contains(" bytes): give a smaller --par2-block-size or --par2.\n"), "\(split.stderr)")
        #expect(scratch.listing() == names)
    }

    /// A report that cannot be written once the set is named said only "No space left on
    /// device", as if the protect had failed: it says that the set stays, as a merge says.
    @Test func aReportLostToAFullDiskSaysTheSetStays() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(250_000, seed: 66))
        let result = try runTool(
            "bash", ["-c", "'\(gcdcatPath)' protect f --par2-block-size 4K --json >/dev/full"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: standard output: write: No space left on device; only the report was lost\n"
                + "gcdcat: f.par2 … f.vol3+3.par2 was published and stays\n")
        #expect(try gcdcat(["verify", "f.par2"], in: scratch.path).status == 0)
    }

    /// `repair --json` into a full disk said only "No space left on device", exit 1, although the
    /// files were repaired (outside attack a23c F3): it names them as staying.
    @Test func aRepairsLostReportSaysTheRepairedFilesStay() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(300_000, seed: 68))
        try scratch.write("b.bin", randomData(100_000, seed: 69))
        let protect = try gcdcat(["protect", "a.bin", "b.bin", "-o", "s.par2", "--par2", "40", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("b.bin"))
        let result = try runTool("bash", ["-c", "'\(gcdcatPath)' repair s.par2 --json >/dev/full"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: standard output: write: No space left on device; only the report was lost\n"
                + "gcdcat: b.bin was published and stays\n", "\(result.stderr)")
        #expect(scratch.read("b.bin") == randomData(100_000, seed: 69))
    }

    /// `split --par2 --json` into a full disk named the parts as staying, not the PAR2 files.
    @Test func aSplitsLostReportNamesItsRecoveryFilesAsStaying() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(250_000, seed: 67))
        let result = try runTool(
            "bash", ["-c", "'\(gcdcatPath)' split f -b 100K --par2 10% --json >/dev/full"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: standard output: write: No space left on device; only the report was lost\n"
                + "gcdcat: f.001 … f.par2 was published and stays\n", "\(result.stderr)")
        #expect(try gcdcat(["verify", "f.par2"], in: scratch.path).status == 0)
    }
}

/// Ctrl-C while `protect` reads said only "interrupted by SIGINT", where a merge and a split
/// name what was not created. strace delivers the signal at the third `pread` (the first file's
/// head; the two before it are the dynamic loader's) and holds it a second, so the sweep runs
/// before the set could be named: the moment is the same every run.
@Suite(.enabled(if: toolExists("strace"), "needs strace to deliver the signal mid-protect"))
struct Par2ProtectInterruptCLITests {
    @Test func anInterruptedProtectSaysTheSetWasNotCreated() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(250_000, seed: 68))
        let result = try run(
            executable: "/usr/bin/env",
            [
                "--default-signal", "strace", "-f", "-o", "/dev/null", "-e", "trace=pread64", "-e",
                "inject=pread64:signal=INT:delay_exit=1000000:when=3", gcdcatPath, "protect", "f",
                "--par2-block-size", "4K", "-q",
            ], in: scratch.path)
        #expect(result.status == 130)
        #expect(result.stderr == "\ngcdcat: interrupted by SIGINT; f.par2 and 3 other outputs were not created\n")
        #expect(scratch.listing() == ["f"])
    }
}

/// `verify` of a damaged set: a damaged packet is blamed on its volume, not the index, and a junk
/// file under a volume's name is said, never offered as the one to use.
extension Par2VerifyCLITests {
    @Test func aDamagedRecoveryPacketIsNamedByItsVolumeAndOffset() throws {
        let scratch = try Scratch()
        _ = try protectedFile(scratch)
        var volume = scratch.read("f.vol3+3.par2")!
        volume[100] ^= 0xFF  // the first recovery block's data: its packet starts at 0
        try scratch.write("f.vol3+3.par2", volume)
        let result = try gcdcat(["verify", "f.par2"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: f.vol3+3.par2: 1 damaged packet skipped, a recovery block's at offset 0 (lost, not counted "
                + "among the recovery blocks present)\n"
                + "gcdcat: f.par2: 1 file OK (5 recovery blocks present)\n")
        // repair names it too, and mends from the blocks left.
        let whole = scratch.read("f")!
        var damaged = whole
        damaged[1000] ^= 0xFF
        try scratch.write("f", damaged)
        let repair = try gcdcat(["repair", "f.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(
            repair.stderr.hasPrefix(
                "gcdcat: f.vol3+3.par2: 1 damaged packet skipped, a recovery block's at offset 0 (lost, not counted "
                    + "among the recovery blocks present)\n"), "\(repair.stderr)")
        #expect(scratch.read("f") == whole)
    }

    @Test func aDamagedCopyOfTheDescriptionIsNamedByItsFileAndOffset() throws {
        let scratch = try Scratch()
        _ = try protectedFile(scratch)
        var index = scratch.read("f.par2")!
        let main = try #require(packetOffset(index, type: "Main"))
        index[main + 70] ^= 0xFF
        try scratch.write("f.par2", index)
        let result = try gcdcat(["verify", "f.par2"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "gcdcat: f.par2: 1 damaged packet skipped, at offset \(main) (PAR2 repeats the set's description in "
                    + "every .par2 file: the intact copies were used)\n"), "\(result.stderr)")
    }

    @Test func aJunkFileNamedAsAVolumeIsNamedAsNotAPar2File() throws {
        let scratch = try Scratch()
        _ = try protectedFile(scratch)
        try scratch.write("f.vol00+01.par2", randomData(5000, seed: 69))
        let result = try gcdcat(["verify", "f.par2"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: note: f.vol00+01.par2 is named as a recovery volume of f.par2's set but is not a PAR2 file "
                + "(no PAR2 packet in it); ignored\n"
                + "gcdcat: f.par2: 1 file OK (6 recovery blocks present)\n")
        // Without the index, the hint names a real volume, not the junk that sorts first.
        try FileManager.default.removeItem(atPath: scratch.file("f.par2"))
        try FileManager.default.removeItem(atPath: scratch.file("f.vol0+1.par2"))
        let hint = try gcdcat(["verify", "f.par2"], in: scratch.path)
        #expect(hint.status == 1)
        #expect(
            hint.stderr
                == "gcdcat: f.par2: open: not found, but 3 recovery volumes of its set lie beside it, and each holds "
                + "the set's description: give one instead (gcdcat verify f.vol1+2.par2)\n")
        for name in ["f.vol1+2.par2", "f.vol3+3.par2"] {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        let junkOnly = try gcdcat(["verify", "f.par2"], in: scratch.path)
        #expect(junkOnly.status == 1)
        #expect(
            junkOnly.stderr
                == "gcdcat: f.par2: open: not found, and the file named as its recovery volume beside it "
                + "(f.vol00+01.par2) is not a PAR2 file (no PAR2 packet in it): the set cannot be read\n")
    }
}

extension Par2VerifyCLITests {
    /// `verify *.par2` gives a set's index and every volume: the set is verified once, as par2
    /// verifies it, with one note for the rest (it was verified and printed once per file:
    /// outside attack a17 #14), in the JSON too. A copy of the index in another folder is another
    /// set of files.
    @Test func aSetGivenAsItsIndexAndItsVolumesIsVerifiedOnce() throws {
        let scratch = try Scratch()
        _ = try protectedFile(scratch)
        let all = try gcdcat(
            ["verify", "f.par2", "f.vol0+1.par2", "./f.vol1+2.par2", "f.vol3+3.par2"], in: scratch.path)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdoutText == "f: OK\n")
        #expect(
            all.stderr
                == "gcdcat: f.par2: 1 file OK (6 recovery blocks present)\n"
                + "gcdcat: note: f.vol0+1.par2 and 2 more are files of f.par2's set, verified once\n")
        // From a volume first: the index, which a volume's set does not read, is found by its set id.
        let fromVolume = try gcdcat(["verify", "f.vol3+3.par2", "f.par2", "--json"], in: scratch.path)
        #expect(fromVolume.status == 0, "\(fromVolume.stderr)")
        let document = try JSONSerialization.jsonObject(with: fromVolume.stdout) as! [String: Any]
        #expect((document["sets"] as! [[String: Any]]).map { $0["par2"] as! String } == ["f.vol3+3.par2"])
        // The JSON carries the note the text prints (outside re-check a18 I).
        #expect(document["notes"] as? [String] == ["f.par2 is a file of f.vol3+3.par2's set, verified once"])
        let single = try gcdcat(["verify", "f.par2", "--json"], in: scratch.path)
        #expect((try JSONSerialization.jsonObject(with: single.stdout) as! [String: Any])["notes"] == nil)

        try FileManager.default.createDirectory(atPath: scratch.file("copy"), withIntermediateDirectories: false)
        for name in ["f", "f.par2"] { try scratch.write("copy/" + name, scratch.read(name)!) }
        let twoFolders = try gcdcat(["verify", "f.par2", "copy/f.par2", "-q"], in: scratch.path)
        #expect(twoFolders.status == 0, "\(twoFolders.stderr)")
        #expect(twoFolders.stdoutText == "")
        let loud = try gcdcat(["verify", "f.par2", "copy/f.par2"], in: scratch.path)
        #expect(loud.stdoutText == "f: OK\ncopy/f: OK\n")
    }
}
