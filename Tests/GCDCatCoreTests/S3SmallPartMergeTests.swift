import Testing

@testable import GCDCatCore

/// Server-side merges of parts under S3's 5 MiB copy minimum (issue 24, item 8): their slices
/// are fetched `jobs` at a time in output order and packed into upload parts, big parts are
/// still copied, and a verified merge checks what it downloads from those very bytes, so no
/// byte of a part is fetched twice.
struct S3SmallPartMergeTests {
    static let kib = 1 << 10
    static let mib = 1 << 20

    static func at(_ key: String) -> ObjectLocation { S3MergeTests.at(key) }

    /// The set's parts as `merge s3://b/set.001` finds them: from one listing, without metadata.
    static func listed(_ store: some ObjectStore) throws -> [ObjectInfo] {
        try ObjectDiscovery.resolve([at("set.001")], store: store).parts
    }

    @Test(arguments: [2, 4])
    func smallPartsAreFetchedInParallel(jobs: Int) throws {
        let memory = MemoryObjectStore()
        let (whole, _) = S3MergeTests.storeSet(memory, sizes: Array(repeating: 10 * Self.kib, count: 48))
        let store = InstrumentedStore(memory, getDelay: 3000)
        let result = try ObjectSetMerge(
            store: store, parts: try Self.listed(store), manifest: nil,
            output: S3MergeTests.objectOutput(memory, "joined"), jobs: jobs
        ).run()
        #expect(memory.bytes(Self.at("joined")) == whole)
        #expect(result.uploadedParts == 1 && result.downloadedSmallParts.count == 48)
        // One run of 48 small parts is one upload part; its slices are GETs in flight together.
        #expect(store.peak > 1 && store.peak <= jobs)
        #expect(store.gets.count == 48)
    }

    @Test func oneJobFetchesTheSlicesInOutputOrder() throws {
        let memory = MemoryObjectStore()
        let (whole, parts) = S3MergeTests.storeSet(memory, sizes: [3 * Self.kib, 12 * Self.mib, 1, 2 * Self.kib])
        let store = InstrumentedStore(memory)
        _ = try ObjectSetMerge(
            store: store, parts: try Self.listed(store), manifest: nil,
            output: S3MergeTests.objectOutput(memory, "joined"), jobs: 1
        ).run()
        #expect(memory.bytes(Self.at("joined")) == whole)
        // set.001 and the head of set.002 make the first part; set.002's rest is copied;
        // set.003 and set.004 make the last.
        #expect(store.gets.map(\.object) == [parts[0], parts[1], parts[2], parts[3]])
        #expect(store.gets[1].range == 0..<UInt64(5 * Self.mib - 3 * Self.kib))
    }

    @Test(arguments: [1, 3])
    func bigPartsAreCopiedBetweenRunsOfSmallOnes(jobs: Int) throws {
        let store = MemoryObjectStore()
        let sizes = Array(repeating: 30 * Self.kib, count: 100) + [12 * Self.mib] + Array(repeating: 7, count: 100)
        let (whole, _) = S3MergeTests.storeSet(store, sizes: sizes)
        let result = try ObjectSetMerge(
            store: store, parts: try Self.listed(store), manifest: Self.at("set.sfv"),
            output: S3MergeTests.objectOutput(store, "joined"), jobs: jobs
        ).run()
        #expect(store.bytes(Self.at("joined")) == whole)
        #expect(result.crc32 == S3MergeTests.crc(whole) && result.verifiedParts == 201)
        #expect(store.callCount("UploadPartCopy") == 1 && store.callCount("UploadPart") == 2)
        #expect(result.copiedBytes == UInt64(12 * Self.mib - (5 * Self.mib - 3000 * Self.kib)))
    }

