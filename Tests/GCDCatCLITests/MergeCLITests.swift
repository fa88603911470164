import Foundation
import GCDCatCore
import Testing

@Suite struct MergeCLITests {
    /// A set made by coreutils split (uneven last part), merged by every strategy.
    @Test(arguments: MergeStrategyKind.allCases)
    func joinsASetMadeByCoreutilsSplit(strategy: MergeStrategyKind) throws {
        let scratch = try Scratch()
        let original = randomData(2_500_001, seed: 3)
        try scratch.write("movie.zip", original)
        let split = try runTool(
            "split", ["-b", "700000", "-d", "-a", "3", "--numeric-suffixes=1", "movie.zip", "movie.zip."],
            in: scratch.path)
        #expect(split.status == 0)
        try FileManager.default.moveItem(atPath: scratch.file("movie.zip"), toPath: scratch.file("original"))
        let result = try gcdcat(["merge", "movie.zip.001", "--strategy", strategy.rawValue, "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(result.stdout.isEmpty)
        #expect(scratch.read("movie.zip") == original)
        #expect(
            scratch.listing() == [
                "movie.zip", "movie.zip.001", "movie.zip.002", "movie.zip.003", "movie.zip.004", "original",
            ])
    }

    /// An empty input splits into no parts and an SFV that records the empty whole: that SFV
    /// merges back to the empty file (it failed: "lists no files, so it names no set to merge",
    /// while verify passed it), from a file and from standard input, and an existing output
    /// needs --force as any merge's.
    @Test func anEmptyInputsListMergesToTheEmptyFile() throws {
        let scratch = try Scratch()
        try scratch.write("empty.bin", Data())
        let split = try gcdcat(["split", "empty.bin", "-b", "1000", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(scratch.listing() == ["empty.bin", "empty.bin.sfv"])
        try FileManager.default.removeItem(atPath: scratch.file("empty.bin"))
        let note =
            "gcdcat: note: empty.bin.sfv records empty.bin as an empty file (0 bytes) and lists no parts: the output "
            + "is empty\n"
        let merged = try gcdcat(["empty.bin.sfv"], in: scratch.path)
        #expect(merged.status == 0)
        #expect(merged.stderr == note)
        #expect(scratch.read("empty.bin") == Data())
        let again = try gcdcat(["empty.bin.sfv", "-q"], in: scratch.path)
        #expect(again.status == 1)
        #expect(again.stderr == "gcdcat: empty.bin: already exists (use --force to replace it)\n")
        let piped = try gcdcat(["merge", "empty.bin.sfv", "-o", "-", "-q"], in: scratch.path)
        #expect(piped.status == 0)
        #expect(piped.stdout.isEmpty)
        let json = try gcdcat(["empty.bin.sfv", "-o", "json", "--json"], in: scratch.path)
        #expect(json.status == 0, "\(json.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(report["parts"] as? Int == 0)
        #expect(report["verified"] as? Bool == true)
        #expect(report["manifest"] as? String == "empty.bin.sfv")
        #expect(try schema("merge").violations(of: JSONValue.parse(json.stdout)) == [])
        #expect(scratch.read("json") == Data())
        let standardInput = try run(
            executable: "/bin/sh", ["-c", "\"$0\" split -b 1000 - s. -q < /dev/null", gcdcatPath], in: scratch.path)
        #expect(standardInput.status == 0, "\(standardInput.stderr)")
        let fromStandardInput = try gcdcat(["s.sfv", "-q"], in: scratch.path)
        #expect(fromStandardInput.status == 0, "\(fromStandardInput.stderr)")
        #expect(scratch.read("s") == Data())
    }

    @Test func theDefaultSubcommandIsMerge() throws {
        let scratch = try Scratch()
        try scratch.write("a.001", Data("hello ".utf8))
        try scratch.write("a.002", Data("world".utf8))
        let result = try gcdcat(["a.001"], in: scratch.path)
        #expect(result.status == 0)
        #expect(scratch.read("a") == Data("hello world".utf8))
    }

    @Test func explicitPartsInTheGivenOrderToStandardOutput() throws {
        let scratch = try Scratch()
        try scratch.write("x", Data("X".utf8))
        try scratch.write("y", Data("Y".utf8))
        let result = try gcdcat(["merge", "y", "x", "y", "--allow-duplicates", "-o", "-"], in: scratch.path)
        #expect(result.status == 0)
        #expect(result.stdoutText == "YXY")
    }

    @Test func theJSONReportHasEveryKey() throws {
        let scratch = try Scratch()
        try scratch.write("p.001", randomData(300_000, seed: 1))
        try scratch.write("p.002", randomData(300_000, seed: 2))
        let result = try gcdcat(
            ["merge", "p.001", "--strategy", "stream", "--high-water", "64K", "--json"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let keys = Set(object?.keys.map { $0 } ?? [])
        for key in [
            "operation", "strategy", "parts", "bytes", "highWater", "lowWater", "chunks", "wallSeconds",
            "userSeconds", "systemSeconds", "peakRSSBytes", "peakRSSAnonBytes", "peakRSSFileBytes",
            "throughputBytesPerSecond",
        ] {
            #expect(keys.contains(key), "missing \(key)")
        }
        #expect(object?["bytes"] as? Int == 600_000)
        #expect(object?["parts"] as? Int == 2)
        #expect(object?["highWater"] as? Int == 65536)
        #expect(object?["strategy"] as? String == "stream")
        // 600,000 bytes in 64 KiB chunks: at least ten.
        #expect((object?["chunks"] as? Int ?? 0) >= 10)
    }

    @Test func theTextReportGoesToStandardError() throws {
        let scratch = try Scratch()
        try scratch.write("p.001", randomData(1000, seed: 1))
        let result = try gcdcat(["merge", "p.001", "--report"], in: scratch.path)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("operation      merge"))
        #expect(result.stderr.contains("bytes          1000 (1000 B)"))
        #expect(result.stderr.contains("\nverified       no\n"))
    }

    /// The text report says what the parts were checked against, as the JSON's `verified` and
    /// `manifest` do (it said nothing: outside re-check a22d C5).
    @Test func theTextReportSaysWhatThePartsWereVerifiedAgainst() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(300_000, seed: 3))
        #expect(try gcdcat(["split", "-n", "3", "f", "-q"], in: scratch.path).status == 0)
        let listed = try gcdcat(["merge", "f.001", "-o", "a", "--report"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("\nverified       yes, against f.sfv\n"), "\(listed.stderr)")
        #expect(unlink(scratch.file("f.sfv")) == 0)
        let marked = try gcdcat(["merge", "f.001", "-o", "b", "--report"], in: scratch.path)
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(
            marked.stderr.contains("\nverified       yes, against the crc32s their split marked them with\n"),
            "\(marked.stderr)")
        let unchecked = try gcdcat(["merge", "f.001", "-o", "c", "--report", "--no-verify"], in: scratch.path)
        #expect(unchecked.stderr.contains("\nverified       no\n"), "\(unchecked.stderr)")
    }

    @Test(.enabled(if: toolExists("7z"), "7z is not installed (apt-get install p7zip-full)"))
    func sevenZipVolumesJoinIntoAnArchiveSevenZipAccepts() throws {
        let scratch = try Scratch()
        try scratch.write("payload.bin", randomData(2_600_000, seed: 9))
        let made = try runTool("7z", ["a", "-mx=0", "-v1m", "arch.7z", "payload.bin"], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.file("arch.7z.003")))
        for strategy in MergeStrategyKind.allCases {
            try? FileManager.default.removeItem(atPath: scratch.file("arch.7z"))
            let merged = try gcdcat(["merge", "arch.7z.001", "--strategy", strategy.rawValue], in: scratch.path)
            #expect(merged.status == 0, "\(merged.stderr)")
            let tested = try runTool("7z", ["t", "arch.7z"], in: scratch.path)
            #expect(tested.status == 0, "7z t failed after \(strategy): \(tested.stdoutText)")
        }
    }
}

@Suite struct MergeCLIErrorTests {
    func expectFailure(
        _ arguments: [String], in scratch: Scratch, status: Int32, stderr expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = scratch.listing()
        let result = try gcdcat(arguments, in: scratch.path)
        #expect(result.status == status, sourceLocation: sourceLocation)
        #expect(result.stderr == expected, sourceLocation: sourceLocation)
        #expect(scratch.listing() == before, "files changed", sourceLocation: sourceLocation)
    }

    @Test func aMissingPart() throws {
        let scratch = try Scratch()
        try scratch.write("a.001", Data("1".utf8))
        try expectFailure(
            ["merge", "a.001", "a.002", "-o", "out"], in: scratch, status: 1,
            stderr: "gcdcat: a.002: open: No such file or directory\n")
    }

    @Test func aGapInTheNumbering() throws {
        let scratch = try Scratch()
        for name in ["a.001", "a.002", "a.004"] { try scratch.write(name, Data("1".utf8)) }
        try expectFailure(
            ["a.001"], in: scratch, status: 1,
            stderr: "gcdcat: a.003: missing part: the set has a.004 but not this one\n")
    }

    /// The last part deleted with its manifest line: every listed part matches, but the whole
    /// record says the set is longer. A missing part (exit 1), not a corrupt one (exit 2).
    @Test func aLastPartRemovedWithItsLineIsAMissingPart() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(5000, seed: 2261))
        #expect(try gcdcat(["split", "a.bin", "--size", "1000", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("a.bin"))
        try FileManager.default.removeItem(atPath: scratch.file("a.bin.005"))
        // Parts that came without the marks their split left (PartMarkCLITests), as downloads do.
        try scratch.unmark(scratch.files(startingWith: "a.bin.00"))
        let manifest = String(decoding: scratch.read("a.bin.sfv")!, as: UTF8.self)
        let kept = manifest.split(separator: "\n").filter { !$0.hasPrefix("a.bin.005 ") }
        try scratch.write("a.bin.sfv", Data((kept.joined(separator: "\n") + "\n").utf8))
        try expectFailure(
            ["a.bin.001"], in: scratch, status: 1,
            stderr:
                "gcdcat: a.bin.sfv: records 5000 bytes for a.bin, but its parts join to 4000: the set lacks 1000 bytes "
                + "after a.bin.004, its last part listed (a part removed with its line?); find the set's last parts, "
                + "or merge the parts as they are with --no-verify\n")
    }

