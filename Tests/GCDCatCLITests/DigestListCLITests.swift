import Foundation
import GCDCatCore
import Testing

/// Issue 12: checksum lists as people download them, in both directions against the real tools.
@Suite struct DigestListCLITests {
    static let names = ["plain.iso", "sp ace", "back\\slash", "new\nline", "cr\rname"]
    /// As verify lists them, like `sha256sum -c`: escaped names start with a backslash.
    static let shown = ["plain.iso", "sp ace", "\\back\\\\slash", "\\new\\nline", "\\cr\\rname"]

    /// A folder holding a small file under each awkward name.
    func files() throws -> Scratch {
        let scratch = try Scratch()
        for (index, name) in Self.names.enumerated() {
            try scratch.write(name, randomData(1000 + 70_001 * index, seed: UInt64(40 + index)))
        }
        return scratch
    }

    func okListing(_ names: [String] = shown) -> String { names.map { "\($0): OK\n" }.joined() }

    /// What verify says of an untagged list of each tool's whose name names no algorithm.
    static let guessNotes = [
        "md5": "32 hex digits, md5 assumed (the list has no tags and its name names no algorithm)",
        "sha1": "40 hex digits, sha1 assumed (the list has no tags and its name names no algorithm)",
        "sha256": "64 hex digits, sha256 assumed; use --algorithm blake2b-256 or --algorithm sha3-256 if it is another",
        "sha512": "128 hex digits, sha512 assumed; use --algorithm blake2b or --algorithm sha3-512 if it is another",
    ]

