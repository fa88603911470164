import Foundation
import Testing

/// A recovery set that describes an older version of the files must never "mend" the current
/// parts back into that version (outside attack on issue 23): `protect --force` removes the old
/// set's volumes, and a merge refuses volumes of two sets with no index to pick one, and a set
/// that matches no block of the parts.
@Suite struct Par2StaleSetCLITests {
    /// `f.bin.001` … `.003`, 300 000 random bytes cut as coreutils `split -b 100000` cuts them.
    @discardableResult
    func writeParts(seed: UInt64, in scratch: Scratch) throws -> Data {
        let whole = randomData(300_000, seed: seed)
        for index in 0..<3 {
            try scratch.write(
                String(format: "f.bin.%03d", index + 1), whole.subdata(in: index * 100_000..<(index + 1) * 100_000))
        }
        return whole
    }

    /// The old set: 75 blocks of 4000 bytes at 100%, volumes numbered in two digits
    /// (`f.bin.vol00+01.par2`); a default protect of new contents numbers them in three.
    @discardableResult
    func protectOldThenNew(in scratch: Scratch, keepingOldVolumes: Bool = false) throws -> Data {
        try writeParts(seed: 1, in: scratch)
        let old = try gcdcat(
            ["protect", "f.bin.001", "f.bin.002", "f.bin.003", "--par2", "100%", "--par2-block-size", "4000", "-q"],
            in: scratch.path)
        #expect(old.status == 0, "\(old.stderr)")
        let oldVolumes = scratch.listing().filter { $0.hasPrefix("f.bin.vol") }
        #expect(oldVolumes.contains("f.bin.vol00+01.par2"))
        let saved = oldVolumes.map { ($0, scratch.read($0)!) }
        let whole = try writeParts(seed: 2, in: scratch)
        let new = try gcdcat(["protect", "f.bin.001", "f.bin.002", "f.bin.003", "--force", "-q"], in: scratch.path)
        #expect(new.status == 0, "\(new.stderr)")
        if keepingOldVolumes {
            for (name, data) in saved where scratch.read(name) == nil { try scratch.write(name, data) }
        }
        return whole
    }

