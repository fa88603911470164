import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct PartNamingTests {
    @Test func numericIsSevenZipStyleAndWidens() throws {
        let naming = PartNaming(prefix: "movie.zip.")
        #expect(try naming.name(at: 0) == "movie.zip.001")
        #expect(try naming.name(at: 998) == "movie.zip.999")
        #expect(try naming.name(at: 999) == "movie.zip.1000")
        #expect(naming.defaultManifestPath == "movie.zip.sfv")
        #expect(try PartNaming(prefix: "p", start: 0).name(at: 0) == "p000")
    }

    @Test func aFixedWidthRunsOutBeforeAnythingIsWritten() throws {
        let naming = PartNaming(prefix: "x.", width: 1)
        #expect(try naming.name(at: 8) == "x.9")
        let error = expectGCDCatError { try naming.requireCapacity(10) }
        #expect(
            error?.description == "x.: suffixes exhausted: 10 parts need more than 1 digits (raise --suffix-length)")
        let alpha = PartNaming(prefix: "x", style: .alpha, width: 1)
        #expect(try alpha.name(at: 25) == "xz")
        #expect(throws: GCDCatError.self) { try alpha.requireCapacity(27) }
    }

    @Test func alphaFollowsGNUSplitIncludingItsWidening() throws {
        let naming = PartNaming(prefix: "x", style: .alpha)
        let names = try [0, 1, 25, 26, 649, 650, 651, 650 + 16899, 650 + 16900].map { try naming.name(at: $0) }
        #expect(names == ["xaa", "xab", "xaz", "xba", "xyz", "xzaaa", "xzaab", "xzyzz", "xzzaaaa"])
        // Widening keeps names sorted, so a shell glob still joins them in order.
        let many = try (0..<20_000).map { try naming.name(at: $0) }
        #expect(many == many.sorted())
        #expect(try PartNaming(prefix: "x", style: .alpha, width: 3, start: 27).name(at: 0) == "xabb")
    }

    @Test func gnuNumericWidensAsSplitDDoes() throws {
        let naming = PartNaming(prefix: "x", style: .gnuNumeric)
        let names = try [0, 1, 89, 90, 989, 990].map { try naming.name(at: $0) }
        #expect(names == ["x00", "x01", "x89", "x9000", "x9899", "x990000"])
        let many = try (0..<2_000).map { try naming.name(at: $0) }
        #expect(many == many.sorted())
        #expect(many.allSatisfy { naming.isPartName($0) })
        #expect(!naming.isPartName("x90") && !naming.isPartName("x001") && !naming.isPartName("xaa"))
        #expect(try PartNaming(prefix: "g", style: .gnuNumeric, width: 3, start: 3).name(at: 0) == "g003")
        #expect(throws: GCDCatError.self) {
            try PartNaming(prefix: "x", style: .gnuNumeric, width: 2).requireCapacity(101)
        }
    }

    /// GNU split: a start given for digits or hex is the first suffix itself, over a fixed width.
    @Test func aDigitStartIsTheFirstSuffixNotAPlaceInTheWidening() throws {
        let numbered = PartNaming(prefix: "out_", style: .gnuNumeric, start: 95)
        #expect(try [0, 1, 4].map { try numbered.name(at: $0) } == ["out_95", "out_96", "out_99"])
        #expect(throws: GCDCatError.self) { try numbered.requireCapacity(6) }
        #expect(try PartNaming(prefix: "h", style: .hex, start: 0xfe).name(at: 1) == "hff")
        let hex = PartNaming(prefix: "h", style: .hex)
        #expect(try [0, 15, 16, 239, 240].map { try hex.name(at: $0) } == ["h00", "h0f", "h10", "hef", "hf000"])
        #expect(PartNaming(prefix: "", style: .hex).alphabetWidth(count: 300, start: 0) == 3)
        #expect(PartNaming(prefix: "", style: .gnuNumeric).alphabetWidth(count: 100, start: 0) == 2)
        #expect(PartNaming(prefix: "", style: .gnuNumeric).alphabetWidth(count: 10, start: 95) == 2)
        #expect(PartNaming(prefix: "", style: .gnuNumeric).alphabetWidth(count: 10, start: 5) == 2)
        #expect(PartNaming(prefix: "", style: .gnuNumeric).alphabetWidth(count: 96, start: 5) == 3)
        // What -a may not go below: GNU accepts `-n 3 -a 1 -d` (x0 x1 x2), refuses `-n 11 -a 1 -d`.
        #expect(PartNaming(prefix: "", style: .gnuNumeric).minimumAlphabetWidth(count: 3, start: 0) == 1)
        #expect(PartNaming(prefix: "", style: .gnuNumeric).minimumAlphabetWidth(count: 10, start: 0) == 1)
        #expect(PartNaming(prefix: "", style: .gnuNumeric).minimumAlphabetWidth(count: 11, start: 0) == 2)
        #expect(PartNaming(prefix: "", style: .alpha).minimumAlphabetWidth(count: 26, start: 0) == 1)
        #expect(PartNaming(prefix: "", style: .gnuNumeric).alphabetWidth(count: 3, start: 0) == 2)
    }

    /// GNU `-n l/N`: part c ends after the first newline at or past its boundary's last byte;
    /// a line across whole boundaries leaves empty parts.
    @Test func lineChunkPlannerEndsPartsAsGNUDoes() throws {
        let directory = TemporaryDirectory()
        let text = Data(("aaaaaaaaaaaaaaaaaaaa\nb\nc\n").utf8)
        try text.write(to: URL(fileURLWithPath: directory.file("t")))
        let fd = open(directory.file("t"), O_RDONLY)
        defer { close(fd) }
        #expect(
            try LineChunkPlanner.plan(fd: fd, path: "t", size: 25, count: 4) == [0..<21, 21..<21, 21..<21, 21..<25])
        #expect(try LineChunkPlanner.plan(fd: fd, path: "t", size: 25, count: 1) == [0..<25])
        #expect(try LineChunkPlanner.plan(fd: fd, path: "t", size: 0, count: 3) == [0..<0, 0..<0, 0..<0])
    }

    @Test func lineCountPlannerCutsAfterEveryNthNewline() throws {
        let directory = TemporaryDirectory()
        let text = Data("a\nbb\n\nccc\nd".utf8)
        try text.write(to: URL(fileURLWithPath: directory.file("t")))
        let fd = open(directory.file("t"), O_RDONLY)
        defer { close(fd) }
        let ranges = try LineCountPlanner.plan(fd: fd, path: "t", size: Int64(text.count), lines: 2)
        #expect(ranges == [0..<5, 5..<10, 10..<11])
        #expect(try LineCountPlanner.plan(fd: fd, path: "t", size: Int64(text.count), lines: 4) == [0..<10, 10..<11])
        #expect(try LineCountPlanner.plan(fd: fd, path: "t", size: 0, lines: 1) == [])
    }

    @Test func manifestNamesAreRelativeToTheManifestsFolder() throws {
        #expect(try SplitOperation.manifestNames(["out/a.001"], manifestPath: "out/a.sfv") == ["a.001"])
        #expect(try SplitOperation.manifestNames(["out/a.001"], manifestPath: "a.sfv") == ["out/a.001"])
        #expect(try SplitOperation.manifestNames(["/t/o/a.001"], manifestPath: "/t/a.sfv") == ["o/a.001"])
        #expect(throws: GCDCatError.self) { try SplitOperation.manifestNames(["a.001"], manifestPath: "out/a.sfv") }
    }
}

