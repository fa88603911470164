import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// A split with a manifest under `auto` moves the bytes with kernel copies (clones on XFS)
/// and reads the input once, beside them, for the crc32s: every part is byte-compared, and
/// every manifest line must be the crc32 of the part's own bytes.
@Suite(.serialized) struct SplitCloneTests {
    func crc(_ bytes: [UInt8]) -> UInt32 {
        var checksum = Checksum(.crc32)
        checksum.update(bytes)
        return checksum.value
    }

    /// Splits `input` (in `folder`) and checks the parts and the manifest against the bytes.
    func splitAndCheck(
        _ folder: String, bytes: [UInt8], mode: SplitMode, strategy: MergeStrategyKind, jobs: Int
    ) throws -> SplitResult {
        writeFile("\(folder)/in", bytes)
        let result = try SplitOperation(
            input: "\(folder)/in", mode: mode, naming: PartNaming(prefix: "\(folder)/in."), strategy: strategy,
            jobs: jobs
        ).run()
        let parts = result.partPaths.map { readFile($0) ?? [] }
        #expect(result.partCRCs == parts.map(crc))
        let manifest = try Manifest.load(try #require(result.manifestPath))
        #expect(manifest.entries.map(\.crc32) == parts.map(crc))
        if case .lines = mode {
        } else {
            let joined = parts.flatMap { $0 }
            #expect(joined == bytes)
            #expect(result.inputCRC == crc(bytes))
        }
        return result
    }

    @Test(arguments: MergeStrategyKind.allCases, [1, 2, 4])
    func everyStrategyWritesTheSameManifest(strategy: MergeStrategyKind, jobs: Int) throws {
        let directory = TemporaryDirectory()
        let bytes = seededBytes(3_000_017, seed: UInt64(jobs))
        _ = try splitAndCheck(directory.path, bytes: bytes, mode: .size(256 << 10), strategy: strategy, jobs: jobs)
    }

    @Test func repeatedHeadersAreInEachPiecesCRC() throws {
        let directory = TemporaryDirectory()
        let lines = (0..<5000).map { "row \($0),\(String(repeating: "x", count: $0 % 37))\n" }
        let bytes = Array(("id,value\n" + lines.joined()).utf8)
        let result = try splitAndCheck(
            directory.path, bytes: bytes, mode: .lines(limit: 4000, headerLines: 1), strategy: .auto, jobs: 2)
        #expect(result.partPaths.count > 10)
        #expect(readFile(result.partPaths[3])?.starts(with: Array("id,value\n".utf8)) == true)
    }

    @Test(
        .enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"), arguments: [1, 2])
    func splitWithAManifestClonesOnXFS(jobs: Int) throws {
        let xfs = try #require(XFSImage())
        let bytes = seededBytes((4 << 20) + 123, seed: 5)
        let result = try splitAndCheck(xfs.mountPoint, bytes: bytes, mode: .size(1 << 20), strategy: .auto, jobs: jobs)
        #expect(result.partPaths.count == 5)
        #expect(result.clonedBytes == Int64(bytes.count))
        #expect(result.copiedBytes == 0)
        #expect(result.notes.isEmpty)
    }

    @Test(.enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"))
    func unalignedPiecesAreCopiedAndTheResultSaysSo() throws {
        let xfs = try #require(XFSImage())
        let bytes = seededBytes(3_000_000, seed: 6)
        let result = try splitAndCheck(xfs.mountPoint, bytes: bytes, mode: .size(1_000_000), strategy: .auto, jobs: 2)
        #expect(result.clonedBytes == 0)
        #expect(result.copiedBytes == Int64(bytes.count))
        #expect(
            result.notes == [
                "3 of 3 parts not cloned: their ranges of the input are not block-aligned; copied instead"
            ])
    }
}
