import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 10's crashes, bounds, signals and leaks, and issue 9's output cases, against the binary.
@Suite struct RobustCLITests {
    /// `"$G"` for shell scripts.
    let g = "'\(gcdcatPath)'"

    // MARK: standard output is checked

    @Test(arguments: [
        "merge p.001 -o out -q --json", "split in --size 1000 --prefix s. -q --json", "checksum in", "verify p.sfv",
    ])
    func writingToAFullStandardOutputFails(command: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(5000, seed: 3))
        try gcdcat(["split", "in", "--size", "2000", "--prefix", "p.", "-q"], in: scratch.path)
        let result = try shell("\(g) \(command) > /dev/full", in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("gcdcat: standard output: write: No space left on device"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func namesGoToStandardOutputAsTheirBytes() throws {
        let scratch = try Scratch()
        // A Latin-1 name: bytes 0x70 0xE9, not valid UTF-8.
        let made = try shell("printf abc > \"$(printf 'p\\351')\"", in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let result = try shell("\(g) checksum \"$(printf 'p\\351')\"", in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        // The line holds the byte 0xE9 itself, not the UTF-8 of an escape scalar.
        #expect(result.stdout.range(of: Data([0x0A, 0x70, 0xE9, 0x20])) != nil, "\(Array(result.stdout))")
    }

    // MARK: hostile numbers

    @Test(arguments: [
        (["split", "in", "--parts", "9223372036854775807"], "--parts must be at most 50000"),
        (["split", "in", "--parts", "-1"], "--parts must be positive"),
        (["split", "in", "--parts=-1"], "--parts must be positive"),
        (["split", "in", "--parts", "100000000"], "--parts must be at most 50000"),
        (
            ["split", "in", "--size", "10", "--suffix-length", "9223372036854775807"],
            "--suffix-length must be from 1 to 32"
        ),
        (["split", "in", "--size", "10", "--start", "9223372036854775807"], "--start must be from 0 to 999999999999"),
        (["split", "in", "--size", "1"], "--size 1 would cut in (300000 bytes) into 300000 parts"),
        (["split", "in", "--size", "-1"], "negative; a size must be positive"),
        (["split", "in", "--size", "10", "--jobs", "-1"], "--jobs must be positive"),
        (["merge", "in.001", "--jobs", "-1"], "--jobs must be positive"),
        (["merge", "in.001", "--high-water", "1"], "--high-water must be at least 4K"),
        (["merge", "in.001", "--high-water", "2G"], "--high-water must be at most 1G"),
        (["checksum", "--jobs", "4611686018427387904", "in"], "--jobs must be at most 1024"),
        (["verify", "--jobs", "0", "x.sfv"], "--jobs must be positive"),
        (["bench", "--parts", "9223372036854775807"], "--parts must be from 1 to 10000"),
        (["bench", "--repeat", "-1"], "--repeat must be from 1 to 1000"),
        (["bench", "--high-water", "64K,1"], "--high-water: '1': must be from 4K to 1G"),
    ])
    func hostileNumbersAreUsageErrorsNamingTheFlag(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(300_000, seed: 4))
        try scratch.write("in.001", randomData(10, seed: 4))
        let before = scratch.listing()
        let result = try gcdcat(arguments, in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(scratch.listing() == before)
    }

    /// Refused requests stay small: no plan of millions of parts before refusing.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time (/usr/bin/time)"))
    func refusedRequestsStayUnder64MiB() throws {
        let scratch = try Scratch()
        try scratch.write("tiny", Data("tiny".utf8))
        try scratch.write("ten", randomData(10_000_000, seed: 5))
        for command in ["split tiny --parts 100000000", "split ten --size 1", "split ten --parts 9223372036854775807"] {
            let result = try shell("/usr/bin/time -f 'rss=%M' \(g) \(command)", in: scratch.path)
            let kib = result.stderr.split(separator: "\n").last { $0.hasPrefix("rss=") }.flatMap {
                Int($0.dropFirst(4))
            }
            #expect(result.stderr.contains("Command exited with non-zero status 64"), "\(command): \(result.stderr)")
            #expect((kib ?? .max) < 64 * 1024, "\(command): peak RSS \(kib ?? -1) KiB")
        }
        #expect(scratch.listing() == ["ten", "tiny"])
    }

    /// A stream split stops at the part bound instead of planning without end.
    @Test func aStreamSplitStopsAtThePartBound() throws {
        let scratch = try Scratch()
        let result = try shell("head -c 50001 /dev/zero | \(g) split - --size 1 --no-manifest -q", in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("would make 50001 parts; at most 50000 are allowed"), "\(result.stderr)")
        #expect(scratch.listing().isEmpty)
    }

    // MARK: signals

    @Test(arguments: [("QUIT", 131), ("HUP", 129), ("ALRM", 142), ("PIPE", 141), ("TERM", 143), ("INT", 130)])
    func everyCatchableSignalRemovesTheOutput(signal: String, status: Int32) throws {
        let scratch = try Scratch()
        try scratch.write("a.001", randomData(1_000_000, seed: 6))
        let result = try shell(
            """
            truncate -s 3G a.002
            \(signalableGCDCatCommand) merge a.001 --strategy stream --high-water 4K -q 2> err & pid=$!
            for i in $(seq 1 3000); do ls -l /proc/$pid/fd 2>/dev/null | grep -q '#' && break; sleep 0.01; done
            kill -\(signal) $pid
            wait $pid
            echo "status=$?"
            """, in: scratch.path)
        #expect(result.stdoutText.contains("status=\(status)"), "\(result.stdoutText)")
        let stderr = String(decoding: scratch.read("err") ?? Data(), as: UTF8.self)
        // A reader that went away (SIGPIPE) ends gcdcat without a word, as it ends `cat`; the
        // others say so, and name the output not made.
        if signal == "PIPE" {
            #expect(stderr.isEmpty, "\(stderr)")
        } else {
            #expect(stderr.hasSuffix("interrupted by SIG\(signal); a was not created\n"), "\(stderr)")
        }
        #expect(!stderr.contains("crashed"))
        #expect(scratch.listing() == ["a.001", "a.002", "err"])
    }

    /// A signal ignored when gcdcat starts stays ignored, as coreutils leaves it: `nohup` ignores
    /// SIGHUP so that a job outlives its terminal, and a shell without job control starts a
    /// background job with SIGINT and SIGQUIT ignored. The merge goes on and completes.
    @Test(arguments: ["HUP", "INT", "QUIT", "PIPE", "TERM"])
    func aSignalIgnoredAtStartStaysIgnored(signal: String) throws {
        let scratch = try Scratch()
        try scratch.write("a.001", randomData(1_000_000, seed: 9))
        let result = try shell(
            """
            truncate -s 160M a.002
            (trap '' \(signal); exec \(g) merge a.001 --strategy stream --high-water 4K -q 2> err) & pid=$!
            for i in $(seq 1 3000); do ls -l /proc/$pid/fd 2>/dev/null | grep -q '#' && break; sleep 0.01; done
            kill -\(signal) $pid && echo sent
            wait $pid
            echo "status=$?"
            cat a.001 a.002 | cmp - a && echo same
            """, in: scratch.path)
        // "sent": the signal reached the merge while it ran, and it went on.
        #expect(result.stdoutText == "sent\nstatus=0\nsame\n", "\(result.stdoutText) \(result.stderr)")
        #expect(scratch.read("err") == Data())
        #expect(scratch.listing() == ["a", "a.001", "a.002", "err"])
    }

    /// SIGKILL cannot be caught; an unnamed output has nothing to leave.
    @Test func sigkillMidMergeLeavesNothingNamedAfterTheOutput() throws {
        let scratch = try Scratch()
        try scratch.write("a.001", randomData(1_000_000, seed: 7))
        let result = try shell(
            """
            truncate -s 3G a.002
            \(g) merge a.001 --strategy stream --high-water 4K -q & pid=$!
            for i in $(seq 1 200); do ls -l /proc/$pid/fd 2>/dev/null | grep -q '#' && break; sleep 0.01; done
            ls -l /proc/$pid/fd | grep -c '(deleted)'
            kill -KILL $pid
            wait $pid
            echo "status=$?"
            """, in: scratch.path)
        #expect(result.stdoutText.contains("status=137"), "\(result.stdoutText)")
        #expect(result.stdoutText.hasPrefix("1\n"), "the unnamed output was not seen: \(result.stdoutText)")
        #expect(scratch.listing() == ["a.001", "a.002"])
    }

    /// SIGINT at random moments of a split into many tiny parts: the registry must refuse new
    /// files once the sweep began (it left `.p.NNN.gcdcat-*` in 14 of 40 runs).
    @Test func sigintDuringASplitIntoManyPartsLeavesNothing() throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(200_000, seed: 8))
        try FileManager.default.createDirectory(atPath: scratch.file("o"), withIntermediateDirectories: false)
        for round in 0..<6 {
            let result = try shell(
                """
                \(signalableGCDCatCommand) split in --size 10 --prefix o/p. -q 2>/dev/null & pid=$!
                sleep 0.0\(round * 15 + 5)
                kill -INT $pid
                wait $pid
                echo "status=$?"
                """, in: scratch.path)
            let listing = (try? FileManager.default.contentsOfDirectory(atPath: scratch.file("o"))) ?? []
            if result.stdoutText.contains("status=0") {
                #expect(listing.count == 20_001)
                try FileManager.default.removeItem(atPath: scratch.file("o"))
                try FileManager.default.createDirectory(atPath: scratch.file("o"), withIntermediateDirectories: false)
            } else {
                #expect(result.stdoutText.contains("status=130"), "\(result.stdoutText)")
                #expect(listing.isEmpty, "round \(round): left \(listing.prefix(3))")
            }
        }
    }

    // MARK: outputs

    /// Issue 9 case 9: `-o /dev/stdout --force` replaced the symlink with a regular file.
    @Test(arguments: [false, true])
    func theStdoutSymlinkIsWrittenThroughNeverReplaced(force: Bool) throws {
        let scratch = try Scratch()
        let data = randomData(50_000, seed: 9)
        try scratch.write("in", data)
        try gcdcat(["split", "in", "--size", "20000", "-q"], in: scratch.path)
        let link = scratch.file("stdout-link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/fd/1")
        let result = try shell(
            "\(g) merge in.001 -o stdout-link \(force ? "--force" : "") -q > got", in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("got") == data)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "/proc/self/fd/1")
    }

    /// A link to another descriptor's file is neither replaced nor clobbered from offset 0.
    @Test func aLinkToAnotherDescriptorsFileIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(5000, seed: 15))
        try gcdcat(["split", "in", "--size", "2000", "-q"], in: scratch.path)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("err-link"), withDestinationPath: "/proc/self/fd/2")
        let result = try shell("\(g) merge in.001 -o err-link --force -q 2> err", in: scratch.path)
        #expect(result.status == 1)
        let stderr = String(decoding: scratch.read("err") ?? Data(), as: UTF8.self)
        #expect(stderr == "gcdcat: err-link: is a link to an open descriptor's file, which gcdcat will not replace\n")
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("err-link"))) == "/proc/self/fd/2")
    }

    /// A manifest named as another list of the same split (its digest list, its PAR2 index or a
    /// volume) is refused before anything is written: with --force one was published over the
    /// other while the summary named both, without it "already exists" named no file that did
    /// (outside attack a17 #7).
    @Test(arguments: [
        (["--checksum", "sha256", "--manifest", "a.bin.sha256"], "be the sha256 list a.bin.sha256"),
        (["--par2", "10%", "--manifest", "a.bin.par2"], "be the PAR2 index a.bin.par2"),
        (["--par2", "10%", "--manifest", "a.bin.vol003+04.par2"], "take the name of a PAR2 recovery volume"),
        (["--par2", "10%", "--manifest", "./a.bin.VOL000+01.PAR2"], "take the name of a PAR2 recovery volume"),
    ])
    func aManifestNamedAsAnotherListOfTheSplitIsRefused(options: [String], clash: String) throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(100_000, seed: 7))
        let manifest = options.last!
        for force in [false, true] {
            let result = try gcdcat(
                ["split", "a.bin", "--size", "30K"] + options + (force ? ["--force"] : []), in: scratch.path)
            #expect(result.status == 1)
            #expect(result.stderr == "gcdcat: \(manifest): the manifest would \(clash); name another manifest\n")
            #expect(scratch.listing() == ["a.bin"])
        }
    }

    /// Issue 9 case 8: the manifest was written over part 1.
    @Test func aManifestNamedLikeAPartIsRefused() throws {
        let scratch = try Scratch()
        let data = randomData(3000, seed: 10)
        try scratch.write("c.001", data)
        let result = try gcdcat(
            ["split", "c.001", "--size", "1000", "--prefix", "m.", "--manifest", "m.001", "--force"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("gcdcat: m.001: the manifest would be part m.001"), "\(result.stderr)")
        #expect(scratch.listing() == ["c.001"])
        // Alphabetic parts of width 3 keep the default manifest: only a real clash is refused.
        let alpha = try gcdcat(
            ["split", "c.001", "--size", "1000", "--suffix", "alpha", "--suffix-length", "3", "-q"], in: scratch.path)
        #expect(alpha.status == 0, "\(alpha.stderr)")
        #expect(scratch.listing() == ["c.001", "c.001.aaa", "c.001.aab", "c.001.aac", "c.001.sfv"])
        for name in ["c.001.aaa", "c.001.aab", "c.001.aac", "c.001.sfv"] {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        let stream = try shell(
            "\(g) split - --size 1000 --prefix m. --manifest ./m.002 --force < c.001", in: scratch.path)
        #expect(stream.status == 1)
        #expect(stream.stderr.contains("the manifest would"), "\(stream.stderr)")
        #expect(scratch.listing() == ["c.001"])
    }

    /// Issue 9 case 11: a stdin split replaced its own input.
    @Test func aStdinSplitNeverReplacesStandardInputsFile() throws {
        let scratch = try Scratch()
        let data = randomData(1500, seed: 11)
        try scratch.write("x.001", data)
        let result = try shell("\(g) split - --size 500 --prefix x. --force -q < x.001", in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("x.001: is the input file standard input; refusing to overwrite it"))
        #expect(scratch.read("x.001") == data)
        #expect(scratch.listing() == ["x.001"])
    }

    /// A stdin split whose manifest exists must refuse before reading: piped data is gone after.
    @Test func aStdinSplitRefusesAnExistingManifestBeforeReading() throws {
        let scratch = try Scratch()
        try scratch.write("x.sfv", Data("; mine\n".utf8))
        let result = try shell(
            "(echo first; sleep 0.3; echo second) | (\(g) split - --size 4 -q; cat > rest)", in: scratch.path)
        #expect(result.stderr.contains("x.sfv: already exists (use --force to replace it)"), "\(result.stderr)")
        #expect(scratch.read("rest") == Data("first\nsecond\n".utf8))
        #expect(scratch.listing() == ["rest", "x.sfv"])
    }

    /// A rollback deleted `in.002 -> /dev/null`, a symlink the user owns.
    @Test func aRollbackTouchesOnlyFilesGcdcatCreated() throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(3000, seed: 12))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("in.002"), withDestinationPath: "/dev/null")
        try FileManager.default.createSymbolicLink(atPath: scratch.file("in.003"), withDestinationPath: "nowhere")
        let result = try gcdcat(["split", "in", "--parts", "3", "--no-manifest"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("in.003: already exists, a symlink to nothing"), "\(result.stderr)")
        #expect(scratch.listing() == ["in", "in.002", "in.003"])
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("in.002"))) == "/dev/null")
    }

    /// A bad output fails before any part is read for verification.
    @Test(arguments: [
        ("dangling", "dangling: already exists, a symlink to nothing (use --force to replace it)"),
        (
            "nodir/out",
            "nodir/out: open: No such file or directory (its folder nodir does not exist; create it with mkdir -p, or name another output)"
        ),
        ("file/out", "file/out: stat: Not a directory"),
    ])
    func aBadOutputFailsBeforeReadingTheParts(output: String, message: String) throws {
        let scratch = try Scratch()
        try scratch.write("p.001", randomData(100, seed: 13))
        try scratch.write("file", Data())
        try FileManager.default.createSymbolicLink(atPath: scratch.file("dangling"), withDestinationPath: "nowhere")
        try scratch.write("p.002", randomData(100, seed: 14))
        try scratch.write("p.sfv", Data("p.001 00000000\np.002 00000000\n".utf8))
        let result = try gcdcat(["merge", "p.001", "p.002", "-o", output, "--manifest", "p.sfv"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// A temporary name must fit in 255 bytes: names of 241–255 bytes failed.
    @Test func aMergeIntoA255ByteNameWorks() throws {
        let scratch = try Scratch()
        let data = randomData(4000, seed: 14)
        let name = String(repeating: "n", count: 251)
        try scratch.write(name, data)
        try gcdcat(["split", name, "--size", "1500", "--prefix", "p.", "-q"], in: scratch.path)
        try FileManager.default.removeItem(atPath: scratch.file(name))
        let result = try gcdcat(["merge", "p.001", "-o", name, "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read(name) == data)
    }

    /// A stdin split cut at the header's own newline and wrote parts holding only the header,
    /// where a file split cuts the long line at the room.
    @Test func stdinAndFileLineSplitsAgreeOnALineLongerThanTheRoom() throws {
        let scratch = try Scratch()
        var text = "h1\nh2\n" + (1...30).map { "short line \($0)\n" }.joined()
        text += String(repeating: "x", count: 5000) + "\n" + (1...30).map { "after \($0)\n" }.joined()
        try scratch.write("csv", Data(text.utf8))
        for folder in ["f", "s"] {
            try FileManager.default.createDirectory(atPath: scratch.file(folder), withIntermediateDirectories: false)
        }
        let options = "--size 2000 --line-boundary --header-lines 2 -q"
        let file = try shell("\(g) split csv \(options) --prefix f/p.", in: scratch.path)
        let stream = try shell("\(g) split - \(options) --prefix s/p. < csv", in: scratch.path)
        #expect(file.status == 0 && stream.status == 0, "\(file.stderr)\(stream.stderr)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: scratch.file("f")))?.sorted() ?? []
        #expect(names == ["p.001", "p.002", "p.003", "p.004", "p.sfv"])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: scratch.file("s")))?.sorted() == names)
        for name in names where name != "p.sfv" {
            let part = scratch.read("f/" + name)
            #expect(part == scratch.read("s/" + name), "\(name) differs")
            #expect((part?.count ?? 0) > 6, "\(name) holds only the header")
        }
    }
}
