import Foundation
import Testing

/// Findings of the outside attack on verified merges, copy-on-write and checksums (issue 11).
@Suite struct VerifiedMergeFindingsCLITests {
    /// `checksum -q` and `verify -q` silence progress, as the README says; they were unknown
    /// options (exit 64). Here the output is the same as without `-q` (no terminal: no bar).
    @Test func quietIsAcceptedByChecksumAndVerify() throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(5000, seed: 3))
        let made = try gcdcat(["checksum", "-q", "a"], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout == (try gcdcat(["checksum", "a"], in: scratch.path)).stdout)
        try scratch.write("a.sfv", made.stdout)
        let verified = try gcdcat(["verify", "-q", "a.sfv"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdoutText == "")
    }

    /// `checksum <(command)` read the pipe as sha256sum does; it was refused as "a FIFO".
    @Test func aPipeNamedAsAFileIsChecksummed() throws {
        let scratch = try Scratch()
        let result = try run(
            executable: "/bin/bash",
            ["-c", "\(gcdcatPath) checksum --algorithm sha256 --format simple <(printf hello) /dev/stdin <<<hi"],
            in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let hello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        let hi = "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4"
        let lines = result.stdoutText.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) }
        #expect(lines == [hello, hi], "\(result.stdoutText)")
    }

    /// A character device other than standard input stays refused: it might never end.
    @Test func aCharacterDeviceIsStillRefused() throws {
        let result = try gcdcat(["checksum", "/dev/zero"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/dev/zero"), "\(result.stderr)")
    }

    /// `split --json` named no copyMethod (null) although it moved every byte with one.
    @Test func splitJSONNamesHowTheBytesMoved() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(300_000, seed: 5))
        let result = try gcdcat(["split", "f", "--size", "100K", "--json", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let method = report?["copyMethod"] as? String
        #expect(["clone", "copy_file_range", "sendfile", "read/write"].contains(method ?? ""), "\(method ?? "nil")")
        let moved = (report?["clonedBytes"] as? Int ?? -1) + (report?["copiedBytes"] as? Int ?? -1)
        #expect(moved == 300_000)
    }

    /// A merge verified by a sha256 list of the whole file now checks the merged bytes against
    /// the crc32 read with the digest; the report gives it, and the bytes pass through gcdcat.
    @Test func aDigestListMergeReportsTheCRCItChecked() throws {
        let scratch = try Scratch()
        let whole = randomData(250_000, seed: 9)
        try scratch.write("f", whole)
        #expect(try gcdcat(["split", "f", "--size", "100K", "--no-manifest", "-q"], in: scratch.path).status == 0)
        try scratch.write("f.sha256", try runTool("sha256sum", ["f"], in: scratch.path).stdout)
        let crc = try gcdcat(["checksum", "--format", "simple", "f"], in: scratch.path).stdoutText.prefix(8)
        try FileManager.default.removeItem(atPath: scratch.file("f"))
        let merged = try gcdcat(["merge", "f.001", "--json", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        let report = try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any]
        #expect((report?["crc32"] as? String)?.lowercased() == crc.lowercased())
        #expect(scratch.read("f") == whole)
    }
}
