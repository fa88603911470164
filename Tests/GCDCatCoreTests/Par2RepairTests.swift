import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// The verify and repair engines on sets shaped to reach their batching: files hashed in lane
/// groups, slices longer than a read, runs of good slices read at once, many small blocks.
@Suite struct Par2RepairTests {
    /// Files of `sizes` bytes protected with `sliceSize` blocks and `recovery` recovery blocks.
    static func makeSet(
        _ scratch: TemporaryDirectory, sizes: [Int], sliceSize: Int, recovery: Int, seed: UInt64
    ) throws -> (names: [String], contents: [[UInt8]]) {
        let names = sizes.indices.map { "f.\($0 + 1)" }
        let contents = sizes.enumerated().map { seededBytes($1, seed: seed + UInt64($0)) }
        for (name, bytes) in zip(names, contents) { writeFile(scratch.file(name), bytes) }
        _ = try Par2Creator.create(
            .init(
                inputs: names.map { (scratch.file($0), $0) }, indexPath: scratch.file("f.par2"), sliceSize: sliceSize,
                recoverySlices: recovery, layout: .variable(files: nil), overwrite: false, fsync: false, jobs: 2))
        return (names, contents)
    }

    /// Row i of the product is Σ_j A⁻¹[m][j] · c_i^e_j for each m, element by element.
    @Test func coefficientRowsAreTheInverseTimesThePowers() {
        var generator = SplitMix64(seed: 31)
        let constants = Par2SliceConstants.constants(count: 300)
        for (count, slices) in [(1, 0..<1), (5, 3..<40), (17, 100..<300), (64, 7..<8)] {
            let inverse = (0..<count).map { _ in (0..<count).map { _ in UInt16(truncatingIfNeeded: generator.next()) } }
            let exponents = (0..<count).map { _ in Int(generator.next() % 65535) }
            let byColumn = (0..<count).flatMap { j in (0..<count).map { m in inverse[m][j] } }
            let coefficients = Par2RepairCoefficients(
                inverseByColumn: byColumn, exponents: exponents, constants: constants)
            let rows = coefficients.rows(forSlices: slices)
            #expect(coefficients.recoveryRow(count - 1) == inverse.map { $0[count - 1] })
            var expected: [UInt16] = []
            for slice in slices {
                for m in 0..<count {
                    expected.append(
                        (0..<count).reduce(UInt16(0)) { sum, j in
                            sum
                                ^ GaloisField16.multiply(
                                    inverse[m][j], GaloisField16.power(constants[slice], exponents[j]))
                        })
                }
            }
            #expect(rows == expected, "k = \(count), slices \(slices)")
        }
    }

