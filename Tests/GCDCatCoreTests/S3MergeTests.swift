import CZlib
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// Merges that read or write objects, against ``MemoryObjectStore``: byte-identical results in
/// every direction, and nothing left behind (no upload, no stray object) after any failure.
struct S3MergeTests {
    static let mib = 1 << 20
    static let bucket = "bkt"

    static func at(_ key: String) -> ObjectLocation { ObjectLocation(bucket: bucket, key: key) }

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var checksum = Checksum(.crc32)
        checksum.update(bytes)
        return checksum.value
    }

    /// Uploads in progress and keys in the bucket (besides `keeping`).
    static func leftovers(_ store: MemoryObjectStore, keeping: Set<String> = []) throws -> (
        uploads: Int, keys: [String]
    ) {
        let uploads = try store.listMultipartUploads(bucket: bucket, prefix: "").count
        let keys = try store.list(bucket: bucket, prefix: "").map(\.location.key).filter { !keeping.contains($0) }
        return (uploads, keys)
    }

    /// A set of parts of `sizes` stored as `set.001`, … with its manifest `set.sfv`.
    static func storeSet(_ store: MemoryObjectStore, sizes: [Int], seed: UInt64 = 7) -> (
        whole: [UInt8], parts: [ObjectLocation]
    ) {
        var whole: [UInt8] = []
        var parts: [ObjectLocation] = []
        var manifest = ""
        for (index, size) in sizes.enumerated() {
            let bytes = seededBytes(size, seed: seed + UInt64(index))
            let name = "set.\(threeDigits(index + 1))"
            store.store(at(name), bytes)
            parts.append(at(name))
            manifest += "\(name) \(hex8(crc(bytes)).uppercased())\n"
            whole += bytes
        }
        store.store(at("set.sfv"), Array(manifest.utf8))
        return (whole, parts)
    }

    static func heads(_ store: any ObjectStore, _ parts: [ObjectLocation]) throws -> [ObjectInfo] {
        try ObjectDiscovery.heads(parts, store: store, jobs: 2)
    }

    // MARK: local → S3

    /// Local parts of `sizes` in `directory`.
    static func localParts(_ directory: TemporaryDirectory, sizes: [Int]) -> (whole: [UInt8], paths: [String]) {
        var whole: [UInt8] = []
        var paths: [String] = []
        for (index, size) in sizes.enumerated() {
            let bytes = seededBytes(size, seed: 100 + UInt64(index))
            let path = directory.file("p.\(threeDigits(index + 1))")
            writeFile(path, bytes)
            whole += bytes
            paths.append(path)
        }
        return (whole, paths)
    }

    static func objectOutput(_ store: MemoryObjectStore, _ key: String) -> OutputTarget {
        .object(ObjectTarget(location: at(key), store: store, partSize: 5 * mib))
    }

    @Test(arguments: [1, 2, 4])
    func localPartsUploadByteIdentical(jobs: Int) throws {
        let directory = TemporaryDirectory()
        let (whole, paths) = Self.localParts(directory, sizes: [7 * Self.mib, 1, 0, 9 * Self.mib + 3, 5 * Self.mib])
        let store = MemoryObjectStore()
        let operation = MergeOperation(
            partPaths: paths, output: Self.objectOutput(store, "out.bin"), jobs: jobs, computeCRC: true)
        let (_, result) = try operation.run()
        #expect(store.bytes(Self.at("out.bin")) == whole)
        #expect(result.crc32 == Self.crc(whole))
        #expect(store.callCount("UploadPart") == 5)  // 21 MiB + 4 in 5 MiB parts
        #expect(try Self.leftovers(store, keeping: ["out.bin"]) == (0, []))
    }

    @Test func anEmptyMergeIsPutAsAnEmptyObject() throws {
        let directory = TemporaryDirectory()
        let (_, paths) = Self.localParts(directory, sizes: [0, 0])
        let store = MemoryObjectStore()
        _ = try MergeOperation(partPaths: paths, output: Self.objectOutput(store, "empty")).run()
        #expect(store.bytes(Self.at("empty")) == [])
        #expect(store.callCount("CreateMultipartUpload") == 0)
    }

    @Test(arguments: [
        ("CreateMultipartUpload", 1), ("UploadPart", 1), ("UploadPart", 3), ("UploadPart", 5),
        ("CompleteMultipartUpload", 1), ("HeadObject", 2),
    ])
    func aFailedUploadLeavesNothing(operation: String, call: Int) throws {
        let directory = TemporaryDirectory()
        let (_, paths) = Self.localParts(directory, sizes: [12 * Self.mib, 9 * Self.mib])
        let store = MemoryObjectStore()
        store.failCall(operation, at: call)
        #expect(throws: GCDCatError.self) {
            try MergeOperation(partPaths: paths, output: Self.objectOutput(store, "out.bin"), jobs: 2).run()
        }
        #expect(try Self.leftovers(store) == (0, []))
    }

    @Test func anExistingKeyIsRefusedWithoutOverwrite() throws {
        let directory = TemporaryDirectory()
        let (whole, paths) = Self.localParts(directory, sizes: [6 * Self.mib])
        let store = MemoryObjectStore(objects: [Self.at("out.bin"): [1, 2, 3]])
        let error = #expect(throws: GCDCatError.self) {
            try MergeOperation(partPaths: paths, output: Self.objectOutput(store, "out.bin")).run()
        }
        #expect(error?.code == .outputExists)
        #expect(error?.description == "s3://bkt/out.bin: already exists (use --force to replace it)")
        #expect(store.bytes(Self.at("out.bin")) == [1, 2, 3])
        #expect(try Self.leftovers(store, keeping: ["out.bin"]) == (0, []))
        _ = try MergeOperation(partPaths: paths, output: Self.objectOutput(store, "out.bin"), overwrite: true).run()
        #expect(store.bytes(Self.at("out.bin")) == whole)
    }

    @Test func aKeyThatAppearsBeforeCompletionIsNotReplaced() throws {
        // The HEAD before completion sees it (some servers ignore If-None-Match).
        let store = MemoryObjectStore()
        let output = ObjectOutput(
            target: ObjectTarget(location: Self.at("k"), store: store), overwrite: false, registry: CleanupRegistry())
        let sink = try OutputSink.produce(.object(output.target), inputs: [], overwrite: false, bytes: 0, fsync: false)
        {
            sink in try sink.write([9])
        }.sink
        store.store(Self.at("k"), [1])
        #expect(throws: GCDCatError.self) { try sink.publish(fsync: false) }
        #expect(store.bytes(Self.at("k")) == [1])
    }

    // MARK: Signals

    @Test func theSignalSweepAbortsTheUploadOnTheServer() throws {
        let store = MemoryObjectStore()
        // A registry of the test's own: sweeping the shared one would stop every later test.
        let registry = CleanupRegistry()
        let output = ObjectOutput(
            target: ObjectTarget(location: Self.at("out"), store: store), overwrite: false, registry: registry)
        try output.begin(recording: nil)
        try seededBytes(5 * Self.mib, seed: 1).withUnsafeBytes { try output.uploadPart(1, $0) }
        #expect(try store.listMultipartUploads(bucket: Self.bucket, prefix: "").count == 1)
        #expect(registry.removeAll(signal: SIGINT) == ["s3://bkt/out"])
        #expect(try Self.leftovers(store) == (0, []))
        // Nothing may start or complete after the sweep.
        let error = #expect(throws: GCDCatError.self) { try output.publish() }
        #expect(error?.code == .interrupted)
        #expect(throws: GCDCatError.self) { try output.begin(recording: nil) }
        #expect(try Self.leftovers(store) == (0, []))
    }

    @Test func aPublishedSetIsDeletedWhenALaterMemberFails() throws {
        let store = MemoryObjectStore()
        let set = OutputSet(inputs: [], overwrite: false, fsync: false)
        for (index, key) in ["a", "b", "c"].enumerated() {
            try set.write(.part(index), Self.objectOutput(store, key), Array(key.utf8))
        }
        store.failCall("PutObject", at: 3)
        #expect(throws: GCDCatError.self) { try set.publish() }
        #expect(try Self.leftovers(store) == (0, []))
    }

    // MARK: S3 → S3

    /// The server's crc32s stand for reads, unless the caller asks to read anyway.
    @Test(arguments: [true, false])
    func serverChecksumsAreTakenUnlessRefused(trust: Bool) throws {
        let memory = MemoryObjectStore()
        let (whole, parts) = Self.storeSet(memory, sizes: [6 * Self.mib, 6 * Self.mib, 100])
        let store = InstrumentedStore(memory, reportsCRC32: true)
        var merge = ObjectSetMerge(
            store: store, parts: try Self.heads(store, parts), manifest: Self.at("set.sfv"),
            output: .object(ObjectTarget(location: Self.at("joined"), store: store, partSize: 5 * Self.mib)))
        merge.trustStoredChecksums = trust
        let result = try merge.run()
        #expect(memory.bytes(Self.at("joined")) == whole)
        #expect(result.serverChecksums == (trust ? 3 : 0))
        #expect(result.checkBytesRead == (trust ? 0 : UInt64(whole.count)))
    }

    static let mixedSizes = [16 * mib, 16 * mib, 3 * mib, 1 * mib, 7 * mib, 2 * mib, 0, 6 * mib, 1]

    @Test(arguments: [1, 3])
    func serverSideMergeIsByteIdentical(jobs: Int) throws {
        let store = MemoryObjectStore()
        let (whole, parts) = Self.storeSet(store, sizes: Self.mixedSizes)
        let merge = ObjectSetMerge(
            store: store, parts: try Self.heads(store, parts), manifest: Self.at("set.sfv"),
            output: Self.objectOutput(store, "joined"), jobs: jobs)
        let result = try merge.run()
        #expect(store.bytes(Self.at("joined")) == whole)
        #expect(result.crc32 == Self.crc(whole))
        #expect(result.verifiedParts == parts.count)
        // set.003 (3 MiB) and set.004 (1 MiB) join the head of set.005; set.006 (2 MiB)
        // takes all of set.008 (6 MiB: 3 left to copy would be too small); the final byte is copied.
        #expect(
            result.downloadedSmallParts == [
                "s3://bkt/set.003", "s3://bkt/set.004", "s3://bkt/set.005", "s3://bkt/set.006", "s3://bkt/set.008",
            ])
        #expect(result.copyParts == 4 && store.callCount("UploadPartCopy") == 4)
        #expect(result.downloadedBytes == UInt64(13 * Self.mib))  // 4 + 1 MiB, then 2 + 6 MiB
        #expect(try Self.leftovers(store, keeping: Set(parts.map(\.key) + ["set.sfv", "joined"])) == (0, []))
    }

    @Test func bigPartsAreJoinedWithoutPassingThroughTheClient() throws {
        let base = MemoryObjectStore()
        let store = CountingObjectStore(base)
        let (whole, parts) = Self.storeSet(base, sizes: [6 * Self.mib, 6 * Self.mib, 5 * Self.mib])
        let merge = ObjectSetMerge(
            store: store, parts: try Self.heads(store, parts), manifest: nil,
            output: .object(ObjectTarget(location: Self.at("joined"), store: store)))
        let result = try merge.run()
        #expect(base.bytes(Self.at("joined")) == whole)
        #expect(store.counts.bytesDownloaded == 0 && store.counts.bytesUploaded == 0)
        #expect(result.copyParts == 3 && result.downloadedSmallParts.isEmpty)
    }

    @Test(arguments: [
        ("UploadPartCopy", 1), ("UploadPartCopy", 3), ("UploadPartCopy", 4), ("GetObject", 1), ("GetObject", 6),
        ("UploadPart", 1), ("UploadPart", 2), ("CreateMultipartUpload", 1), ("CompleteMultipartUpload", 1),
        ("HeadObject", 3),
    ])
    func aFailedServerSideMergeLeavesNothing(operation: String, call: Int) throws {
        let store = MemoryObjectStore()
        let (_, parts) = Self.storeSet(store, sizes: Self.mixedSizes)
        store.failCall(operation, at: call)
        #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try Self.heads(store, parts), manifest: Self.at("set.sfv"),
                output: Self.objectOutput(store, "joined"),
                jobs: 2
            ).run()
        }
        #expect(try Self.leftovers(store, keeping: Set(parts.map(\.key) + ["set.sfv"])) == (0, []))
    }

    @Test(arguments: [false, true])
    func aCorruptPartFailsWithNothingLeft(toObject: Bool) throws {
        let store = MemoryObjectStore()
        let (_, parts) = Self.storeSet(store, sizes: [6 * Self.mib, 2 * Self.mib, 6 * Self.mib])
        var bytes = store.bytes(parts[2])!
        bytes[12345] ^= 1
        store.store(parts[2], bytes)
        let directory = TemporaryDirectory()
        let output: OutputTarget = toObject ? Self.objectOutput(store, "joined") : .path(directory.file("joined"))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try Self.heads(store, parts), manifest: Self.at("set.sfv"), output: output
            ).run()
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.path == "s3://bkt/set.003")
        #expect(try Self.leftovers(store, keeping: Set(parts.map(\.key) + ["set.sfv"])) == (0, []))
        #expect(directory.listing().isEmpty)
    }

    @Test func aMissingPartIsNamed() throws {
        let store = MemoryObjectStore()
        let (_, parts) = Self.storeSet(store, sizes: [100, 200, 300])
        try store.delete(parts[1])
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try Self.heads(store, parts), manifest: nil, output: Self.objectOutput(store, "j")
            ).run()
        }
        #expect(error?.code == .missingPart)
        #expect(error?.path == "s3://bkt/set.002")
        // Given without it, the manifest still lists it.
        let short = ObjectSetMerge(
            store: store, parts: try Self.heads(store, [parts[0], parts[2]]), manifest: Self.at("set.sfv"),
            output: Self.objectOutput(store, "j"))
        let listed = #expect(throws: GCDCatError.self) { try short.run() }
        #expect(listed?.code == .missingPart)
        #expect(listed?.path == "s3://bkt/set.002")
    }

    // MARK: S3 → local

    @Test(arguments: [1, 4])
    func downloadIsByteIdentical(jobs: Int) throws {
        let store = MemoryObjectStore()
        let (whole, parts) = Self.storeSet(store, sizes: [9 * Self.mib + 1, 0, 3, 8 * Self.mib, 17 * Self.mib])
        let directory = TemporaryDirectory()
        let result = try ObjectSetMerge(
            store: store, parts: try Self.heads(store, parts), manifest: Self.at("set.sfv"),
            output: .path(directory.file("out")), jobs: jobs
        ).run()
        let fd = open(directory.file("out"), O_RDONLY)
        defer { close(fd) }
        var read = [UInt8](repeating: 0, count: whole.count + 1)
        let count = read.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        #expect(count == whole.count)
        #expect(Array(read.prefix(count)) == whole)
        #expect(result.crc32 == Self.crc(whole))
        #expect(result.verifiedParts == 5)
    }

    @Test func aFailedDownloadLeavesNoFile() throws {
        let store = MemoryObjectStore()
        let (_, parts) = Self.storeSet(store, sizes: [9 * Self.mib, 9 * Self.mib])
        store.failCall("GetObject", at: 2)
        let directory = TemporaryDirectory()
        #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try Self.heads(store, parts), manifest: nil, output: .path(directory.file("out"))
            ).run()
        }
        #expect(directory.listing().isEmpty)
    }
}

/// `number` as at least three digits (`007`).
func threeDigits(_ number: Int) -> String {
    let digits = "\(number)"
    return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
}
