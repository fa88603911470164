import Foundation
import Testing

/// Cases an outside tester found with only the README and the binary.
@Suite struct OutsiderFindingsCLITests {
    /// A split under a tight `ulimit -v` trapped ("failed to allocate") or hung in libdispatch,
    /// which retries a thread it cannot create for ever. Each limit must now give a complete
    /// split or a clean allocation error, with nothing left behind.
    @Test func aSplitUnderAnAddressSpaceLimitFinishesOrFailsCleanly() throws {
        let scratch = try Scratch()
        let data = randomData(1_000_000, seed: 5)
        try scratch.write("small", data)
        for limit in stride(from: 85_000, through: 130_000, by: 5_000) {
            let result = try shell(
                "ulimit -v \(limit); exec timeout -s KILL 60 \(gcdcatPath) split -q small --parts 2", in: scratch.path)
            let listing = scratch.listing()
            #expect(!listing.contains { $0.contains(".gcdcat-") }, "ulimit -v \(limit): left \(listing)")
            switch result.status {
            case 0:
                let joined = (scratch.read("small.001") ?? Data()) + (scratch.read("small.002") ?? Data())
                #expect(joined == data, "ulimit -v \(limit): wrong bytes")
            case 1:
                #expect(result.stderr.contains("Cannot allocate memory"), "ulimit -v \(limit): \(result.stderr)")
                #expect(listing == ["small"], "ulimit -v \(limit): a failed split left \(listing)")
            case 127:
                // The dynamic loader itself could not map the runtime: gcdcat never ran.
                #expect(result.stderr.contains("error while loading shared libraries"))
            default:
                Issue.record("ulimit -v \(limit): exit \(result.status) (trap or hang): \(result.stderr.prefix(300))")
            }
            for name in ["small.001", "small.002", "small.sfv"] {
                try? FileManager.default.removeItem(atPath: scratch.file(name))
            }
        }
    }

    @Test func aListedDotIsTheManifestsOwnFolderNotAnEscape() throws {
        let scratch = try Scratch()
        try scratch.write("t.sfv", Data(". 00000000\n".utf8))
        let result = try gcdcat(["verify", "t.sfv"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stdoutText == ".: UNREADABLE (.: Is a directory)\n")
    }

    @Test(
        arguments: [
            (["split", "x", "--size", "-q"], "'-q' is not a size"),
            (["split", "x", "--size", "1K", "--high-water", "-1"], "'-1' is negative; a size must be positive"),
            (["merge", "x", "--low-water", "-5"], "'-5' is negative; a size must be positive"),
        ])
    func aDashValueIsReadAsTheValueAndNamed(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let result = try gcdcat(arguments, in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(scratch.listing().isEmpty)
    }

    /// `new<newline>line` and a literal `new\nline` printed alike; now as `sha256sum -c` does.
    @Test func escapedNamesInAVerifyListingAreUnambiguous() throws {
        let scratch = try Scratch()
        try scratch.write("new\nline", Data("a".utf8))
        try scratch.write("new\\nline", Data("b".utf8))
        try scratch.write("plain", Data("c".utf8))
        let made = try gcdcat(["checksum", "new\nline", "new\\nline", "plain"], in: scratch.path)
        #expect(made.status == 0)
        try scratch.write("l.sfv", made.stdout)
        let result = try gcdcat(["verify", "l.sfv"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == "\\new\\nline: OK\n\\new\\\\nline: OK\nplain: OK\n")
    }

    /// A second outside pass: dispatchdata into a pipe whose reader quit hung in 5 runs of 8,
    /// waiting in libdispatch for the pipe to become writable. It must end, 1 or 141.
    @Test func dispatchdataIntoAPipeWhoseReaderQuitEnds() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(3_000_000, seed: 8))
        #expect(try gcdcat(["split", "f", "-b", "1M", "-q"], in: scratch.path).status == 0)
        for _ in 0..<4 {
            let result = try run(
                executable: "/bin/bash",
                [
                    "-c",
                    "timeout -s KILL 30 \(gcdcatPath) merge f.001 -o - --strategy dispatchdata -q | head -c 10 >/dev/null;"
                        + " exit ${PIPESTATUS[0]}",
                ], in: scratch.path)
            #expect([1, 141].contains(result.status), "exit \(result.status): \(result.stderr)")
        }
    }

    /// A stream merge under `ulimit -v 150000` hung every time in libdispatch's thread creation.
    @Test func aStreamMergeUnderALowAddressSpaceLimitEnds() throws {
        let scratch = try Scratch()
        let data = randomData(40_000_000, seed: 9)
        try scratch.write("w.001", data.prefix(20_000_000))
        try scratch.write("w.002", data.dropFirst(20_000_000))
        for limit in [150_000, 300_000] {
            let result = try shell(
                "ulimit -v \(limit); exec timeout -s KILL 40 \(gcdcatPath) merge w.001 -o out --strategy stream -q",
                in: scratch.path)
            #expect([0, 1].contains(result.status), "ulimit -v \(limit): exit \(result.status)")
            if result.status == 0 { #expect(scratch.read("out") == data) }
            if result.status == 1 { #expect(result.stderr.contains("Cannot allocate memory"), "\(result.stderr)") }
            #expect(!scratch.listing().contains { $0.contains(".gcdcat-") })
            try? FileManager.default.removeItem(atPath: scratch.file("out"))
        }
    }

    /// The JSON contract's attacker: each of these printed something other than exactly one
    /// JSON document on standard output, or trapped.
    @Test func anUnwritableJSONFileFailsBeforeTheBenchmarkWithOneErrorObject() throws {
        let result = try gcdcat([
            "bench", "--size", "1M", "--parts", "2", "--repeat", "1", "--json", "--json-file",
            "/nonexistent-dir/x.json",
        ])
        #expect(result.status == 1)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["syscall"] as? String == "open")
        #expect(error?["path"] as? String == "/nonexistent-dir/x.json")
        #expect(!result.stderr.contains("round 1/1"), "the benchmark ran before the file was checked")
    }

    @Test func aHugeBenchSizeIsAUsageErrorNotATrap() throws {
        for size in ["4611686018427387904", "9223372036854775807"] {
            let result = try gcdcat(["bench", "--size", size, "--json"])
            #expect(result.status == 64, "--size \(size): \(result.stderr.prefix(200))")
            let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            #expect((object?["error"] as? [String: Any])?["code"] as? String == "usage")
        }
    }

    @Test func jsonWithAnOutputThatIsStandardOutputIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("f.001", randomData(1000, seed: 9))
        for output in ["/dev/stdout", "/dev/fd/1"] {
            let result = try gcdcat(["merge", "f.001", "-o", output, "--json"], in: scratch.path)
            #expect(result.status == 64, "-o \(output)")
            let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            #expect((object?["error"] as? [String: Any])?["code"] as? String == "usage", "-o \(output)")
        }
        // Without --json, /dev/stdout still receives the merged bytes.
        let plain = try gcdcat(["merge", "f.001", "-o", "/dev/stdout"], in: scratch.path)
        #expect(plain.status == 0)
        #expect(plain.stdout == randomData(1000, seed: 9))
    }
}
