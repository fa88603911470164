import Synchronization
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// A job's outputs as one transaction (``OutputSet``): discarded together on an error or a
/// signal, named together in the order that never leaves a mergeable partial set.
@Suite struct OutputSetTests {
    /// A store that records the key of every object put, in order (small outputs are put whole
    /// when published).
    final class RecordingStore: ForwardingStore, Sendable {
        let inner = MemoryObjectStore()
        private let keys = Mutex<[String]>([])

        var putKeys: [String] { keys.withLock { $0 } }

        func put(_ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String])
            throws
        {
            try inner.put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: metadata)
            keys.withLock { $0.append(object.key) }
        }
    }

    static func object(_ store: some ObjectStore, _ key: String) -> OutputTarget {
        .object(ObjectTarget(location: ObjectLocation(bucket: "bkt", key: key), store: store))
    }

    @Test func anErrorInsideTheTransactionDiscardsEveryOutput() throws {
        let directory = TemporaryDirectory()
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try OutputSet.transaction(inputs: [], overwrite: false, fsync: false) { set in
                try set.write(.part(0), .path(directory.file("s.001")), [1, 2, 3])
                try set.write(.part(1), .path(directory.file("s.002")), [4])
                try set.write(.manifest, .path(directory.file("s.sfv")), Array("s.001 00000000\n".utf8))
                // A named temporary (not an unnamed file) that is still being written.
                let open = try set.open(.part(2), .path(directory.file("s.003")), unnamed: false)
                try Syscall.writeAll(open.fd, from: [UInt8](repeating: 7, count: 10), count: 10, path: open.path)
                throw Failure()
            }
        }
        #expect(directory.listing() == [])
    }

    @Test func theSetIsNamedPartsThenListsThenTheFirstPartLast() throws {
        let store = RecordingStore()
        let set = OutputSet(inputs: [], overwrite: false, fsync: false)
        // Joined in any order (parts finish in any order on several workers).
        try set.write(.manifest, Self.object(store, "s.sfv"), [1])
        try set.write(.part(2), Self.object(store, "s.003"), [2])
        try set.write(.part(0), Self.object(store, "s.001"), [3])
        try set.write(.checksumList, Self.object(store, "s.sha256"), [4])
        try set.write(.part(1), Self.object(store, "s.002"), [5])
        try set.publish(naming: PartNaming(prefix: "s."))
        #expect(store.putKeys == ["s.002", "s.003", "s.sha256", "s.sfv", "s.001"])
    }

    @Test func aMemberThatCannotBeNamedRollsBackTheWholeSet() throws {
        let directory = TemporaryDirectory()
        let set = OutputSet(inputs: [], overwrite: false, fsync: false)
        for index in 0..<3 {
            try set.write(.part(index), .path(directory.file("s.00\(index + 1)")), [UInt8(index)])
        }
        try set.write(.manifest, .path(directory.file("s.sfv")), [9])
        // Another writer takes the manifest's name after it was checked: named after s.002 and
        // s.003, it fails, and those two are removed again; s.001 is never named.
        let squatter = try Syscall.open(directory.file("s.sfv"), O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        close(squatter)
        let error = #expect(throws: GCDCatError.self) { try set.publish(naming: PartNaming(prefix: "s.")) }
        #expect(error?.code == .outputExists)
        #expect(directory.listing() == ["s.sfv"])
    }

    @Test func aSignalRemovesEveryOutputOfAnUnpublishedSet() throws {
        let directory = TemporaryDirectory()
        let registry = CleanupRegistry()
        let set = OutputSet(inputs: [], overwrite: false, fsync: false, registry: registry)
        try set.write(.part(0), .path(directory.file("s.001")), [1])
        _ = try set.open(.part(1), .path(directory.file("s.002")), unnamed: false)
        _ = registry.removeAll(signal: SIGTERM)
        #expect(directory.listing() == [])
    }

    @Test func anOutputJoiningASetAlreadyDiscardedIsDiscarded() throws {
        let directory = TemporaryDirectory()
        let set = OutputSet(inputs: [], overwrite: false, fsync: false)
        try set.write(.part(0), .path(directory.file("s.001")), [1])
        set.discardAll()
        // A worker that finished after another one failed.
        _ = try set.open(.part(1), .path(directory.file("s.002")), unnamed: false)
        #expect(directory.listing() == [])
        #expect(set.parts.isEmpty)
    }
}
