import Foundation
import GCDCatCore
import Testing

/// Issue 22: a checksum list is read by its real algorithm, from its tags, then its name, then
/// its values' length, and a length's guess is said and never reported as corruption.
@Suite struct ChecksumListAlgorithmCLITests {
    static let names = ["a.iso", "sp ace", "c.bin"]

    func files() throws -> Scratch {
        let scratch = try Scratch()
        for (index, name) in Self.names.enumerated() {
            try scratch.write(name, randomData(500 + 33_333 * index, seed: UInt64(70 + index)))
        }
        return scratch
    }

    func ok(_ names: [String] = names) -> String { names.map { "\($0): OK\n" }.joined() }

    /// `tool ARGS NAMES` written to `list` in `scratch`.
    func makeList(_ scratch: Scratch, _ list: String, _ tool: String, _ arguments: [String]) throws {
        #expect(toolExists(tool), "\(tool) is not installed")
        let made = try runTool(tool, arguments + Self.names, in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        try scratch.write(list, made.stdout)
    }

    @Test(arguments: ["B2SUMS", "movie.b2", "movie.blake2b", "B2SUMS.asc"])
    func b2sumsDefaultListIsReadAsBLAKE2bByItsName(list: String) throws {
        let scratch = try files()
        try makeList(scratch, list, "b2sum", [])
        let result = try gcdcat(["verify", list], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == ok())
        #expect(result.stderr == "gcdcat: \(list): 3 files: 3 OK, 0 FAILED, 0 MISSING\n")
    }

    @Test func taggedB2sumAndRhashListsAreReadByTheirTags() throws {
        let scratch = try files()
        for (tool, arguments) in [
            ("b2sum", ["--tag"]), ("rhash", ["--bsd", "--blake2b"]), ("rhash", ["--bsd", "--sha3-256"]),
            ("rhash", ["--bsd", "--sha3-224"]), ("rhash", ["--bsd", "--sha3-384"]),
            ("rhash", ["--bsd", "--sha3-512"]), ("sha384sum", ["--tag"]), ("sha224sum", ["--tag"]),
        ] {
            try makeList(scratch, "LIST", tool, arguments)
            let result = try gcdcat(["verify", "LIST"], in: scratch.path)
            #expect(result.status == 0, "\(tool) \(arguments): \(result.stderr)")
            #expect(result.stdoutText == ok())
            #expect(result.stderr == "gcdcat: LIST: 3 files: 3 OK, 0 FAILED, 0 MISSING\n", "\(tool) \(arguments)")
        }
    }

    @Test func untaggedListsNamedForTheirAlgorithmNeedNoGuess() throws {
        let scratch = try files()
        for (list, tool, arguments) in [
            ("SHA384SUMS", "sha384sum", [String]()), ("x.sha384", "sha384sum", []), ("SHA224SUMS", "sha224sum", []),
            ("x.sha224", "sha224sum", []), ("x.sha3-256", "rhash", ["--sha3-256"]),
            ("SHA3-512SUMS", "rhash", ["--sha3-512"]), ("MD5SUMS", "md5sum", []), ("x.sha512", "sha512sum", []),
        ] {
            try makeList(scratch, list, tool, arguments)
            let result = try gcdcat(["verify", list], in: scratch.path)
            #expect(result.status == 0, "\(list): \(result.stderr)")
            #expect(result.stdoutText == ok())
            #expect(result.stderr == "gcdcat: \(list): 3 files: 3 OK, 0 FAILED, 0 MISSING\n")
        }
    }

    /// A list whose name says an algorithm gcdcat does not compute (`rhash --crc32c`, BLAKE2s,
    /// BLAKE3) is not read by its values' length as another's: verify says so, exit 1, and a merge
    /// beside it warns that it was not used (it was passed over in silence, or its crc32c values
    /// read as crc32 with a hint of adler32: outside attack, issue 22).
    @Test(arguments: [
        ("x.bin.crc32c", ["--crc32c"], "crc32c"), ("x.bin.blake2s", ["--blake2s"], "blake2s"),
        ("B3SUMS", ["--sha256"], "blake3"),
    ])
    func aListOfAnAlgorithmGcdcatDoesNotComputeIsSaidToBeOne(list: String, rhash: [String], algorithm: String)
        throws
    {
        let scratch = try Scratch()
        let whole = randomData(3000, seed: 2233)
        let parts = ["x.bin.001", "x.bin.002", "x.bin.003"]
        for (index, part) in parts.enumerated() {
            try scratch.write(part, whole.subdata(in: index * 1000..<(index + 1) * 1000))
        }
        let made = try runTool("rhash", rhash + parts, in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        try scratch.write(list, made.stdout)
        let why =
            "line 1: the list's name says \(algorithm), an algorithm gcdcat does not compute; check it with the tool "
            + "that wrote it (or give --algorithm if the name is wrong)"
        let verified = try gcdcat(["verify", list], in: scratch.path)
        #expect(verified.status == 1)
        #expect(verified.stderr == "gcdcat: \(list): \(why)\n")
        let merged = try gcdcat(["x.bin.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "gcdcat: warning: \(list) beside the set names its parts, but gcdcat cannot read it (\(why)); the "
                    + "parts were not checked against it (gcdcat verify \(list) says why)\n"), "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// A list joined from two tools' (sha256sum's and `rhash --sha3-256`'s): one line confirms
    /// the sha256 guess, and the others, which match as sha3-256, are UNCONFIRMED (exit 1), not
    /// FAILED (exit 2: outside attack, issue 22); a merge takes them as checked under sha3-256,
    /// and says so.
    @Test func aListMixingTwoAlgorithmsOfOneLengthIsNeverCalledCorrupt() throws {
        let scratch = try files()
        let sha256 = try runTool("sha256sum", [Self.names[0]], in: scratch.path)
        let sha3 = try runTool("rhash", ["--sha3-256", Self.names[1], Self.names[2]], in: scratch.path)
        try scratch.write("LIST", sha256.stdout + sha3.stdout)
        let verified = try gcdcat(["verify", "LIST"], in: scratch.path)
        #expect(verified.status == 1, "\(verified.stderr)")
        #expect(verified.stdoutText.hasPrefix("a.iso: OK\nsp ace: UNCONFIRMED (not sha256? "), "\(verified.stdoutText)")
        #expect(
            verified.stderr.hasSuffix(
                "gcdcat: LIST: some 64-digit values match as sha256 and others as another algorithm of that length: "
                    + "the list mixes algorithms (joined from two tools' lists?), so those files are UNCONFIRMED, not "
                    + "corrupt; check them with --algorithm blake2b-256 or --algorithm sha3-256\n"),
            "\(verified.stderr)")
        let whole = randomData(2800, seed: 2238)
        let parts = ["m.bin.001", "m.bin.002", "m.bin.003"]
        for (index, part) in parts.enumerated() {
            try scratch.write(part, whole.subdata(in: index * 1000..<min(whole.count, (index + 1) * 1000)))
        }
        let first = try runTool("sha256sum", [parts[0]], in: scratch.path)
        let rest = try runTool("rhash", ["--sha3-256", parts[1], parts[2]], in: scratch.path)
        try scratch.write("CHECKSUMS", first.stdout + rest.stdout)
        let merged = try gcdcat(["m.bin.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: CHECKSUMS mixes algorithms (joined from two tools' lists?): m.bin.002 (line 2) matched "
                + "as sha3-256, not as the sha256 assumed from its 64 digits, and 1 more part likewise; each part was "
                + "checked under the algorithm it matched (gcdcat verify CHECKSUMS calls them UNCONFIRMED)\n"
                + "gcdcat: 3 parts verified against CHECKSUMS\n")
        #expect(scratch.read("m.bin") == whole)
    }

    /// A list joined from `sha256sum`'s line for the first part and `b2sum -l 256`'s for the
    /// others: verify calls those UNCONFIRMED, and a merge, which checks each under the
    /// algorithm it matched, says which (it said only "4 parts verified"); a corrupt part among
    /// them is said under the guess it was judged by, with the other algorithms of that length
    /// it was judged by too (it named sha256 alone for a blake2b-256 line: outside attack).
    @Test func aListJoinedFromTwoToolsIsSaidAsMixedByAMergeAsByVerify() throws {
        let scratch = try Scratch()
        let whole = randomData(3500, seed: 2239)
        let parts = ["m.bin.001", "m.bin.002", "m.bin.003", "m.bin.004"]
        for (index, part) in parts.enumerated() {
            try scratch.write(part, whole.subdata(in: index * 1000..<min(whole.count, (index + 1) * 1000)))
        }
        let first = try runTool("sha256sum", [parts[0]], in: scratch.path)
        let rest = try runTool("b2sum", ["-l", "256"] + parts.dropFirst(), in: scratch.path)
        try scratch.write("checksums.txt", first.stdout + rest.stdout)
        let verified = try gcdcat(["verify", "checksums.txt"], in: scratch.path)
        #expect(verified.status == 1, "\(verified.stderr)")
        #expect(
            verified.stdoutText.split(separator: "\n").map { $0.prefix { $0 != "(" } }
                == ["m.bin.001: OK", "m.bin.002: UNCONFIRMED ", "m.bin.003: UNCONFIRMED ", "m.bin.004: UNCONFIRMED "])
        let merged = try gcdcat(["m.bin.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: checksums.txt mixes algorithms (joined from two tools' lists?): m.bin.002 (line 2) "
                + "matched as blake2b-256, not as the sha256 assumed from its 64 digits, and 2 more parts likewise; each "
                + "part was checked under the algorithm it matched (gcdcat verify checksums.txt calls them UNCONFIRMED)\n"
                + "gcdcat: 4 parts verified against checksums.txt\n")
        #expect(scratch.read("out") == whole)
        let json = try gcdcat(["m.bin.001", "-o", "json", "--json", "--strategy", "stream"], in: scratch.path)
        let report = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        #expect(report?["notes"] as? [String] == [String(merged.stderr.split(separator: "\n")[0].dropFirst(14))])
        // A corrupt part: FAILED under the sha256 the other line confirmed, and under the
        // other algorithms of that length, so exit 2, as the line it is on says.
        var bytes = scratch.read("m.bin.002")!
        bytes[10] ^= 1
        try scratch.write("m.bin.002", bytes)
        let actual = String(try runTool("sha256sum", ["m.bin.002"], in: scratch.path).stdoutText.prefix(64))
        let listed = String(rest.stdoutText.prefix(64))
        let bad = try gcdcat(["m.bin.001", "-o", "bad"], in: scratch.path)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(
            bad.stderr
                == "gcdcat: m.bin.002: sha256 is \(actual), but checksums.txt line 2 says \(listed) (sha256 assumed from "
                + "its 64 digits; blake2b-256 and sha3-256 do not give it either): the part is corrupt; checksums.txt "
                + "mixes algorithms (joined from two tools' lists?): m.bin.003 (line 3) matched as blake2b-256, not as "
                + "the sha256 assumed from its 64 digits, and 1 more part likewise; each part was checked under the "
                + "algorithm it matched (gcdcat verify checksums.txt calls them UNCONFIRMED)\n")
        #expect(scratch.read("bad") == nil)
    }

    /// A `HEX  NAME` line of a length no algorithm gcdcat reads has (`rhash --tiger`'s 48
    /// digits) is said as such, not as a bad CRC32 (it was "'a.iso' is not a CRC32": outside attack).
    @Test func aValueOfNoKnownLengthIsSaidAsSuch() throws {
        let scratch = try files()
        try makeList(scratch, "LIST", "rhash", ["--tiger"])
        let result = try gcdcat(["verify", "LIST"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: LIST: line 1: 48 hex digits before the name: no algorithm gcdcat reads has a value of that "
                + "length (a list of another tool's, such as rhash --tiger?)\n")
    }

    @Test func aGuessFromTheLengthIsSaidAndAConfirmedGuessReportsRealCorruption() throws {
        let scratch = try files()
        try makeList(scratch, "LIST", "sha384sum", [])
        var result = try gcdcat(["verify", "LIST"], in: scratch.path)
        #expect(result.status == 0)
        #expect(
            result.stderr == """
                gcdcat: LIST: 96 hex digits, sha384 assumed; use --algorithm blake2b-384 or --algorithm sha3-384 if it is another
                gcdcat: LIST: 3 files: 3 OK, 0 FAILED, 0 MISSING

                """)
        // One file matched, so the guess holds and a changed file is corrupt: FAILED, exit 2.
        try scratch.write("c.bin", Data("changed".utf8))
        result = try gcdcat(["verify", "LIST"], in: scratch.path)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdoutText.contains("c.bin: FAILED (expected sha384 "))
    }

    @Test func aB2sumListWithNoHintIsNeverReportedAsCorruption() throws {
        let scratch = try files()
        try makeList(scratch, "LIST", "b2sum", [])
        var result = try gcdcat(["verify", "LIST"], in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stdoutText.contains("FAILED"))
        #expect(result.stdoutText.hasPrefix("a.iso: UNCONFIRMED (not sha512? assumed from 128 hex digits; expected "))
        #expect(
            result.stderr == """
                gcdcat: LIST: 128 hex digits, sha512 assumed; use --algorithm blake2b or --algorithm sha3-512 if it is another
                gcdcat: LIST: 3 files: 0 OK, 0 FAILED, 0 MISSING, 3 UNCONFIRMED
                gcdcat: LIST: no file matched its 128-digit value as sha512, which was only assumed from the length: \
                the list is probably of another algorithm, not the files corrupt; try --algorithm blake2b or --algorithm sha3-512

                """)
        result = try gcdcat(["verify", "--algorithm", "blake2b", "LIST"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == ok())
        #expect(result.stderr == "gcdcat: LIST: 3 files: 3 OK, 0 FAILED, 0 MISSING\n")
        // The JSON says UNCONFIRMED, guessed, and counts it.
        result = try gcdcat(["verify", "--json", "LIST"], in: scratch.path)
        #expect(result.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.map { $0["status"] as? String } == ["UNCONFIRMED", "UNCONFIRMED", "UNCONFIRMED"])
        #expect(files.allSatisfy { $0["guessed"] as? Bool == true })
        #expect((document["summary"] as? [String: Any])?["unconfirmed"] as? Int == 3)
    }

    /// The advice names the BLAKE2b of the list's length first, and following it passes (it
    /// named only sha3-256 for `b2sum -l 256`, and that reported the good files FAILED).
    @Test(arguments: [("256", "sha256", "blake2b-256"), ("384", "sha384", "blake2b-384"), ("128", "md5", "")])
    func shorterB2sumListsWithNoHintAreUnconfirmed(length: String, guessed: String, other: String) throws {
        let scratch = try files()
        try makeList(scratch, "LIST", "b2sum", ["-l", length])
        var result = try gcdcat(["verify", "LIST"], in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stdoutText.contains("FAILED"))
        #expect(result.stdoutText.contains("a.iso: UNCONFIRMED (not \(guessed)?"))
        #expect(result.stderr.contains("which was only assumed from the length"))
        guard !other.isEmpty else { return }
        #expect(result.stderr.contains("try --algorithm \(other) or --algorithm sha3-\(length)\n"), "\(result.stderr)")
        result = try gcdcat(["verify", "--algorithm", other, "LIST"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == ok())
    }

    /// `b2sum -l N` lists: GNU lines in a list named for BLAKE2b are read at their values'
    /// length, as `b2sum -c` reads them, and `BLAKE2b-N` tags at theirs.
    @Test(arguments: [8, 16, 128, 160, 256, 384, 504])
    func shorterBLAKE2bListsAreReadAtTheirLength(bits: Int) throws {
        let scratch = try files()
        for (list, arguments) in [
            ("B2SUMS", ["-l", "\(bits)"]), ("x.b2", ["-l", "\(bits)"]), ("LIST", ["-l", "\(bits)", "--tag"]),
        ] {
            try makeList(scratch, list, "b2sum", arguments)
            var result = try gcdcat(["verify", list], in: scratch.path)
            #expect(result.status == 0, "\(list) -l \(bits): \(result.stderr)")
            #expect(result.stdoutText == ok())
            #expect(result.stderr == "gcdcat: \(list): 3 files: 3 OK, 0 FAILED, 0 MISSING\n", "\(list) -l \(bits)")
            // A changed file is FAILED, with the algorithm of its length named.
            try scratch.write("c.bin", randomData(600, seed: 99))
            result = try gcdcat(["verify", list], in: scratch.path)
            #expect(result.status == 2, "\(list) -l \(bits): \(result.stderr)")
            #expect(result.stdoutText.contains("c.bin: FAILED"), "\(result.stdoutText)")
            try scratch.write("c.bin", randomData(500 + 33_333 * 2, seed: 72))
        }
    }

    @Test func checksumWritesBLAKE2bOfAnyLengthAsB2sumDoes() throws {
        let scratch = try files()
        for bits in [8, 256, 384, 512] {
            for (format, extra) in [("gnu", [String]()), ("bsd", ["--tag"])] {
                let theirs = try runTool("b2sum", ["-l", "\(bits)"] + extra + Self.names, in: scratch.path)
                let ours = try gcdcat(
                    ["checksum", "--algorithm", "blake2b-\(bits)", "--format", format] + Self.names, in: scratch.path)
                #expect(ours.status == 0, "\(ours.stderr)")
                #expect(ours.stdoutText == theirs.stdoutText, "-l \(bits) \(format)")
                // And b2sum -c accepts what gcdcat wrote.
                try scratch.write("OURS", ours.stdout)
                let checked = try runTool("b2sum", ["-c", "OURS"], in: scratch.path)
                #expect(checked.status == 0, "\(checked.stderr)")
            }
        }
        for bad in ["blake2b-7", "blake2b-520", "blake2b-0"] {
            let result = try gcdcat(["checksum", "--algorithm", bad, "a.iso"], in: scratch.path)
            #expect(result.status == 64, "\(bad)")
            #expect(result.stderr.contains("'\(bad)'"), "\(result.stderr)")
        }
    }

    @Test func checksumWritesWhatB2sumSha384sumAndRhashWrite() throws {
        let scratch = try files()
        for (algorithm, tool, gnu, bsd) in [
            ("blake2b", "b2sum", [String](), ["--tag"]), ("sha384", "sha384sum", [], ["--tag"]),
            ("sha224", "sha224sum", [], ["--tag"]), ("sha3-256", "rhash", ["--sha3-256"], ["--sha3-256", "--bsd"]),
            ("sha3-224", "rhash", ["--sha3-224"], ["--sha3-224", "--bsd"]),
            ("sha3-384", "rhash", ["--sha3-384"], ["--sha3-384", "--bsd"]),
            ("sha3-512", "rhash", ["--sha3-512"], ["--sha3-512", "--bsd"]),
        ] {
            for (format, arguments) in [("gnu", gnu), ("bsd", bsd)] {
                let theirs = try runTool(tool, arguments + Self.names, in: scratch.path)
                let ours = try gcdcat(
                    ["checksum", "--algorithm", algorithm, "--format", format] + Self.names, in: scratch.path)
                #expect(ours.status == 0, "\(ours.stderr)")
                #expect(ours.stdoutText == theirs.stdoutText, "\(algorithm) \(format)")
            }
        }
    }

    /// Two files whose names are equal as Swift Strings but not as bytes: café in NFC and NFD.
    @Test func namesAreComparedAsBytesNFCAndNFDAreTwoFiles() throws {
        let scratch = try files()
        let made = try runTool(
            "sh",
            [
                "-c",
                #"printf one > "$(printf 'caf\303\251')"; printf two > "$(printf 'cafe\314\201')"; "#
                    + #"printf three > "$(printf 'p\351.bin')"; sha256sum caf* p*.bin > SHA256SUMS"#,
            ], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let checked = try runTool("sha256sum", ["-c", "SHA256SUMS"], in: scratch.path)
        #expect(checked.status == 0)
        let result = try gcdcat(["verify", "SHA256SUMS"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "gcdcat: SHA256SUMS: 3 files: 3 OK, 0 FAILED, 0 MISSING\n")
        // The two café lines as sha256sum prints them (gcdcat shows the Latin-1 name escaped).
        #expect(
            result.stdoutText.hasPrefix(checked.stdoutText.split(separator: "\n").prefix(2).joined(separator: "\n")))
    }

    /// A list names `café` in NFC; the file beside it is `café` in NFD: MISSING, as
    /// `sha256sum -c` says, with a note that a look-alike name is there (verify and merge).
    @Test func aLookAlikeNameBesideAMissingFileIsNoted() throws {
        let scratch = try Scratch()
        let made = try runTool(
            "sh",
            [
                "-c",
                #"nfc=$(printf 'caf\303\251'); nfd=$(printf 'cafe\314\201'); "#
                    + #"printf one > "$nfc.001"; printf two > "$nfc.002"; sha256sum "$nfc.002" > SHA256SUMS; "#
                    + #"cksfv "$nfc.001" "$nfc.002" > "$nfc.sfv"; mv "$nfc.002" "$nfd.002""#,
            ], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let nfc = "caf\u{E9}.002"
        let nfd = "cafe\u{301}.002"
        let verify = try gcdcat(["verify", "SHA256SUMS"], in: scratch.path)
        #expect(verify.status == 1, "\(verify.stderr)")
        #expect(verify.stdoutText.contains("MISSING"))
        #expect(
            verify.stderr.contains(
                "gcdcat: SHA256SUMS: note: \(nfc) is missing, but \(nfd) looks the same and is spelt with other bytes "
                    + "(another Unicode normalisation), so it is another file: rename it to match the list\n"),
            "\(verify.stderr)")
        let merge = try gcdcat(
            ["merge", "--manifest", "caf\u{E9}.sfv", "caf\u{E9}.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 1, "\(merge.stderr)")
        #expect(
            merge.stderr.contains(
                "; \(nfd) looks the same but is spelt with other bytes (another Unicode normalisation), so it is "
                    + "another file: rename it to match the list"),
            "\(merge.stderr)")
        #expect(scratch.read("out") == nil)
    }

    @Test func verifyOfAFileThatIsNotAListPointsToTheListBesideIt() throws {
        let scratch = try files()
        try makeList(scratch, "SHA256SUMS", "sha256sum", [])
        var result = try gcdcat(["verify", "a.iso"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasSuffix(
                "gcdcat: a.iso is not a checksum list; verify the list beside it: gcdcat verify SHA256SUMS\n"),
            "\(result.stderr)")
        try scratch.write("x.001", randomData(3000, seed: 9))
        try scratch.write("x.sfv", Data("x.001 00000000\n".utf8))
        result = try gcdcat(["verify", "x.001"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasSuffix(
                "gcdcat: x.001 is not a checksum list; verify the list beside it: gcdcat verify x.sfv\n"),
            "\(result.stderr)")
        // No list beside it: how to make one.
        let alone = try Scratch()
        try alone.write("c.bin", randomData(3000, seed: 10))
        result = try gcdcat(["verify", "\(alone.path)/c.bin"], in: "/")
        #expect(result.status == 1)
        #expect(
            result.stderr.hasSuffix(
                "is not a checksum list (verify reads SHA256SUMS, *.sfv, *.md5, …); to make one: gcdcat checksum "
                    + "--algorithm sha256 \(alone.path)/c.bin > \(alone.path)/c.bin.sha256\n"),
            "\(result.stderr)")
    }

    @Test func aListWithAbsentFilesHintsIgnoreMissing() throws {
        let scratch = try files()
        try makeList(scratch, "SHA256SUMS", "sha256sum", [])
        try FileManager.default.removeItem(atPath: scratch.file("c.bin"))
        let result = try gcdcat(["verify", "SHA256SUMS"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                gcdcat: SHA256SUMS: 3 files: 2 OK, 0 FAILED, 1 MISSING
                gcdcat: SHA256SUMS: 1 listed file is not here; --ignore-missing checks only the files present

                """)
        let ignoring = try gcdcat(["verify", "--ignore-missing", "SHA256SUMS"], in: scratch.path)
        #expect(ignoring.status == 0)
    }

    @Test func checksumJSONGivesEachFilesErrorAsAnErrorObject() throws {
        let scratch = try files()
        let result = try gcdcat(["checksum", "--json", "--algorithm", "sha256", "a.iso", "gone"], in: scratch.path)
        #expect(result.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files[0]["error"] == nil)
        let error = try #require(files[1]["error"] as? [String: Any])
        #expect(error["path"] as? String == "gone")
        #expect(error["code"] as? String == "missingPart")
        #expect(error["exitStatus"] as? Int == 1)
        #expect(error["message"] as? String == "gone: open: No such file or directory")
        #expect(error["syscall"] as? String == "open")
        #expect(error["errno"] as? Int == 2)
        #expect(error.keys.sorted() == ["code", "errno", "exitStatus", "message", "path", "syscall"])
    }
}
