import Synchronization
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// What an S3 merge refuses, as the outside attack on S3 merges (issue 14) found it: a part
/// replaced, named twice, or the manifest in use; a disagreeing record; an unsafe name. On
/// ``MemoryObjectStore``, whose objects get a new ETag at every write as S3's do.
struct S3MergeRefusalTests {
    typealias T = S3MergeTests
    static let mib = 1 << 20

    /// A part replaced after it was listed: the ranged GETs (S3 → local) and the copies (S3 →
    /// S3) carry its ETag, so the other version is refused instead of merged (it was a torn
    /// output with exit 0). No manifest here, so nothing else would have noticed.
    @Test(arguments: [false, true])
    func aPartReplacedAfterListingIsRefused(toObject: Bool) throws {
        let store = MemoryObjectStore()
        let (_, parts) = T.storeSet(store, sizes: [6 * Self.mib, 6 * Self.mib, 100])
        let listed = try T.heads(store, parts)
        store.store(parts[1], [UInt8](repeating: 0, count: 6 * Self.mib))
        let directory = TemporaryDirectory()
        let output: OutputTarget = toObject ? T.objectOutput(store, "joined") : .path(directory.file("joined"))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(store: store, parts: listed, manifest: nil, output: output).run()
        }
        #expect(error?.code == .inputChanged)
        #expect(error?.path == "s3://bkt/set.002")
        #expect(try T.leftovers(store, keeping: Set(parts.map(\.key) + ["set.sfv"])) == (0, []))
        #expect(directory.listing().isEmpty)
    }

    /// Second attack: RGW ignores x-amz-copy-source-if-match, so a part replaced while the
    /// copies ran was joined, with exit 0 and the manifest's crc32 recorded on wrong bytes. Every
    /// part is now HEADed again after the copies.
    @Test(arguments: [true, false])
    func aPartReplacedWhileCopiedOnAServerThatIgnoresIfMatchIsRefused(verified: Bool) throws {
        let memory = MemoryObjectStore()
        let (_, parts) = T.storeSet(memory, sizes: [6 * Self.mib, 6 * Self.mib, 6 * Self.mib])
        let replaced = Mutex(false)
        let store = InstrumentedStore(memory, ignoresCopyIfMatch: true) { source in
            guard source == parts[2] else { return }
            let first = replaced.withLock { done in
                defer { done = true }
                return !done
            }
            if first { memory.store(parts[2], [UInt8](repeating: 7, count: 6 * Self.mib)) }
        }
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try T.heads(memory, parts), manifest: verified ? T.at("set.sfv") : nil,
                output: .object(ObjectTarget(location: T.at("joined"), store: store, partSize: 5 * Self.mib)), jobs: 1
            ).run()
        }
        #expect(error?.code == .inputChanged)
        #expect(error?.path == "s3://bkt/set.003")
        #expect(memory.bytes(T.at("joined"))?.count == nil)
        #expect(try memory.listMultipartUploads(bucket: T.bucket, prefix: "").isEmpty)
    }

    @Test func theSamePartTwiceIsRefusedUnlessAllowed() throws {
        let store = MemoryObjectStore()
        let (_, parts) = T.storeSet(store, sizes: [100, 200])
        var merge = ObjectSetMerge(
            store: store, parts: try T.heads(store, [parts[0], parts[0]]), manifest: nil,
            output: T.objectOutput(store, "dup"))
        let error = #expect(throws: GCDCatError.self) { try merge.run() }
        #expect(error?.code == .invalidInput)
        #expect(
            error?.message
                == "is the same object as \(parts[0]), given earlier (use --allow-duplicates if you mean it)")
        #expect(store.bytes(T.at("dup")) == nil)
        merge.allowDuplicates = true
        _ = try merge.run()
        #expect(store.bytes(T.at("dup")) == store.bytes(parts[0])! + store.bytes(parts[0])!)
    }

    @Test func theManifestInUseIsNeverTheOutput() throws {
        let store = MemoryObjectStore()
        let (_, parts) = T.storeSet(store, sizes: [100, 200])
        let manifest = store.bytes(T.at("set.sfv"))
        let output = OutputTarget.object(ObjectTarget(location: T.at("set.sfv"), store: store))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try T.heads(store, parts), manifest: T.at("set.sfv"), output: output,
                overwrite: true
            ).run()
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.hasPrefix("is the manifest that verifies the set") == true)
        #expect(store.bytes(T.at("set.sfv")) == manifest)
    }

    /// The `; gcdcat-whole:` line was ignored for objects (a local merge checks it). A record
    /// of more bytes than the parts join to is a short set (below).
    @Test(arguments: ["deadbeef", "size"])
    func aWholeRecordThatDisagreesIsAMismatch(lie: String) throws {
        let store = MemoryObjectStore()
        let (whole, parts) = T.storeSet(store, sizes: [100, 200])
        let size = lie == "size" ? whole.count - 1 : whole.count
        let crc = lie == "size" ? hex8(T.crc(whole)) : "deadbeef"
        let text = String(decoding: store.bytes(T.at("set.sfv"))!, as: UTF8.self)
        store.store(T.at("set.sfv"), Array("; gcdcat-whole: \(size) \(crc) set\n\(text)".utf8))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try T.heads(store, parts), manifest: T.at("set.sfv"),
                output: T.objectOutput(store, "joined")
            ).run()
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.path == "s3://bkt/set.sfv")
        #expect(store.callCount("CreateMultipartUpload") == 0)
        #expect(store.bytes(T.at("joined")) == nil)
    }

    /// The whole record says more bytes than the listed parts join to: the set's last part went
    /// with its line, a missing part (exit 1) named after the last part listed.
    @Test func aWholeRecordLongerThanThePartsIsAMissingPart() throws {
        let store = MemoryObjectStore()
        let (whole, parts) = T.storeSet(store, sizes: [100, 200])
        let text = String(decoding: store.bytes(T.at("set.sfv"))!, as: UTF8.self)
        store.store(
            T.at("set.sfv"), Array("; gcdcat-whole: \(whole.count + 50) \(hex8(T.crc(whole))) set\n\(text)".utf8))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try T.heads(store, parts), manifest: T.at("set.sfv"),
                output: T.objectOutput(store, "joined")
            ).run()
        }
        #expect(error?.code == .missingPart)
        #expect(error?.path == "s3://bkt/set.sfv")
        #expect(
            error?.message.hasPrefix(
                "records \(whole.count + 50) bytes for set, but its parts join to 300: the set lacks 50 bytes after s3://bkt/"
            ) == true, "\(error?.message ?? "")")
        #expect(store.bytes(T.at("joined")) == nil)
    }

    @Test func anUnsafeNameInAManifestObjectIsRejected() throws {
        let store = MemoryObjectStore()
        let (_, parts) = T.storeSet(store, sizes: [100])
        store.store(T.at("set.sfv"), Array("../set.001 00000000\n".utf8))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try T.heads(store, parts), manifest: T.at("set.sfv"),
                output: T.objectOutput(store, "joined")
            ).run()
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.hasPrefix("line 1: '../set.001' rejected") == true, "\(String(describing: error))")
    }

    /// The URL path drops `.` and `..` segments after signing: such keys are refused by name.
    @Test(arguments: ["s3://b/./k", "s3://b/x/../k", "s3://b/k/.."])
    func dotSegmentsInAKeyAreRefused(path: String) {
        #expect(throws: GCDCatError.self) { _ = try ObjectLocation(parsing: path) }
    }

    @Test func aSecretTypedIntoTheEndpointIsNotEchoed() {
        #expect(
            S3Endpoint.redactingUserInfo("http://AK:SECRET@127.0.0.1:7503/x") == "http://***@127.0.0.1:7503/x")
        #expect(S3Endpoint.redactingUserInfo("http://127.0.0.1:7503") == "http://127.0.0.1:7503")
        #expect(S3Endpoint.redactingUserInfo("http://h:1/?x=SECRET") == "http://h:1/?***")
        // A fragment keeps its own mark (it was shown as a query; third attack, F6).
        #expect(S3Endpoint.redactingUserInfo("http://h:1#frag") == "http://h:1#***")
    }

    /// A set being published with `--force` is finished before a signal's sweep runs.
    @Test func aSweepWaitsForASetBeingPublished() throws {
        let registry = CleanupRegistry()
        try registry.beginPublishing()
        let finished = Mutex(false)
        let swept = BackgroundWork {
            _ = registry.removeAll(signal: SIGTERM)
            finished.withLock { $0 = true }
        }
        usleep(50_000)
        // Still publishing: a commit goes through although the sweep began.
        #expect(try registry.commit(forgetting: [], registering: nil) {} == nil)
        let sweptEarly = finished.withLock { $0 }
        #expect(!sweptEarly)
        registry.endPublishing()
        _ = try swept.wait()
        #expect(throws: GCDCatError.self) { try registry.commit(forgetting: []) {} }
    }
}
