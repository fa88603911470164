import Foundation
import GCDCatCore
import Testing

@Suite struct ChecksumListTests {
    let md5 = "900150983cd24fb0d6963f7d28e17f72"
    let sha1 = "a9993e364706816aba3e25717850c26c9cd0d89d"
    let sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    func parse(_ text: String, forced: HashAlgorithm? = nil) throws -> [ChecksumList.Entry] {
        try ChecksumList.parse(bytes: Array(text.utf8), path: "list", forced: forced).entries
    }

    func entry(_ name: String, _ algorithm: HashAlgorithm, _ hex: String, _ line: Int, _ format: ChecksumLineFormat)
        -> ChecksumList.Entry
    {
        ChecksumList.Entry(name: name, algorithm: algorithm, expected: hex, line: line, format: format)
    }

    /// An untagged entry whose algorithm was assumed from its value's length.
    func guessed(_ name: String, _ algorithm: HashAlgorithm, _ hex: String, _ line: Int) -> ChecksumList.Entry {
        var guessed = entry(name, algorithm, hex, line, .gnu)
        guessed.guessed = true
        return guessed
    }

    // Issue 12: each line's shape and algorithm are detected, in one mixed list.
    @Test func detectsEveryShapeLineByLine() throws {
        let text = """
            ; an SFV comment
            sfv name.bin CBF43926
            \(md5)  gnu text
            \(sha1) *gnu binary
            \\\(sha256)  back\\\\slash\\nnewline
            SHA256 (bsd (1)) = \(sha256.uppercased())
            MD5   (rhash padded) = \(md5)
            \\SHA1 (esc\\\\aped) = \(sha1)
            CRC32 (gcdcat bsd) = cbf43926
            cbf43926  gcdcat simple
            \(md5) md5 -r
            trailing space \r

            """.replacingOccurrences(of: "trailing space \r\n", with: "crlf.bin cbf43926\r\n")
        let entries = try parse(text)
        #expect(
            entries == [
                entry("sfv name.bin", .crc32, "cbf43926", 2, .sfv),
                guessed("gnu text", .md5, md5, 3),
                guessed("gnu binary", .sha1, sha1, 4),
                guessed("back\\slash\nnewline", .sha256, sha256, 5),
                entry("bsd (1)", .sha256, sha256, 6, .bsd),
                entry("rhash padded", .md5, md5, 7, .bsd),
                entry("esc\\aped", .sha1, sha1, 8, .bsd),
                entry("gcdcat bsd", .crc32, "cbf43926", 9, .bsd),
                guessed("gcdcat simple", .crc32, "cbf43926", 10),
                guessed("md5 -r", .md5, md5, 11),
                entry("crlf.bin", .crc32, "cbf43926", 12, .sfv),
            ])
    }

    @Test func anSFVLineWhoseNameLooksLikeADigestStaysSFV() throws {
        #expect(try parse("cafebabe  CBF43926\n") == [entry("cafebabe", .crc32, "cbf43926", 1, .sfv)])
        #expect(try parse("\(md5) CBF43926\n") == [entry(md5, .crc32, "cbf43926", 1, .sfv)])
    }

    @Test func aForcedAlgorithmRulesUntaggedLinesAndMustFitTheValues() throws {
        #expect(try parse("11e60398  wiki\n", forced: .adler32) == [entry("wiki", .adler32, "11e60398", 1, .gnu)])
        #expect(try parse("wiki 11E60398\n", forced: .adler32) == [entry("wiki", .adler32, "11e60398", 1, .sfv)])
        let cases: [(String, HashAlgorithm, String)] = [
            (
                "\(md5)  a\n", .sha256,
                "list: line 1: the value has 32 hex digits, but sha256 values have 64; 32 digits fit md5: "
                    + "drop --algorithm sha256, or use --algorithm md5"
            ),
            ("MD5 (a) = \(md5)\n", .sha256, "list: line 1: tagged MD5, not the sha256 asked for"),
            (
                "a CBF43926\n", .sha1,
                "list: line 1: the value has 8 hex digits, but sha1 values have 40; 8 digits fit crc32: "
                    + "drop --algorithm sha1, or use --algorithm crc32"
            ),
        ]
        for (text, forced, message) in cases {
            let error = expectGCDCatError { _ = try parse(text, forced: forced) }
            #expect(error?.description == message)
        }
    }

    @Test(arguments: [
        (
            "WHIRLPOOL (a) = \(String(repeating: "0", count: 128))\n",
            "list: line 1: WHIRLPOOL is not an algorithm gcdcat knows (CRC32, ADLER32, MD5, SHA1, SHA224, SHA256, "
                + "SHA384, SHA512, SHA3-224, SHA3-256, SHA3-384, SHA3-512, BLAKE2b)"
        ),
        (
            "SHA256 (a) = \(String(repeating: "0", count: 40))\n",
            "list: line 1: tagged SHA256, but its value has 40 hex digits, not 64"
        ),
        (
            "\(String(repeating: "a", count: 32))  x\n\(String(repeating: "b", count: 32))  ./x\n",
            "list: line 2: './x' is listed twice, with another value (first on line 1)"
        ),
        ("this line has no crc\n", "list: line 1: 'crc' is not a CRC32 of 8 hex digits"),
        ("noblank\n", "list: line 1: expected 'NAME CRC32', found no CRC"),
        ("; nothing\n", "list: no entries: nothing to verify"),
    ])
    func malformedListsNameTheLine(text: String, message: String) {
        let error = expectGCDCatError { _ = try parse(text) }
        #expect(error?.description == message)
    }

    // A signed list as Fedora publishes it (CHECKSUM): armor, `Hash:` and `#` lines are not entries.
    @Test func aClearSignedListWithCommentsReadsItsEntries() throws {
        let text = """
            -----BEGIN PGP SIGNED MESSAGE-----
            Hash: SHA256

            # Fedora-Workstation-Live-x86_64-39-1.5.iso: 2295853056 bytes
            SHA256 (Fedora-Workstation-Live-x86_64-39-1.5.iso) = \(sha256)
            -----BEGIN PGP SIGNATURE-----

            iQIzBAEBCAAdFiEE6PI9N3zVYJOcKUkEkwtVYBLaNcMFAmVBHjwACgkQkwtVYBLa
            =AbCd
            -----END PGP SIGNATURE-----

            """
        #expect(try parse(text) == [entry("Fedora-Workstation-Live-x86_64-39-1.5.iso", .sha256, sha256, 5, .bsd)])
        // An SFV name that starts with # is still an entry.
        #expect(try parse("#1.bin CBF43926\n") == [entry("#1.bin", .crc32, "cbf43926", 1, .sfv)])
    }

    @Test func oneNameUnderTwoAlgorithmsIsNotADuplicate() throws {
        let entries = try parse("MD5 (x) = \(md5)\nSHA1 (x) = \(sha1)\n")
        #expect(entries.map(\.algorithm) == [.md5, .sha1])
    }

    @Test func renderingIsWhatCoreutilsPrints() {
        let name = "a\\b\nc"
        #expect(ChecksumLineFormat.gnu.render(name: name, algorithm: .sha256, hex: sha256) == "\\\(sha256)  a\\\\b\\nc")
        #expect(
            ChecksumLineFormat.bsd.render(name: name, algorithm: .sha256, hex: sha256)
                == "\\SHA256 (a\\\\b\\nc) = \(sha256)")
        #expect(ChecksumLineFormat.gnu.render(name: "sp ace", algorithm: .md5, hex: md5) == "\(md5)  sp ace")
        #expect(ChecksumLineFormat.sfv.render(name: "x", algorithm: .crc32, hex: "cbf43926") == "x CBF43926")
        // What is rendered parses back to the same entry.
        for format in [ChecksumLineFormat.gnu, .bsd] {
            let line = format.render(name: name, algorithm: .sha256, hex: sha256)
            let parsed = format == .gnu ? guessed(name, .sha256, sha256, 1) : entry(name, .sha256, sha256, 1, format)
            #expect((try? parse(line + "\n")) == [parsed])
        }
    }
}

