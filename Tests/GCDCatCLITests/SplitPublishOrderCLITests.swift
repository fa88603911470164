import Foundation
import Testing

/// A split killed while it names its set (SIGKILL, a power cut) must leave nothing that merges
/// or verifies as a whole set. `strace -e inject=SYSCALL:signal=KILL:when=N` kills gcdcat at
/// the Nth naming step, for every N of a six-part split; after each, a merge from the first
/// part and a verify of the manifest must fail, and once every step ran the set must merge back
/// byte for byte.
@Suite("Split publish order", .enabled(if: toolExists("strace"), "strace is needed to kill at each naming step"))
struct SplitPublishOrderCLITests {
    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        /// The split command, after `gcdcat split` (input `in.bin`, 6000 bytes, 6 parts).
        var split: String
        /// The syscalls that name a file on this path.
        var syscalls: String
        /// Shell run first (`ulimit -n` for the named-temporary path, an old set for --force).
        var setup = ""
        var first: String
        var manifest: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(
            label: "unnamed files, .001", split: "in.bin -b 1000 --checksum sha256", syscalls: "linkat",
            first: "in.bin.001", manifest: "in.bin.sfv"),
        // With no descriptors to spare, parts are written under temporary names and renamed.
        Case(
            label: "named temporaries, .001", split: "in.bin -b 1000", syscalls: "rename,renameat,renameat2",
            setup: "ulimit -n 60;", first: "in.bin.001", manifest: "in.bin.sfv"),
        Case(
            label: "GNU -d from 00", split: "in.bin x -b 1000 -d", syscalls: "linkat", first: "x00",
            manifest: "x.sfv"),
        Case(
            label: "alpha", split: "in.bin x -b 1000 --suffix alpha", syscalls: "linkat", first: "xaa",
            manifest: "x.sfv"),
        Case(
            label: "--start 7", split: "in.bin p. -b 1000 --start 7", syscalls: "linkat", first: "p.007",
            manifest: "p.sfv"),
        Case(
            label: "standard input", split: "- --prefix in.bin. -b 1000 < in.bin", syscalls: "linkat",
            first: "in.bin.001", manifest: "in.bin.sfv"),
        // Recovery volumes and their index are named before the manifest and the first part:
        // six parts of 5 blocks, 15 recovery blocks in 4 volumes, so 12 naming steps. Once
        // enough volumes are named, a merge rebuilds the first part from them: the whole input.
        Case(
            label: "--par2", split: "in.bin -b 1000 --par2 50% --par2-block-size 200", syscalls: "linkat",
            first: "in.bin.001", manifest: "in.bin.sfv"),
        // An old set of four parts is replaced: a kill halfway must not leave the old first
        // part to start a mixed set.
        Case(
            label: "--force over an old set", split: "in.bin -b 1000 --force", syscalls: "linkat",
            setup: "head -c 4000 /dev/zero > old && \(gcdcatPath) split old --prefix in.bin. -b 1000 -q && rm old;",
            first: "in.bin.001", manifest: "in.bin.sfv"),
    ]

    @Test(arguments: cases)
    func aKillAtAnyNamingStepLeavesNoMergeableSet(_ test: Case) throws {
        let input = randomData(6000, seed: 22)
        var completed = false
        // Seven or eight steps (six parts, the manifest, the digest list), twelve with --par2;
        // past them the split completes.
        for step in 1...14 where !completed {
            let scratch = try Scratch()
            try scratch.write("in.bin", input)
            let killed = try shell(
                "\(test.setup) strace -f -o /dev/null -e trace=\(test.syscalls) "
                    + "-e inject=\(test.syscalls):signal=KILL:when=\(step) \(gcdcatPath) split \(test.split) -q",
                in: scratch.path)
            let merge = try gcdcat(["merge", test.first, "-o", "out"], in: scratch.path)
            let verify = try gcdcat(["verify", test.manifest], in: scratch.path)
            let digests = try gcdcat(["verify", "in.bin.sha256"], in: scratch.path)
            let recovery = try gcdcat(["verify", "in.bin.par2"], in: scratch.path)
            if killed.status == 0 {
                completed = true
                #expect(merge.status == 0, "\(test.label): the complete set: \(merge.stderr)")
                #expect(scratch.read("out") == input, "\(test.label): the complete set merges back")
                #expect(verify.status == 0, "\(test.label): the complete set verifies: \(verify.stderr)")
                if test.split.contains("--checksum") { #expect(digests.status == 0, "\(digests.stderr)") }
                if test.split.contains("--par2") { #expect(recovery.status == 0, "\(recovery.stderr)") }
                continue
            }
            if merge.status == 0 && test.split.contains("--par2") {
                // The recovery volumes named before the kill rebuild the first part: the whole
                // input, each part checked against its MD5, or no output.
                #expect(scratch.read("out") == input, "\(test.label) killed at step \(step): merged other bytes")
                #expect(merge.stderr.contains("rebuilding in.bin.001"), "\(test.label) step \(step): \(merge.stderr)")
            } else {
                // A missing first part (or, for `x00`/`x01`, the one after it) is exit 1 with a message.
                #expect(
                    merge.status == 1,
                    "\(test.label) killed at step \(step): merge \(test.first) gave \(merge.status)")
                #expect(merge.stderr.hasPrefix("gcdcat: "), "\(test.label) step \(step): \(merge.stderr)")
                #expect(!scratch.listing().contains("out"), "\(test.label) step \(step): no output")
            }
            #expect(verify.status == 1, "\(test.label) killed at step \(step): verify: \(verify.stderr)")
            #expect(digests.status != 0, "\(test.label) killed at step \(step): verify in.bin.sha256 passed")
            #expect(recovery.status != 0, "\(test.label) killed at step \(step): verify in.bin.par2 passed")
            if test.syscalls == "linkat", test.setup.isEmpty {
                // Unnamed files leave nothing behind but the parts already named.
                #expect(!scratch.listing().contains { $0.hasPrefix(".") }, "\(test.label): \(scratch.listing())")
            }
        }
        #expect(completed, "\(test.label): the split never completed within 14 naming steps")
    }

    /// `--force --no-manifest` over a GNU `-d` set, killed at each removal and naming step: a
    /// merge from whichever first part is there fails, or gives the whole old or new file. The
    /// old `x00` went before the old `x01`, so a kill between left `x01` … `x04`, which merged
    /// with exit 0 as the old file short of its first part (outside attack).
    @Test func aKilledForceOverADashDSetNeverMergesTheOldSetShort() throws {
        let old = randomData(45_000, seed: 31)
        let new = randomData(30_000, seed: 32)
        let syscalls = "unlink,unlinkat,linkat,rename,renameat,renameat2"
        var completed = false
        for step in 1...12 where !completed {
            let scratch = try Scratch()
            try scratch.write("f.bin", old)
            _ = try gcdcat(["split", "f.bin", "-b", "10000", "-d", "--no-manifest", "-q"], in: scratch.path)
            try scratch.write("f.bin", new)
            let killed = try shell(
                "strace -f -o /dev/null -e trace=\(syscalls) -e inject=\(syscalls):signal=KILL:when=\(step) "
                    + "\(gcdcatPath) split f.bin -b 10000 -d --no-manifest --force -q",
                in: scratch.path)
            completed = killed.status == 0
            for first in ["f.bin.00", "f.bin.01"] where scratch.listing().contains(first) {
                let merge = try gcdcat(["merge", first, "-o", "out", "--force"], in: scratch.path)
                // Killed before its first removal, the old set is whole, and merges as it was.
                if merge.status == 0 {
                    let out = scratch.read("out")
                    #expect(out == new || out == old, "step \(step): merge \(first) gave exit 0 with other bytes")
                }
            }
            if completed { #expect(scratch.read("out") == new, "the completed split merges back") }
        }
        #expect(completed, "the split never completed within 12 steps")
    }

    /// `--force` over a set numbered from `.000` removes that `.000` too: left, a merge from the
    /// new `.001` pointed at it, and `merge .000` joined the old first part to the new parts.
    @Test func forceOverASetFromZeroRemovesItsFirstPart() throws {
        let scratch = try Scratch()
        try scratch.write("old", randomData(50_000, seed: 33))
        let made = try gcdcat(
            ["split", "old", "--prefix", "f.bin.", "-b", "10000", "-q", "--no-manifest", "--start", "0"],
            in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let new = randomData(30_000, seed: 34)
        try scratch.write("f.bin", new)
        let split = try gcdcat(["split", "f.bin", "-b", "10000", "--no-manifest", "--force"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(split.stderr.contains("removed f.bin.000, the first part of the set it replaced"), "\(split.stderr)")
        #expect(!scratch.listing().contains("f.bin.000"))
        #expect(!scratch.listing().contains("f.bin.004"))
        try FileManager.default.removeItem(atPath: scratch.path + "/f.bin")
        let merge = try gcdcat(["merge", "f.bin.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == new)
    }

    /// An `unlink` of the old set refused (EACCES, injected at the fourth: `.011`, after `.001`,
    /// `.013` and `.012`; the parts past the new last go last first): exit 1, the new set not
    /// named, the error says what the old set lost and names what is still to remove, and those
    /// follow the new last part without a gap, so a plain rerun removes them and its set merges.
    @Test func aRefusedRemovalOfTheOldSetSaysWhatIsLeftAndARerunFinishes() throws {
        let scratch = try Scratch()
        try scratch.write("old.bin", randomData(260_000, seed: 35))
        let made = try gcdcat(
            ["split", "old.bin", "--prefix", "f.bin.", "--size", "20000", "-q", "--no-manifest"], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let new = randomData(100_000, seed: 36)
        try scratch.write("f.bin", new)
        let process = RemovePartsRaceCLITests().traced(
            ["-e", "trace=unlink,unlinkat", "-e", "inject=unlink,unlinkat:error=EACCES:when=4"],
            ["split", "f.bin", "--size", "20000", "--no-manifest", "--force"], in: scratch)
        let refused = try collect(process)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "gcdcat: f.bin.011: unlink: Permission denied; split --force removes what remains of the set it "
                + "replaces (its first part, its parts past the new set's last, its lists) before it names the new "
                + "set, so that no merge joins old parts to new ones; this one could not be removed, so the new set "
                + "was not published; the old set lost f.bin.001, f.bin.013, f.bin.012 before that, so it can no "
                + "longer be merged. Let this user remove them (write permission on the folder), or remove by hand "
                + "(rm) what is still to go, f.bin.011, f.bin.010, f.bin.009 … f.bin.006 (6 in all), then run the "
                + "split again\n")
        #expect(scratch.listing() == ["f.bin"] + (2...11).map { String(format: "f.bin.%03d", $0) } + ["old.bin"])
        let rerun = try gcdcat(
            ["split", "f.bin", "--size", "20000", "--no-manifest", "--force", "-q"], in: scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(scratch.listing() == ["f.bin"] + (1...5).map { "f.bin.00\($0)" } + ["old.bin"])
        let merge = try gcdcat(["merge", "f.bin.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == new)
    }
}
