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

    /// A `.par2` made over `.001 .002 .004` has a hole: the `.003` in it was joined out, exit 0,
    /// whether it lay there or not (outside re-check r23c N4). An empty `.003` adds nothing.
    @Test(arguments: ["lies there", "is gone", "is empty"])
    func aPartInAHoleOfThePar2IsNeverLeftOut(third: String) throws {
        let scratch = try Scratch()
        let parts = (1...4).map { "f.bin.00\($0)" }
        for (number, name) in parts.enumerated() {
            try scratch.write(name, randomData(5000, seed: UInt64(50 + number)))
        }
        let protect = try gcdcat(
            ["protect", parts[0], parts[1], parts[3], "-o", "f.bin.par2", "--par2", "20", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        if third == "is gone" { try FileManager.default.removeItem(atPath: scratch.file(parts[2])) }
        if third == "is empty" { try scratch.write(parts[2], Data()) }
        let result = try gcdcat(["f.bin.001", "-o", "out"], in: scratch.path)
        switch third {
        case "lies there":
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "gcdcat: f.bin.003: lies in the set, but f.bin.par2 does not protect it, so it cannot be "
                    + "checked; nothing was written. Protect the set again with it (gcdcat protect), or list the parts "
                    + "to join (with --as-given)\n")
        case "is gone":
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "gcdcat: f.bin.003: missing part: f.bin.par2 protects the parts before and after it but not it, "
                    + "so it cannot be rebuilt; nothing was written. Find it, or list the parts to join (with "
                    + "--as-given)\n")
        default:
            #expect(result.status == 0, "\(result.stderr)")
            #expect(scratch.read("out") == [0, 1, 3].map { scratch.read(parts[$0])! }.reduce(Data(), +))
        }
        if third != "is empty" { #expect(scratch.read("out") == nil) }
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

    /// A hostile `.par2` of a few hundred bytes declaring 20 MiB for each of two 10-byte parts:
    /// the merge reserved the 40 MiB it declares (`fallocate`) before it checked anything, then
    /// refused the set. The sizes on disk already show 38 blocks lost and none to rebuild them
    /// from: refused before the output is made (exit 2: the parts are damaged, beyond repair).
    @Test(.enabled(if: toolExists("python3") && toolExists("strace"), "python3 writes the .par2, strace counts"))
    func aSetDeclaringMoreThanItCanRebuildIsRefusedBeforeAnythingIsReserved() throws {
        let scratch = try Scratch()
        for name in ["a.bin.001", "a.bin.002"] { try scratch.write(name, Data("0123456789".utf8)) }
        let script = """
            import hashlib,struct; M=lambda b:hashlib.md5(b).digest()
            def pk(s,t,b): return b'PAR2\\0PKT'+struct.pack('<Q',64+len(b))+M(s+t+b)+s+t+b
            L=20<<20; F=[]
            for n in [b'a.bin.001',b'a.bin.002']:
                h=M(n); F.append((M(h+struct.pack('<Q',L)+n),h,n))
            F.sort(); mb=struct.pack('<QI',1<<20,2)+b''.join(f[0] for f in F); s=M(mb)
            P=[pk(s,b'PAR 2.0\\0Main\\0\\0\\0\\0',mb)]
            for fid,h,n in F:
                P.append(pk(s,b'PAR 2.0\\0FileDesc',fid+h+h+struct.pack('<Q',L)+n+b'\\0'*(-len(n)%4)))
                P.append(pk(s,b'PAR 2.0\\0IFSC\\0\\0\\0\\0',fid+bytes(20)*20))
            open('a.bin.par2','wb').write(b''.join(P))
            """
        #expect(try runTool("python3", ["-c", script], in: scratch.path).status == 0)
        let result = try runTool(
            "strace", ["-f", "-o", "trace", "-e", "trace=fallocate", gcdcatPath, "a.bin.001"], in: scratch.path)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "gcdcat: a.bin.par2: not repairable: at least 38 blocks missing, 0 recovery blocks available "
                + "(a.bin.001 (10 bytes on disk, 20971520 in the set), a.bin.002 (10 bytes on disk, 20971520 in the "
                + "set)); nothing was written\n")
        #expect(!String(decoding: scratch.read("trace") ?? Data(), as: UTF8.self).contains("fallocate("))
        #expect(scratch.listing() == ["a.bin.001", "a.bin.002", "a.bin.par2", "trace"])
    }

    /// The output's size comes from the `.par2`: when it cannot be reserved (strace makes
    /// `fallocate` fail as a size past the filesystem's limit does), the error names the `.par2`
    /// as where the size came from, not only the output.
    @Test(.enabled(if: toolExists("strace"), "needs strace to fail fallocate"))
    func aSizeThatCannotBeReservedNamesThePar2() throws {
        let scratch = try Scratch()
        _ = try splitSet(scratch, size: 300_000, seed: 48)
        try FileManager.default.removeItem(atPath: scratch.file("f.bin"))
        var part = try #require(scratch.read("f.bin.002"))
        part[5000] ^= 0xFF
        try scratch.write("f.bin.002", part)
        let result = try runTool(
            "strace",
            [
                "-f", "-o", "/dev/null", "-e", "trace=fallocate", "-e", "inject=fallocate:error=EFBIG", gcdcatPath,
                "f.bin.001",
            ],
            in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasSuffix(
                "gcdcat: f.bin: fallocate: File too large; the output's size, 300000 bytes, is what f.bin.par2 "
                    + "declares for the set's files\n"), "\(result.stderr)")
        #expect(scratch.read("f.bin") == nil)
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
                "gcdcat: note: c is empty: PAR2 lists no 0-byte file (par2 create leaves them out), so g.par2 names "
                    + "it in a packet of gcdcat's own, which gcdcat verify and repair check (par2 does not)\n"))
        let verified = try runTool("par2", ["v", "-q", "-q", "g.par2"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
    }
}