@Suite struct SplitPlanTests {
    @Test func bySize() {
        #expect(SplitPlan.bySize(total: 0, size: 10) == [])
        #expect(SplitPlan.bySize(total: 10, size: 10) == [0..<10])
        #expect(SplitPlan.bySize(total: 25, size: 10) == [0..<10, 10..<20, 20..<25])
    }

    @Test func byCountLaysOutPartsAsGNUSplit() {
        #expect(SplitPlan.byCount(total: 3, count: 5) == [0..<1, 1..<2, 2..<3, 3..<3, 3..<3])
        #expect(SplitPlan.byCount(total: 10, count: 3) == [0..<3, 3..<6, 6..<10])
        #expect(SplitPlan.byCount(total: 0, count: 2) == [0..<0, 0..<0])
        let ranges = SplitPlan.byCount(total: 1_000_003, count: 7)
        let sizes = ranges.map { $0.count }
        #expect(sizes == Array(repeating: 142_857, count: 6) + [142_861])
        #expect(sizes.reduce(0, +) == 1_000_003)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    }

    @Test func lineBoundariesCutAfterNewlinesAndSplitLongLines() throws {
        let directory = TemporaryDirectory()
        let text = "h1\nh2\naaaa\nbb\n" + String(repeating: "x", count: 25) + "\nend"
        writeFile(directory.file("t"), Array(text.utf8))
        let fd = open(directory.file("t"), O_RDONLY)
        defer { close(fd) }
        let plan = try LineBoundaryPlanner.plan(
            fd: fd, path: "t", size: Int64(text.utf8.count), limit: 12, headerLines: 2)
        #expect(plan.header == 0..<6)
        // First part: header + "aaaa\n" (11 bytes; "bb\n" would make 14). Then 6 bytes of room each.
        let texts = plan.pieces.map { piece in
            (piece.repeatsHeader ? "h1\nh2\n" : "")
                + String(
                    decoding: Array(text.utf8)[Int(piece.range.lowerBound)..<Int(piece.range.upperBound)], as: UTF8.self
                )
        }
        #expect(texts.allSatisfy { $0.utf8.count <= 12 })
        #expect(texts[0] == "h1\nh2\naaaa\n")
        #expect(texts[1] == "h1\nh2\nbb\n")
        #expect(texts.dropFirst().allSatisfy { $0.hasPrefix("h1\nh2\n") })
        #expect(texts.last == "h1\nh2\nx\nend")
        let error = expectGCDCatError {
            _ = try LineBoundaryPlanner.plan(fd: fd, path: "t", size: Int64(text.utf8.count), limit: 6, headerLines: 2)
        }
        #expect(error?.code == .invalidInput)
    }
}

@Suite struct SplitOperationTests {
    static let modes: [SplitMode] = [
        .size(4096), .size(100_000), .parts(7), .parts(1), .lines(limit: 5000, headerLines: 0),
    ]