@Suite struct FileHashTests {
    // Known answers from the standards: FIPS 180-4's "abc" vectors, RFC 1321's md5 test suite.
    @Test(arguments: [
        (HashAlgorithm.md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
        (.md5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        (
            .md5, "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a"
        ),
        (.sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            .sha256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            .sha512, "abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        ),
        (.crc32, "123456789", "cbf43926"),
        (.adler32, "Wikipedia", "11e60398"),
    ])
    func knownAnswersFromAFile(algorithm: HashAlgorithm, text: String, expected: String) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("f"), Array(text.utf8))
        #expect(try FileHash.of(directory.file("f"), algorithm: algorithm, jobs: 2) == expected)
        #expect(HashAlgorithm(hexLength: expected.count) == (algorithm == .adler32 ? .crc32 : algorithm))
    }

    /// A file larger than the 1 MiB buffer, against coreutils.
    @Test(arguments: [HashAlgorithm.md5, .sha1, .sha256, .sha512])
    func aMultiBufferFileMatchesCoreutils(algorithm: HashAlgorithm) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("f"), seededBytes(3 << 20 + 17, seed: 12))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(algorithm.rawValue)sum")
        process.arguments = [directory.file("f")]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let expected = String(output.prefix(algorithm.hexLength))
        #expect(try FileHash.of(directory.file("f"), algorithm: algorithm, jobs: 1) == expected)
    }
}

