import Synchronization
import Testing

@testable import GCDCatCore

/// A rerun of a split into objects, after its predecessor was killed (SIGKILL: nothing
/// aborted), resumes the uploads it left: only the parts the server does not hold are sent,
/// and the result is byte-identical with a manifest that covers the whole.
@Suite struct UploadResumptionTests {
    static let mib = 1 << 20

    static func split(_ store: any ObjectStore, _ input: String) -> SplitOperation {
        var operation = SplitOperation(
            input: input, mode: .size(Int64(20 * mib)), naming: PartNaming(prefix: "s3://bkt/big."), jobs: 1)
        operation.objectStore = store
        operation.objectPartSize = 5 * mib
        return operation
    }

    static func expectWholeSet(
        _ store: MemoryObjectStore, _ input: [UInt8], _ sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let keys = ["big.001", "big.002", "big.003", "big.004"]
        let parts = keys.map { store.bytes(ObjectLocation(bucket: "bkt", key: $0)) ?? [] }
        #expect(parts.reduce([], +) == input, sourceLocation: sourceLocation)
        let manifest = try Manifest.parse(
            bytes: store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))!, path: "s3://bkt/big.sfv")
        #expect(manifest.entries.map(\.name) == keys, sourceLocation: sourceLocation)
        #expect(manifest.entries.map(\.crc32) == parts.map(S3MergeTests.crc), sourceLocation: sourceLocation)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == [], sourceLocation: sourceLocation)
        for key in keys {
            #expect(
                store.metadata(ObjectLocation(bucket: "bkt", key: key))?[RecordedChecksum.metadataName]
                    == hex8(S3MergeTests.crc(store.bytes(ObjectLocation(bucket: "bkt", key: key)) ?? [])),
                sourceLocation: sourceLocation)
        }
    }

    /// Killed after 1, 6 and 11 of the 13 parts (three objects of four 5 MiB parts, then 5
    /// bytes): the rerun sends exactly the bytes that were missing.
    @Test(arguments: [1, 6, 11])
    func aRerunSendsOnlyThePartsItsKilledPredecessorHadNotSent(killedAfter sent: Int) throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(60 * Self.mib + 5, seed: 11)
        writeFile(directory.file("big"), input)
        let store = MemoryObjectStore()
        #expect(throws: GCDCatError.self) {
            try Self.split(KilledAfterParts(inner: store, parts: sent), directory.file("big")).run()
        }
        #expect(try !store.listMultipartUploads(bucket: "bkt", prefix: "").isEmpty)

        let counting = CountingObjectStore(store)
        _ = try Self.split(counting, directory.file("big")).run()
        try Self.expectWholeSet(store, input)
        let manifest = UInt64(store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))!.count)
        #expect(counting.counts.bytesUploaded - manifest == UInt64(input.count - sent * 5 * Self.mib))
    }

    /// The input changed between the runs: every kept part that differs is sent again, and the
    /// record the earlier run gave the upload is rewritten to the new bytes' crc32.
    @Test func aRerunWithOtherBytesSendsThemAndRecordsTheirCRC() throws {
        let directory = TemporaryDirectory()
        var input = seededBytes(60 * Self.mib + 5, seed: 12)
        writeFile(directory.file("big"), input)
        let store = MemoryObjectStore()
        #expect(throws: GCDCatError.self) {
            try Self.split(KilledAfterParts(inner: store, parts: 2), directory.file("big")).run()
        }
        input[6 * Self.mib] ^= 0xFF  // in part 2 of big.001, which was sent
        input[12 * Self.mib] ^= 0xFF  // in part 3 of big.001, which was not
        writeFile(directory.file("big"), input)

        let counting = CountingObjectStore(store)
        _ = try Self.split(counting, directory.file("big")).run()
        try Self.expectWholeSet(store, input)
        let manifest = UInt64(store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))!.count)
        #expect(counting.counts.bytesUploaded - manifest == UInt64(input.count - 5 * Self.mib))
    }

    /// Two uploads of one key left by two killed runs: the newer is resumed, the older aborted.
    @Test func theNewestUploadIsResumedAndTheOthersAborted() throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(60 * Self.mib + 5, seed: 13)
        writeFile(directory.file("big"), input)
        let store = MemoryObjectStore()
        #expect(throws: GCDCatError.self) {
            try Self.split(KilledAfterParts(inner: store, parts: 3), directory.file("big")).run()
        }
        store.advanceClock(by: -60)
        let older = try store.createMultipartUpload(ObjectLocation(bucket: "bkt", key: "big.001"))
        store.advanceClock(by: 120)

        let counting = CountingObjectStore(store)
        _ = try Self.split(counting, directory.file("big")).run()
        try Self.expectWholeSet(store, input)
        #expect(try store.listParts(older) == nil)
        let manifest = UInt64(store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))!.count)
        #expect(counting.counts.bytesUploaded - manifest == UInt64(input.count - 3 * Self.mib * 5))
    }
}

/// A run killed by SIGKILL after `parts` UploadParts: every later request fails, and nothing it
/// started is aborted or deleted (a killed process undoes nothing).
private final class KilledAfterParts: ForwardingStore, Sendable {
    let inner: MemoryObjectStore
    private let left: Atomic<Int>

    init(inner: MemoryObjectStore, parts: Int) {
        self.inner = inner
        self.left = Atomic(parts)
    }

    private static func killed(_ location: ObjectLocation, _ operation: String) -> GCDCatError {
        GCDCatError(.io, path: location.description, syscall: operation, message: "killed")
    }

    func uploadPart(_ upload: MultipartUpload, partNumber: Int, body: UnsafeRawBufferPointer) throws -> UploadedPart {
        guard left.subtract(1, ordering: .relaxed).newValue >= 0 else {
            throw Self.killed(upload.location, "UploadPart")
        }
        return try inner.uploadPart(upload, partNumber: partNumber, body: body)
    }

    func abortMultipartUpload(_ upload: MultipartUpload) throws {}

    func delete(_ object: ObjectLocation) throws {}
}
