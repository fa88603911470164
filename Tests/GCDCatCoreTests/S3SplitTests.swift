import Testing

@testable import GCDCatCore

/// Split of a local file into objects, against ``MemoryObjectStore``: the parts join to the
/// input, the manifest's crc32s are the parts', and a failure anywhere leaves no object and no
/// upload.
struct S3SplitTests {
    static let mib = 1 << 20

    static func split(_ store: MemoryObjectStore, _ input: String, size: Int64, jobs: Int = 2) -> SplitOperation {
        var operation = SplitOperation(
            input: input, mode: .size(size), naming: PartNaming(prefix: "s3://bkt/big."), jobs: jobs)
        operation.objectStore = store
        operation.objectPartSize = 5 * mib
        return operation
    }

    @Test(arguments: [1, 2, 3])
    func partsAndManifestLandAndJoinToTheInput(jobs: Int) throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(23 * Self.mib + 5, seed: 3)
        writeFile(directory.file("big"), input)
        let store = MemoryObjectStore()
        // 12 MiB parts: each a multipart upload of 5 MiB parts.
        let result = try Self.split(store, directory.file("big"), size: Int64(12 * Self.mib), jobs: jobs).run()
        #expect(result.partPaths == ["s3://bkt/big.001", "s3://bkt/big.002"])
        let parts = result.partPaths.map { store.bytes(try! ObjectLocation(parsing: $0)!) ?? [] }
        #expect(parts.reduce([], +) == input)
        let manifest = try Manifest.parse(
            bytes: store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))!, path: "s3://bkt/big.sfv")
        #expect(manifest.entries.map(\.name) == ["big.001", "big.002"])
        #expect(manifest.entries.map(\.crc32) == parts.map(S3MergeTests.crc))
        #expect(manifest.whole?.crc32 == S3MergeTests.crc(input))
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }

    /// `--checksum` beside an upload: the list is an object too, and each line is the digest of
    /// the object as stored (the parts are not read back: their input ranges are hashed).
    @Test(arguments: [DigestAlgorithm.sha256, .md5])
    func aDigestListLandsBesideTheParts(algorithm: DigestAlgorithm) throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(23 * Self.mib + 5, seed: 7)
        writeFile(directory.file("big"), input)
        let store = MemoryObjectStore()
        var operation = Self.split(store, directory.file("big"), size: Int64(12 * Self.mib), jobs: 2)
        operation.digest = algorithm
        let result = try operation.run()
        let list = try #require(store.bytes(ObjectLocation(bucket: "bkt", key: "big.\(algorithm.rawValue)")))
        var expected = ""
        for (path, name) in zip(result.partPaths, ["big.001", "big.002"]) {
            var digester = try Digester(algorithm)
            let location = try #require(try ObjectLocation(parsing: path))
            digester.update(try #require(store.bytes(location)))
            expected += "\(digester.finalize())  \(name)\n"
        }
        #expect(String(decoding: list, as: UTF8.self) == expected)
        #expect(store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv")) != nil)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }

    @Test func anExistingDigestListIsRefusedBeforeAnythingIsUploaded() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(3000, seed: 8))
        let store = MemoryObjectStore(objects: [ObjectLocation(bucket: "bkt", key: "big.sha256"): [1]])
        var operation = Self.split(store, directory.file("big"), size: 1000)
        operation.digest = .sha256
        let error = #expect(throws: GCDCatError.self) { try operation.run() }
        #expect(error?.description == "s3://bkt/big.sha256: already exists (use --force to replace it)")
        #expect(store.callCount("CreateMultipartUpload") == 0)
    }

    /// `--force` over an existing set, and the manifest's PUT fails after the parts replaced the
    /// old ones: the rollback keeps the parts that replaced objects (deleting them would lose the
    /// old set too; it deleted them before) and deletes only what is new, and the error says so.
    /// The old first part was deleted before any new name was placed, as a local split removes
    /// the file (``PublishOrder``), so what is left has no first part to start a mixed merge.
    /// More than one old object removed before the failure: named as a list that "were" removed.
    @Test func aFailedForceSplitNamesTheOldObjectsItRemovedInOneSentence() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("old"), seededBytes(5000, seed: 22))
        writeFile(directory.file("big"), seededBytes(2000, seed: 23))
        let store = MemoryObjectStore()
        var first = Self.split(store, directory.file("old"), size: 1000)
        first.naming = PartNaming(prefix: "s3://bkt/big.")
        _ = try first.run()
        store.failCall("PutObject", at: 1)
        var again = Self.split(store, directory.file("big"), size: 1000)
        again.overwrite = true
        let error = try #require(throws: GCDCatError.self) { try again.run() }
        #expect(
            error.message.hasSuffix(
                "; the old s3://bkt/big.001, s3://bkt/big.005, s3://bkt/big.004, s3://bkt/big.003 were removed before "
                    + "the new parts were named, so the set there cannot be merged until the split is run again"),
            "\(error.message)")
    }

    @Test func aFailedForceSplitKeepsThePartsThatReplacedObjects() throws {
        let directory = TemporaryDirectory()
        let old = seededBytes(3000, seed: 20)
        let new = seededBytes(4500, seed: 21)
        writeFile(directory.file("old"), old)
        writeFile(directory.file("big"), new)
        let store = MemoryObjectStore()
        var first = Self.split(store, directory.file("old"), size: 1000)
        first.naming = PartNaming(prefix: "s3://bkt/big.")
        _ = try first.run()
        let oldSFV = store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))
        // The parts are multipart uploads; the manifest is the one PutObject.
        store.failCall("PutObject", at: 1)
        var again = Self.split(store, directory.file("big"), size: 1000)
        again.overwrite = true
        let error = try #require(throws: GCDCatError.self) { try again.run() }
        #expect(error.path == "s3://bkt/big.sfv")
        #expect(
            error.message.hasSuffix(
                "; 2 output(s) had already replaced existing ones and were kept (removing them would lose the old "
                    + "ones too), so the set there is mixed: s3://bkt/big.002, s3://bkt/big.003; the old "
                    + "s3://bkt/big.001 was removed before the new parts were named, so the set there cannot be "
                    + "merged until the split is run again"),
            "\(error.message)")
        // The two that replaced old parts hold the new bytes; the two new keys are gone again;
        // the old big.001 is gone, so a merge from it finds nothing.
        #expect(
            try store.list(bucket: "bkt", prefix: "").map(\.location.key) == ["big.002", "big.003", "big.sfv"])
        #expect(store.bytes(ObjectLocation(bucket: "bkt", key: "big.002")) == Array(new[1000..<2000]))
        #expect(store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv")) == oldSFV)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }

    @Test func manySmallPartsAndAnEmptyOne() throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(10_000, seed: 4)
        writeFile(directory.file("big"), input)
        let store = MemoryObjectStore()
        let result = try Self.split(store, directory.file("big"), size: 1000, jobs: 4).run()
        #expect(result.partPaths.count == 10)
        #expect(result.partPaths.map { store.bytes(try! ObjectLocation(parsing: $0)!) ?? [] }.reduce([], +) == input)
    }

    @Test(arguments: [
        ("CreateMultipartUpload", 1), ("CreateMultipartUpload", 3), ("UploadPart", 1), ("UploadPart", 4),
        ("UploadPart", 6), ("CompleteMultipartUpload", 1), ("CompleteMultipartUpload", 3), ("PutObject", 1),
        ("HeadObject", 4),
    ])
    func aFailureLeavesNoObjectAndNoUpload(operation: String, call: Int) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(30 * Self.mib, seed: 5))
        let store = MemoryObjectStore()
        store.failCall(operation, at: call)
        // 3 parts of 10 MiB (2 upload parts each), then the manifest.
        #expect(throws: GCDCatError.self) {
            try Self.split(store, directory.file("big"), size: Int64(10 * Self.mib)).run()
        }
        #expect(try S3MergeTests.leftovers(store) == (0, []))
    }

    @Test func anExistingPartIsRefusedBeforeAnythingIsUploaded() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(3000, seed: 6))
        let store = MemoryObjectStore(objects: [ObjectLocation(bucket: "bkt", key: "big.002"): [1]])
        let error = #expect(throws: GCDCatError.self) {
            try Self.split(store, directory.file("big"), size: 1000).run()
        }
        #expect(error?.description == "s3://bkt/big.002: already exists (use --force to replace it)")
        #expect(store.callCount("CreateMultipartUpload") == 0)
        #expect(try S3MergeTests.leftovers(store, keeping: ["big.002"]) == (0, []))
    }
}