@Suite struct ChecksumListVerifierTests {
    // Files start largest first (the large crc32 file gets the free threads); the outcomes keep
    // the list's order.
    @Test(arguments: [1, 2, 4])
    func outcomesKeepTheListsOrderWhateverRunsFirst(jobs: Int) throws {
        let directory = TemporaryDirectory()
        var lines = ""
        var expected: [String] = []
        for (index, size) in [10, 40_000_017, 0, 3000, 25_000_000].enumerated() {
            let bytes = seededBytes(size, seed: UInt64(index))
            writeFile(directory.file("f\(index)"), bytes)
            var checksum = Checksum(.crc32)
            checksum.update(bytes)
            let value = index == 4 ? checksum.value ^ 1 : checksum.value
            lines += "f\(index) \(hex8(value))\n"
            expected.append(
                index == 4 ? "f4: FAILED (expected \(hex8(value)), got \(checksum.hex))" : "f\(index): OK")
        }
        lines += "gone 00000000\n"
        expected.append("gone: MISSING")
        writeFile(directory.file("list.sfv"), Array(lines.utf8))
        let list = try ChecksumList.load(directory.file("list.sfv"))
        let outcomes = ChecksumListVerifier.verify(list, listPath: directory.file("list.sfv"), jobs: jobs)
        #expect(outcomes.map(\.line) == expected)
        #expect(ChecksumListVerifier.exitStatus(outcomes) == 1)
        #expect(ChecksumListVerifier.totalBytes(list, listPath: directory.file("list.sfv")) == 65_003_027)
    }
}

