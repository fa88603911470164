import Synchronization
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// Every fallback and retry path, forced through ``FaultInjection`` at jobs 1, 2 and 4, with the
/// output byte-compared. Rules are scoped to each test's own folder, and the suite is
/// serialized (``FaultInjection/withFaults(_:_:)`` also holds a global lock).
@Suite(.serialized) struct FaultInjectionTests {
    typealias Rule = FaultInjection.Rule
    static let jobCounts = [1, 2, 4]
    /// Uneven parts, an empty one, and enough of them that workers overlap.
    static let sizes = [300_001, 5, 0, 70_000, 200_000, 1, 65_536] + Array(repeating: 9_999, count: 12)

    /// Merges the standard parts under `rules` and returns (result, fired, whole, output bytes).
    func mergeUnderFaults(
        _ rules: (String) -> [Rule], strategy: MergeStrategyKind, jobs: Int, toFIFO: Bool = false
    ) throws -> (result: MergeResult, fired: Int, whole: [UInt8], got: [UInt8]?) {
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: Self.sizes, seed: UInt64(jobs))
        let output = directory.file("out")
        if toFIFO {
            #expect(mkfifo(output, 0o600) == 0)
            let reader = FIFOReader(path: output)
            let (result, fired) = try FaultInjection.withFaults(rules(directory.path)) {
                try merge(paths, into: output, strategy: strategy, highWater: 16 << 10, jobs: jobs)
            }
            return (result, fired, whole, reader.wait())
        }
        let (result, fired) = try FaultInjection.withFaults(rules(directory.path)) {
            try merge(paths, into: output, strategy: strategy, highWater: 16 << 10, jobs: jobs)
        }
        #expect(directory.listing().count == paths.count + 1, "a temporary file was left")
        return (result, fired, whole, readFile(output))
    }

    // MARK: auto's kernel copy fallbacks

    @Test(arguments: jobCounts)
    func autoIntoAFileFallsBackToPreadPwriteNeverSendfile(jobs: Int) throws {
        // sendfile writes at the offset every worker shares: any call to it fails the merge.
        let run = try mergeUnderFaults(
            { dir in
                [
                    Rule(.copyFileRange, pathContains: dir, times: .max, .fail(EXDEV)),
                    Rule(.sendfile, pathContains: dir, times: .max, .fail(EIO)),
                ]
            }, strategy: .auto, jobs: jobs)
        #expect(run.got == run.whole)
        #expect(run.result.method == "read/write")
        #expect(run.fired >= 1)
    }

    @Test(arguments: jobCounts, [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP])
    func autoIntoAPipeFallsBackToSendfile(jobs: Int, code: Int32) throws {
        let run = try mergeUnderFaults(
            { [Rule(.copyFileRange, pathContains: $0, times: .max, .fail(code))] },
            strategy: .auto, jobs: jobs, toFIFO: true)
        #expect(run.got == run.whole)
        #expect(run.result.method == "sendfile")
    }

    @Test(arguments: jobCounts)
    func autoIntoAPipeFallsBackToReadWrite(jobs: Int) throws {
        let run = try mergeUnderFaults(
            { dir in
                [
                    Rule(.copyFileRange, pathContains: dir, times: .max, .fail(EXDEV)),
                    Rule(.sendfile, pathContains: dir, times: .max, .fail(EINVAL)),
                ]
            }, strategy: .auto, jobs: jobs, toFIFO: true)
        #expect(run.got == run.whole)
        #expect(run.result.method == "read/write")
    }

    @Test(arguments: jobCounts, [false, true])
    func autoContinuesShortCopiesAndMidCopyRefusals(jobs: Int, toFIFO: Bool) throws {
        // Two short copies, a 0 (not trusted as end of file), then EXDEV in the middle of a part:
        // the next method resumes at the exact byte.
        let run = try mergeUnderFaults(
            { dir in
                [
                    Rule(.copyFileRange, pathContains: dir, nth: 1, times: 2, .short(4097)),
                    Rule(.copyFileRange, pathContains: dir, nth: 3, times: 1, .fail(EINTR)),
                    Rule(.copyFileRange, pathContains: dir, nth: 4, times: 1, .short(0)),
                    Rule(.copyFileRange, pathContains: dir, nth: 6, times: .max, .fail(EXDEV)),
                    Rule(.sendfile, pathContains: dir, nth: 1, times: 2, .short(1000)),
                    Rule(.sendfile, pathContains: dir, nth: 3, times: 1, .fail(EINTR)),
                    Rule(.pwrite, pathContains: dir, nth: 1, times: 2, .short(3)),
                    Rule(.write, pathContains: dir, nth: 1, times: 2, .short(3)),
                ]
            }, strategy: .auto, jobs: jobs, toFIFO: toFIFO)
        #expect(run.got == run.whole)
        #expect(run.fired >= 4)
    }

    // MARK: every strategy

    @Test(arguments: MergeStrategyKind.allCases, jobCounts)
    func eintrAndShortCountsAreRetried(strategy: MergeStrategyKind, jobs: Int) throws {
        let run = try mergeUnderFaults(
            { dir in
                [
                    Rule(.pread, pathContains: dir, nth: 2, times: 3, .fail(EINTR)),
                    Rule(.pread, pathContains: dir, nth: 6, times: 5, .short(777)),
                    Rule(.pwrite, pathContains: dir, nth: 2, times: 3, .fail(EINTR)),
                    Rule(.pwrite, pathContains: dir, nth: 6, times: 5, .short(1)),
                    Rule(.copyFileRange, pathContains: dir, nth: 1, times: 2, .fail(EINTR)),
                    Rule(.copyFileRange, pathContains: dir, nth: 3, times: 3, .short(5000)),
                    Rule(.fallocate, pathContains: dir, nth: 1, times: 1, .fail(EINTR)),
                ]
            }, strategy: strategy, jobs: jobs)
        #expect(run.got == run.whole)
        #expect(run.fired >= 1)
    }

    @Test(arguments: MergeStrategyKind.allCases, jobCounts)
    func everyStrategyWritesAPipeUnderFaults(strategy: MergeStrategyKind, jobs: Int) throws {
        let run = try mergeUnderFaults(
            { dir in
                [
                    Rule(.pread, pathContains: dir, nth: 1, times: 4, .short(100)),
                    Rule(.pread, pathContains: dir, nth: 7, times: 2, .fail(EINTR)),
                    Rule(.write, pathContains: dir, nth: 1, times: 4, .short(10)),
                    Rule(.copyFileRange, pathContains: dir, times: .max, .fail(EXDEV)),
                ]
            }, strategy: strategy, jobs: jobs, toFIFO: true)
        #expect(run.got == run.whole)
    }

    /// The syscall that writes `strategy`'s output bytes (DispatchIO's own writes cannot be
    /// reached, so stream and dispatchdata fail at preallocation).
    static func writingCall(_ strategy: MergeStrategyKind) -> FaultInjection.Call {
        switch strategy {
        case .auto: return .copyFileRange
        case .offsets: return .pwrite
        case .stream, .dispatchdata: return .fallocate
        }
    }

    @Test(arguments: MergeStrategyKind.allCases, jobCounts)
    func noSpaceIsACleanErrorNamingTheOutput(strategy: MergeStrategyKind, jobs: Int) throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: Self.sizes)
        let before = directory.listing()
        let output = directory.file("out")
        let call = Self.writingCall(strategy)
        let error = expectGCDCatError {
            _ = try FaultInjection.withFaults([
                Rule(call, pathContains: directory.path, nth: call == .fallocate ? 1 : 3, times: .max, .fail(ENOSPC))
            ]) {
                try merge(paths, into: output, strategy: strategy, highWater: 16 << 10, jobs: jobs)
            }
        }
        let syscall = call == .copyFileRange ? "copy_file_range" : call == .pwrite ? "write" : "fallocate"
        // The message adds what the merge needed and what the filesystem had (FullDiskMessage).
        #expect(error?.description.hasPrefix("\(output): \(syscall): No space left on device: ") == true)
        #expect(
            error?.description.contains(" needed, ") == true
                && error?.description.hasSuffix(" on its filesystem") == true)
        #expect(directory.listing() == before, "the output folder changed")
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func allocationFailureIsACleanError(strategy: MergeStrategyKind) throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: Self.sizes)
        let before = directory.listing()
        let output = directory.file("out")
        // auto allocates only for its read/write fallback; dispatchdata maps instead (the third
        // mapping is data.004: the empty data.003 is not mapped).
        let rules =
            strategy == .dispatchdata
            ? [Rule(.mmap, pathContains: directory.path, nth: 3, .fail(ENOMEM))]
            : [
                Rule(.copyFileRange, pathContains: directory.path, times: .max, .fail(EXDEV)),
                Rule(.malloc, pathContains: directory.path, times: .max, .fail(ENOMEM)),
            ]
        let error = expectGCDCatError {
            _ = try FaultInjection.withFaults(rules) {
                try merge(paths, into: output, strategy: strategy, highWater: 16 << 10, jobs: 2)
            }
        }
        let expected =
            strategy == .dispatchdata
            ? "\(paths[3]): mmap: Cannot allocate memory" : "\(output): malloc: Cannot allocate memory"
        #expect(error?.description == expected)
        #expect(error?.code == .io)
        #expect(directory.listing() == before, "the output folder changed")
    }

    @Test func dispatchDataStopsWhenTheAddressSpaceRunsOut() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: Self.sizes)
        let before = directory.listing()
        let output = directory.file("out")
        // Every part maps; the headroom probe for libdispatch's threads fails.
        let error = expectGCDCatError {
            _ = try FaultInjection.withFaults([
                Rule(.mmap, pathContains: "\(directory.path)/out", .fail(ENOMEM))
            ]) {
                try merge(paths, into: output, strategy: .dispatchdata, jobs: 2)
            }
        }
        #expect(error?.description == "\(output): mmap: Cannot allocate memory")
        #expect(directory.listing() == before)
    }

    // MARK: split's copy paths

    @Test(arguments: MergeStrategyKind.allCases, jobCounts)
    func splitSurvivesFallbacksAndShortCounts(strategy: MergeStrategyKind, jobs: Int) throws {
        let directory = TemporaryDirectory()
        let bytes = seededBytes(400_003, seed: 9)
        let input = directory.file("in")
        writeFile(input, bytes)
        let operation = SplitOperation(
            input: input, mode: .size(50_000), naming: PartNaming(prefix: directory.file("in.")),
            strategy: strategy, limits: try ChunkLimits(highWater: 16 << 10), jobs: jobs)
        let (result, fired) = try FaultInjection.withFaults([
            Rule(.copyFileRange, pathContains: directory.path, nth: 2, times: .max, .fail(EXDEV)),
            Rule(.pread, pathContains: directory.path, nth: 1, times: 6, .short(999)),
            Rule(.pread, pathContains: directory.path, nth: 9, times: 2, .fail(EINTR)),
            Rule(.pwrite, pathContains: directory.path, nth: 1, times: 6, .short(7)),
            Rule(.write, pathContains: directory.path, nth: 1, times: 3, .short(5)),
        ]) { try operation.run() }
        #expect(fired >= 1)
        var joined: [UInt8] = []
        for path in result.partPaths { joined += readFile(path) ?? [] }
        #expect(result.partPaths.count == 9)
        #expect(joined == bytes)
        var crc = Checksum(.crc32)
        crc.update(bytes)
        #expect(result.inputCRC == crc.value)
    }

    @Test(arguments: MergeStrategyKind.allCases, jobCounts)
    func splitOutOfSpaceLeavesNothing(strategy: MergeStrategyKind, jobs: Int) throws {
        let directory = TemporaryDirectory()
        let input = directory.file("in")
        writeFile(input, seededBytes(400_003, seed: 9))
        let before = directory.listing()
        let operation = SplitOperation(
            input: input, mode: .size(50_000), naming: PartNaming(prefix: directory.file("in.")),
            strategy: strategy, limits: try ChunkLimits(highWater: 16 << 10), jobs: jobs)
        let error = expectGCDCatError {
            _ = try FaultInjection.withFaults([
                Rule(.fallocate, pathContains: directory.path, nth: 4, times: .max, .fail(ENOSPC))
            ]) { try operation.run() }
        }
        #expect(error?.syscall == "fallocate")
        #expect(error?.description.contains("fallocate: No space left on device") == true)
        #expect(directory.listing() == before)
    }

    // MARK: the parallel map

    @Test func hugeJobCountsNeitherTrapNorSpawnWithoutBound() throws {
        #expect(ParallelMap.workerCount(jobs: Int.max, items: Int.max) == ParallelMap.maximumWorkers)
        #expect(ParallelMap.workerCount(jobs: 4_611_686_018_427_387_904, items: 3) == 3)
        #expect(ParallelMap.workerCount(jobs: 0, items: 0) == 1)
        let directory = TemporaryDirectory()
        let path = directory.file("sparse")
        let fd = open(path, O_RDWR | O_CREAT, 0o644)
        defer { close(fd) }
        #expect(ftruncate(fd, 40 << 20) == 0)
        let checksum = try ParallelChecksum.compute(
            .crc32, fd: fd, path: path, length: 40 << 20, jobs: 4_611_686_018_427_387_904)
        var expected = Checksum(.crc32)
        expected.update([UInt8](repeating: 0, count: 40 << 20))
        #expect(checksum.value == expected.value)
        #expect(ParallelChecksum.segmentRanges(offset: 0, length: 1 << 40, jobs: Int.max).count == 256)
    }

    struct Stop: Error, Equatable { var index: Int }

    @Test(arguments: [1, 2, 4])
    func afterAnErrorNothingNewStarts(jobs: Int) throws {
        let started = Atomic<Int>(0)
        #expect(throws: Stop(index: 10)) {
            _ = try ParallelMap.map(count: 10_000, jobs: jobs) { index in
                started.add(1, ordering: .relaxed)
                if index == 10 { throw Stop(index: index) }
                if index > 10 { usleep(1000) }
                return index
            }
        }
        // Item 10 and at most one item per other worker already running.
        #expect(started.load(ordering: .relaxed) <= 11 + jobs)
    }

    @Test func resultsComeBackInOrder() throws {
        let values = try ParallelMap.map(count: 1000, jobs: 4) { $0 * 3 }
        #expect(values == (0..<1000).map { $0 * 3 })
    }
}
