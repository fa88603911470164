import Synchronization
import Testing

@testable import GCDCatCore

/// A split into objects gives its checksum lists their type (text/plain) through the store,
/// whatever `--content-type` says of the data; the parts take the run's.
struct S3SidecarTypeTests {
    /// Records the Content-Type each created object was given ("none" for none).
    final class TypeRecordingStore: ForwardingStore, Sendable {
        let inner = MemoryObjectStore()
        let types = Mutex<[String: String]>([:])

        func put(
            _ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String],
            contentType: String?
        ) throws {
            types.withLock { $0[object.key] = contentType ?? "none" }
            try inner.put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: metadata)
        }

        func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String], contentType: String?)
            throws -> MultipartUpload
        {
            types.withLock { $0[object.key] = contentType ?? "none" }
            return try inner.createMultipartUpload(object, metadata: metadata)
        }
    }

    @Test func aSplitGivesItsListsTheirTypeAndThePartsNone() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("big"), seededBytes(3000, seed: 5))
        let store = TypeRecordingStore()
        var operation = S3SplitTests.split(MemoryObjectStore(), directory.file("big"), size: 1000)
        operation.objectStore = CountingObjectStore(store)
        operation.digest = .sha256
        _ = try operation.run()
        #expect(
            store.types.withLock { $0 } == [
                "big.001": "none", "big.002": "none", "big.003": "none", "big.sfv": "text/plain",
                "big.sha256": "text/plain",
            ])
    }
}
