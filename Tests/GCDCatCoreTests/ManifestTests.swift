import GCDCatCore
import Testing

@Suite struct ManifestTests {
    @Test func parsesCommentsCRLFTabsLowercaseAndSpacesInNames() throws {
        let text =
            "; comment\r\nmovie.zip.001 CBF43926\r\n\tmy file.002\t\tcbf43926  \r\n\n; gcdcat-whole: 12 0000abcd movie.zip\n"
        let manifest = try Manifest.parse(text, path: "m.sfv")
        #expect(manifest.entries.map(\.name) == ["movie.zip.001", "my file.002"])
        #expect(manifest.entries.map(\.crc32) == [0xCBF4_3926, 0xCBF4_3926])
        #expect(manifest.entries.map(\.line) == [2, 3])
        #expect(manifest.whole == Manifest.Whole(name: "movie.zip", size: 12, crc32: 0xABCD))
    }

    @Test(arguments: [
        ("a.001\n", "m.sfv: line 1: expected 'NAME CRC32', found no CRC"),
        ("a.001 CBF4392\n", "m.sfv: line 1: 'CBF4392' is not a CRC32 of 8 hex digits"),
        ("a.001 CBF4392G\n", "m.sfv: line 1: 'CBF4392G' is not a CRC32 of 8 hex digits"),
        ("; only comments\n\n", "m.sfv: no entries: nothing to verify"),
        ("", "m.sfv: no entries: nothing to verify"),
        ("ok 00000000\n  00000000\n", "m.sfv: line 2: expected 'NAME CRC32', found no CRC"),
        ("a 00000000\nb 00000001\na 00000002\n", "m.sfv: line 3: 'a' is listed twice (first on line 1)"),
        ("a 00000000\n./a 00000000\na 00000000\n", "m.sfv: line 2: './a' is listed twice (first on line 1)"),
        ("a\0b 00000000\n", "m.sfv: line 1: contains a NUL byte"),
        ("a +0000000\n", "m.sfv: line 1: '+0000000' is not a CRC32 of 8 hex digits"),
    ])
    func malformedManifestsNameTheLine(text: String, message: String) {
        let error = expectGCDCatError { _ = try Manifest.parse(text, path: "m.sfv") }
        #expect(error?.description == message)
        #expect(error?.code == .malformedManifest)
    }

    @Test func hostileNamesAreRejected() throws {
        let manifest = try Manifest.parse(
            "/etc/passwd 00000000\n../x 00000000\na/../../b 00000000\nC:\\win 00000000\nok/x 00000000\n",
            path: "m")
        #expect(
            manifest.entries.map(\.rejection) == [
                "absolute path", "'..' component", "'..' component", nil, nil,
            ])
    }

    @Test func rendersWhatItParses() throws {
        let manifest = Manifest(
            entries: [.init(name: "a.001", crc32: 0xCBF4_3926), .init(name: "a.002", crc32: 1)],
            whole: .init(name: "a", size: 10, crc32: 0xFFFF_FFFF))
        let text = manifest.render(generator: "test")
        #expect(text.contains("a.001 CBF43926\n"))
        #expect(text.contains("a.002 00000001\n"))
        let again = try Manifest.parse(text, path: "m")
        #expect(again.entries.map(\.name) == ["a.001", "a.002"])
        #expect(again.whole == manifest.whole)
    }

    @Test func verifyReportsEachFile() throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: [1000, 2000])
        var first = Checksum(.crc32)
        first.update(whole[0..<1000])
        var second = Checksum(.crc32)
        second.update(whole[1000...])
        let text = """
            data.001 \(first.hex)
            data.002 \(hex8(second.value ^ 1))
            data.003 00000000
            ../escape 00000000

            """
        writeFile(directory.file("set.sfv"), Array(text.utf8))
        let list = try ChecksumList.load(directory.file("set.sfv"))
        let outcomes = ChecksumListVerifier.verify(list, listPath: directory.file("set.sfv"), jobs: 2)
        #expect(
            outcomes.map(\.line) == [
                "data.001: OK",
                "data.002: FAILED (expected \(hex8(second.value ^ 1)), got \(second.hex))",
                "data.003: MISSING",
                "../escape: REJECTED ('..' component; not opened)",
            ])
        #expect(ChecksumListVerifier.exitStatus(outcomes) == 1)
        #expect(ChecksumListVerifier.exitStatus(Array(outcomes.prefix(2))) == 2)
        #expect(ChecksumListVerifier.exitStatus(Array(outcomes.prefix(1))) == 0)
        #expect(paths.count == 2)
    }

    @Test func aDirectoryIsNotAManifest() {
        let directory = TemporaryDirectory()
        let error = expectGCDCatError { _ = try Manifest.load(directory.path) }
        #expect(error?.description == "\(directory.path): Is a directory")
    }
}

@Suite struct ParallelChecksumTests {
    @Test(arguments: ChecksumAlgorithm.allCases, [1, 2, 5])
    func parallelEqualsSerial(algorithm: ChecksumAlgorithm, jobs: Int) throws {
        let directory = TemporaryDirectory()
        let bytes = seededBytes(40_000_017, seed: 11)
        writeFile(directory.file("f"), bytes)
        var serial = Checksum(algorithm)
        serial.update(bytes)
        let parallel = try FileChecksum.of(directory.file("f"), algorithm: algorithm, jobs: jobs)
        #expect(parallel == serial)
    }
}

