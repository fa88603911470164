import Synchronization
import Testing

@testable import GCDCatCore

/// What a killed run leaves on the server is found by listing, with its age and the bytes it
/// holds, and can be aborted; every upload gcdcat creates carries its run's mark.
@Suite struct LeftoverUploadsTests {
    static let mib = 1 << 20

    static func at(_ key: String) -> ObjectLocation { ObjectLocation(bucket: "bkt", key: key) }

    @Test func everyUploadUnderThePrefixIsListedWithItsAgeAndTheBytesItsPartsHold() throws {
        let store = MemoryObjectStore()
        let old = try store.createMultipartUpload(Self.at("movie.001"))
        _ = try [UInt8](repeating: 1, count: 5 * Self.mib).withUnsafeBytes {
            try store.uploadPart(old, partNumber: 1, body: $0)
        }
        _ = try [UInt8](repeating: 2, count: 3).withUnsafeBytes { try store.uploadPart(old, partNumber: 2, body: $0) }
        store.advanceClock(by: 190)
        let empty = try store.createMultipartUpload(Self.at("movie.002"))
        _ = try store.createMultipartUpload(Self.at("other"))
        store.advanceClock(by: 10)

        let found = try LeftoverUploads.find(in: "bkt", prefix: "movie.", store: store, jobs: 4)
        #expect(
            found == [
                LeftoverUpload(
                    upload: old, initiated: 1_800_000_000, ageSeconds: 200, parts: 2, bytes: UInt64(5 * Self.mib + 3)),
                LeftoverUpload(upload: empty, initiated: 1_800_000_190, ageSeconds: 10, parts: 0, bytes: 0),
            ])
    }

    @Test func abortingThemLeavesNoUploadUnderThePrefix() throws {
        let store = MemoryObjectStore()
        for key in ["p/a", "p/b", "p/c"] { _ = try store.createMultipartUpload(Self.at(key)) }
        let found = try LeftoverUploads.find(in: "bkt", prefix: "p/", store: store, jobs: 2)
        #expect(LeftoverUploads.abort(found, store: store, jobs: 2).isEmpty)
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == [])
    }

    @Test func anUploadThatCannotBeAbortedIsReturnedWithItsError() throws {
        let store = MemoryObjectStore()
        let upload = try store.createMultipartUpload(Self.at("p/a"))
        let found = try LeftoverUploads.find(in: "bkt", prefix: "p/", store: store, jobs: 1)
        store.failAlways("AbortMultipartUpload")
        let failures = LeftoverUploads.abort(found, store: store, jobs: 1)
        #expect(failures.map(\.0.upload) == [upload])
        #expect(
            failures.map(\.1.description) == [
                "s3://bkt/p/a: AbortMultipartUpload: InternalError (HTTP 500): injected failure"
            ])
        #expect(store.callCount("AbortMultipartUpload") == 2)
    }

    /// An upload that ends between the listing and its ListParts is not reported.
    @Test func anUploadGoneBeforeItsListPartsIsLeftOut() throws {
        let inner = MemoryObjectStore()
        let store = AbortingBeforeListParts(inner: inner)
        _ = try inner.createMultipartUpload(Self.at("p/a"))
        let kept = try inner.createMultipartUpload(Self.at("p/b"))
        #expect(try LeftoverUploads.find(in: "bkt", prefix: "p/", store: store, jobs: 1).map(\.upload) == [kept])
    }

    /// A CreateMultipartUpload whose answer was lost: the engine never learnt the upload's ID,
    /// so it could not abort it; the listing finds and names it.
    @Test func anUploadWhoseCreateAnswerWasLostIsFoundByListing() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(12 * Self.mib, seed: 5))
        let inner = MemoryObjectStore()
        let store = LosingCreateAnswers(inner: inner)
        var operation = SplitOperation(
            input: directory.file("big"), mode: .size(Int64(6 * Self.mib)), naming: PartNaming(prefix: "s3://bkt/big."),
            jobs: 1)
        operation.objectStore = store
        operation.objectPartSize = 5 * Self.mib
        #expect(throws: GCDCatError.self) { try operation.run() }

        let found = try LeftoverUploads.find(in: "bkt", prefix: "big.", store: inner, jobs: 2)
        #expect(found.map(\.upload.location) == [Self.at("big.001")])
        #expect(LeftoverUploads.abort(found, store: inner, jobs: 2).isEmpty)
        #expect(try inner.listMultipartUploads(bucket: "bkt", prefix: "") == [])
    }

    @Test func everyUploadGCDCatCreatesCarriesItsRunMark() throws {
        let store = MemoryObjectStore()
        let output = ObjectOutput(
            target: ObjectTarget(location: Self.at("x"), store: store), overwrite: false, registry: CleanupRegistry())
        try output.begin(recording: 7)
        _ = try [UInt8](repeating: 0, count: 9).withUnsafeBytes { try output.uploadPart(1, $0) }
        try output.publish()
        #expect(store.metadata(Self.at("x")) == ["gcdcat-crc32": "00000007", "gcdcat-run": UploadRunMark.current])
        #expect(UploadRunMark.current.utf8.count == 16)
        #expect(UploadRunMark.current.allSatisfy { $0.isHexDigit })
    }
}

/// Every CreateMultipartUpload lands on the server, but its answer is lost.
private struct LosingCreateAnswers: ForwardingStore {
    let inner: MemoryObjectStore

    func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String]) throws -> MultipartUpload {
        _ = try inner.createMultipartUpload(object, metadata: metadata)
        throw GCDCatError(
            .io, path: object.description, syscall: "CreateMultipartUpload", message: "the connection was reset")
    }
}

/// Aborts the first upload just before its ListParts: another cleaner got there first.
private final class AbortingBeforeListParts: ForwardingStore, Sendable {
    let inner: MemoryObjectStore
    private let done = Atomic<Bool>(false)

    init(inner: MemoryObjectStore) { self.inner = inner }

    func listParts(_ upload: MultipartUpload) throws -> [ListedPart]? {
        if !done.exchange(true, ordering: .relaxed) { try inner.abortMultipartUpload(upload) }
        return try inner.listParts(upload)
    }
}