    @Test(arguments: MergeStrategyKind.allCases, modes)
    func partsRejoinToTheInputAndTheManifestVerifies(strategy: MergeStrategyKind, mode: SplitMode) throws {
        let directory = TemporaryDirectory()
        var bytes = seededBytes(300_001, seed: 4)
        for index in stride(from: 50, to: bytes.count, by: 97) { bytes[index] = 0x0A }
        writeFile(directory.file("in"), bytes)
        let operation = SplitOperation(
            input: directory.file("in"), mode: mode, naming: PartNaming(prefix: directory.file("in.")),
            strategy: strategy, limits: try ChunkLimits(highWater: 8192), jobs: 3)
        let result = try operation.run()
        let joined = result.partPaths.flatMap { readFile($0)! }
        #expect(joined == bytes)
        if case .parts(let count) = mode { #expect(result.partPaths.count == count) }
        var whole = Checksum(.crc32)
        whole.update(bytes)
        #expect(result.inputCRC == whole.value)
        let manifest = try Manifest.load(directory.file("in.sfv"))
        let outcomes = ChecksumListVerifier.verify(
            ChecksumList(manifest), listPath: directory.file("in.sfv"), jobs: 2)
        #expect(ChecksumListVerifier.exitStatus(outcomes) == 0)
        #expect(manifest.whole?.size == Int64(bytes.count))
        // And merge, verifying against that manifest, rebuilds the input.
        let merged = MergeOperation(
            partPaths: result.partPaths, output: .path(directory.file("out")), strategy: strategy)
        _ = try merged.run()
        #expect(readFile(directory.file("out")) == bytes)
        #expect(!directory.listing().contains { $0.contains(".gcdcat-") })
    }

    @Test func headerLinesRepeatAndPartsStayUnderTheLimit() throws {
        let directory = TemporaryDirectory()
        let rows = (1...3000).map { "\($0),\($0 * 7)\n" }.joined()
        writeFile(directory.file("t.csv"), Array(("id,value\n" + rows).utf8))
        let result = try SplitOperation(
            input: directory.file("t.csv"), mode: .lines(limit: 2000, headerLines: 1),
            naming: PartNaming(prefix: directory.file("t.csv."))
        ).run()
        #expect(result.partPaths.count > 5)
        var body = ""
        for path in result.partPaths {
            let text = String(decoding: readFile(path)!, as: UTF8.self)
            #expect(text.hasPrefix("id,value\n"))
            #expect(text.utf8.count <= 2000)
            #expect(text.hasSuffix("\n"))
            body += text.dropFirst("id,value\n".count)
        }
        #expect(body == rows)
        // The manifest records the original (the header once), which merge restores.
        var original = Checksum(.crc32)
        original.update(Array(("id,value\n" + rows).utf8))
        #expect(result.inputCRC == original.value)
        let manifest = try Manifest.load(try #require(result.manifestPath))
        #expect(manifest.header == Manifest.Header(size: 9, crc32: manifest.header?.crc32 ?? 0))
        #expect(manifest.whole?.size == original.length)
    }

    @Test func anEmptyInputGivesNoPartsAndAManifestOfTheEmptyWhole() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("e"), [])
        let result = try SplitOperation(
            input: directory.file("e"), mode: .size(10), naming: PartNaming(prefix: directory.file("e."))
        ).run()
        #expect(result.partPaths.isEmpty)
        #expect(directory.listing() == ["e", "e.sfv"])
        let manifest = try Manifest.load(directory.file("e.sfv"))
        #expect(manifest.entries.isEmpty)
        #expect(manifest.whole == Manifest.Whole(name: "e", size: 0, crc32: 0))
    }

