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
        _ store: MemoryObjectStore, _ bytes: [UInt8], size: Int64, jobs: Int = 2, digest: DigestAlgorithm? = nil
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
        operation.digest = digest
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

    /// `--checksum` on a stream: each part hashed as it is read, the list put beside the SFV.
    @Test func aDigestListOfTheStreamsParts() throws {
        let store = MemoryObjectStore()
        let input = seededBytes(13 * Self.mib + 77, seed: 43)
        let result = try Self.split(store, input, size: Int64(6 * Self.mib), jobs: 2, digest: .sha1)
        #expect(result.partPaths == ["s3://bkt/x.001", "s3://bkt/x.002", "s3://bkt/x.003"])
        var expected = ""
        for (index, path) in result.partPaths.enumerated() {
            let location = try #require(try ObjectLocation(parsing: path))
            let bytes = try #require(store.bytes(location))
            #expect(bytes == Array(input[(index * 6 * Self.mib)..<min(input.count, (index + 1) * 6 * Self.mib)]))
            var digester = try Digester(.sha1)
            digester.update(bytes)
            expected += "\(digester.finalize())  x.00\(index + 1)\n"
        }
        let list = try #require(store.bytes(ObjectLocation(bucket: "bkt", key: "x.sha1")))
        #expect(String(decoding: list, as: UTF8.self) == expected)
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
