import Synchronization
import Testing

@testable import GCDCatCore

/// A rerun of a split into objects, after its predecessor was killed (SIGKILL: nothing
/// aborted), resumes the uploads it left: only the parts the server does not hold are sent,
/// and the result is byte-identical with a manifest that covers the whole.
/// Serialized: its tests read the process-wide RunNotes, and one test's take() took another's.
@Suite(.serialized) struct UploadResumptionTests {
    static let mib = 1 << 20
    /// How long before the rerun its predecessor was killed: past the 5 minutes after which an
    /// upload counts as idle and is taken over.
    static let killedAgo: Double = 301

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
        store.advanceClock(by: Self.killedAgo)

        let counting = CountingObjectStore(store)
        _ = try Self.split(counting, directory.file("big")).run()
        try Self.expectWholeSet(store, input)
        let manifest = UInt64(store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))!.count)
        #expect(counting.counts.bytesUploaded - manifest == UInt64(input.count - sent * 5 * Self.mib))
    }

    /// The rerun's input needs 2 upload parts where the killed run's upload holds 3: resumed,
    /// its completion failed with InvalidPart on Ceph RGW, which refuses to leave parts out
    /// (outside attack on issue 24), and only a second rerun worked. It is written afresh.
    @Test func anUploadHoldingMorePartsThanTheInputNeedsIsAbortedAndWrittenAfresh() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(60 * Self.mib + 5, seed: 13))
        let store = MemoryObjectStore()
        #expect(throws: GCDCatError.self) {
            try Self.split(KilledAfterParts(inner: store, parts: 3), directory.file("big")).run()
        }
        let left = try #require(try store.listMultipartUploads(bucket: "bkt", prefix: "big.001").first)
        store.advanceClock(by: Self.killedAgo)
        let input = seededBytes(8 * Self.mib, seed: 14)
        writeFile(directory.file("big"), input)
        _ = RunNotes.take()

        _ = try Self.split(store, directory.file("big")).run()

        #expect(store.bytes(ObjectLocation(bucket: "bkt", key: "big.001")) == input)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == [])
        #expect(
            RunNotes.take().contains(
                "s3://bkt/big.001: the unfinished upload \(left.uploadID) an earlier run left holds part 3, and this "
                    + "input needs 2 parts: servers such as Ceph RGW refuse to complete an upload with parts left out, "
                    + "so it is aborted and the object written afresh"))
    }

    /// A killed run that chose `--storage-class GLACIER` left its upload; a rerun with no
    /// setting resumed it, and the object came out in GLACIER, unreadable (outside attack on
    /// issue 24). The listing shows the class: such an upload is aborted and the object written
    /// afresh, in the class this run asks for.
    @Test func anUploadInAnotherStorageClassIsAbortedAndWrittenAfresh() throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(60 * Self.mib + 5, seed: 16)
        writeFile(directory.file("big"), input)
        let memory = MemoryObjectStore()
        #expect(throws: GCDCatError.self) {
            try Self.split(KilledAfterParts(inner: memory, parts: 2), directory.file("big")).run()
        }
        let left = try #require(try memory.listMultipartUploads(bucket: "bkt", prefix: "big.001").first)
        memory.advanceClock(by: Self.killedAgo)
        _ = RunNotes.take()
        let counting = CountingObjectStore(InStorageClass(inner: memory, storageClass: "GLACIER"))

        _ = try Self.split(counting, directory.file("big")).run()

        try Self.expectWholeSet(memory, input)
        #expect(try memory.listMultipartUploads(bucket: "bkt", prefix: "") == [])
        #expect(counting.counts.bytesUploaded >= UInt64(input.count))
        #expect(
            RunNotes.take().contains(
                "s3://bkt/big.001: the unfinished upload \(left.uploadID) an earlier run left was made with storage "
                    + "class GLACIER, and this run asks for none: it is not resumed, and the object is written afresh"))
    }

    /// The listing shows an upload's checksum algorithm too (a killed `--checksum-algorithm
    /// CRC32C` run's upload was resumed quietly by a run that asked for none; outside re-check).
    @Test func theSettingsAListingShowsAreTheOnesARerunChecks() {
        let upload = MultipartUpload(location: ObjectLocation(bucket: "b", key: "k"), uploadID: "u")
        #expect(UploadResumption.chosenSetting(PendingUpload(upload: upload, initiated: nil)) == nil)
        #expect(
            UploadResumption.chosenSetting(PendingUpload(upload: upload, initiated: nil, storageClass: "STANDARD"))
                == nil)
        #expect(
            UploadResumption.chosenSetting(PendingUpload(upload: upload, initiated: nil, storageClass: "GLACIER"))
                == "storage class GLACIER")
        #expect(
            UploadResumption.chosenSetting(
                PendingUpload(upload: upload, initiated: nil, storageClass: "STANDARD", checksumAlgorithm: "CRC32C"))
                == "checksum algorithm CRC32C")
    }

    /// The HEAD that checks a resumed object's record was refused (RGW refuses one without the
    /// object's SSE-C key, when the killed run had one): the error was thrown and the object
    /// this run completed stayed in the bucket, unnamed (outside attack on issue 24). It is
    /// deleted, and the error says so.
    @Test func aResumedObjectWhoseRecordCannotBeCheckedIsDeletedAndSaidSo() throws {
        let directory = TemporaryDirectory()
        let input = seededBytes(20 * Self.mib, seed: 15)
        writeFile(directory.file("big"), input)
        let store = MemoryObjectStore()
        #expect(throws: GCDCatError.self) {
            try Self.split(KilledAfterParts(inner: store, parts: 2), directory.file("big")).run()
        }
        store.advanceClock(by: Self.killedAgo)

        let error = try #require(throws: GCDCatError.self) {
            try Self.split(HeadRefusedOnceWritten(inner: store), directory.file("big")).run()
        }

        #expect(error.path == "s3://bkt/big.001" && error.syscall == "HeadObject", "\(error)")
        #expect(
            error.message
                == "BadRequest (HTTP 400); the object this run completed from a resumed upload was deleted again, as "
                + "its crc32 record could not be checked")
        #expect(store.bytes(ObjectLocation(bucket: "bkt", key: "big.001"))?.count == nil)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == [])
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
        store.advanceClock(by: Self.killedAgo)
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
        store.advanceClock(by: 60 + Self.killedAgo)

        let counting = CountingObjectStore(store)
        _ = try Self.split(counting, directory.file("big")).run()
        try Self.expectWholeSet(store, input)
        #expect(try store.listParts(older) == nil)
        let manifest = UInt64(store.bytes(ObjectLocation(bucket: "bkt", key: "big.sfv"))!.count)
        #expect(counting.counts.bytesUploaded - manifest == UInt64(input.count - 3 * Self.mib * 5))
    }
}