@Suite struct MergeVerificationTests {
    func setWithManifest(_ directory: TemporaryDirectory, sizes: [Int]) throws -> ([PartFile], [UInt8]) {
        let (paths, whole) = writeParts(in: directory, sizes: sizes)
        var entries: [Manifest.Entry] = []
        var offset = 0
        for (index, size) in sizes.enumerated() {
            var checksum = Checksum(.crc32)
            checksum.update(whole[offset..<offset + size])
            entries.append(.init(name: "data.00\(index + 1)", crc32: checksum.value))
            offset += size
        }
        writeFile(directory.file("data.sfv"), Array(Manifest(entries: entries).render(generator: "t").utf8))
        return (try paths.map(PartFile.validate), whole)
    }

    @Test func aGoodSetPassesAndPromisesTheCombinedCRC() throws {
        let directory = TemporaryDirectory()
        let (parts, whole) = try setWithManifest(directory, sizes: [100, 200, 50])
        let verification = try MergeVerification.check(
            parts, manifestPath: nil, candidate: directory.file("data.sfv"), policy: .automatic, jobs: 2)
        var expected = Checksum(.crc32)
        expected.update(whole)
        #expect(verification.expectedCRC == expected.value)
        #expect(verification.manifestPath == directory.file("data.sfv"))
    }

    @Test func aMissingLastPartIsCaughtThatNumberingCannotSee() throws {
        let directory = TemporaryDirectory()
        let (parts, _) = try setWithManifest(directory, sizes: [100, 100, 100])
        removeTree(parts[2].path)
        let error = expectGCDCatError {
            _ = try MergeVerification.check(
                Array(parts.prefix(2)), manifestPath: nil, candidate: directory.file("data.sfv"),
                policy: .automatic, jobs: 2)
        }
        #expect(error?.code == .missingPart)
        #expect(error?.path == directory.file("data.003"))
    }

    @Test func aCorruptPartIsNamed() throws {
        let directory = TemporaryDirectory()
        let (parts, _) = try setWithManifest(directory, sizes: [100, 100])
        writeFile(parts[1].path, Array(repeating: 7, count: 100))
        let error = expectGCDCatError {
            _ = try MergeVerification.check(
                try parts.map { try PartFile.validate($0.path) }, manifestPath: directory.file("data.sfv"),
                candidate: nil, policy: .automatic, jobs: 2)
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.exitStatus == 2)
        #expect(error?.path == parts[1].path)
    }

    @Test func withoutAManifestAnEvenLastPartDrawsAWarning() throws {
        let directory = TemporaryDirectory()
        let (even, _) = writeParts(in: directory, base: "even", sizes: [10, 10])
        let (uneven, _) = writeParts(in: directory, base: "uneven", sizes: [10, 3])
        let warned = try MergeVerification.check(
            even.map(PartFile.validate), manifestPath: nil, candidate: directory.file("even.sfv"), policy: .automatic,
            jobs: 1)
        #expect(warned.warnings.count == 1)
        #expect(warned.expectedCRC == nil)
        let quiet = try MergeVerification.check(
            uneven.map(PartFile.validate), manifestPath: nil, candidate: directory.file("uneven.sfv"),
            policy: .automatic, jobs: 1)
        #expect(quiet.warnings.isEmpty)
        let explicit = try MergeVerification.check(
            even.map(PartFile.validate), manifestPath: nil, candidate: nil, policy: .automatic, jobs: 1)
        #expect(explicit.warnings.isEmpty)
        let error = expectGCDCatError {
            _ = try MergeVerification.check(
                uneven.map(PartFile.validate), manifestPath: nil, candidate: directory.file("uneven.sfv"),
                policy: .required(by: "--verify"), jobs: 1)
        }
        #expect(error?.code == .missingPart)
    }

    @Test func anExtraPartOrAnotherOrderIsRefused() throws {
        let directory = TemporaryDirectory()
        let (parts, _) = try setWithManifest(directory, sizes: [5, 6])
        let swapped = expectGCDCatError {
            _ = try MergeVerification.check(
                [parts[1], parts[0]], manifestPath: directory.file("data.sfv"), candidate: nil, policy: .automatic,
                jobs: 1)
        }
        #expect(swapped?.code == .invalidInput)
        writeFile(directory.file("extra"), [1])
        let extra = expectGCDCatError {
            _ = try MergeVerification.check(
                parts + [try PartFile.validate(directory.file("extra"))], manifestPath: directory.file("data.sfv"),
                candidate: nil, policy: .automatic, jobs: 1)
        }
        #expect(extra?.description.contains("is not listed in") == true)
    }

    /// A split's repeated header is a comment other tools skip, read back by gcdcat.
    @Test func theHeaderRecordRoundTrips() throws {
        let manifest = Manifest(
            entries: [Manifest.Entry(name: "t.csv.001", crc32: 0x1234_5678)],
            whole: Manifest.Whole(name: "t.csv", size: 99, crc32: 0xdead_beef),
            header: Manifest.Header(size: 15, crc32: 0x0102_0304))
        let text = manifest.render(generator: "test")
        #expect(text.contains("\n; gcdcat-header: 15 01020304\n"))
        let parsed = try Manifest.parse(text, path: "t.sfv")
        #expect(parsed.header == Manifest.Header(size: 15, crc32: 0x0102_0304))
        #expect(parsed.whole == manifest.whole)
        #expect(try Manifest.parse("t.001 12345678\n", path: "t.sfv").header == nil)
    }
}