    @Test func aDirectoryAsAPart() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("d"), withIntermediateDirectories: false)
        try expectFailure(["merge", "d", "-o", "out"], in: scratch, status: 1, stderr: "gcdcat: d: Is a directory\n")
    }

    @Test func theOutputIsAPart() throws {
        let scratch = try Scratch()
        try scratch.write("a.001", Data("11".utf8))
        try scratch.write("a.002", Data("2".utf8))
        try expectFailure(
            ["merge", "a.001", "-o", "a.002", "--force"], in: scratch, status: 1,
            stderr: "gcdcat: a.002: is the input file a.002; refusing to overwrite it\n")
        #expect(scratch.read("a.002") == Data("2".utf8))
        #expect(scratch.read("a.001") == Data("11".utf8))
    }

    @Test func theOutputExists() throws {
        let scratch = try Scratch()
        try scratch.write("a.001", Data("1".utf8))
        try scratch.write("a", Data("old".utf8))
        try expectFailure(
            ["merge", "a.001"], in: scratch, status: 1,
            stderr: "gcdcat: a: already exists (use --force to replace it)\n")
        #expect(scratch.read("a") == Data("old".utf8))
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func aFullDisk(strategy: MergeStrategyKind) throws {
        let scratch = try Scratch()
        try scratch.write("a.001", randomData(200_000, seed: 1))
        let result = try gcdcat(
            ["merge", "a.001", "-o", "/dev/full", "--strategy", strategy.rawValue], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("gcdcat: /dev/full: "))
        #expect(result.stderr.hasSuffix(": No space left on device\n"))
        #expect(scratch.listing() == ["a.001"])
    }

    @Test func theOutputFolderDoesNotExist() throws {
        let scratch = try Scratch()
        try scratch.write("a.001", Data("1".utf8))
        try expectFailure(
            ["merge", "a.001", "-o", "no/out"], in: scratch, status: 1,
            stderr:
                "gcdcat: no/out: open: No such file or directory (its folder no does not exist; create it with "
                + "mkdir -p, or name another output)\n")
    }

    @Test(arguments: [
        (["--high-water", "0"], "--high-water"),
        (["--high-water", "lots"], "--high-water"),
        (["--low-water", "2M"], "--low-water"),
        (["--low-water", "0"], "--low-water"),
        (["--strategy", "fast"], "--strategy"),
    ])
    func badFlagsAreUsageErrorsNamingTheFlag(flags: [String], flag: String) throws {
        let scratch = try Scratch()
        try scratch.write("a.001", Data("1".utf8))
        let result = try gcdcat(["merge", "a.001"] + flags, in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains(flag), "\(result.stderr)")
        #expect(result.stderr.contains("Usage:"))
        #expect(scratch.listing() == ["a.001"])
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func sigintMidMergeRemovesTheTemporaryFile(strategy: MergeStrategyKind) throws {
        let scratch = try Scratch()
        // A FIFO as the last part blocks the merge mid-way, after the output was created.
        try scratch.write("a.001", randomData(3_000_000, seed: 1))
        // Slow the merge down with tiny chunks and a huge part so it is surely running.
        let big = scratch.file("a.002")
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        let process = signalableGCDCat(["merge", "a.001", "--strategy", strategy.rawValue, "--high-water", "4K", "-q"])
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        let err = Pipe()
        process.standardError = err
        try process.run()
        // Wait until the temporary output exists, then interrupt.
        var sawTemporary = false
        for _ in 0..<400 where !sawTemporary {
            sawTemporary = holdsUnfinishedOutput(pid: process.processIdentifier, in: scratch.path)
            if !sawTemporary { usleep(10_000) }
        }
        #expect(sawTemporary)
        usleep(50_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130)
        #expect(stderr.contains("interrupted by SIGINT"))
        #expect(scratch.listing() == ["a.001", "a.002"])
    }

    @Test func helpTeachesTheStrategies() throws {
        let result = try gcdcat(["merge", "--help"])
        #expect(result.status == 0)
        for word in ["auto", "stream", "offsets", "dispatchdata", "--high-water", "--force", "Examples"] {
            #expect(result.stdoutText.contains(word), "missing \(word)")
        }
    }
}
