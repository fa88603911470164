import Foundation
import Testing

/// `merge --remove-parts`: the parts go only after a verified, committed, durable output.
@Suite struct RemovePartsCLITests {
    /// Splits 250 000 random bytes into `f.001`…`f.003` with `f.sfv`, and moves `f` aside.
    func splitSet(in scratch: Scratch) throws -> Data {
        let original = randomData(250_000, seed: 17)
        try scratch.write("f", original)
        let split = try gcdcat(["split", "-b", "100K", "f", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.moveItem(atPath: scratch.file("f"), toPath: scratch.file("original"))
        return original
    }

    @Test func thePartsGoAfterAVerifiedMergeAndTheManifestStays() throws {
        let scratch = try Scratch()
        let original = try splitSet(in: scratch)
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("f") == original)
        #expect(scratch.listing() == ["f", "f.sfv", "original"])
    }

    @Test func aCorruptPartKeepsEveryPart() throws {
        let scratch = try Scratch()
        _ = try splitSet(in: scratch)
        var corrupt = scratch.read("f.002")!
        corrupt[5] ^= 0xFF
        try scratch.write("f.002", corrupt)
        let before = ["f.001", "f.002", "f.003", "f.sfv"].map { scratch.read($0) }
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("gcdcat: f.002: crc32 is "), "\(result.stderr)")
        #expect(scratch.listing() == ["f.001", "f.002", "f.003", "f.sfv", "original"])
        #expect(["f.001", "f.002", "f.003", "f.sfv"].map { scratch.read($0) } == before)
    }