    @Test(arguments: ["md5", "sha1", "sha256", "sha512"])
    func listsWrittenByCoreutilsPlainAndTaggedAreVerified(tool: String) throws {
        let scratch = try files()
        for tag in [false, true] {
            let made = try runTool("\(tool)sum", (tag ? ["--tag"] : []) + Self.names, in: scratch.path)
            #expect(made.status == 0)
            try scratch.write("LIST", made.stdout)
            let result = try gcdcat(["verify", "LIST"], in: scratch.path)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutText == okListing())
            // An untagged list whose name names no algorithm is read by its values' length, and says so.
            let guess = tag ? "" : "gcdcat: LIST: \(Self.guessNotes[tool]!)\n"
            #expect(result.stderr == guess + "gcdcat: LIST: 5 files: 5 OK, 0 FAILED, 0 MISSING\n")
            // And gcdcat writes those very bytes.
            let ours = try gcdcat(
                ["checksum", "--algorithm", tool, "--format", tag ? "bsd" : "gnu"] + Self.names, in: scratch.path)
            #expect(ours.status == 0)
            #expect(ours.stdout == made.stdout)
        }
    }

    @Test(arguments: ["md5", "sha1", "sha256", "sha512"])
    func coreutilsChecksGcdcatsLists(tool: String) throws {
        let scratch = try files()
        for format in ["gnu", "bsd"] {
            let ours = try gcdcat(["checksum", "--algorithm", tool, "--format", format] + Self.names, in: scratch.path)
            try scratch.write("OURS", ours.stdout)
            let checked = try runTool("\(tool)sum", ["-c", "--strict", "OURS"], in: scratch.path)
            #expect(checked.status == 0, "\(format): \(checked.stdoutText) \(checked.stderr)")
            #expect(checked.stdoutText.components(separatedBy: ": OK\n").count == 6)
        }
    }

    @Test func rhashListsBothWaysAndCksfv() throws {
        #expect(toolExists("rhash"), "rhash is not installed (apt-get install rhash)")
        // rhash reads a backslash as a folder separator, so its names here are the plain ones.
        let scratch = try files()
        let names = ["plain.iso", "sp ace"]
        for (option, algorithm) in [("--sha256", "sha256"), ("--md5", "md5"), ("--sha1", "sha1"), ("--crc32", "crc32")]
        {
            let made = try runTool("rhash", ["--bsd", option] + names, in: scratch.path)
            try scratch.write("RH", made.stdout)
            let result = try gcdcat(["verify", "RH"], in: scratch.path)
            #expect(result.status == 0, "\(option): \(result.stderr)")
            #expect(result.stdoutText == okListing(names))
            let ours = try gcdcat(["checksum", "--algorithm", algorithm, "--format", "bsd"] + names, in: scratch.path)
            try scratch.write("OURS", ours.stdout)
            let checked = try runTool("rhash", ["-c", "OURS"], in: scratch.path)
            #expect(checked.status == 0, "\(option): \(checked.stdoutText) \(checked.stderr)")
        }
        for (tool, arguments) in [("rhash", ["--sfv"]), ("cksfv", ["-b"])] {
            let made = try runTool(tool, arguments + names, in: scratch.path)
            try scratch.write("S.sfv", made.stdout)
            let result = try gcdcat(["verify", "S.sfv"], in: scratch.path)
            #expect(result.status == 0, "\(tool): \(result.stderr)")
            #expect(result.stdoutText == okListing(names))
        }
    }

    // A Latin-1 name goes out as its own bytes, as sha256sum writes it, and rhash -c reads
    // gcdcat's GNU list too.
    @Test func aLatin1NameIsWrittenAsItsBytesAndRhashReadsGNULists() throws {
        let scratch = try Scratch()
        let script = """
            mkdir d && cd d && printf abc > "$(printf 'p\\351.bin')" && printf d > 'sp ace' \
            && sha256sum -- * > ../theirs && "$0" checksum --algorithm sha256 -- * > ../ours \
            && cmp ../ours ../theirs && cp ../ours . && "$0" verify ours && rhash -c ours
            """
        let result = try runTool("sh", ["-c", script, gcdcatPath], in: scratch.path)
        #expect(result.status == 0, "\(result.stdoutText) \(result.stderr)")
        #expect(result.stdoutText.hasPrefix("\\p\\xe9.bin: OK\nsp ace: OK\n"))
    }

    @Test func aCorruptFileAMissingOneAndCRLFLineEnds() throws {
        let scratch = try files()
        let made = try runTool("sha256sum", Self.names, in: scratch.path)
        let crlf = made.stdoutText.replacingOccurrences(of: "\n", with: "\r\n")
        try scratch.write("SUMS", Data(crlf.utf8))
        #expect(try gcdcat(["verify", "SUMS"], in: scratch.path).status == 0)

        var bytes = scratch.read("sp ace")!
        bytes[3] ^= 1
        try scratch.write("sp ace", bytes)
        let corrupt = try gcdcat(["verify", "SUMS"], in: scratch.path)
        #expect(corrupt.status == 2)
        let actual = try gcdcat(["checksum", "--algorithm", "sha256", "sp ace"], in: scratch.path).stdoutText.prefix(64)
        let expected = made.stdoutText.split(separator: "\n")[1].prefix(64)
        #expect(corrupt.stdoutText.contains("sp ace: FAILED (expected sha256 \(expected), got \(actual))\n"))
        try FileManager.default.removeItem(atPath: scratch.file("plain.iso"))
        let missing = try gcdcat(["verify", "SUMS"], in: scratch.path)
        #expect(missing.status == 1)
        #expect(missing.stdoutText.hasPrefix("plain.iso: MISSING\nsp ace: FAILED"))
        // --ignore-missing skips it, as sha256sum -c does; the corrupt file still counts.
        let ignored = try gcdcat(["verify", "--ignore-missing", "SUMS"], in: scratch.path)
        #expect(ignored.status == 2)
        #expect(!ignored.stdoutText.contains("plain.iso"))
        #expect(
            ignored.stderr
                == "gcdcat: SUMS: \(Self.guessNotes["sha256"]!)\n"
                + "gcdcat: SUMS: 4 files: 3 OK, 1 FAILED, 0 MISSING (1 missing ignored)\n")
        #expect(try runTool("sha256sum", ["-c", "--ignore-missing", "SUMS"], in: scratch.path).status == 1)
    }

    @Test func ignoreMissingWithNothingVerifiedIsAnError() throws {
        let scratch = try Scratch()
        try scratch.write("SUMS", Data("\(String(repeating: "0", count: 64))  renamed.iso\n".utf8))
        let result = try gcdcat(["verify", "--ignore-missing", "SUMS"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stdoutText == "")
        #expect(result.stderr == "gcdcat: SUMS: \(Self.guessNotes["sha256"]!)\ngcdcat: SUMS: no file was verified\n")
        let gnu = try runTool("sha256sum", ["-c", "--ignore-missing", "SUMS"], in: scratch.path)
        #expect(gnu.status == 1)
        #expect(gnu.stderr.contains("no file was verified"))
    }

    @Test func quietStatusStdinAndSeveralLists() throws {
        let scratch = try files()
        try scratch.write("MD5", try runTool("md5sum", Array(Self.names.prefix(2)), in: scratch.path).stdout)
        try scratch.write("SHA", try runTool("sha256sum", Array(Self.names.suffix(3)), in: scratch.path).stdout)
        let both = try gcdcat(["verify", "MD5", "SHA"], in: scratch.path)
        #expect(both.status == 0)
        #expect(both.stdoutText == okListing())
        #expect(
            both.stderr
                == "gcdcat: MD5: 2 files: 2 OK, 0 FAILED, 0 MISSING\ngcdcat: SHA: \(Self.guessNotes["sha256"]!)\n"
                + "gcdcat: SHA: 3 files: 3 OK, 0 FAILED, 0 MISSING\n")
        let quiet = try gcdcat(["verify", "--quiet", "MD5", "SHA"], in: scratch.path)
        #expect(quiet.status == 0)
        #expect(quiet.stdoutText == "" && quiet.stderr == "")
        try scratch.write("back\\slash", Data("changed".utf8))
        let quietFailure = try gcdcat(["verify", "--quiet", "MD5", "SHA"], in: scratch.path)
        #expect(quietFailure.status == 2)
        #expect(quietFailure.stdoutText.hasPrefix("\\back\\\\slash: FAILED (expected sha256 "))
        #expect(quietFailure.stderr == "gcdcat: SHA: 3 files: 2 OK, 1 FAILED, 0 MISSING\n")
        let status = try gcdcat(["verify", "--status", "MD5", "SHA"], in: scratch.path)
        #expect(status.status == 2)
        #expect(status.stdout.isEmpty && status.stderr.isEmpty)
        // A list on standard input names files relative to the current folder.
        let piped = try runTool("sh", ["-c", "\"$0\" verify - < MD5", gcdcatPath], in: scratch.path)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdoutText == "plain.iso: OK\nsp ace: OK\n")
        #expect(
            piped.stderr
                == "gcdcat: standard input: \(Self.guessNotes["md5"]!)\n"
                + "gcdcat: standard input: 2 files: 2 OK, 0 FAILED, 0 MISSING\n")
        #expect(try gcdcat(["verify", "-", "-"], in: scratch.path).status == 64)
    }

    @Test func adler32NeedsTheAlgorithmForced() throws {
        let scratch = try Scratch()
        try scratch.write("wiki", Data("Wikipedia".utf8))
        try scratch.write("L", try gcdcat(["checksum", "--algorithm", "adler32", "wiki"], in: scratch.path).stdout)
        // Read as crc32, a guess from 8 hex digits that no file confirms: not called corruption.
        let guessed = try gcdcat(["verify", "L"], in: scratch.path)
        #expect(guessed.status == 1)
        #expect(guessed.stdoutText.hasPrefix("wiki: UNCONFIRMED (not crc32? assumed from 8 hex digits; "))
        #expect(guessed.stderr.contains("try --algorithm adler32"))
        let forced = try gcdcat(["verify", "--algorithm", "adler32", "L"], in: scratch.path)
        #expect(forced.status == 0)
        #expect(forced.stdoutText == "wiki: OK\n")
        // gcdcat's own BSD output names the algorithm in its tag.
        let tagged = try gcdcat(["checksum", "--algorithm", "adler32", "--format", "bsd", "wiki"], in: scratch.path)
        #expect(tagged.stdoutText == "ADLER32 (wiki) = 11e60398\n")
        try scratch.write("T", tagged.stdout)
        let verified = try gcdcat(["verify", "T"], in: scratch.path)
        #expect(verified.status == 0)
        #expect(verified.stdoutText == "wiki: OK\n")
    }

    @Test func jsonHasOneObjectPerFileAndASummary() throws {
        let scratch = try files()
        try scratch.write("SUMS", try runTool("sha256sum", ["plain.iso", "sp ace", "gone"], in: scratch.path).stdout)
        try scratch.write(
            "SUMS",
            scratch.read("SUMS")! + Data("\(String(repeating: "0", count: 64))  gone\n".utf8))
        let result = try gcdcat(["verify", "--json", "SUMS"], in: scratch.path)
        #expect(result.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.map { $0["name"] as? String } == ["plain.iso", "sp ace", "gone"])
        #expect(files.map { $0["status"] as? String } == ["OK", "OK", "MISSING"])
        #expect(files.map { $0["algorithm"] as? String } == ["sha256", "sha256", "sha256"])
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["files"] as? Int == 3 && summary["ok"] as? Int == 2 && summary["missing"] as? Int == 1)
        #expect(document["exitStatus"] as? Int == 1)
        #expect(result.stderr == "")
    }

    @Test func unlistedFilesAreListed() throws {
        let scratch = try files()
        // A listed name that prints escaped (new\nline) is still known to be listed.
        try scratch.write(
            "SUMS", try runTool("sha1sum", ["plain.iso", "sp ace", "new\nline"], in: scratch.path).stdout)
        let result = try gcdcat(["verify", "SUMS", "--unlisted", "."], in: scratch.path)
        #expect(result.status == 0)
        #expect(
            result.stdoutText
                == okListing(["plain.iso", "sp ace", "\\new\\nline"])
                + "./back\\slash: UNLISTED\n./cr\\rname: UNLISTED\n")
    }

    @Test func checksumReadsStandardInputWithNoFilesAndPrintsJSON() throws {
        let scratch = try Scratch()
        try scratch.write("abc", Data("abc".utf8))
        let piped = try runTool("sh", ["-c", "\"$0\" checksum --algorithm sha256 < abc", gcdcatPath], in: scratch.path)
        #expect(piped.stdoutText == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n")
        let json = try gcdcat(["checksum", "--algorithm", "md5", "--json", "abc", "gone"], in: scratch.path)
        #expect(json.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(document["algorithm"] as? String == "md5")
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.first?["checksum"] as? String == "900150983cd24fb0d6963f7d28e17f72")
        #expect(
            (files.last?["error"] as? [String: Any])?["message"] as? String == "gone: open: No such file or directory")
    }
}

