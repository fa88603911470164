import Foundation
import Synchronization
import Testing

@testable import GCDCatCore

/// gcdcat's crc32 record on the objects it uploads (`x-amz-meta-gcdcat-crc32`), against
/// ``MemoryObjectStore``: every object written through ``ObjectOutput`` carries the crc32 of
/// its content, and a server-side merge trusts a part's record (or the server's crc32) instead
/// of reading it, unless told not to; a part replaced by another tool has no record and is read.
struct RecordedChecksumTests {
    static let mib = 1 << 20
    static func at(_ key: String) -> ObjectLocation { S3MergeTests.at(key) }
    static func crc(_ bytes: [UInt8]) -> UInt32 { S3MergeTests.crc(bytes) }

    /// An object's metadata without the run mark every upload carries (``UploadRunMark``).
    static func record(_ store: MemoryObjectStore, _ object: ObjectLocation) -> [String: String]? {
        store.metadata(object)?.filter { $0.key != UploadRunMark.metadataName }
    }

    /// Every key of the bucket records the crc32 of its own bytes.
    static func expectEveryObjectRecordsItsCRC(
        _ store: MemoryObjectStore, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let objects = try store.list(bucket: S3MergeTests.bucket, prefix: "")
        #expect(!objects.isEmpty, sourceLocation: sourceLocation)
        for object in objects {
            let bytes = store.bytes(object.location) ?? []
            #expect(
                Self.record(store, object.location) == ["gcdcat-crc32": hex8(crc(bytes))],
                "\(object.location)", sourceLocation: sourceLocation)
        }
    }

    @Test func theRecordIsEightHexDigitsOrNothing() {
        #expect(RecordedChecksum.metadata(0xCBF4_3926) == ["gcdcat-crc32": "cbf43926"])
        #expect(RecordedChecksum.metadata(0) == ["gcdcat-crc32": "00000000"])
        #expect(RecordedChecksum.crc32(in: ["gcdcat-crc32": "cbf43926"]) == 0xCBF4_3926)
        #expect(RecordedChecksum.crc32(in: ["gcdcat-crc32": "CBF43926"]) == 0xCBF4_3926)
        for bad in ["", "cbf4392", "cbf439260", "+bf43926", "-bf43926", "cbf4392g", " cbf4392", "0x123456"] {
            #expect(RecordedChecksum.crc32(in: ["gcdcat-crc32": bad]) == nil, "\(bad)")
        }
        #expect(RecordedChecksum.crc32(in: [:]) == nil)
        #expect(ObjectInfo(location: Self.at("k"), size: 1).recordedCRC32 == nil)
        #expect(
            ObjectInfo(location: Self.at("k"), size: 1, metadata: ["gcdcat-crc32": "00000001"]).recordedCRC32 == 1)
    }

    @Test(arguments: [1, 3])
    func splitPartsAndTheManifestRecordTheirCRC(jobs: Int) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(23 * Self.mib + 5, seed: 3))
        let store = MemoryObjectStore()
        _ = try S3SplitTests.split(store, directory.file("big"), size: Int64(12 * Self.mib), jobs: jobs).run()
        #expect(try store.list(bucket: "bkt", prefix: "").map(\.location.key) == ["big.001", "big.002", "big.sfv"])
        try Self.expectEveryObjectRecordsItsCRC(store)
    }

    @Test func aLocalMergeIntoAnObjectRecordsItsCRC() throws {
        let directory = TemporaryDirectory()
        let (_, paths) = S3MergeTests.localParts(directory, sizes: [7 * Self.mib, 1, 0, 9 * Self.mib + 3])
        let emptyDirectory = TemporaryDirectory()
        let (_, empty) = S3MergeTests.localParts(emptyDirectory, sizes: [0])
        let store = MemoryObjectStore()
        _ = try MergeOperation(partPaths: paths, output: S3MergeTests.objectOutput(store, "out.bin"), jobs: 2).run()
        _ = try MergeOperation(partPaths: empty, output: S3MergeTests.objectOutput(store, "empty")).run()
        try Self.expectEveryObjectRecordsItsCRC(store)
        // A put object carries the run's mark, as an upload does: a lost answer is recognised by it.
        #expect(
            store.metadata(Self.at("empty")) == ["gcdcat-crc32": "00000000", "gcdcat-run": UploadRunMark.current])
    }

    /// A set that gcdcat's split uploaded: parts and manifest, all with records.
    static func splitSet(_ store: MemoryObjectStore, size: Int = 20 * mib, partSize: Int = 6 * mib) throws -> [UInt8] {
        let directory = TemporaryDirectory()
        let input = seededBytes(size, seed: 11)
        writeFile(directory.file("big"), input)
        _ = try S3SplitTests.split(store, directory.file("big"), size: Int64(partSize)).run()
        return input
    }

    /// The set's parts as a listing gives them (no metadata: the merge HEADs them).
    static func listedParts(_ store: some ObjectStore) throws -> [ObjectInfo] {
        try store.list(bucket: "bkt", prefix: "big.0")
    }

    @Test func aServerSideMergeOfGcdcatsPartsReadsNothingAndRecordsTheJoinedCRC() throws {
        let base = MemoryObjectStore()
        let input = try Self.splitSet(base)
        let store = CountingObjectStore(base)
        let parts = try Self.listedParts(store)
        #expect(parts.allSatisfy { $0.metadata == nil })
        let result = try ObjectSetMerge(
            store: store, parts: parts, manifest: Self.at("big.sfv"), output: S3MergeTests.objectOutput(base, "joined")
        ).run()
        #expect(base.bytes(Self.at("joined")) == input)
        #expect(result.verifiedParts == 4)
        #expect(result.recordedChecksums == 4 && result.serverChecksums == 0 && result.readChecksums == 0)
        #expect(result.checkBytesRead == 0 && store.counts.bytesDownloaded < 1000)  // the manifest only
        #expect(result.outputRecord == Self.crc(input))
        try Self.expectEveryObjectRecordsItsCRC(base)
    }

    @Test func withoutStoredChecksumsEveryPartIsRead() throws {
        let store = MemoryObjectStore()
        let input = try Self.splitSet(store)
        var merge = ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
            output: S3MergeTests.objectOutput(store, "joined"))
        merge.trustStoredChecksums = false
        let result = try merge.run()
        #expect(result.readChecksums == 4 && result.recordedChecksums == 0)
        #expect(result.checkBytesRead == UInt64(input.count))
        try Self.expectEveryObjectRecordsItsCRC(store)
    }

    @Test func theServersCRCComesBeforeTheRecord() throws {
        let inner = MemoryObjectStore()
        _ = try Self.splitSet(inner)
        let store = InstrumentedStore(inner, reportsCRC32: true)
        let result = try ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
            output: S3MergeTests.objectOutput(inner, "joined")
        ).run()
        #expect(result.serverChecksums == 4 && result.recordedChecksums == 0 && result.readChecksums == 0)
    }

    @Test func aPartReplacedByAnotherToolHasNoRecordAndIsRead() throws {
        let store = MemoryObjectStore()
        _ = try Self.splitSet(store)
        // Another tool puts a corrupt copy: S3 drops gcdcat's metadata with the old object.
        var bytes = store.bytes(Self.at("big.002"))!
        bytes[777] ^= 0x40
        try bytes.withUnsafeBytes { try store.put(Self.at("big.002"), body: $0, ifNoneMatch: false) }
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
                output: S3MergeTests.objectOutput(store, "joined")
            ).run()
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.path == "s3://bkt/big.002")
        #expect(store.bytes(Self.at("joined")) == nil)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }

    /// A record left stale (a run killed between completing a part and rewriting its record
    /// keeps the old bytes' crc32) made a server-side merge call an intact part corrupt, exit 2,
    /// where verify said OK (outside attack on issue 24). A recorded crc32 that disagrees with the
    /// manifest is read before the part is called corrupt: here the bytes match, so the merge
    /// publishes; and a part whose bytes disagree too is still refused, with the crc32 read.
    @Test func aStaleRecordIsReadBeforeThePartIsCalledCorrupt() throws {
        let store = MemoryObjectStore()
        let input = try Self.splitSet(store)
        var stale = store.metadata(Self.at("big.002"))!
        stale["gcdcat-crc32"] = "0badc0de"
        store.store(Self.at("big.002"), store.bytes(Self.at("big.002"))!, metadata: stale)
        let result = try ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
            output: S3MergeTests.objectOutput(store, "joined")
        ).run()
        #expect(store.bytes(Self.at("joined")) == input)
        #expect(result.recordedChecksums == 3 && result.readChecksums == 1)
        var bytes = store.bytes(Self.at("big.002"))!
        bytes[5] ^= 1
        store.store(Self.at("big.002"), bytes, metadata: stale)
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
                output: S3MergeTests.objectOutput(store, "again")
            ).run()
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.path == "s3://bkt/big.002")
        #expect(
            error?.message.hasPrefix("crc32 is \(hex8(Self.crc(bytes))), but ") == true, "\(String(describing: error))")
        #expect(store.bytes(Self.at("again")) == nil)
    }

    /// The limit the README states: a record forged to match is believed; reading catches it.
    @Test func aForgedRecordIsBelievedAndReadingCatchesIt() throws {
        let store = MemoryObjectStore()
        _ = try Self.splitSet(store)
        let forged = store.metadata(Self.at("big.002"))!
        var bytes = store.bytes(Self.at("big.002"))!
        bytes[777] ^= 0x40
        store.store(Self.at("big.002"), bytes, metadata: forged)
        let trusting = try ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
            output: S3MergeTests.objectOutput(store, "trusted")
        ).run()
        #expect(trusting.recordedChecksums == 4)
        var reading = ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
            output: S3MergeTests.objectOutput(store, "read"))
        reading.trustStoredChecksums = false
        let error = #expect(throws: GCDCatError.self) { try reading.run() }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.path == "s3://bkt/big.002")
        #expect(store.bytes(Self.at("read")) == nil)
    }

    @Test func aMalformedRecordIsRead() throws {
        let store = MemoryObjectStore()
        _ = try Self.splitSet(store)
        store.setMetadata(Self.at("big.003"), ["gcdcat-crc32": "not a crc"])
        let result = try ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: Self.at("big.sfv"),
            output: S3MergeTests.objectOutput(store, "joined")
        ).run()
        #expect(result.recordedChecksums == 3 && result.readChecksums == 1)
        #expect(result.checkBytesRead == UInt64(store.bytes(Self.at("big.003"))!.count))
    }

    @Test func aPartChangedSinceTheListingIsRefused() throws {
        let store = MemoryObjectStore()
        _ = try Self.splitSet(store)
        let parts = try Self.listedParts(store)
        store.store(Self.at("big.002"), seededBytes(100, seed: 1))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: parts, manifest: Self.at("big.sfv"),
                output: S3MergeTests.objectOutput(store, "joined")
            ).run()
        }
        #expect(error?.code == .inputChanged)
        #expect(error?.path == "s3://bkt/big.002")
        #expect(store.bytes(Self.at("joined")) == nil)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }

    @Test func withoutAManifestTheOutputRecordsThePartsRecordsJoined() throws {
        let store = MemoryObjectStore()
        let input = try Self.splitSet(store)
        let recorded = try ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: nil,
            output: S3MergeTests.objectOutput(store, "joined")
        ).run()
        #expect(recorded.outputRecord == Self.crc(input) && recorded.verifiedParts == 0)
        #expect(Self.record(store, Self.at("joined")) == ["gcdcat-crc32": hex8(Self.crc(input))])
        // One part without a record: the output records nothing rather than a guess.
        let bytes = store.bytes(Self.at("big.001"))!
        store.store(Self.at("big.001"), bytes)
        let unrecorded = try ObjectSetMerge(
            store: store, parts: try Self.listedParts(store), manifest: nil,
            output: S3MergeTests.objectOutput(store, "joined2")
        ).run()
        #expect(unrecorded.outputRecord == nil)
        #expect(Self.record(store, Self.at("joined2")) == [:])
        #expect(store.bytes(Self.at("joined2")) == input)
    }

    @Test func aFileChangedBetweenTheFirstReadAndTheUploadIsNotPublished() throws {
        let directory = TemporaryDirectory()
        let (_, paths) = S3MergeTests.localParts(directory, sizes: [6 * Self.mib, 7 * Self.mib])
        let inner = MemoryObjectStore()
        // The first pass is done once the upload is created: change the second file's last
        // byte then (its last 3 MiB are the upload's third part, which holds no other file).
        let store = HookedStore(inner) {
            var bytes = seededBytes(7 * Self.mib, seed: 101)
            bytes[bytes.count - 1] ^= 1
            writeFile(paths[1], bytes)
        }
        let error = #expect(throws: GCDCatError.self) {
            try MergeOperation(
                partPaths: paths,
                output: .object(ObjectTarget(location: Self.at("out"), store: store, partSize: 5 * Self.mib)),
                jobs: 2
            ).run()
        }
        #expect(error?.code == .inputChanged)
        #expect(error?.path == paths[1])
        #expect(error?.message.contains("changed while it was uploaded to s3://bkt/out") == true)
        #expect(inner.bytes(Self.at("out")) == nil)
        #expect(try inner.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)
    }
}