    @Test func withoutAManifestNothingIsMergedOrRemoved() throws {
        let scratch = try Scratch()
        _ = try splitSet(in: scratch)
        try FileManager.default.removeItem(atPath: scratch.file("f.sfv"))
        // Unmarked, as a download is: the marks of gcdcat's split would check the parts instead.
        try scratch.unmark(["f.001", "f.002", "f.003"])
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 1)
        #expect(scratch.listing() == ["f.001", "f.002", "f.003", "original"])
    }

    @Test(arguments: [["-o", "-"], ["--no-verify"]])
    func contradictoryOptionsAreUsageErrors(extra: [String]) throws {
        let scratch = try Scratch()
        _ = try splitSet(in: scratch)
        let result = try gcdcat(["merge", "f.001", "--remove-parts"] + extra, in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: --remove-parts needs "), "\(result.stderr)")
        #expect(scratch.listing() == ["f.001", "f.002", "f.003", "f.sfv", "original"])
    }

    /// Parts deduplicated into hard links (hardlink(1), rdfind -makehardlinks) and joined with
    /// --allow-duplicates: every name goes, with no warning. gcdcat's own unlink of the first
    /// name changed the shared file's ctime, and the others were kept as "modified since it was
    /// read" (outside attack a17 #13, re-check a18 I).
    @Test func hardLinkedPartsAreAllRemovedWithoutAFalseModifiedWarning() throws {
        let scratch = try Scratch()
        let original = randomData(100_000, seed: 1313) + Data(count: 300_000) + randomData(50_000, seed: 1314)
        try scratch.write("original", original)
        let split = try gcdcat(["split", "original", "--prefix", "img.", "-b", "100000", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        for name in ["img.003", "img.004"] {
            #expect(unlink(scratch.file(name)) == 0 && link(scratch.file("img.002"), scratch.file(name)) == 0)
        }
        let result = try gcdcat(
            ["merge", "img.001", "-o", "img", "--allow-duplicates", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(scratch.read("img") == original)
        #expect(scratch.listing() == ["img", "img.sfv", "original"])
    }

    @Test func aPartReplacedBySymlinkIsKept() throws {
        let scratch = try Scratch()
        let original = try splitSet(in: scratch)
        // The set is read through the link; removing the link would not free the part's bytes.
        try FileManager.default.moveItem(atPath: scratch.file("f.003"), toPath: scratch.file("third"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("f.003"), withDestinationPath: "third")
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("f") == original)
        #expect(result.stderr == "gcdcat: warning: f.003 kept: it is a symlink or no longer the file that was read\n")
        #expect(scratch.listing() == ["f", "f.003", "f.sfv", "original", "third"])
    }

    /// A digest list beside the set gives the parts' crc32s in the same read, so the output's own
    /// bytes are checked against them as with an SFV, and the parts go.
    @Test func aDigestListVerifiesTheOutputBeforeThePartsGo() throws {
        let scratch = try Scratch()
        let original = try splitSet(in: scratch)
        try FileManager.default.removeItem(atPath: scratch.file("f.sfv"))
        let listed = try run(executable: "/bin/sh", ["-c", "sha256sum f.001 f.002 f.003 > f.sha256"], in: scratch.path)
        #expect(listed.status == 0)
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(scratch.read("f") == original)
        #expect(scratch.listing() == ["f", "f.sha256", "original"])
    }
}

/// `--remove-parts` against writers: a part changed between its read and its `unlink` is kept.
/// strace stretches the window (every `fsync`, the output's and its folder's, sleeps), and the
/// test appends to a part once the output has its name, before the parts go.
@Suite(.enabled(if: toolExists("strace"), "needs strace to stretch the window before the unlinks"))
struct RemovePartsRaceCLITests {
    /// Runs `gcdcat ARGUMENTS` under `strace STRACE`, in `scratch`.
    func traced(_ strace: [String], _ arguments: [String], in scratch: Scratch) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["strace", "-f", "-o", "/dev/null"] + strace + [gcdcatPath] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        return process
    }

    @Test func aPartAppendedToAfterItWasReadIsKeptWithAWarning() throws {
        let scratch = try Scratch()
        let original = try RemovePartsCLITests().splitSet(in: scratch)
        let process = traced(
            ["-e", "trace=fsync", "-e", "inject=fsync:delay_enter=1500000"],
            ["merge", "f.001", "--remove-parts", "-q", "--json"], in: scratch)
        let pending = try collectLater(process)
        // The output is named before its folder's fsync, which sleeps 1.5 s: append then.
        var waited = 0
        while !FileManager.default.fileExists(atPath: scratch.file("f")) && waited < 60_000 {
            usleep(5000)
            waited += 5
        }
        let handle = try #require(FileHandle(forWritingAtPath: scratch.file("f.002")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("appended".utf8))
        try handle.close()
        let result = pending.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("f") == original)
        #expect(
            result.stderr
                == "gcdcat: warning: f.002 kept: its size changed from 102400 to 102408 bytes since it was read\n")
        #expect(scratch.listing() == ["f", "f.002", "f.sfv", "original"])
        let report = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(report?["removedParts"] as? [String] == ["f.001", "f.003"])
        #expect(
            report?["warnings"] as? [String]
                == ["f.002 kept: its size changed from 102400 to 102408 bytes since it was read"])
        #expect(report?["verified"] as? Bool == true)
        #expect(report?["exitStatus"] as? Int == 0)
    }

    /// A file moved in at a part's name while that part's unlink is held is not what is deleted:
    /// the part was renamed aside, checked there and unlinked by that name (the attack's case:
    /// `mv precious f.002` in the window, and precious was gone, exit 0).
    @Test func aFileMovedInWhileThePartsGoIsNotDeleted() throws {
        let scratch = try Scratch()
        let original = try RemovePartsCLITests().splitSet(in: scratch)
        let precious = randomData(5000, seed: 77)
        try scratch.write("precious", precious)
        let process = traced(
            ["-e", "trace=unlink,unlinkat", "-e", "inject=unlink,unlinkat:delay_enter=2000000:when=2"],
            ["merge", "f.001", "--remove-parts", "-q"], in: scratch)
        let pending = try collectLater(process)
        var waited = 0
        while FileManager.default.fileExists(atPath: scratch.file("f.001")) && waited < 60_000 {
            usleep(5000)
            waited += 5
        }
        // The second unlink (f.002's) now sleeps 2 s.
        usleep(500_000)
        #expect(rename(scratch.file("precious"), scratch.file("f.002")) == 0)
        let result = pending.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("f") == original)
        #expect(scratch.read("f.002") == precious, "the file moved in was deleted")
        #expect(scratch.listing() == ["f", "f.002", "f.sfv", "original"])
    }

    /// An `unlink` that fails after the output was published: exit 1, and both the message and
    /// the JSON error object say that the output is there, verified, and stays, and which parts
    /// were removed (neither said so: outside attack).
    @Test func aFailedUnlinkSaysWhatWasPublished() throws {
        let scratch = try Scratch()
        let original = try RemovePartsCLITests().splitSet(in: scratch)
        let process = traced(
            ["-e", "trace=unlink,unlinkat", "-e", "inject=unlink,unlinkat:error=EBUSY:when=2"],
            ["merge", "f.001", "--remove-parts", "-q", "--json"], in: scratch)
        let result = try collect(process)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: f.002: unlink: Device or resource busy\n"
                + "gcdcat: f was published, verified against f.sfv, and stays\n"
                + "gcdcat: --remove-parts removed f.001 and f.003 before it stopped\n")
        #expect(scratch.read("f") == original)
        #expect(scratch.listing() == ["f", "f.002", "f.sfv", "original"])
        let document = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let error = document?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "io")
        #expect(error?["path"] as? String == "f.002")
        #expect(error?["syscall"] as? String == "unlink")
        #expect(error?["exitStatus"] as? Int == 1)
        let published = document?["published"] as? [String: Any]
        #expect(published?["output"] as? String == "f")
        #expect(published?["verified"] as? Bool == true)
        #expect(published?["manifest"] as? String == "f.sfv")
        #expect(published?["removedParts"] as? [String] == ["f.001", "f.003"])
    }

    /// A signal while the parts go: the part being removed is finished, no other is touched,
    /// and the message and the JSON error object name the parts removed.
    @Test func aSignalWhileThePartsGoSaysWhichWereRemoved() throws {
        let scratch = try Scratch()
        let original = try RemovePartsCLITests().splitSet(in: scratch)
        let result = try runTool(
            "strace",
            [
                "-f", "-qq", "-o", "/dev/null", "-e", "trace=unlink", "-e", "inject=unlink:signal=TERM:when=2", "env",
                "--default-signal=TERM", gcdcatPath, "merge", "f.001", "--remove-parts", "-q", "--json",
            ], in: scratch.path)
        #expect(result.status == 143)
        #expect(
            result.stderr.hasSuffix(
                "\ngcdcat: interrupted by SIGTERM; f was published and stays; --remove-parts removed f.001 and f.002 "
                    + "before it stopped\n"), "\(result.stderr)")
        #expect(scratch.read("f") == original)
        #expect(scratch.listing() == ["f", "f.003", "f.sfv", "original"])
        let document = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let error = document?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "interrupted")
        #expect(
            error?["message"] as? String
                == "interrupted by SIGTERM; f was published and stays; --remove-parts removed f.001 and f.002 before "
                + "it stopped")
        let published = document?["published"] as? [String: Any]
        #expect(published?["removedParts"] as? [String] == ["f.001", "f.002"])
    }
}

/// Starts `process` and returns what ``collect(_:)`` would, on `wait()`.
private func collectLater(_ process: Process) throws -> PendingRun {
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return PendingRun(
        process: process, stdout: ReadAll(out.fileHandleForReading), stderr: ReadAll(err.fileHandleForReading))
}

/// A process running, with its outputs being read.
private struct PendingRun {
    var process: Process
    var stdout: ReadAll
    var stderr: ReadAll

    func wait() -> RunResult {
        let standardError = stderr.wait()
        let standardOutput = Data(stdout.wait().utf8)
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: standardOutput, stderr: standardError)
    }
}
