import Foundation
import Testing

/// What `verify` says to the everyday mistakes an outside attack found (issue 22): each message
/// answers the mistake and names the fix, and a count reads as English.
@Suite struct VerifyMessagesCLITests {
    /// sha256 of "a".
    static let digestOfA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"

    /// A folder holding `a` ("a") and a SHA256SUMS naming it.
    func listedFile() throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("a", Data("a".utf8))
        try scratch.write("SHA256SUMS", Data("\(Self.digestOfA)  a\n".utf8))
        return scratch
    }

    // `verify <(cat SHA256SUMS)` said "/dev/fd/63: not a regular file (a FIFO)". A pipe is read
    // as standard input is: to its end, with its names relative to the current folder (the list
    // lies in lists/, and `a` beside the shell), and none of its bytes taken by the PAR2 sniff.
    @Test func aPipedListIsReadAsStandardInputIs() throws {
        let scratch = try listedFile()
        try FileManager.default.createDirectory(atPath: scratch.file("lists"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(atPath: scratch.file("SHA256SUMS"), toPath: scratch.file("lists/SHA256SUMS"))
        let result = try run(
            executable: "/bin/bash", ["-c", #""$0" verify <(cat lists/SHA256SUMS)"#, gcdcatPath], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == "a: OK\n")
        #expect(result.stderr.hasPrefix("gcdcat: /dev/fd/"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix(": 1 file: 1 OK, 0 FAILED, 0 MISSING\n"), "\(result.stderr)")
    }

    // `printf 'garbage line\n' >> SHA256SUMS` refused the whole list, with a hint to make a list
    // with `gcdcat checksum`. The bad line is said once, with its number and why; the other
    // lines are checked; the run is never a clean pass (exit 1, over a FAILED's 2).
    @Test func aMalformedLineIsSaidOnceAndTheOtherLinesAreChecked() throws {
        let scratch = try listedFile()
        try scratch.write("b", Data("b".utf8))
        try scratch.write(
            "SHA256SUMS", Data("\(Self.digestOfA)  a\ngarbage line\n\(Self.digestOfA)  b\n".utf8))
        let result = try gcdcat(["verify", "SHA256SUMS"], in: scratch.path)
        #expect(result.status == 1)
        let computed = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"
        #expect(result.stdoutText == "a: OK\nb: FAILED (expected sha256 \(Self.digestOfA), got \(computed))\n")
        #expect(
            result.stderr
                == "gcdcat: SHA256SUMS: line 2: 'garbage line' is not a sha256 line ('HEX  NAME' or 'SHA256 (NAME) = HEX')\n"
                + "gcdcat: SHA256SUMS: 2 files: 1 OK, 1 FAILED, 0 MISSING; 1 malformed line not checked\n")
        // --quiet says it too: it fails the run.
        let quiet = try gcdcat(["verify", "--quiet", "SHA256SUMS"], in: scratch.path)
        #expect(quiet.status == 1)
        #expect(
            quiet.stderr.hasPrefix(
                "gcdcat: SHA256SUMS: line 2: 'garbage line' is not a sha256 line ('HEX  NAME' or 'SHA256 (NAME) = HEX')\n"
            ))
        // --json names the line, in its schema.
        let json = try gcdcat(["verify", "--json", "SHA256SUMS"], in: scratch.path)
        #expect(json.status == 1)
        #expect(json.stderr == "")
        let document = try JSONValue.parse(json.stdoutText)
        #expect(try schema("verify").violations(of: document) == [])
        let object = try #require(
            try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let list = try #require((object["lists"] as? [[String: Any]])?.first)
        #expect(list["malformedLines"] as? Int == 1)
        #expect(
            list["malformed"] as? [String] == [
                "line 2: 'garbage line' is not a sha256 line ('HEX  NAME' or 'SHA256 (NAME) = HEX')"
            ])
        #expect(list["exitStatus"] as? Int == 1)
        #expect((object["summary"] as? [String: Any])?["malformedLines"] as? Int == 1)
    }

    // A file with no valid line is still no checksum list, answered with how to make one.
    @Test func aFileWithNoValidLineIsStillNotAList() throws {
        let scratch = try Scratch()
        try scratch.write("notes.txt", Data("garbage line\nmore words here\n".utf8))
        let result = try gcdcat(["verify", "notes.txt"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: notes.txt: line 1: 'line' is not a CRC32 of 8 hex digits\n"
                + "gcdcat: notes.txt is not a checksum list (verify reads SHA256SUMS, *.sfv, *.md5, …); "
                + "to make one: gcdcat checksum --algorithm sha256 notes.txt > notes.txt.sha256\n")
    }

    // `--algorithm md5 SHA256SUMS` said "'98ea…' is not a md5 value (32 hex digits)": a value cut
    // without a mark, and no word of what its 64 digits are. The length and the fix are named.
    @Test func aForcedAlgorithmThatFitsNoValueNamesTheOneThatDoes() throws {
        let scratch = try listedFile()
        let result = try gcdcat(["verify", "--algorithm", "md5", "SHA256SUMS"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: SHA256SUMS: line 1: the value has 64 hex digits, but md5 values have 32; "
                + "64 digits fit sha256: drop --algorithm md5, or use --algorithm sha256\n")
    }

    // "1 files: 1 OK": a count of one is singular.
    @Test func aCountOfOneIsSingular() throws {
        let scratch = try listedFile()
        let result = try gcdcat(["verify", "SHA256SUMS"], in: scratch.path)
        #expect(result.status == 0)
        #expect(result.stderr == "gcdcat: SHA256SUMS: 1 file: 1 OK, 0 FAILED, 0 MISSING\n")
    }
}

extension ChecksumCLITests {
    // `#notes` was written as it is, and `rhash -c` skipped the line as a comment: the file went
    // unchecked, exit 0. `;semi` and ` lead` were escaped (`\;semi`), which neither cksfv nor
    // rhash reads. `./NAME` is the same file to cksfv, rhash and gcdcat; each tool must then
    // notice each file changed.
    @Test(
        .enabled(if: toolExists("cksfv") && toolExists("rhash"), "needs cksfv and rhash (apt-get install cksfv rhash)"))
    func sfvNamesStartingLikeACommentStayCheckedByCksfvAndRhash() throws {
        let scratch = try Scratch()
        let names = ["#notes", ";semi", " lead"]
        for name in names { try scratch.write(name, Data("one".utf8)) }
        let sfv = try gcdcat(["checksum", "--format", "sfv"] + names, in: scratch.path)
        #expect(sfv.status == 0)
        #expect(
            sfv.stdoutText
                == "; Generated by gcdcat \(version)\n./#notes 7A6C86F1\n./;semi 7A6C86F1\n./ lead 7A6C86F1\n")
        try scratch.write("list.sfv", sfv.stdout)
        #expect(try runTool("cksfv", ["-f", "list.sfv"], in: scratch.path).status == 0)
        #expect(try runTool("rhash", ["-c", "list.sfv"], in: scratch.path).status == 0)
        let verified = try gcdcat(["verify", "list.sfv"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdoutText == "./#notes: OK\n./;semi: OK\n./ lead: OK\n")
        for name in names {
            try scratch.write(name, Data("two".utf8))
            #expect(try runTool("cksfv", ["-f", "list.sfv"], in: scratch.path).status != 0, "\(name)")
            #expect(try runTool("rhash", ["-c", "list.sfv"], in: scratch.path).status != 0, "\(name)")
            try scratch.write(name, Data("one".utf8))
        }
    }

    // A split of `#movie` writes its manifest's lines the same way; merge still matches them to
    // the parts, and rhash checks every part.
    @Test(.enabled(if: toolExists("rhash"), "needs rhash (apt-get install rhash)"))
    func aSplitOfAHashNameMergesAndItsManifestIsCheckedByRhash() throws {
        let scratch = try Scratch()
        let data = randomData(30_000, seed: 22)
        try scratch.write("#movie", data)
        #expect(try gcdcat(["split", "#movie", "--size", "10000"], in: scratch.path).status == 0)
        let manifest = String(decoding: scratch.read("#movie.sfv") ?? Data(), as: UTF8.self)
        #expect(manifest.contains("\n./#movie.001 "), "\(manifest)")
        let rhash = try runTool("rhash", ["-c", "#movie.sfv"], in: scratch.path)
        #expect(rhash.status == 0)
        #expect(rhash.stdoutText.contains("#movie.003"), "\(rhash.stdoutText)")
        let merged = try gcdcat(["merge", "#movie.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == data)
    }
}
