import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// A stream split into objects (``ObjectStreamSplit``) against ``MemoryObjectStore``, the
/// stream read from a descriptor as standard input would be.
struct ObjectStreamSplitTests {
    static let mib = 1 << 20

    static func split(
        _ store: MemoryObjectStore, _ bytes: [UInt8], size: Int64, jobs: Int = 2
    ) throws -> SplitResult {
        let directory = TemporaryDirectory()
        writeFile(directory.file("stream"), bytes)
        let fd = open(directory.file("stream"), O_RDONLY)
        precondition(fd >= 0)
        defer { close(fd) }
        var operation = SplitOperation(
            input: "-", mode: .size(size), naming: PartNaming(prefix: "s3://bkt/x."), jobs: jobs)
        operation.objectStore = store
        operation.objectPartSize = 5 * mib
        return try ObjectStreamSplit(operation: operation, fd: fd, path: "standard input").run(
            counter: TransferCounter())
    }

    @Test(arguments: [1, 2, 3])
    func partsAndManifestJoinToTheStream(jobs: Int) throws {
        let input = seededBytes(23 * Self.mib + 5, seed: 41)
        let store = MemoryObjectStore()
        // 12 MiB parts: upload parts of 5, 5 and 2 MiB each.
        let result = try Self.split(store, input, size: Int64(12 * Self.mib), jobs: jobs)
        #expect(result.partPaths == ["s3://bkt/x.001", "s3://bkt/x.002"])
        let parts = result.partPaths.map { store.bytes(try! ObjectLocation(parsing: $0)!) ?? [] }
        #expect(parts.map(\.count) == [12 * Self.mib, 11 * Self.mib + 5])
        #expect(parts.reduce([], +) == input)
        let manifest = try Manifest.parse(
            bytes: store.bytes(ObjectLocation(bucket: "bkt", key: "x.sfv"))!, path: "s3://bkt/x.sfv")
        #expect(manifest.entries.map(\.name) == ["x.001", "x.002"])
        #expect(manifest.entries.map(\.crc32) == parts.map(S3MergeTests.crc))
        #expect(manifest.whole?.crc32 == S3MergeTests.crc(input))
        #expect(store.callCount("UploadPart") == 6)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }

    @Test func anExactMultipleMakesNoEmptyPartAndAnEmptyStreamNone() throws {
        let store = MemoryObjectStore()
        let input = seededBytes(3000, seed: 42)
        let result = try Self.split(store, input, size: 1000, jobs: 2)
        #expect(result.partPaths.count == 3)
        #expect(result.partPaths.map { store.bytes(try! ObjectLocation(parsing: $0)!) ?? [] }.reduce([], +) == input)
        let empty = MemoryObjectStore()
        let none = try Self.split(empty, [], size: 1000)
        #expect(none.partPaths.isEmpty)
        #expect(try S3MergeTests.leftovers(empty) == (0, ["x.sfv"]))
    }

    @Test(arguments: [
        ("UploadPart", 1), ("UploadPart", 4), ("UploadPart", 6), ("CreateMultipartUpload", 2),
        ("CompleteMultipartUpload", 1), ("CompleteMultipartUpload", 2), ("PutObject", 1), ("HeadObject", 2),
    ])
    func aFailureLeavesNoObjectAndNoUpload(operation: String, call: Int) throws {
        let store = MemoryObjectStore()
        store.failCall(operation, at: call)
        #expect(throws: GCDCatError.self) {
            try Self.split(store, seededBytes(23 * Self.mib + 5, seed: 43), size: Int64(12 * Self.mib))
        }
        #expect(try S3MergeTests.leftovers(store) == (0, []))
    }

    @Test func lineModesAreRefused() throws {
        var operation = SplitOperation(
            input: "-", mode: .lineCount(3), naming: PartNaming(prefix: "s3://bkt/x."), jobs: 1)
        operation.objectStore = MemoryObjectStore()
        let error = #expect(throws: GCDCatError.self) {
            try ObjectStreamSplit(operation: operation, fd: -1, path: "standard input").run(counter: TransferCounter())
        }
        #expect(error?.description == "standard input: only --size splits a stream into objects")
    }
}
