import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The naming table, discovery around a first part, and the escaping of hostile names.
@Suite struct SetDiscoveryTests {
    /// Every naming `gcdcat split` writes is discovered from its first part, whatever the
    /// prefix, suffix style, width and start.
    @Test(arguments: [
        (PartNaming(prefix: "movie.zip."), 1002),
        (PartNaming(prefix: "disk_"), 3),
        (PartNaming(prefix: "x"), 3),
        (PartNaming(prefix: "orig.", style: .alpha), 700),
        (PartNaming(prefix: "x", style: .alpha, width: 3), 30),
        (PartNaming(prefix: "p-", style: .numeric, width: 5, start: 7), 4),
        (PartNaming(prefix: "q.", style: .alpha, start: 3), 4),
        (PartNaming(prefix: "sub/", style: .numeric), 3),
        // Hex from `eb` and from `ab`: read as letters, `in.eb` … `in.ef` would stop before `in.f0`.
        (PartNaming(prefix: "in.", style: .hex, start: 0xeb), 7),
        (PartNaming(prefix: "in.", style: .hex, width: 2, start: 0xab), 7),
        (PartNaming(prefix: "x", style: .alpha), 8),
    ])
    func everyNamingSplitWritesIsDiscovered(naming: PartNaming, count: Int) throws {
        let directory = TemporaryDirectory()
        mkdir(directory.file("sub"), 0o755)
        var located = naming
        located.prefix = directory.file(naming.prefix)
        let names = try (0..<count).map { try located.name(at: $0) }
        for name in names { writeFile(name, [1]) }
        let set = try PartDiscovery.discover(from: names[0])
        #expect(set?.parts == names)
        #expect(set?.naming.manifestCandidates.first == located.defaultManifestPath)
        #expect(set?.startsLate == (located.start > 1))
    }

    @Test func theTableSpellsGNUWidening() {
        let letters = NumberedName(stem: "x", alphabet: .letters, width: 2, number: 0)
        #expect(letters.with(number: 649).name == "xyz")
        #expect(letters.with(number: 650).name == "xzaaa")
        #expect(letters.number(ofSuffix: "zaaa") == 650)
        let digits = NumberedName(stem: "x", alphabet: .digits, width: 2, number: 0)
        #expect(digits.spellings(of: 90) == ["x90", "x9000"])
        #expect(digits.number(ofSuffix: "9000") == 90)
        let padded = NumberedName(stem: "x.", alphabet: .digits, width: 3, number: 1)
        #expect(padded.number(ofSuffix: "0003") == nil)
        #expect(padded.number(ofSuffix: "1000") == 1000)
        #expect(NumberedName(stem: "f.part", alphabet: .digits, width: 1, number: 1).wholeName == "f")
    }

    @Test func aLoneFileIsNotASet() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("notes"), [1])
        writeFile(directory.file("report-v2"), [1])
        writeFile(directory.file("x.005"), [1])
        #expect(try PartDiscovery.discover(from: directory.file("notes")) == nil)
        #expect(try PartDiscovery.discover(from: directory.file("report-v2")) == nil)
        // A padded late number alone is a set whose first parts are gone, not a plain file.
        #expect(try PartDiscovery.discover(from: directory.file("x.005"))?.startsLate == true)
    }

    @Test func aLetterGapNamesTheMissingPart() throws {
        let directory = TemporaryDirectory()
        for name in ["xaa", "xab", "xad", "xml"] { writeFile(directory.file(name), [1]) }
        let error = expectGCDCatError { _ = try PartDiscovery.discover(from: directory.file("xaa")) }
        #expect(error?.code == .missingPart)
        #expect(
            error?.description
                == "\(directory.file("xac")): missing part: the set has \(directory.file("xad")) but not this one")
    }

    @Test func twoSpellingsOfOneNumberClash() throws {
        let directory = TemporaryDirectory()
        for name in ["x00", "x01", "x89", "x90", "x9000"] { writeFile(directory.file(name), [1]) }
        for number in 2...88 { writeFile(directory.file("x" + zeroPadded(number, width: 2)), [1]) }
        let error = expectGCDCatError { _ = try PartDiscovery.discover(from: directory.file("x00")) }
        #expect(
            error?.description
                == "\(directory.file("x9000")): clashes with \(directory.file("x90")): both are part 90 of the set; remove or rename one"
        )
    }

    /// Issue 9 case 7: every name SFV cannot carry literally survives render → parse.
    @Test func hostileNamesRoundTrip() throws {
        let names = [
            "new\nline", " lead", ";semi", "back\\slash", "c:colon", "tail ", "\ttab", "cr\r", "\\n literal",
            PathName.decode([0x70, 0xE9, 0x2E, 0x30, 0x30, 0x31]),
        ]
        let manifest = Manifest(
            entries: names.enumerated().map { Manifest.Entry(name: $1, crc32: UInt32($0)) },
            whole: .init(name: "new\nwhole", size: 3, crc32: 7))
        let parsed = try Manifest.parse(bytes: manifest.encoded(generator: "t"), path: "m")
        #expect(parsed.entries.map(\.name) == names)
        #expect(parsed.entries.map(\.crc32) == names.indices.map { UInt32($0) })
        #expect(parsed.entries.allSatisfy { $0.rejection == nil })
        #expect(parsed.whole?.name == "new\nwhole")
        // The Latin-1 name is written as its one byte, as cksfv would.
        #expect(manifest.encoded(generator: "t").contains(0xE9))
    }

    @Test func aBackslashLineWithAForeignEscapeIsLiteral() throws {
        let parsed = try Manifest.parse(bytes: Array("\\dir\\file 00000001\n".utf8), path: "m")
        #expect(parsed.entries.map(\.name) == ["\\dir\\file"])
    }

    @Test func checksumListsAreKnownByShape() {
        let sha = Array(String(repeating: "ab", count: 32).utf8) + Array("  movie.zip.001\n".utf8)
        #expect(ChecksumListDetector.kind(ofHead: sha, truncated: false) == "gnu")
        #expect(ChecksumListDetector.kind(ofHead: Array("; c\na.001 CBF43926\n".utf8), truncated: false) == "sfv")
        #expect(
            ChecksumListDetector.kind(
                ofHead: Array("SHA256 (a) = \(String(repeating: "0", count: 64))\n".utf8), truncated: false)
                == "bsd")
        #expect(ChecksumListDetector.kind(ofHead: Array("hello world\n".utf8), truncated: false) == nil)
        #expect(ChecksumListDetector.kind(ofName: "dir/movie.zip.SHA256") == "sha256")
        #expect(ChecksumListDetector.kind(ofName: "movie.zip.001") == nil)
    }

    @Test func mergeAnnouncesAndVerifiesFromTheFirstPart() throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: [4, 4, 2])
        let crcs = try paths.map { try FileChecksum.of($0, algorithm: .crc32, jobs: 1).value }
        let manifest = Manifest(entries: zip(paths, crcs).map { .init(name: splitPath($0.0), crc32: $0.1) })
        writeFile(directory.file("data.sfv"), manifest.encoded(generator: "t"))
        var notices: [MergeOperation.Notice] = []
        let operation = MergeOperation(arguments: [paths[0]], output: nil)
        let outcome = try operation.merge(notice: { notices.append($0) }) { _, _, body in
            try body(TransferCounter())
        }
        #expect(outcome.output == .path(directory.file("data")))
        #expect(notices == [.verified(parts: 3, manifest: directory.file("data.sfv"))])
        #expect(readFile(directory.file("data")) == whole)
    }
}

private func splitPath(_ path: String) -> String {
    String(path.split(separator: "/").last ?? "")
}