/// Issue 12: merge checks NAME.sha256 or NAME.md5 beside a set when there is no NAME.sfv.
@Suite struct MergeDigestListCLITests {
    func set() throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 77)
        try scratch.write("movie.zip", whole)
        #expect(
            try gcdcat(["split", "movie.zip", "--size", "1000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        return (scratch, whole)
    }

    @Test func aSha256OfTheWholeFileIsCheckedBeforeWriting() throws {
        let (scratch, whole) = try set()
        try scratch.write("movie.zip.sha256", try runTool("sha256sum", ["movie.zip"], in: scratch.path).stdout)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip"))
        let merged = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against movie.zip.sha256\n")
        #expect(scratch.read("movie.zip") == whole)
        // A corrupt part: nothing is written, exit 2, the list is named.
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip"))
        var part = scratch.read("movie.zip.002")!
        part[0] ^= 1
        try scratch.write("movie.zip.002", part)
        let corrupt = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(corrupt.status == 2)
        #expect(corrupt.stderr.hasPrefix("gcdcat: movie.zip.sha256: line 1 gives movie.zip sha256 "))
        #expect(scratch.read("movie.zip") == nil)
    }

    @Test func anMd5ListOfThePartsIsCheckedPartByPart() throws {
        let (scratch, whole) = try set()
        let parts = ["movie.zip.001", "movie.zip.002", "movie.zip.003"]
        try scratch.write("movie.zip.md5", try runTool("md5sum", parts, in: scratch.path).stdout)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip"))
        let merged = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against movie.zip.md5\n")
        #expect(scratch.read("movie.zip") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip"))
        try scratch.write("movie.zip.003", Data("changed".utf8))
        let corrupt = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(corrupt.status == 2)
        #expect(corrupt.stderr.hasPrefix("gcdcat: movie.zip.003: md5 is "))
        #expect(
            corrupt.stderr.hasSuffix(
                ", but movie.zip.md5 line 3 says \(try md5(whole.suffix(500))): the part is corrupt\n"))
        // An SFV beside the set is preferred, and said so.
        try scratch.write("movie.zip.003", whole.suffix(500))
        try scratch.write("movie.zip.sfv", try gcdcat(["checksum"] + parts, in: scratch.path).stdout)
        let sfv = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(sfv.status == 0)
        #expect(
            sfv.stderr
                == "gcdcat: note: movie.zip.md5 beside the set also lists it, and agrees with movie.zip.sfv about "
                + "its parts\ngcdcat: 3 parts verified against movie.zip.sfv\n")
    }

    func md5(_ data: Data) throws -> String {
        let scratch = try Scratch()
        try scratch.write("d", data)
        return String(try runTool("md5sum", ["d"], in: scratch.path).stdoutText.prefix(32))
    }
}

