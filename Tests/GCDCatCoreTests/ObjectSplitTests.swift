import Testing

@testable import GCDCatCore

/// Split of an object (``ObjectSplit``, through ``SplitOperation``) against
/// ``MemoryObjectStore``: into local files and into objects copied on the server, the parts
/// joining to the source, the manifest's crc32s the parts', and nothing left on failure.
struct ObjectSplitTests {
    static let mib = 1 << 20
    static let source = ObjectLocation(bucket: "bkt", key: "src/big")

    static func store(_ bytes: [UInt8]) -> MemoryObjectStore {
        MemoryObjectStore(objects: [source: bytes])
    }

    static func split(
        _ store: MemoryObjectStore, prefix: String, mode: SplitMode, jobs: Int = 2,
        manifest: ManifestDestination = .beside
    ) -> SplitOperation {
        var operation = SplitOperation(
            input: source.description, mode: mode, naming: PartNaming(prefix: prefix), manifest: manifest, jobs: jobs)
        operation.objectStore = store
        return operation
    }

    /// Everything in the bucket but the source, and the uploads in progress.
    static func leftovers(_ store: MemoryObjectStore) throws -> (uploads: Int, keys: [String]) {
        try S3MergeTests.leftovers(store, keeping: [source.key])
    }

    @Test(arguments: [1, 2, 3, 8])
    func intoLocalPartsThatJoinToTheObject(jobs: Int) throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(23 * Self.mib + 5, seed: 21)
        let store = Self.store(input)
        // 9 MiB parts: each read as an 8 MiB range and a 1 MiB one.
        let result = try Self.split(store, prefix: directory.file("big."), mode: .size(Int64(9 * Self.mib)), jobs: jobs)
            .run()
        #expect(result.partPaths == ["001", "002", "003"].map { directory.file("big.\($0)") })
        let parts = result.partPaths.map { readFile($0) ?? [] }
        #expect(parts.reduce([], +) == input)
        let manifest = try Manifest.parse(bytes: readFile(directory.file("big.sfv"))!, path: "big.sfv")
        #expect(manifest.entries.map(\.name) == ["big.001", "big.002", "big.003"])
        #expect(manifest.entries.map(\.crc32) == parts.map(S3MergeTests.crc))
        #expect(manifest.whole == Manifest.Whole(name: "big", size: Int64(input.count), crc32: S3MergeTests.crc(input)))
        #expect(result.inputCRC == S3MergeTests.crc(input))
        #expect(store.callCount("GetObject") == 5)
        #expect(try Self.leftovers(store) == (0, []))
    }

    @Test func byCountIntoLocalParts() throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(10_001, seed: 22)
        let store = Self.store(input)
        let result = try Self.split(store, prefix: directory.file("p."), mode: .parts(4)).run()
        let parts = result.partPaths.map { readFile($0) ?? [] }
        #expect(parts.map(\.count) == [2500, 2500, 2500, 2501])
        #expect(parts.reduce([], +) == input)
    }

    @Test(arguments: [1, 2, 4])
    func intoObjectsCopiedOnTheServer(jobs: Int) throws {
        let input = seededBytes(23 * Self.mib + 5, seed: 23)
        let store = Self.store(input)
        let result = try Self.split(store, prefix: "s3://bkt/out/big.", mode: .size(Int64(6 * Self.mib)), jobs: jobs)
            .run()
        #expect(result.partPaths == ["001", "002", "003", "004"].map { "s3://bkt/out/big.\($0)" })
        let parts = result.partPaths.map { store.bytes(try! ObjectLocation(parsing: $0)!) ?? [] }
        #expect(parts.reduce([], +) == input)
        // Every part copied on the server; the source read once, for the manifest.
        #expect(store.callCount("UploadPartCopy") == 4 && store.callCount("UploadPart") == 0)
        #expect(result.serverCopyParts == 4 && result.serverCopiedBytes == UInt64(input.count))
        #expect(result.checkBytesRead == UInt64(input.count))
        let manifest = try Manifest.parse(
            bytes: store.bytes(ObjectLocation(bucket: "bkt", key: "out/big.sfv"))!, path: "s3://bkt/out/big.sfv")
        #expect(manifest.entries.map(\.name) == ["big.001", "big.002", "big.003", "big.004"])
        #expect(manifest.entries.map(\.crc32) == parts.map(S3MergeTests.crc))
        #expect(manifest.whole?.crc32 == S3MergeTests.crc(input))
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }

    @Test func smallPartsAreCopiedAsTheirUploadsOnlyPartAndNoManifestMeansNoRead() throws {
        let input = seededBytes(10_000, seed: 24)
        let store = Self.store(input)
        let result = try Self.split(store, prefix: "s3://bkt/s.", mode: .size(3000), jobs: 3, manifest: .none).run()
        let parts = result.partPaths.map { store.bytes(try! ObjectLocation(parsing: $0)!) ?? [] }
        #expect(parts.map(\.count) == [3000, 3000, 3000, 1000])
        #expect(parts.reduce([], +) == input)
        #expect(store.callCount("GetObject") == 0 && result.checkBytesRead == 0)
        #expect(try Self.leftovers(store).keys == ["s.001", "s.002", "s.003", "s.004"])
    }

    @Test func anEmptyObjectGivesOnlyTheManifest() throws {
        let directory = TemporaryDirectory()
        let store = Self.store([])
        let result = try Self.split(store, prefix: directory.file("e."), mode: .size(1000)).run()
        #expect(result.partPaths.isEmpty)
        let manifest = try Manifest.parse(bytes: readFile(directory.file("e.sfv"))!, path: "e.sfv")
        #expect(manifest.entries.isEmpty && manifest.whole?.size == 0)
    }

    @Test(arguments: [
        ("UploadPartCopy", 1), ("UploadPartCopy", 3), ("CreateMultipartUpload", 2), ("CompleteMultipartUpload", 1),
        ("CompleteMultipartUpload", 4), ("PutObject", 1), ("GetObject", 2), ("HeadObject", 1), ("HeadObject", 5),
    ])
    func aFailureIntoObjectsLeavesNothing(operation: String, call: Int) throws {
        let store = Self.store(seededBytes(23 * Self.mib + 5, seed: 25))
        store.failCall(operation, at: call)
        #expect(throws: GCDCatError.self) {
            try Self.split(store, prefix: "s3://bkt/out/big.", mode: .size(Int64(6 * Self.mib))).run()
        }
        #expect(try Self.leftovers(store) == (0, []))
    }

    @Test(arguments: [("GetObject", 1), ("GetObject", 4), ("HeadObject", 2)])
    func aFailureIntoFilesLeavesNoFile(operation: String, call: Int) throws {
        let directory = TemporaryDirectory()
        let store = Self.store(seededBytes(23 * Self.mib + 5, seed: 26))
        store.failCall(operation, at: call)
        let error = #expect(throws: GCDCatError.self) {
            try Self.split(store, prefix: directory.file("big."), mode: .size(Int64(9 * Self.mib))).run()
        }
        #expect(error?.path == Self.source.description)
        #expect(try directoryEntries(directory.path).isEmpty)
    }

    @Test func aMissingObjectLineModesAndThePartThatIsTheSourceAreRefused() throws {
        let directory = TemporaryDirectory()
        let missing = #expect(throws: GCDCatError.self) {
            try Self.split(MemoryObjectStore(), prefix: directory.file("x."), mode: .size(10)).run()
        }
        #expect(missing?.description == "s3://bkt/src/big: No such object")
        let lines = #expect(throws: GCDCatError.self) {
            try Self.split(Self.store([1, 2]), prefix: directory.file("x."), mode: .lineCount(10)).run()
        }
        #expect(lines?.description.contains("split by --size or --parts") == true)
        let store = MemoryObjectStore(objects: [ObjectLocation(bucket: "bkt", key: "src/big.002"): [1, 2, 3]])
        var operation = Self.split(store, prefix: "s3://bkt/src/big.", mode: .size(1), manifest: .none)
        operation.input = "s3://bkt/src/big.002"
        operation.overwrite = true
        let itself = #expect(throws: GCDCatError.self) { try operation.run() }
        #expect(itself?.description == "s3://bkt/src/big.002: is the object being split; choose another --prefix")
        #expect(store.bytes(ObjectLocation(bucket: "bkt", key: "src/big.002")) == [1, 2, 3])
    }
}