    @Test func refusesToOverwriteTheInputOrExistingParts() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("x.001"), seededBytes(100, seed: 1))
        let onInput = SplitOperation(
            input: directory.file("x.001"), mode: .size(10), naming: PartNaming(prefix: directory.file("x.")),
            overwrite: true)
        let error = expectGCDCatError { _ = try onInput.run() }
        #expect(error?.code == .invalidInput)
        #expect(error?.path == directory.file("x.001"))
        writeFile(directory.file("y"), seededBytes(100, seed: 1))
        writeFile(directory.file("y.005"), [1])
        let existing = SplitOperation(
            input: directory.file("y"), mode: .size(10), naming: PartNaming(prefix: directory.file("y.")))
        let exists = expectGCDCatError { _ = try existing.run() }
        #expect(exists?.description == "\(directory.file("y.005")): already exists (use --force to replace it)")
        #expect(directory.listing() == ["x.001", "y", "y.005"])
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func aFullDiskRemovesEveryPart(strategy: MergeStrategyKind) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("in"), seededBytes(200_000, seed: 2))
        // Part 3 of 4 is a symlink to /dev/full, which is written into, never replaced.
        symlink("/dev/full", directory.file("p.003"))
        let operation = SplitOperation(
            input: directory.file("in"), mode: .parts(4), naming: PartNaming(prefix: directory.file("p.")),
            strategy: strategy)
        let error = expectGCDCatError { _ = try operation.run() }
        #expect(error?.errno == ENOSPC)
        #expect(directory.listing() == ["in", "p.003"])
        var info = stat()
        stat("/dev/full", &info)
        #expect(info.st_mode & S_IFMT == S_IFCHR)
    }
}