/// What ``S3Client`` sends and reads for metadata, through a scripted transport.
struct S3ClientMetadataTests {
    static func client(_ transport: ScriptedTransport) throws -> S3Client {
        S3Client(
            configuration: S3Configuration(
                endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "us-east-1",
                credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")),
            transport: transport, retry: RetryPolicy(maximumAttempts: 1, sleep: { _ in }))
    }

    static func signedHeaders(_ request: HTTPRequest) -> [String] {
        guard let authorization = request.headers["authorization"],
            let range = authorization.range(of: "SignedHeaders=")
        else { return [] }
        return authorization[range.upperBound...].prefix { $0 != "," }.split(separator: ";").map(String.init)
    }

    @Test func putAndCreateSendTheRecordAsASignedHeader() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"e\""])),
            .answer(
                HTTPResponse(
                    status: 200,
                    body: Data(
                        "<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>".utf8))),
        ])
        let client = try Self.client(transport)
        let object = ObjectLocation(bucket: "bkt", key: "k")
        try [UInt8]([1, 2, 3]).withUnsafeBytes {
            try client.put(object, body: $0, ifNoneMatch: true, metadata: RecordedChecksum.metadata(0x55BC_801D))
        }
        _ = try client.createMultipartUpload(object, metadata: RecordedChecksum.metadata(0xCBF4_3926))
        let (put, create) = (transport.requests[0], transport.requests[1])
        #expect(put.headers["x-amz-meta-gcdcat-crc32"] == "55bc801d")
        #expect(create.headers["x-amz-meta-gcdcat-crc32"] == "cbf43926")
        #expect(Self.signedHeaders(put).contains("x-amz-meta-gcdcat-crc32"))
        #expect(Self.signedHeaders(create).contains("x-amz-meta-gcdcat-crc32"))
    }

    @Test func headReturnsTheUserMetadata() throws {
        let transport = ScriptedTransport([
            .answer(
                HTTPResponse(
                    status: 200,
                    headers: [
                        "content-length": "9", "etag": "\"abc\"", "x-amz-meta-gcdcat-crc32": "cbf43926",
                        "x-amz-meta-other": "value", "x-amz-request-id": "r",
                    ])),
            .answer(HTTPResponse(status: 200, headers: ["content-length": "9"])),
        ])
        let client = try Self.client(transport)
        let recorded = try client.head(ObjectLocation(bucket: "bkt", key: "k"))
        #expect(recorded?.metadata == ["gcdcat-crc32": "cbf43926", "other": "value"])
        #expect(recorded?.recordedCRC32 == 0xCBF4_3926)
        let bare = try client.head(ObjectLocation(bucket: "bkt", key: "k"))
        #expect(bare?.metadata == [:])
        #expect(bare?.recordedCRC32 == nil)
    }
}

/// A ``MemoryObjectStore`` that runs `onCreate` once, when the first multipart upload is created.
final class HookedStore: ForwardingStore {
    let inner: MemoryObjectStore
    private let onCreate: Mutex<(@Sendable () -> Void)?>

    init(_ inner: MemoryObjectStore, onCreate: @escaping @Sendable () -> Void) {
        self.inner = inner
        self.onCreate = Mutex(onCreate)
    }

    func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String]) throws -> MultipartUpload {
        let upload = try inner.createMultipartUpload(object, metadata: metadata)
        onCreate.withLock { hook in
            hook?()
            hook = nil
        }
        return upload
    }
}