/// Issue 12: split --checksum writes a sha256sum-style list of the parts.
@Suite struct SplitDigestListCLITests {
    @Test func besideTheSFVAndReadBySha256sum() throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 91)
        try scratch.write("my file", whole)
        let split = try gcdcat(["split", "my file", "--size", "1000", "--checksum", "sha256"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            scratch.listing() == [
                "my file", "my file.001", "my file.002", "my file.003", "my file.sfv", "my file.sha256",
            ])
        let names = ["my file.001", "my file.002", "my file.003"]
        #expect(scratch.read("my file.sha256") == (try runTool("sha256sum", names, in: scratch.path)).stdout)
        #expect(try runTool("sha256sum", ["-c", "--strict", "my file.sha256"], in: scratch.path).status == 0)
    }

    @Test func insteadOfTheSFVWithEscapedNamesFromStandardInput() throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 92)
        try scratch.write("w", whole)
        let split = try runTool(
            "sh",
            ["-c", "\"$0\" split - --size 1000 --checksum md5 --no-manifest -q --prefix 'x\\y.' < w", gcdcatPath],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(scratch.listing() == ["w", "x\\y.001", "x\\y.002", "x\\y.003", "x\\y.md5"])
        let names = ["x\\y.001", "x\\y.002", "x\\y.003"]
        #expect(scratch.read("x\\y.md5") == (try runTool("md5sum", names, in: scratch.path)).stdout)
        // merge finds the list beside the set and checks the parts against it.
        let merged = try gcdcat(["x\\y.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against x\\y.md5\n")
        #expect(scratch.read("out") == whole)
    }
}

