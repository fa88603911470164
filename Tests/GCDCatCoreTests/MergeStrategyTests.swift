import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every strategy, byte-identical, over the sizes where chunking goes wrong.
@Suite struct MergeStrategyTests {
    static let chunk = 4096

    static let shapes: [[Int]] = [
        [0], [1], [chunk - 1], [chunk], [chunk + 1],
        [chunk - 1, chunk, chunk + 1],
        [1000, 0, 0, 2000, 0],
        [0, 0, 0],
        [3 * chunk + 17],
        [5_000_000, 1, 123_457],
        Array(repeating: 777, count: 300),
    ]

    @Test(arguments: MergeStrategyKind.allCases, shapes)
    func roundTripIsByteIdentical(strategy: MergeStrategyKind, sizes: [Int]) throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: sizes, seed: UInt64(sizes.count))
        let output = directory.file("out")
        let result = try merge(paths, into: output, strategy: strategy, highWater: Self.chunk)
        #expect(readFile(output) == whole)
        #expect(result.bytes == Int64(whole.count))
        #expect(result.crc32 == nil)
        // Again with the crc32 computed as the bytes pass.
        removeTree(output)
        let checked = try merge(paths, into: output, strategy: strategy, highWater: Self.chunk, computeCRC: true)
        #expect(readFile(output) == whole)
        var expected = Checksum(.crc32)
        expected.update(whole)
        #expect(checked.crc32 == expected.value)
        // Nothing but the parts and the output is left: no temporary file.
        #expect(directory.listing().count == paths.count + 1)
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func chunkCountFollowsTheHighWaterMark(strategy: MergeStrategyKind) throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [64 << 10, 64 << 10])
        let result = try merge(paths, into: directory.file("out"), strategy: strategy, highWater: 16 << 10)
        if strategy == .auto {
            // Kernel copies move each part in one slice.
            #expect(result.chunks == 2)
        } else {
            // 128 KiB in 16 KiB chunks, as DispatchIO or pread delivered them.
            #expect(result.chunks >= 8)
        }
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func writesToStandardOutputStyleDescriptors(strategy: MergeStrategyKind) throws {
        // A FIFO takes no positional writes and no preallocation.
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: [10_000, 0, 30_001])
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = FIFOReader(path: fifo)
        _ = try merge(paths, into: fifo, strategy: strategy)
        #expect(reader.wait() == whole)
    }

    @Test(arguments: [MergeStrategyKind.auto, .offsets])
    func offsetsPastFourGiBLandExactly(strategy: MergeStrategyKind) throws {
        let directory = TemporaryDirectory()
        // Sparse parts: 3 GiB + 2 GiB + 5 bytes, with markers at their ends.
        let sizes: [Int64] = [3 << 30, 2 << 30, 5]
        var paths: [String] = []
        for (index, size) in sizes.enumerated() {
            let path = directory.file("big.00\(index + 1)")
            let fd = open(path, O_WRONLY | O_CREAT, 0o644)
            #expect(ftruncate(fd, off_t(size)) == 0)
            var marker = UInt8(index + 65)
            #expect(pwrite(fd, &marker, 1, off_t(size - 1)) == 1)
            close(fd)
            paths.append(path)
        }
        let output = directory.file("big")
        _ = try merge(paths, into: output, strategy: strategy, highWater: 1 << 20)
        let fd = open(output, O_RDONLY)
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        #expect(info.st_size == off_t(sizes.reduce(0, +)))
        var byte: UInt8 = 0
        for (offset, expected) in [(Int64(3 << 30) - 1, 65), (Int64(5 << 30) - 1, 66), (Int64(5 << 30) + 4, 67)] {
            #expect(pread(fd, &byte, 1, off_t(offset)) == 1)
            #expect(byte == UInt8(expected), "offset \(offset)")
        }
        #expect(pread(fd, &byte, 1, off_t(3 << 30)) == 1)
        #expect(byte == 0)
    }
}

/// Reads a FIFO to its end on a background thread.
final class FIFOReader: @unchecked Sendable {
    private var bytes: [UInt8] = []
    private var thread = pthread_t()

    init(path: String) {
        let box = Unmanaged.passRetained(FIFOJob(path: path, owner: self))
        pthread_create(
            &thread, nil,
            { raw in
                let job = Unmanaged<FIFOJob>.fromOpaque(raw!).takeRetainedValue()
                job.owner.bytes = readFile(job.path) ?? []
                return nil
            }, box.toOpaque())
    }

    func wait() -> [UInt8] {
        pthread_join(thread, nil)
        return bytes
    }
}

private final class FIFOJob {
    let path: String
    let owner: FIFOReader
    init(path: String, owner: FIFOReader) {
        self.path = path
        self.owner = owner
    }
}
