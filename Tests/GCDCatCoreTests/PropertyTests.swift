import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Random round trips: split → merge must give back the input, with the same crc32, for every
/// strategy, whatever the part count, sizes and chunk limits.
///
/// Seeded, so a failure names a case that can be replayed. `GCDCAT_PROPERTY_CASES` raises the
/// number of cases per strategy (default 12, which keeps the suite well under a minute).
@Suite struct PropertyTests {
    static let cases = Int(getenv("GCDCAT_PROPERTY_CASES").map { String(cString: $0) } ?? "") ?? 12
    static let seed = UInt64(getenv("GCDCAT_PROPERTY_SEED").map { String(cString: $0) } ?? "") ?? 0x5EED

    /// One random case: the data, how to cut it, and the chunk limits.
    struct Case: CustomStringConvertible {
        var size: Int
        var mode: SplitMode
        var highWater: Int
        var lowWater: Int?
        var jobs: Int
        var seed: UInt64

        var description: String {
            "size \(size), \(mode), highWater \(highWater), lowWater \(lowWater.map(String.init) ?? "default"), jobs \(jobs), seed \(seed)"
        }

        static func random(using generator: inout SplitMix64) -> Case {
            // Sizes cluster where bugs live: empty, one byte, around chunk boundaries, and larger.
            let highWater =
                [1, 7, 512, 4096, 65536, 1 << 20][Int.random(in: 0..<6, using: &generator)]
                * Int.random(
                    in: 1...3, using: &generator)
            let size: Int
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: size = Int.random(in: 0...2, using: &generator)
            case 1: size = highWater + Int.random(in: -1...1, using: &generator)
            case 2: size = Int.random(in: 0...5000, using: &generator)
            default: size = Int.random(in: 0...3_000_000, using: &generator)
            }
            let parts = Int.random(in: 1...300, using: &generator)
            let mode: SplitMode =
                Bool.random(using: &generator)
                ? .parts(parts)
                : .size(Int64(max(1, size / parts + Int.random(in: 0...1, using: &generator))))
            let lowWater = Bool.random(using: &generator) ? Int.random(in: 1...highWater, using: &generator) : nil
            return Case(
                size: max(0, size), mode: mode, highWater: highWater, lowWater: lowWater,
                jobs: Int.random(in: 1...4, using: &generator), seed: generator.next())
        }
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func splitThenMergeGivesBackTheInput(strategy: MergeStrategyKind) throws {
        var generator = SplitMix64(seed: Self.seed ^ UInt64(strategy.rawValue.utf8.count))
        for _ in 0..<Self.cases {
            let testCase = Case.random(using: &generator)
            try check(testCase, strategy: strategy)
        }
    }

    func check(_ testCase: Case, strategy: MergeStrategyKind) throws {
        let directory = TemporaryDirectory()
        let bytes = seededBytes(testCase.size, seed: testCase.seed)
        writeFile(directory.file("in"), bytes)
        let limits = try ChunkLimits(highWater: testCase.highWater, lowWater: testCase.lowWater)
        let split = try SplitOperation(
            input: directory.file("in"), mode: testCase.mode, naming: PartNaming(prefix: directory.file("in.")),
            strategy: strategy, limits: limits, jobs: testCase.jobs
        ).run()
        var expected = Checksum(.crc32)
        expected.update(bytes)
        if testCase.size > 0 {
            #expect(split.inputCRC == expected.value, "\(testCase)")
        }
        guard !split.partPaths.isEmpty else {
            #expect(testCase.size == 0, "no parts for \(testCase)")
            return
        }
        // Merge verifies against the manifest split wrote, and checks the output's crc32.
        let merge = MergeOperation(
            partPaths: split.partPaths, output: .path(directory.file("out")), strategy: strategy, limits: limits,
            jobs: testCase.jobs)
        let parts = try merge.validatedParts()
        let verification = try MergeVerification.check(
            parts, manifestPath: directory.file("in.sfv"), candidate: nil, policy: .automatic, jobs: testCase.jobs)
        let result = try merge.run(
            MergeRequest(parts: parts, limits: limits, jobs: testCase.jobs, computeCRC: true),
            counter: TransferCounter(),
            expectedCRC: verification.expectedCRC)
        #expect(result.crc32 == expected.value, "\(testCase)")
        #expect(readFile(directory.file("out")) == bytes, "\(testCase)")
    }
}