/// Issue 12, attacked from the outside: odd lines and wrong flags.
@Suite struct DigestListEdgeCLITests {
    @Test func oddNamesDirectoriesAndAbsoluteNames() throws {
        let scratch = try Scratch()
        try scratch.write("a) = b", Data("abc".utf8))
        try FileManager.default.createDirectory(atPath: scratch.file("d"), withIntermediateDirectories: false)
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        let tagged = try runTool("sha256sum", ["--tag", "a) = b"], in: scratch.path).stdout
        try scratch.write("L", tagged + Data("\(empty)  d\n\(empty)  /etc/passwd\n".utf8))
        let result = try gcdcat(["verify", "L"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stdoutText
                == "a) = b: OK\nd: UNREADABLE (d: Is a directory)\n/etc/passwd: REJECTED (absolute path; not opened)\n")
        let nowhere = try gcdcat(["verify", "L", "--unlisted", "nowhere"], in: scratch.path)
        #expect(nowhere.status == 1)
        #expect(nowhere.stdoutText == "")
        #expect(nowhere.stderr == "gcdcat: nowhere: opendir: No such file or directory\n")
    }

    @Test func contradictoryFlagsAreUsageErrors() throws {
        let scratch = try Scratch()
        for arguments in [
            ["checksum", "--algorithm", "sha256", "--format", "sfv", "x"],
            ["checksum", "--json", "--format", "gnu", "x"],
            ["verify"], ["verify", "--status", "--json", "L"], ["verify", "--algorithm", "sha3", "L"],
        ] {
            #expect(try gcdcat(arguments, in: scratch.path).status == 64, "\(arguments)")
        }
    }
}

/// Cases an outside tester found with only the README and the binary.
extension MergeDigestListCLITests {
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