    /// Many upload parts, GETs of uneven delays: the part buffers in use never exceed
    /// `jobs + 1` (``UploadPartAssembly`` fails the merge if the claim order ever needed more).
    @Test(arguments: [1, 2, 5])
    func manyUploadPartsAssembleWithinTheBufferBound(jobs: Int) throws {
        let memory = MemoryObjectStore()
        let sizes = (0..<60).map { $0 % 7 == 0 ? 3 * Self.mib : 700 * Self.kib + $0 }
        let (whole, parts) = S3MergeTests.storeSet(memory, sizes: sizes)
        let store = InstrumentedStore(memory, getDelay: 500)
        let result = try ObjectSetMerge(
            store: store, parts: try Self.listed(store), manifest: Self.at("set.sfv"),
            output: S3MergeTests.objectOutput(memory, "joined"), jobs: jobs
        ).run()
        #expect(memory.bytes(Self.at("joined")) == whole)
        #expect(result.uploadedParts > 6 && result.copyParts == 0)
        #expect(
            try S3MergeTests.leftovers(memory, keeping: Set(parts.map(\.key) + ["set.sfv", "joined"])) == (0, []))
    }

    /// Every GET of each part, the manifest's aside: disjoint ranges that cover it exactly once.
    static func expectEachPartFetchedOnce(_ store: InstrumentedStore, _ parts: [ObjectInfo]) {
        for part in parts {
            let ranges = store.gets.filter { $0.object == part.location }.map(\.range).sorted {
                $0.lowerBound < $1.lowerBound
            }
            var next: UInt64 = 0
            for range in ranges {
                #expect(range.lowerBound == next, "\(part.location) fetched \(ranges)")
                next = range.upperBound
            }
            #expect(next == part.size, "\(part.location) fetched \(ranges)")
        }
    }

    @Test(arguments: [1, 3])
    func aVerifiedMergeFetchesEachByteOfEachPartOnce(jobs: Int) throws {
        let memory = MemoryObjectStore()
        let (whole, _) = S3MergeTests.storeSet(memory, sizes: S3MergeTests.mixedSizes)
        let store = InstrumentedStore(memory)
        let parts = try Self.listed(store)
        let result = try ObjectSetMerge(
            store: store, parts: parts, manifest: Self.at("set.sfv"),
            output: S3MergeTests.objectOutput(memory, "joined"), jobs: jobs
        ).run()
        #expect(memory.bytes(Self.at("joined")) == whole)
        #expect(result.verifiedParts == parts.count && result.readChecksums == parts.count)
        Self.expectEachPartFetchedOnce(store, parts)
        // The check read only what was copied; what was uploaded it took as it passed.
        #expect(result.checkBytesRead == result.copiedBytes)
        #expect(result.downloadedBytes + result.copiedBytes == UInt64(whole.count))
    }

    @Test func aThousandTinyPartsCostOneRequestEach() throws {
        let base = MemoryObjectStore()
        let (whole, _) = S3MergeTests.storeSet(base, sizes: Array(repeating: Self.kib, count: 1000))
        let store = CountingObjectStore(base)
        let parts = try Self.listed(base)
        let result = try ObjectSetMerge(
            store: store, parts: parts, manifest: Self.at("set.sfv"), output: S3MergeTests.objectOutput(base, "joined"),
            jobs: 8
        ).run()
        #expect(base.bytes(Self.at("joined")) == whole && result.verifiedParts == 1000)
        // One GET per part; no HEAD of any part, before or after (the GETs carried If-Match).
        #expect(base.callCount("GetObject") == 1001)  // and the manifest
        #expect(base.callCount("HeadObject") < 10)  // the manifest's and the output's, none of a part
        #expect(store.counts.bytesDownloaded == UInt64(whole.count) + UInt64(base.bytes(Self.at("set.sfv"))!.count))
    }

    @Test func aCorruptSmallPartIsCaughtFromTheBytesItUploaded() throws {
        let store = MemoryObjectStore()
        let (_, parts) = S3MergeTests.storeSet(store, sizes: Array(repeating: 4 * Self.kib, count: 20))
        var bytes = store.bytes(parts[13])!
        bytes[100] ^= 0x01
        store.store(parts[13], bytes)
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: try Self.listed(store), manifest: Self.at("set.sfv"),
                output: S3MergeTests.objectOutput(store, "joined"), jobs: 4
            ).run()
        }
        #expect(error?.code == .checksumMismatch && error?.path == "s3://bkt/set.014")
        #expect(store.callCount("GetObject") == 21)
        #expect(try S3MergeTests.leftovers(store, keeping: Set(parts.map(\.key) + ["set.sfv"])) == (0, []))
    }

    @Test func aSmallPartReplacedSinceTheListingIsRefusedByItsGET() throws {
        let store = MemoryObjectStore()
        let (_, parts) = S3MergeTests.storeSet(store, sizes: Array(repeating: 4 * Self.kib, count: 20))
        let listed = try Self.listed(store)
        store.store(parts[7], seededBytes(4 * Self.kib, seed: 99))
        let error = #expect(throws: GCDCatError.self) {
            try ObjectSetMerge(
                store: store, parts: listed, manifest: Self.at("set.sfv"),
                output: S3MergeTests.objectOutput(store, "joined"), jobs: 4
            ).run()
        }
        #expect(error?.code == .inputChanged && error?.path == "s3://bkt/set.008")
        #expect(try S3MergeTests.leftovers(store, keeping: Set(parts.map(\.key) + ["set.sfv"])) == (0, []))
    }
}