extension ChecksumListTests {
    // Issue 22: lists are read by their real algorithm: tags, then the list's name, then length.
    @Test func tagsNameEveryAlgorithmAsTheToolsWriteThem() throws {
        let cases: [(String, HashAlgorithm)] = [
            ("BLAKE2b", .blake2b), ("BLAKE2B", .blake2b), ("BLAKE2b-512", .blake2b), ("SHA3-256", .sha3Bits256),
            ("SHA3-224", .sha3Bits224), ("SHA3-384", .sha3Bits384), ("SHA3-512", .sha3Bits512), ("SHA384", .sha384),
            ("SHA224", .sha224), ("SHA-384", .sha384), ("SHA2-224", .sha224), ("SHA256", .sha256),
        ]
        for (tag, algorithm) in cases {
            let line = "\(tag) (f) = \(String(repeating: "a", count: algorithm.hexLength))\n"
            #expect(
                try parse(line) == [entry("f", algorithm, String(repeating: "a", count: algorithm.hexLength), 1, .bsd)])
            #expect(HashAlgorithm(tag: algorithm.tag[...]) == algorithm)
        }
    }

    @Test func aListsNameGivesTheAlgorithmOfItsUntaggedLines() {
        let cases: [(String, HashAlgorithm?)] = [
            ("B2SUMS", .blake2b), ("dir/x.b2", .blake2b), ("x.blake2b", .blake2b), ("x.blake2", .blake2b),
            ("SHA384SUMS", .sha384), ("x.sha384", .sha384), ("SHA224SUMS", .sha224), ("x.sha3-256", .sha3Bits256),
            ("SHA3-512SUMS", .sha3Bits512), ("MD5SUMS", .md5), ("SHA256SUMS.asc", .sha256),
            ("x.iso.sha256sum", .sha256), ("sha1sums.txt", .sha1), ("CHECKSUM", nil), ("list", nil), ("x.sum", nil),
            ("movie.zip.sfv", nil),
            ("standard input", nil),
        ]
        for (name, algorithm) in cases { #expect(ChecksumList.algorithm(ofListName: name) == algorithm, "\(name)") }
    }

    @Test func aNamedListNeedsNoGuessAndAnUnnamedOneSaysItsGuess() throws {
        let value = String(repeating: "ab", count: 64)
        let named = try ChecksumList.parse(bytes: Array("\(value)  f\n".utf8), path: "d/B2SUMS")
        #expect(named.entries == [entry("f", .blake2b, value, 1, .gnu)])
        #expect(named.guessNotes.isEmpty)
        let unnamed = try ChecksumList.parse(bytes: Array("\(value)  f\n".utf8), path: "d/list")
        #expect(unnamed.entries == [guessed("f", .sha512, value, 1)])
        #expect(
            unnamed.guessNotes == [
                "128 hex digits, sha512 assumed; use --algorithm blake2b or --algorithm sha3-512 if it is another"
            ])
        // A name that does not fit the values' length falls back to the length, said as a guess.
        let misnamed = try ChecksumList.parse(bytes: Array("\(sha256)  f\n".utf8), path: "x.md5")
        #expect(misnamed.entries == [guessed("f", .sha256, sha256, 1)])
        // 40 digits have no other algorithm to name.
        let sha1List = try ChecksumList.parse(bytes: Array("\(sha1)  f\n".utf8), path: "list")
        #expect(
            sha1List.guessNotes == [
                "40 hex digits, sha1 assumed (the list has no tags and its name names no algorithm)"
            ])
    }

    @Test func aShorterBLAKE2bIsReadByTagOrByTheListsName() throws {
        let short = String(repeating: "c", count: 64)
        for (text, path, format) in [
            ("BLAKE2b-256 (f) = \(short)\n", "list", ChecksumLineFormat.bsd), ("\(short)  f\n", "B2SUMS", .gnu),
            ("\(short)  f\n", "x.b2", .gnu),
        ] {
            let list = try ChecksumList.parse(bytes: Array(text.utf8), path: path)
            #expect(list.entries == [entry("f", .blake2bBits(256), short, 1, format)], "\(path)")
            #expect(list.guessNotes.isEmpty)
        }
        // b2sum -l 8 writes 2 digits: a length no other algorithm has is BLAKE2b's in B2SUMS.
        let tiny = try ChecksumList.parse(bytes: Array("ab  f\n".utf8), path: "B2SUMS")
        #expect(tiny.entries == [entry("f", .blake2bBits(8), "ab", 1, .gnu)])
        // --algorithm blake2b reads each value's length as b2sum -c does; blake2b-256 wants 64.
        let forced = try ChecksumList.parse(bytes: Array("\(short)  f\n".utf8), path: "list", forced: .blake2b)
        #expect(forced.entries == [entry("f", .blake2bBits(256), short, 1, .gnu)])
        let error = expectGCDCatError {
            _ = try ChecksumList.parse(bytes: Array("abcd  f\n".utf8), path: "list", forced: .blake2bBits(256))
        }
        #expect(
            error?.description
                == "list: line 1: the value has 4 hex digits, but blake2b-256 values have 64; 4 digits fit blake2b-16: "
                + "drop --algorithm blake2b-256, or use --algorithm blake2b")
        // Outside a BLAKE2b list, 64 digits stay a guessed sha256.
        let guessed = try ChecksumList.parse(bytes: Array("\(short)  f\n".utf8), path: "list")
        #expect(guessed.entries.map(\.algorithm) == [.sha256])
    }

    // Issue 22: `café` in NFC and in NFD are two files, as sha256sum -c reads them.
    @Test func namesAreComparedAsBytes() throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // why a String key is wrong
        let list = try ChecksumList.parse(bytes: Array("\(sha256)  \(nfc)\n\(sha256)  \(nfd)\n".utf8), path: "S")
        #expect(list.entries.map { PathName.bytes(of: $0.name) } == [Array(nfc.utf8), Array(nfd.utf8)])
        let sfv = try Manifest.parse(bytes: Array("\(nfc) CBF43926\n\(nfd) CBF43926\n".utf8), path: "m.sfv")
        #expect(sfv.entries.count == 2)
    }

    @Test func aGuessIsConfirmedByOneMatchAndOtherwiseNeverCalledCorruption() {
        func outcome(_ name: String, _ guessed: Bool, _ status: ChecksumListVerifier.Status)
            -> ChecksumListVerifier.Outcome
        {
            var listed = entry(name, .sha512, String(repeating: "0", count: 128), 1, .gnu)
            listed.guessed = guessed
            return ChecksumListVerifier.Outcome(entry: listed, path: name, status: status)
        }
        let unconfirmed = ChecksumListVerifier.confirmingGuesses([
            outcome("a", true, .failed(actual: "x")), outcome("b", true, .missing),
            outcome("c", true, .failed(actual: "y")),
        ])
        #expect(unconfirmed.map(\.status) == [.unconfirmed(actual: "x"), .missing, .unconfirmed(actual: "y")])
        #expect(ChecksumListVerifier.exitStatus(unconfirmed) == 1)
        let confirmed = ChecksumListVerifier.confirmingGuesses([
            outcome("a", true, .ok), outcome("b", true, .failed(actual: "x")),
        ])
        #expect(confirmed.map(\.status) == [.ok, .failed(actual: "x")])
        #expect(ChecksumListVerifier.exitStatus(confirmed) == 2)
        // A tagged (not guessed) mismatch is corruption, whatever else there is.
        let tagged = ChecksumListVerifier.confirmingGuesses([outcome("a", false, .failed(actual: "x"))])
        #expect(tagged.map(\.status) == [.failed(actual: "x")])
    }
}
