import Dispatch
import Foundation
import Synchronization
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// Counts work items under way and holds each until `wanted` are (or `patience` runs out):
/// the peak shows how many workers really ran at once, on a machine of any core count.
final class Gate: Sendable {
    let wanted: Int
    let patience: Double
    private let state = Mutex((current: 0, peak: 0))

    init(wanted: Int, patience: Double = 3) {
        self.wanted = wanted
        self.patience = patience
    }

    var peak: Int { state.withLock { $0.peak } }

    func pass() {
        state.withLock {
            $0.current += 1
            $0.peak = max($0.peak, $0.current)
        }
        let deadline = Date().addingTimeInterval(patience)
        while state.withLock({ $0.peak }) < wanted && Date() < deadline { usleep(1000) }
        state.withLock { $0.current -= 1 }
    }
}

/// `--jobs` for S3 work means that many requests in flight, whatever the core count:
/// `concurrentPerform` runs no more workers at once than there are cores.
struct WorkerThreadsTests {
    @Test func threadsRunEveryWorkerAtOnce() throws {
        let gate = Gate(wanted: 8)
        let values = try ParallelMap.map(count: 16, jobs: 8, pool: .threads) { index -> Int in
            gate.pass()
            return index * 2
        }
        #expect(gate.peak == 8)
        #expect(values == (0..<16).map { $0 * 2 })
    }

    @Test func threadsStopAtTheFirstError() {
        let started = Atomic<Int>(0)
        #expect(throws: GCDCatError.self) {
            _ = try ParallelMap.map(count: 1000, jobs: 8, pool: .threads) { index -> Int in
                started.add(1, ordering: .relaxed)
                if index == 3 { throw GCDCatError(.io, message: "injected") }
                usleep(1000)
                return index
            }
        }
        #expect(started.load(ordering: .relaxed) < 1000)
    }

    @Test func uploadsToAnObjectRunJobsPartsAtOnce() throws {
        let directory = TemporaryDirectory()
        let (whole, paths) = S3MergeTests.localParts(directory, sizes: [40 * (1 << 20)])
        let inner = MemoryObjectStore()
        let gate = Gate(wanted: 8)
        let store = GatedStore(inner, gate: gate)
        _ = try MergeOperation(
            partPaths: paths,
            output: .object(ObjectTarget(location: S3MergeTests.at("out"), store: store, partSize: 5 << 20)), jobs: 8
        ).run()
        #expect(gate.peak == 8)
        #expect(inner.bytes(S3MergeTests.at("out")) == whole)
    }
}

/// Remote steps run outside the registry's lock, so several are under way at once; a sweep
/// waits for them and then undoes what they made.
struct RegistryInFlightTests {
    @Test func aSweepWaitsForACompletionInFlightThenUndoesIt() throws {
        let registry = CleanupRegistry()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let undone = Atomic<Int>(0)
        let committed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? registry.commitRemote(
                forgetting: [], registering: .undo(UndoAction(name: "s3://b/k") { undone.add(1, ordering: .relaxed) })
            ) {
                started.signal()
                release.wait()
            }
            committed.signal()
        }
        started.wait()
        // A second remote step runs beside the first: the lock is not held meanwhile.
        let (value, _) = try registry.make({ 42 }, registering: { _ in .undo(UndoAction(name: "second") {}) })
        #expect(value == 42)
        let swept = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            registry.removeAll(signal: SIGTERM)
            swept.signal()
        }
        #expect(swept.wait(timeout: .now() + .milliseconds(300)) == .timedOut)
        #expect(undone.load(ordering: .relaxed) == 0)
        release.signal()
        committed.wait()
        swept.wait()
        #expect(undone.load(ordering: .relaxed) == 1)
        let refused = #expect(throws: GCDCatError.self) {
            try registry.make({ 1 }, registering: { _ in .undo(UndoAction(name: "late") {}) })
        }
        #expect(refused?.code == .interrupted && refused?.errno == SIGTERM)
    }
}

/// A ``MemoryObjectStore`` whose UploadPart waits at a ``Gate``.
final class GatedStore: ForwardingStore {
    let inner: MemoryObjectStore
    let gate: Gate

    init(_ inner: MemoryObjectStore, gate: Gate) {
        self.inner = inner
        self.gate = gate
    }

    func uploadPart(_ upload: MultipartUpload, partNumber: Int, body: UnsafeRawBufferPointer) throws -> UploadedPart {
        gate.pass()
        return try inner.uploadPart(upload, partNumber: partNumber, body: body)
    }
}
