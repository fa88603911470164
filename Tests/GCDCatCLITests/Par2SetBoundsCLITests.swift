import Foundation
import Testing

/// Where a PAR2 set beside the parts ends, and what it may never do: join a file it does not
/// list, survive a `--force` split that replaces its set, or rebuild a part into the output's
/// own name. Each case is one an outside attack found ending in exit 0 with the wrong bytes.
@Suite struct Par2SetBoundsCLITests {
    /// `f.bin` of `size` random bytes split into 100 KiB parts with 30% recovery volumes.
    func splitSet(_ scratch: Scratch, size: Int, seed: UInt64, extra: [String] = []) throws -> Data {
        let whole = randomData(size, seed: seed)
        try scratch.write("f.bin", whole)
        let split = try gcdcat(
            ["split", "f.bin", "-b", "100K", "--par2", "30", "--par2-block-size", "4K", "-q"] + extra, in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        return whole
    }

    @Test func aPartPastThePar2sLastIsRefusedWithoutAList() throws {
        let scratch = try Scratch()
        _ = try splitSet(scratch, size: 300_000, seed: 41)
        for name in ["f.bin", "f.bin.sfv"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        try scratch.write("f.bin.004", randomData(1000, seed: 42))
        let result = try gcdcat(["f.bin.001"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: f.bin.004: lies beside the set, but f.bin.par2 lists its parts only up to f.bin.003; "
                + "nothing was written. Move it away if it is not part of the set, or list the parts to join "
                + "(with --as-given)\n")
        #expect(scratch.read("f.bin") == nil)
    }

    /// The index cut short, the SFV and volumes never arrived and the last part lost: the merge
    /// dropped the index with a note and joined two parts of three, exit 0. With no list beside
    /// the set the index is its only checksum, so an unusable one refuses the merge; with an SFV
    /// beside it, the SFV checks the parts and the index is only noted.
    @Test func anUnusableIndexIsRefusedWhenItIsTheSetsOnlyChecksum() throws {
        let scratch = try Scratch()
        try scratch.write("f.bin", randomData(3_000_000, seed: 47))
        let split = try gcdcat(["split", "f.bin", "-b", "1000000", "--par2", "10%", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let sfv = scratch.read("f.bin.sfv")!
        for name in scratch.listing() where name.contains(".vol") || name == "f.bin.sfv" || name == "f.bin" {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        try FileManager.default.removeItem(atPath: scratch.file("f.bin.003"))
        try scratch.write("f.bin.par2", scratch.read("f.bin.par2")!.prefix(3000))
        let result = try gcdcat(["f.bin.001"], in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("gcdcat: f.bin.par2: is not a usable PAR2 set ("), "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                "), and no SFV or list beside the set checks it instead; nothing was written. Name the set's own "
                    + "checksums: its .par2 or a volume of it (gcdcat merge NAME.par2), or its list (--manifest FILE); "
                    + "or list the parts to join them unchecked (--as-given)\n"), "\(result.stderr)")
        #expect(scratch.read("f.bin") == nil)
        // With the SFV back, it decides: the missing part is named, as without an index.
        try scratch.write("f.bin.sfv", sfv)
        let listed = try gcdcat(["f.bin.001"], in: scratch.path)
        #expect(listed.status == 1, "\(listed.stderr)")
        #expect(listed.stderr.contains("f.bin.par2 is not a usable PAR2 set ("), "\(listed.stderr)")
        #expect(listed.stderr.contains("f.bin.003"), "\(listed.stderr)")
        #expect(scratch.read("f.bin") == nil)
    }

    /// A set whose file `sub/a` lies in a subfolder, and `sub` then replaced by a symlink to a
    /// folder outside: `repair` wrote the rebuilt file out there (an outside attack, with a
    /// crafted `.par2`). It is refused before anything is written, naming where the link leads.
    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func repairDoesNotFollowASymlinkedFolderOutOfTheSet() throws {
        let scratch = try Scratch()
        for folder in ["set/sub", "outside"] {
            try FileManager.default.createDirectory(atPath: scratch.file(folder), withIntermediateDirectories: true)
        }
        try scratch.write("set/sub/a", randomData(50_000, seed: 51))
        let create = try Par2Tool.cmdline.execute(
            ["create", "-q", "-r50", "x.par2", "-B", ".", "--", "sub/a"], in: scratch.file("set"))
        #expect(create.status == 0, "\(create.stderr)")
        try FileManager.default.moveItem(atPath: scratch.file("set/sub"), toPath: scratch.file("outside/sub"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("set/sub"), withDestinationPath: "../outside/sub")
        var damaged = scratch.read("outside/sub/a")!
        damaged[100] ^= 0xFF
        try scratch.write("outside/sub/a", damaged)
        let repair = try gcdcat(["repair", "x.par2"], in: scratch.file("set"))
        #expect(repair.status == 1, "\(repair.stderr)")
        #expect(
            repair.stderr.contains(
                "sub/a: a symlink on the way leads outside the set's folder, to "), "\(repair.stderr)")
        #expect(scratch.read("outside/sub/a") == damaged)
    }

    @Test func forceRemovesTheReplacedSetsRecoveryFiles() throws {
        let scratch = try Scratch()
        _ = try splitSet(scratch, size: 300_000, seed: 43, extra: [])
        let oldVolumes = scratch.listing().filter { $0.contains(".vol") }
        #expect(!oldVolumes.isEmpty)
        // The new set has no recovery volumes: the old ones must not stay to "mend" its parts.
        var changed = scratch.read("f.bin")!
        changed[150_000] ^= 0xFF
        try scratch.write("f.bin", changed)
        let again = try gcdcat(["split", "f.bin", "-b", "100K", "--force", "-q"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(scratch.listing().filter { $0.hasSuffix(".par2") } == [])
        for name in ["f.bin", "f.bin.sfv"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        let merged = try gcdcat(["f.bin.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("f.bin") == changed)
    }

    @Test func anOutputNamedAsAMissingPartIsRefused() throws {
        let scratch = try Scratch()
        _ = try splitSet(scratch, size: 300_000, seed: 44)
        for name in ["f.bin", "f.bin.002"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        let result = try gcdcat(["f.bin.001", "-o", "f.bin.002"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: f.bin.002: is part f.bin.002 of the set f.bin.par2 describes; choose another output name\n")
        #expect(scratch.read("f.bin.002") == nil)
    }

    @Test(.enabled(if: toolExists("par2"), "needs par2 (Debian's par2cmdline)"))
    func protectLeavesEmptyFilesOutAsPar2CreateDoes() throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(10_000, seed: 45))
        try scratch.write("c", Data())
        let result = try gcdcat(["protect", "a", "c", "-o", "g.par2"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "gcdcat: note: c is empty; left out of the set, as par2 create leaves out 0-byte files\n"))
        let verified = try runTool("par2", ["v", "-q", "-q", "g.par2"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
    }
}