/// A rerun does not take over an upload another run may still be writing: one whose newest
/// part, or initiation when it has no part, is younger than `--take-over-after` (5 minutes).
@Suite struct UploadTakeOverTests {
    static let mib = 1 << 20

    static func refusal(_ upload: MultipartUpload, _ written: String) -> String {
        "an unfinished upload of this key, \(upload.uploadID), is in use (\(written)): another gcdcat run may be "
            + "writing it; wait, or abort it with gcdcat uploads s3://bkt/big.001 --abort (a rerun takes over an "
            + "upload idle for --take-over-after, 5m)"
    }

    /// Killed after two parts 42 s ago, or still running: the rerun refuses, names the upload
    /// and its age, and leaves it as it was.
    @Test func anUploadWrittenRecentlyIsRefusedAndLeftUntouched() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(60 * Self.mib + 5, seed: 14))
        let store = MemoryObjectStore()
        #expect(throws: GCDCatError.self) {
            try UploadResumptionTests.split(KilledAfterParts(inner: store, parts: 2), directory.file("big")).run()
        }
        let left = try store.listMultipartUploads(bucket: "bkt", prefix: "")
        try #require(left.count == 1)
        store.advanceClock(by: 42)

        let error = try #require(throws: GCDCatError.self) {
            try UploadResumptionTests.split(store, directory.file("big")).run()
        }
        #expect(error.path == "s3://bkt/big.001")
        #expect(error.message == Self.refusal(left[0], "its last part written 42s ago"))
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == left)
        #expect(try store.listParts(left[0])?.count == 2)
        #expect(store.bytes(ObjectLocation(bucket: "bkt", key: "big.001"))?.count == nil)
    }

    /// The newest part decides, not the initiation: an upload begun long ago whose part was
    /// written 30 s ago is in use.
    @Test func aRecentPartKeepsAnOldUploadInUse() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(60 * Self.mib + 5, seed: 15))
        let store = MemoryObjectStore()
        let upload = try store.createMultipartUpload(ObjectLocation(bucket: "bkt", key: "big.001"))
        store.advanceClock(by: 3600)
        let part = [UInt8](repeating: 7, count: 5 * Self.mib)
        _ = try part.withUnsafeBytes { try store.uploadPart(upload, partNumber: 1, body: $0) }
        store.advanceClock(by: 30)
        let error = try #require(throws: GCDCatError.self) {
            try UploadResumptionTests.split(store, directory.file("big")).run()
        }
        #expect(error.message == Self.refusal(upload, "its last part written 30s ago"))
        #expect(try store.listParts(upload)?.count == 1)
    }

    @Test func anUploadInitiatedRecentlyWithNoPartIsInUse() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(60 * Self.mib + 5, seed: 16))
        let store = MemoryObjectStore()
        let upload = try store.createMultipartUpload(ObjectLocation(bucket: "bkt", key: "big.001"))
        store.advanceClock(by: 299)
        let error = try #require(throws: GCDCatError.self) {
            try UploadResumptionTests.split(store, directory.file("big")).run()
        }
        #expect(error.message == Self.refusal(upload, "initiated 4m59s ago with no part yet"))
        // Idle long enough: taken over.
        store.advanceClock(by: 1)
        _ = try UploadResumptionTests.split(store, directory.file("big")).run()
        #expect(try store.listParts(upload) == nil)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == [])
    }
}

/// A server that answers HEAD of an existing object with 400, as RGW answers one asked without
/// its SSE-C key; a missing key is a 404 (nil).
private final class HeadRefusedOnceWritten: ForwardingStore, Sendable {
    let inner: MemoryObjectStore

    init(inner: MemoryObjectStore) { self.inner = inner }

    func head(_ object: ObjectLocation) throws -> ObjectInfo? {
        guard try inner.head(object) != nil else { return nil }
        throw GCDCatError(.io, path: object.description, syscall: "HeadObject", message: "BadRequest (HTTP 400)")
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

/// A store whose listing of unfinished uploads gives each the storage class `storageClass`, as
/// S3 does for an upload created with `x-amz-storage-class`.
struct InStorageClass: ForwardingStore {
    let inner: MemoryObjectStore
    let storageClass: String

    func listPendingUploads(bucket: String, prefix: String) throws -> PendingUploadListing {
        var listing = try inner.listPendingUploads(bucket: bucket, prefix: prefix)
        for index in listing.uploads.indices { listing.uploads[index].storageClass = storageClass }
        return listing
    }
}
