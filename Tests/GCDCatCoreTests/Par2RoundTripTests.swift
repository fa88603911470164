import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// Create, verify and repair with gcdcat's own engine, byte-compared.
@Suite struct Par2RoundTripTests {
    static let sizes = [70_000, 65_536, 1, 0, 12_345]

    /// Files of `sizes` bytes and their set, 4 KiB blocks, `recovery` recovery blocks.
    static func makeSet(_ scratch: TemporaryDirectory, recovery: Int, layout: Par2VolumeLayout = .variable(files: nil))
        throws -> (names: [String], contents: [[UInt8]])
    {
        let names = sizes.indices.map { "part.\($0 + 1)" }
        let contents = sizes.enumerated().map { seededBytes($1, seed: UInt64($0) + 40) }
        for (name, bytes) in zip(names, contents) { writeFile(scratch.file(name), bytes) }
        _ = try Par2Creator.create(
            .init(
                inputs: names.map { (scratch.file($0), $0) }, indexPath: scratch.file("set.par2"), sliceSize: 4096,
                recoverySlices: recovery, layout: layout, overwrite: false, fsync: false, jobs: 2))
        return (names, contents)
    }

    @Test func createdSetVerifiesComplete() throws {
        let scratch = TemporaryDirectory()
        _ = try Self.makeSet(scratch, recovery: 10)
        #expect(
            scratch.listing().filter { $0.hasSuffix(".par2") } == [
                "set.par2", "set.vol00+1.par2", "set.vol01+2.par2", "set.vol03+4.par2", "set.vol07+3.par2",
            ])
        let set = try Par2RecoverySet.load(indexPath: scratch.file("set.par2"))
        #expect(set.sliceCount == 18 + 16 + 1 + 0 + 4)  // ceil(size / 4096) for each file
        #expect(set.recoverySlices.count == 10)
        #expect(set.creator == Par2Creator.creator)
        #expect(try Par2Verifier.verify(set, jobs: 2).isComplete)
    }

    @Test(arguments: [1, 2])
    func repairRebuildsMissingAndDamagedFiles(jobs: Int) throws {
        let scratch = TemporaryDirectory()
        let (names, contents) = try Self.makeSet(scratch, recovery: 20)
        unlink(scratch.file(names[1]))  // 16 blocks
        var damaged = contents[0]
        damaged[5000] ^= 1  // block 2
        damaged[69_999] ^= 0x80  // the last, short block
        writeFile(scratch.file(names[0]), damaged)
        let stat0 = try Syscall.statIfExists(scratch.file(names[4]))!
        let set = try Par2RecoverySet.load(indexPath: scratch.file("set.par2"))
        let verification = try Par2Verifier.verify(set, jobs: jobs)
        let byName = Dictionary(uniqueKeysWithValues: zip(set.files.map(\.name), verification.files))
        #expect(byName[names[0]]?.state == .damaged)
        #expect(byName[names[0]]?.badSlices == [1, 17])
        #expect(byName[names[1]]?.state == .missing)
        #expect(verification.badSliceCount == 18)
        let restored = try Par2FileRestorer.repair(verification, jobs: jobs, fsync: false)
        #expect(Set(restored.map(\.path)) == [scratch.file(names[0]), scratch.file(names[1])])
        for (name, bytes) in zip(names, contents) { #expect(readFile(scratch.file(name)) == bytes, "\(name)") }
        // A good file is never rewritten.
        let stat4 = try Syscall.statIfExists(scratch.file(names[4]))!
        #expect(stat0.st_ino == stat4.st_ino && stat0.st_mtim.tv_nsec == stat4.st_mtim.tv_nsec)
    }

    /// More blocks than the accumulator batches at once, in two files that end mid-batch: the
    /// create and the repair both go through several batches.
    @Test func setsOfSeveralBatchesRepairByteExact() throws {
        let scratch = TemporaryDirectory()
        let sizes = [300 * 4096 + 17, 230 * 4096]
        let contents = sizes.enumerated().map { seededBytes($1, seed: UInt64($0) + 90) }
        for (index, bytes) in contents.enumerated() { writeFile(scratch.file("big.\(index)"), bytes) }
        _ = try Par2Creator.create(
            .init(
                inputs: [(scratch.file("big.0"), "big.0"), (scratch.file("big.1"), "big.1")],
                indexPath: scratch.file("big.par2"), sliceSize: 4096, recoverySlices: 40,
                layout: .variable(files: nil), overwrite: false, fsync: false, jobs: 2))
        var damaged = contents[0]
        for block in stride(from: 0, to: 301, by: 10) { damaged[block * 4096] ^= 0x5A }  // 31 blocks
        writeFile(scratch.file("big.0"), damaged)
        let set = try Par2RecoverySet.load(indexPath: scratch.file("big.par2"))
        let verification = try Par2Verifier.verify(set, jobs: 2)
        #expect(verification.badSliceCount == 31)
        _ = try Par2FileRestorer.repair(verification, jobs: 2, fsync: false)
        #expect(readFile(scratch.file("big.0")) == contents[0])
        #expect(try Par2Verifier.verify(set, jobs: 2).isComplete)
    }

    @Test func tooFewRecoveryBlocksRefusesBeforeWriting() throws {
        let scratch = TemporaryDirectory()
        let (names, _) = try Self.makeSet(scratch, recovery: 5)
        unlink(scratch.file(names[0]))  // 18 blocks
        let before = scratch.listing()
        let verification = try Par2Verifier.verify(
            try Par2RecoverySet.load(indexPath: scratch.file("set.par2")), jobs: 2)
        #expect(!verification.isRepairable)
        do {
            _ = try Par2FileRestorer.repair(verification, jobs: 2, fsync: false)
            Issue.record("repaired with too few blocks")
        } catch let error as GCDCatError {
            #expect(error.code == .missingPart)
            #expect(error.message == "not repairable: 18 blocks missing, 5 recovery blocks available")
        }
        #expect(scratch.listing() == before)
    }

    @Test func volumeLayoutsFollowPar2cmdline() {
        #expect(Par2VolumeLayout.variable(files: nil).counts(recoverySlices: 10) == [1, 2, 4, 3])
        #expect(Par2VolumeLayout.variable(files: nil).counts(recoverySlices: 100) == [1, 2, 4, 8, 16, 32, 37])
        #expect(Par2VolumeLayout.variable(files: 3).counts(recoverySlices: 40) == [8, 16, 16])
        #expect(Par2VolumeLayout.uniform(files: 3).counts(recoverySlices: 10) == [4, 3, 3])
        #expect(Par2VolumeLayout.uniform(files: 3).counts(recoverySlices: 40) == [14, 13, 13])
        #expect(
            Par2VolumeLayout.variable(files: nil).names(base: "s", recoverySlices: 9).map(\.name) == [
                "s.vol0+1.par2", "s.vol1+2.par2", "s.vol3+4.par2", "s.vol7+2.par2",
            ])
        #expect(
            Par2VolumeLayout.variable(files: 3).names(base: "s", recoverySlices: 40).map(\.name) == [
                "s.vol00+08.par2", "s.vol08+16.par2", "s.vol24+16.par2",
            ])
    }
}