    @Test func protectForceRemovesTheOldSetsVolumesUnderOtherNames() throws {
        let scratch = try Scratch()
        let whole = try protectOldThenNew(in: scratch)
        let volumes = scratch.listing().filter { $0.hasPrefix("f.bin.vol") }
        #expect(!volumes.isEmpty)
        // Only the new set's three-digit names (`f.bin.vol000+01.par2`), none of the old two-digit ones.
        #expect(volumes.allSatisfy { $0.split(separator: "+")[0].count == "f.bin.vol000".count })
        for tool in Par2Tool.allCases where tool.isInstalled {
            let check = try tool.execute(["verify", "-q", "f.bin.par2"], in: scratch.path)
            #expect(check.status == 0, "\(tool): \(check.stdoutText)")
        }
        try FileManager.default.removeItem(atPath: scratch.file("f.bin.par2"))
        let merge = try gcdcat(["merge", "f.bin.001", "-o", "out", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// The refusal named `--no-verify`, which drops every check; it names a volume of each set
    /// instead, and merging by the new set's volume, as it says, checks the parts against it.
    /// Each set's volumes are listed whole (it named one of the old set's seven).
    @Test func aMergeRefusesVolumesOfTwoSetsWithNoIndex() throws {
        let scratch = try Scratch()
        let whole = try protectOldThenNew(in: scratch, keepingOldVolumes: true)
        try FileManager.default.removeItem(atPath: scratch.file("f.bin.par2"))
        let merge = try gcdcat(["merge", "f.bin.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 1)
        #expect(
            merge.stderr.hasPrefix(
                "gcdcat: f.bin.par2: not found, and the recovery volumes beside the set belong to more than one "
                    + "recovery set (f.bin.vol00+01.par2, f.bin.vol01+02.par2, f.bin.vol03+04.par2, f.bin.vol07+08.par2, "
                    + "f.bin.vol15+16.par2, f.bin.vol31+32.par2, f.bin.vol63+12.par2 to one, f.bin.vol000+01.par2, "
                    + "f.bin.vol001+02.par2, f.bin.vol003+04.par2, f.bin.vol007+08.par2, f.bin.vol015+16.par2, "
                    + "f.bin.vol031+32.par2, f.bin.vol063+64.par2, f.bin.vol127+70.par2 to another)"),
            "\(merge.stderr)")
        #expect(
            merge.stderr.hasSuffix(
                " to another); nothing was written. Name a volume of the set that describes these parts to merge by "
                    + "it (gcdcat merge f.bin.vol00+01.par2, or gcdcat merge f.bin.vol000+01.par2 for the other set), "
                    + "or remove the other set's volumes\n"), "\(merge.stderr)")
        #expect(!merge.stderr.contains("--no-verify"))
        #expect(scratch.read("out") == nil)
        let byNewSet = try gcdcat(["merge", "f.bin.vol000+01.par2", "-o", "out"], in: scratch.path)
        #expect(byNewSet.status == 0, "\(byNewSet.stderr)")
        #expect(byNewSet.stderr.hasSuffix("gcdcat: 3 parts verified against f.bin.vol000+01.par2\n"))
        #expect(scratch.read("out") == whole)
        let byOldSet = try gcdcat(["merge", "f.bin.vol00+01.par2", "-o", "old"], in: scratch.path)
        #expect(byOldSet.status == 1)
        #expect(byOldSet.stderr.contains("the recovery set describes other contents"), "\(byOldSet.stderr)")
        #expect(scratch.read("old") == nil)
    }

    /// A coreutils re-split of new contents beside the old index: no block of any part matches.
    @Test func aMergeRefusesAnIndexThatMatchesNoBlockOfTheParts() throws {
        let scratch = try Scratch()
        try writeParts(seed: 1, in: scratch)
        let old = try gcdcat(["protect", "f.bin.001", "f.bin.002", "f.bin.003", "-q"], in: scratch.path)
        #expect(old.status == 0, "\(old.stderr)")
        try writeParts(seed: 2, in: scratch)
        let merge = try gcdcat(["f.bin.001"], in: scratch.path)
        #expect(merge.status == 1)
        #expect(
            merge.stderr.contains(
                "gcdcat: f.bin.par2: the recovery set describes other contents: not one block of f.bin.001, "
                    + "f.bin.002, f.bin.003 matches its checksums"))
        #expect(scratch.read("f.bin") == nil)
    }

    /// A part overwritten whole, another part lost: no block of the part present matches, yet
    /// the set is repairable and verify says so; the merge called it another file's set. A part
    /// of zeros is damage, not another version, and so is a part the set's SFV rejects too; a
    /// part of other bytes with no list to say so is still another file's set.
    @Test func aPartOverwrittenWholeBesideALostOneIsRebuilt() throws {
        let scratch = try Scratch()
        let whole = randomData(200_000, seed: 2510)
        try scratch.write("f", whole)
        let split = try gcdcat(["split", "f", "--size", "100000", "--par2", "100%", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("f"))
        try FileManager.default.removeItem(atPath: scratch.file("f.002"))
        for (bytes, argument) in [
            (Data(count: 100_000), "f.par2"), (Data(count: 100_000), "f.001"),
            (randomData(100_000, seed: 2511), "f.par2"),
        ] {
            try scratch.write("f.001", bytes)
            let merge = try gcdcat([argument, "-o", "out", "--json"], in: scratch.path)
            #expect(merge.status == 0, "\(argument): \(merge.stderr)")
            #expect(scratch.read("out") == whole, "\(argument)")
            let document = try JSONSerialization.jsonObject(with: merge.stdout) as! [String: Any]
            let rebuilt = (document["rebuiltParts"] as? [[String: Any]] ?? []).map { "\($0["path"]!) \($0["state"]!)" }
            #expect(rebuilt == ["f.001 damaged", "f.002 missing"], "\(argument)")
            try FileManager.default.removeItem(atPath: scratch.file("out"))
        }
        #expect(scratch.read("f.002") == nil)
        // Other bytes, and no SFV to say the part is bad: another file's set, as before.
        try FileManager.default.removeItem(atPath: scratch.file("f.sfv"))
        let foreign = try gcdcat(["f.par2", "-o", "out"], in: scratch.path)
        #expect(foreign.status == 1)
        #expect(
            foreign.stderr.contains(
                "gcdcat: f.par2: the recovery set describes other contents: not one block of f.001 matches its "
                    + "checksums"), "\(foreign.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// Heavy damage still leaves blocks that match: the part is rebuilt as before.
    @Test func aPartMostlyOverwrittenIsStillRebuilt() throws {
        let scratch = try Scratch()
        let whole = try writeParts(seed: 3, in: scratch)
        let protect = try gcdcat(
            ["protect", "f.bin.001", "f.bin.002", "f.bin.003", "--par2", "100%", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        var part = scratch.read("f.bin.002")!
        for offset in 0..<90_000 { part[offset] ^= 0x5A }
        try scratch.write("f.bin.002", part)
        let merge = try gcdcat(["f.bin.001", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("f.bin") == whole)
    }
}

/// `protect` never overwrites one of its inputs, never publishes a set of bytes that changed
/// while it read them, and never waits on a FIFO (outside attack on issue 23).
extension Par2StaleSetCLITests {
    /// An older version's volumes beside a newer set of the same names, renamed so that no name
    /// clashes (`vol0+1` beside `vol000+01`): PAR2's set id covers only each file's first 16 KiB,
    /// length and name, so both read as one set. The two MD5s of one file say otherwise: verify,
    /// repair and a merge refuse the mixed set (repair by the old volume reverted the newer part
    /// to the old bytes, exit 0: outside attack, issue 23).
    @Test func volumesOfAnotherVersionOfTheSetAreRefusedNotMixed() throws {
        let scratch = try Scratch()
        let old = randomData(400_000, seed: 2339)
        var new = old
        new.replaceSubrange(150_000..<150_008, with: Data("NEW-EDIT".utf8))
        try scratch.write("a.bin", old)
        #expect(try gcdcat(["split", "a.bin", "--size", "100K", "--par2", "5", "-q"], in: scratch.path).status == 0)
        let oldVolumes = scratch.listing().filter { $0.hasPrefix("a.bin.vol") }
        let kept = try oldVolumes.map { name in (name, try #require(scratch.read(name))) }
        try scratch.write("a.bin", new)
        let again = try gcdcat(
            ["split", "a.bin", "--size", "100K", "--par2", "5", "-q", "--force"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        for (name, bytes) in kept {
            // a.bin.vol003+04.par2 → a.bin.vol3+4.par2
            let numbers = name.dropFirst("a.bin.vol".count).dropLast(".par2".count).split(separator: "+")
            try scratch.write("a.bin.vol\(Int(numbers[0])!)+\(Int(numbers[1])!).par2", bytes)
        }
        for name in ["a.bin", "a.bin.par2"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        let parts = (1...4).map { scratch.read("a.bin.00\($0)") }
        let why =
            "its volumes describe two versions of a.bin.002 (two MD5s for one file): recovery volumes of an older "
            + "set of these names lie beside it; remove them, or move the set's own .par2 files to a folder of their "
            + "own with the parts"
        for (command, volume) in [("verify", "a.bin.vol000+01.par2"), ("repair", "a.bin.vol0+1.par2")] {
            let result = try gcdcat([command, volume], in: scratch.path)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr == "gcdcat: \(volume): \(why)\n", "\(command)")
        }
        #expect((1...4).map { scratch.read("a.bin.00\($0)") } == parts)
        let merged = try gcdcat(["a.bin.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == new)
    }
}

@Suite struct Par2ProtectInputsCLITests {
    @Test(arguments: ["s.par2", "s.vol000+01.par2"])
    func protectRefusesAnOutputThatIsOneOfItsInputs(input: String) throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(100_000, seed: 7))
        let original = randomData(200_000, seed: 8)
        try scratch.write(input, original)
        let result = try gcdcat(["protect", "a", input, "-o", "s.par2", "--force"], in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("the output \(input) is one of the inputs (\(input)); nothing was written"))
        #expect(scratch.read(input) == original)
        #expect(scratch.listing() == ["a", input])
    }

    @Test func protectRefusesAnInputHardLinkedToTheIndex() throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(100_000, seed: 7))
        let original = randomData(200_000, seed: 8)
        try scratch.write("s.par2", original)
        try FileManager.default.linkItem(atPath: scratch.file("s.par2"), toPath: scratch.file("b"))
        let result = try gcdcat(["protect", "a", "b", "-o", "s.par2", "--force"], in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("the output s.par2 is one of the inputs (b); nothing was written"))
        #expect(scratch.read("s.par2") == original)
    }

    /// strace holds protect's second read of `a` (its first block, after the head was hashed)
    /// until a same-size write has changed `a`; the set it would write describes no version.
    @Test(.enabled(if: toolExists("strace"), "needs strace"))
    func protectFailsWhenAnInputChangesWhileItIsRead() throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(100_000, seed: 7))
        try scratch.write("b", randomData(50_000, seed: 9))
        let script = """
            env --default-signal strace -f -o /dev/null -P "$PWD/a" -e trace=pread64 \
              -e inject=pread64:delay_enter=1500000:when=2 '\(gcdcatPath)' protect "$PWD/a" "$PWD/b" -o "$PWD/s.par2" \
              >out 2>err & tracer=$!
            # protect opens every file of a group before the first block's read: both open is the window.
            for _ in $(seq 6000); do
                child=$(cat /proc/$tracer/task/*/children 2>/dev/null | tr ' ' '\\n' | grep . | head -1)
                [ -n "$child" ] && ls -l /proc/$child/fd 2>/dev/null | grep -q "$PWD/a$" \
                  && ls -l /proc/$child/fd 2>/dev/null | grep -q "$PWD/b$" && break
                sleep 0.005
            done
            printf 'XXXXXXXX' | dd of=a bs=1 seek=5000 conv=notrunc status=none
            wait $tracer
            """
        let result = try runTool("bash", ["-c", script], in: scratch.path)
        let stderr = String(decoding: scratch.read("err") ?? Data(), as: UTF8.self)
        #expect(result.status == 1, "\(stderr)")
        #expect(
            stderr.contains(
                "/a: fstat: changed while it was read (its inode, mtime or ctime differ); nothing was written"))
        #expect(!scratch.listing().contains { $0.hasSuffix(".par2") })
    }

    @Test func protectRefusesAFIFOWithoutWaiting() throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(100_000, seed: 7))
        #expect(mkfifo(scratch.file("ff"), 0o644) == 0)
        let result = try runTool("timeout", ["20", gcdcatPath, "protect", "a", "ff", "-o", "f.par2"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("gcdcat: ff: not a regular file (a FIFO)"))
        #expect(!scratch.listing().contains { $0.hasSuffix(".par2") })
    }

    @Test(arguments: ["verify", "repair"])
    func verifyAndRepairRefuseAListedFileThatIsNowAFIFO(command: String) throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(100_000, seed: 7))
        try scratch.write("b", randomData(100_000, seed: 9))
        let protect = try gcdcat(["protect", "a", "b", "-o", "s.par2", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("b"))
        #expect(mkfifo(scratch.file("b"), 0o644) == 0)
        let result = try runTool("timeout", ["20", gcdcatPath, command, "s.par2"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("b: not a regular file (a FIFO)"))
    }
}