    /// Recovery slices of consecutive exponents have a closed-form inverse (Lagrange's basis
    /// polynomials): the same coefficients as Gauss-Jordan's, for recovery and good slices, from
    /// exponent 0 and from far along.
    @Test func consecutiveExponentsGiveEliminationsCoefficients() throws {
        var generator = SplitMix64(seed: 77)
        let constants = Par2SliceConstants.constants(count: 300)
        for (count, first) in [(1, 0), (2, 5), (9, 0), (40, 3), (64, 65_534 - 63)] {
            var lost: [Int] = []
            while lost.count < count {
                let slice = 150 + Int(generator.next() % 150)
                if !lost.contains(slice) { lost.append(slice) }
            }
            let exponents = Array(first..<(first + count))
            let closed = Par2RepairCoefficients.consecutive(lost: lost, firstExponent: first, constants: constants)
            let eliminated = try Par2Repairer.solve(
                lost: lost, recovery: exponents, constants: constants, jobs: 2, path: "set")
            for j in 0..<count {
                #expect(closed.recoveryRow(j) == eliminated.recoveryRow(j), "k = \(count), e₀ = \(first), row \(j)")
            }
            #expect(
                closed.rows(forSlices: 0..<150) == eliminated.rows(forSlices: 0..<150), "k = \(count), e₀ = \(first)")
        }
    }

    /// The first run of `count` consecutive exponents, or none.
    @Test func consecutiveRunsAreFoundWhereTheyAre() {
        #expect(Par2Repairer.consecutiveRun(of: 2, in: [0, 1, 2, 3]) == 0..<2)
        #expect(Par2Repairer.consecutiveRun(of: 2, in: [0, 2, 3, 5]) == 1..<3)
        #expect(Par2Repairer.consecutiveRun(of: 3, in: [4, 5, 6]) == 0..<3)
        #expect(Par2Repairer.consecutiveRun(of: 2, in: [0, 2, 4]) == nil)
        #expect(Par2Repairer.consecutiveRun(of: 4, in: [0, 1, 2]) == nil)
        #expect(Par2Repairer.consecutiveRun(of: 0, in: [0, 1]) == nil)
    }

    /// With every other recovery slice lost, no run of consecutive exponents is long enough:
    /// the repair solves by elimination and is still byte-exact.
    @Test func aRepairWithoutConsecutiveRecoverySlicesEliminates() throws {
        let scratch = TemporaryDirectory()
        let (names, contents) = try Self.makeSet(scratch, sizes: [6400, 6390], sliceSize: 64, recovery: 40, seed: 960)
        var damaged = contents[0]
        for block in stride(from: 0, to: 100, by: 10) { damaged[block * 64 + 3] ^= 0x5A }
        writeFile(scratch.file(names[0]), damaged)
        writeFile(scratch.file(names[1]), Array(contents[1][0..<6000]))  // its last 7 blocks cut
        var set = try Par2RecoverySet.load(indexPath: scratch.file("f.par2"))
        set.recoverySlices = set.recoverySlices.filter { $0.exponent % 2 == 0 }
        let verification = try Par2Verifier.verify(set, jobs: 2)
        #expect(verification.badSliceCount == 17 && set.recoverySlices.count == 20)
        #expect(Par2Repairer.consecutiveRun(of: 17, in: set.recoverySlices.map(\.exponent)) == nil)
        _ = try Par2FileRestorer.repair(verification, jobs: 2, fsync: false)
        for (name, bytes) in zip(names, contents) { #expect(readFile(scratch.file(name)) == bytes, "\(name)") }
    }

    /// Ten files (two lane groups), slices longer than a read (``Par2Verifier/stretchBytes``),
    /// files that end mid-slice, mid-read and on a read's edge: the bad slices are exactly
    /// those whose bytes changed.
    @Test(arguments: [1, 2])
    func verifyNamesTheChangedSlicesAcrossReadsAndLanes(jobs: Int) throws {
        let scratch = TemporaryDirectory()
        let slice = 300_000
        let sizes = [0, 1, 600_001, 262_144, 1_000_000, 5, 299_999, 300_000, 900_004, 524_288]
        let (names, contents) = try Self.makeSet(scratch, sizes: sizes, sliceSize: slice, recovery: 8, seed: 700)
        let set = try Par2RecoverySet.load(indexPath: scratch.file("f.par2"))
        #expect(try Par2Verifier.verify(set, jobs: jobs).isComplete)
        var changed = contents
        changed[2][300_000] ^= 1  // slice 1, its first byte
        changed[4][999_999] ^= 1  // the last byte of the short last slice 3
        changed[8][262_144] ^= 1  // slice 0, where the second read starts
        changed[8][600_000] ^= 1  // slice 2
        for index in [2, 4, 8] { writeFile(scratch.file(names[index]), changed[index]) }
        writeFile(scratch.file(names[9]), Array(contents[9][0..<400_000]))  // slice 1 cut short
        unlink(scratch.file(names[6]))
        let verification = try Par2Verifier.verify(set, jobs: jobs)
        let byName = Dictionary(uniqueKeysWithValues: zip(set.files.map(\.name), verification.files))
        let found = names.map { name in byName[name].map { "\($0.state.rawValue) \($0.badSlices)" } ?? "?" }
        #expect(
            found == [
                "ok []", "ok []", "damaged [1]", "ok []", "damaged [3]", "ok []", "missing [0]", "ok []",
                "damaged [0, 2]", "damaged [1]",
            ])
        _ = try Par2FileRestorer.repair(verification, jobs: jobs, fsync: false)
        for (name, bytes) in zip(names, contents) { #expect(readFile(scratch.file(name)) == bytes, "\(name)") }
    }

    /// 64-byte blocks, a whole file of them lost (320 blocks rebuilt from 640 good ones): every
    /// good block needs 320 coefficients of 320 products each, the work that took minutes in
    /// Swift element by element.
    @Test func manySmallBlocksRepairByteExact() throws {
        let scratch = TemporaryDirectory()
        let (names, contents) = try Self.makeSet(
            scratch, sizes: [20_480, 20_480, 20_470], sliceSize: 64, recovery: 330, seed: 900)
        unlink(scratch.file(names[1]))
        var damaged = contents[2]
        damaged[20_469] ^= 0xFF  // the short last block
        writeFile(scratch.file(names[2]), damaged)
        let set = try Par2RecoverySet.load(indexPath: scratch.file("f.par2"))
        let verification = try Par2Verifier.verify(set, jobs: 2)
        #expect(verification.badSliceCount == 321)
        _ = try Par2FileRestorer.repair(verification, jobs: 2, fsync: false)
        for (name, bytes) in zip(names, contents) { #expect(readFile(scratch.file(name)) == bytes, "\(name)") }
    }

    /// A repair that fails after making a lost file's folders (`sub/deep` of `sub/deep/b`)
    /// leaves none of them behind: a failed repair left a folder the set's verify then tripped on.
    @Test func aFailedRepairRemovesTheFoldersItMade() throws {
        let scratch = TemporaryDirectory()
        #expect(mkdir(scratch.file("sub"), 0o755) == 0 && mkdir(scratch.file("sub/deep"), 0o755) == 0)
        writeFile(scratch.file("a"), seededBytes(5000, seed: 950))
        writeFile(scratch.file("sub/deep/b"), seededBytes(3000, seed: 951))
        _ = try Par2Creator.create(
            .init(
                inputs: ["a", "sub/deep/b"].map { (scratch.file($0), $0) }, indexPath: scratch.file("f.par2"),
                sliceSize: 512, recoverySlices: 10, layout: .variable(files: nil), overwrite: false, fsync: false,
                jobs: 2))
        #expect(unlink(scratch.file("sub/deep/b")) == 0)
        #expect(rmdir(scratch.file("sub/deep")) == 0 && rmdir(scratch.file("sub")) == 0)
        let verification = try Par2Verifier.verify(try Par2RecoverySet.load(indexPath: scratch.file("f.par2")), jobs: 2)
        #expect(verification.files.map(\.state).sorted { $0.rawValue < $1.rawValue } == [.missing, .ok])
        let (thrown, fired) = FaultInjection.withFaults([.init(.pwrite, pathContains: "sub/deep/b", .fail(EIO))]) {
            do {
                _ = try Par2FileRestorer.repair(verification, jobs: 2, fsync: false)
                return nil as GCDCatError?
            } catch {
                return error as? GCDCatError
            }
        }
        #expect(fired == 1)
        #expect(thrown?.errno == EIO && thrown?.path?.hasSuffix("sub/deep/b") == true, "\(String(describing: thrown))")
        var info = stat()
        #expect(lstat(scratch.file("sub"), &info) != 0 && errno == ENOENT)
    }
}