/// Hostile text for the parsers: no input may crash or hang them, only yield clear errors.
@Suite struct ParserFuzzTests {
    static let iterations = Int(getenv("GCDCAT_FUZZ_ITERATIONS").map { String(cString: $0) } ?? "") ?? 3000

    static let pieces = [
        "a.001", " ", "\t", "\r\n", "\n", "\r", ";", "CBF43926", "cbf43926", "ffffffff", "0", "..", "/", "\\",
        "\0", "ü", "💥", "9999999999999999999999", "K", "M", "G", "T", "KB", "MiB", "iB", "-", "+", ".", "e9",
        "; gcdcat-whole:", "18446744073709551616", "x",
    ]

    static func text(using generator: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            if Int.random(in: 0..<6, using: &generator) == 0 {
                let scalar = UnicodeScalar(UInt8.random(in: 0...255, using: &generator))
                text.unicodeScalars.append(scalar)
            } else {
                text += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            }
        }
        return text
    }

    @Test func manifestParserOnlyEverThrowsGCDCatErrors() {
        var generator = SplitMix64(seed: 0xF022)
        for _ in 0..<Self.iterations {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Self.text(using: &generator) }
                .joined(separator: "\n")
            do {
                let manifest = try Manifest.parse(text, path: "fuzz.sfv")
                for entry in manifest.entries {
                    #expect(!entry.name.isEmpty)
                    if entry.name.hasPrefix("/") { #expect(entry.rejection != nil) }
                }
            } catch let error as GCDCatError {
                #expect(error.code == .malformedManifest)
                #expect(error.description.hasPrefix("fuzz.sfv: "))
            } catch {
                Issue.record("unexpected error \(error) for \(text.debugDescription)")
            }
        }
    }

    /// Pieces of GNU and BSD lines, mixed with the SFV pieces.
    static let listPieces =
        pieces + [
            "900150983cd24fb0d6963f7d28e17f72", "a9993e364706816aba3e25717850c26c9cd0d89d", "  ", " *", "SHA256", "MD5",
            "SHA-256", "(", ")", ") = ", " = ", "-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256",
            "-----BEGIN PGP SIGNATURE-----", "#", "\\n", "\\r",
        ]

    @Test func checksumListParserOnlyEverThrowsGCDCatErrors() {
        var generator = SplitMix64(seed: 0x5A256)
        for _ in 0..<Self.iterations {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                var line = ""
                for _ in 0..<Int.random(in: 0...10, using: &generator) {
                    line += Self.listPieces[Int.random(in: 0..<Self.listPieces.count, using: &generator)]
                }
                return line
            }.joined(separator: "\n")
            do {
                let list = try ChecksumList.parse(bytes: PathName.bytes(of: text), path: "fuzz.sums")
                for entry in list.entries {
                    #expect(!entry.name.isEmpty)
                    #expect(entry.expected.count == entry.algorithm.hexLength)
                    if entry.name.hasPrefix("/") { #expect(entry.rejection != nil) }
                }
            } catch let error as GCDCatError {
                #expect(error.code == .malformedManifest)
                #expect(error.description.hasPrefix("fuzz.sums: "))
            } catch {
                Issue.record("unexpected error \(error) for \(text.debugDescription)")
            }
        }
    }

    @Test func aVeryLongLineIsHandled() throws {
        let long = String(repeating: "n", count: 2_000_000) + " CBF43926\r\n"
        let manifest = try Manifest.parse(long, path: "long.sfv")
        #expect(manifest.entries.first?.name.count == 2_000_000)
        #expect(throws: GCDCatError.self) { try Manifest.parse(String(repeating: "x", count: 1_000_000), path: "m") }
    }

    @Test func sizeParserOnlyEverThrowsParseErrors() {
        var generator = SplitMix64(seed: 0x512E)
        for _ in 0..<Self.iterations {
            let text = Self.text(using: &generator)
            do {
                let size = try ByteSize(parsing: text)
                #expect(size.bytes >= 0, "\(text.debugDescription)")
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        #expect(throws: ByteSize.ParseError.tooLarge("16777216T")) { try ByteSize(parsing: "16777216T") }
        #expect(throws: ByteSize.ParseError.tooLarge("9223372036854775808")) {
            try ByteSize(parsing: "9223372036854775808")
        }
    }
}
