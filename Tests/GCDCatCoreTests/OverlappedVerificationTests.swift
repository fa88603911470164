import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// A verified `auto` merge checks the parts while it copies them: the output is byte-identical,
/// a corrupt part still fails with nothing left, and a part changed after validation is caught.
@Suite(.serialized) struct OverlappedVerificationTests {
    /// Parts named `data.001`… in `folder` with `data.sfv` beside them.
    static func verifiedSet(in folder: String, sizes: [Int]) throws -> (paths: [String], whole: [UInt8]) {
        let whole = seededBytes(sizes.reduce(0, +), seed: 11)
        var paths: [String] = []
        var entries: [Manifest.Entry] = []
        var offset = 0
        for (index, size) in sizes.enumerated() {
            let name = "data.\(zeroPadded(index + 1, width: 3))"
            let bytes = Array(whole[offset..<offset + size])
            writeFile("\(folder)/\(name)", bytes)
            var checksum = Checksum(.crc32)
            checksum.update(bytes)
            entries.append(.init(name: name, crc32: checksum.value))
            paths.append("\(folder)/\(name)")
            offset += size
        }
        writeFile("\(folder)/data.sfv", Manifest(entries: entries).encoded(generator: "t"))
        return (paths, whole)
    }

    static func mergeSet(_ first: String, jobs: Int = 2) throws -> (MergeOperation.Outcome, [MergeOperation.Notice]) {
        var notices: [MergeOperation.Notice] = []
        let operation = MergeOperation(arguments: [first], output: nil, jobs: jobs)
        let outcome = try operation.merge(notice: { notices.append($0) }) { _, _, body in
            try body(TransferCounter())
        }
        return (outcome, notices)
    }

    static let sizes = [65536, 1 << 20, 5000, 0, 4096, 300_001]

    @Test(arguments: [1, 2, 4])
    func verifiedAutoMergeIsByteIdentical(jobs: Int) throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = try Self.verifiedSet(in: directory.path, sizes: Self.sizes)
        let (outcome, notices) = try Self.mergeSet(paths[0], jobs: jobs)
        #expect(readFile(directory.file("data")) == whole)
        var expected = Checksum(.crc32)
        expected.update(whole)
        #expect(outcome.result.crc32 == expected.value)
        #expect(outcome.verification.expectedCRC == expected.value)
        #expect(notices == [.verified(parts: Self.sizes.count, manifest: directory.file("data.sfv"))])
        #expect(outcome.result.copiedBytes == Int64(whole.count))
    }

    @Test(.enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"))
    func verifiedAutoMergeClonesOnXFS() throws {
        let xfs = try #require(XFSImage())
        let (paths, whole) = try Self.verifiedSet(in: xfs.mountPoint, sizes: [65536, 1 << 20, 4096, 12345])
        let (outcome, notices) = try Self.mergeSet(paths[0])
        #expect(readFile("\(xfs.mountPoint)/data") == whole)
        #expect(outcome.result.method == "clone")
        #expect(outcome.result.clonedBytes == Int64(whole.count))
        #expect(notices.count == 1)
    }

    /// Through the seam, on XFS: clone refused, then copy_file_range refused; the verified merge
    /// still checks every part beside the read/write copy and the bytes are the same.
    @Test(.enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"))
    func verifiedMergeFallsBackCloneToCopyFileRangeToReadWrite() throws {
        let xfs = try #require(XFSImage())
        let (paths, whole) = try Self.verifiedSet(in: xfs.mountPoint, sizes: [65536, 1 << 20, 4096, 12345])
        let ((outcome, _), fired) = try FaultInjection.withFaults(
            [
                .init(.cloneRange, pathContains: xfs.mountPoint, times: .max, .fail(EOPNOTSUPP)),
                .init(.copyFileRange, pathContains: xfs.mountPoint, times: .max, .fail(EXDEV)),
            ]
        ) { try Self.mergeSet(paths[0]) }
        #expect(fired >= 2)
        #expect(readFile("\(xfs.mountPoint)/data") == whole)
        #expect(outcome.result.method == "read/write")
        #expect(outcome.result.clonedBytes == 0)
        var expected = Checksum(.crc32)
        expected.update(whole)
        #expect(outcome.result.crc32 == expected.value)
    }

    /// Parts written just now are stat'ed again once the coarse clock has passed their ctime,
    /// so a later write in the same tick cannot keep the same ctime unseen.
    @Test func freshlyWrittenPartsAreSettledPastTheCoarseClock() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = try Self.verifiedSet(in: directory.path, sizes: [10, 20])
        let settled = try #require(try MergeOperation.settledParts(paths.map { try PartFile.validate($0) }))
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        let coarse = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        #expect(settled.allSatisfy { $0.changedNanoseconds < coarse })
        #expect(settled.map(\.path) == paths)
    }

    @Test(arguments: [0, 2, 5])
    func aCorruptPartExitsTwoWithNothingLeft(corrupt: Int) throws {
        let directory = TemporaryDirectory()
        let (paths, _) = try Self.verifiedSet(in: directory.path, sizes: Self.sizes)
        var bytes = readFile(paths[corrupt]) ?? []
        bytes[bytes.count / 2] ^= 0x40
        writeFile(paths[corrupt], bytes)
        let before = directory.listing()
        let error = expectGCDCatError { _ = try Self.mergeSet(paths[0]) }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.exitStatus == 2)
        #expect(error?.path == paths[corrupt])
        #expect(directory.listing() == before)
    }

    /// Same bytes written again after validation: the crc32s still match the manifest, but
    /// the part was written while gcdcat used it, and its ctime says so.
    @Test(arguments: [false, true])
    func aPartRewrittenAfterValidationIsCaught(sameBytes: Bool) throws {
        let directory = TemporaryDirectory()
        let (paths, _) = try Self.verifiedSet(in: directory.path, sizes: Self.sizes)
        let operation = MergeOperation(
            partPaths: paths, output: .path(directory.file("data")), strategy: .auto)
        let validated = try #require(try MergeOperation.settledParts(try operation.validatedParts()))
        let manifest = try PartFile.validate(directory.file("data.sfv"))
        let check = try #require(try MergeVerification.prepareCRCCheck(validated, manifest: manifest))
        var bytes = readFile(paths[1]) ?? []
        if !sameBytes { bytes[7] ^= 1 }
        writeFile(paths[1], bytes)
        let before = directory.listing()
        let error = expectGCDCatError {
            _ = try operation.runOverlapped(
                MergeRequest(parts: validated), check: check, counter: TransferCounter(), otherInputs: [manifest])
        }
        #expect(error?.code == (sameBytes ? .inputChanged : .checksumMismatch))
        #expect(error?.path == paths[1])
        #expect(directory.listing() == before)
    }

    /// The explicit strategies keep checksumming the output as it passes.
    @Test(arguments: [MergeStrategyKind.stream, .offsets, .dispatchdata])
    func explicitStrategiesStillChecksumTheOutput(strategy: MergeStrategyKind) throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = try Self.verifiedSet(in: directory.path, sizes: Self.sizes)
        var notices: [MergeOperation.Notice] = []
        let operation = MergeOperation(arguments: [paths[0]], output: nil, strategy: strategy)
        let outcome = try operation.merge(notice: { notices.append($0) }) { _, _, body in
            try body(TransferCounter())
        }
        #expect(readFile(directory.file("data")) == whole)
        var expected = Checksum(.crc32)
        expected.update(whole)
        #expect(outcome.result.crc32 == expected.value)
        #expect(outcome.result.clonedBytes == nil)
    }
}
