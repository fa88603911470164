import GCDCatCore
import Testing

/// Sets of objects found from a listing with the local naming rules, and manifest objects.
@Suite struct ObjectDiscoveryTests {
    static func location(_ key: String) -> ObjectLocation { ObjectLocation(bucket: "bucket", key: key) }

    /// A store with one small object per key (its bytes say its key).
    static func store(_ keys: [String]) -> InstrumentedStore {
        var objects: [ObjectLocation: [UInt8]] = [:]
        for key in keys { objects[location(key)] = Array(key.utf8) }
        return InstrumentedStore(MemoryObjectStore(objects: objects))
    }

    static func keys(_ set: ObjectDiscovery.ObjectSet) -> [String] { set.parts.map(\.location.key) }

    @Test func aSetAndItsManifestFromOneListing() throws {
        let parts = (1...16).map { "movie.zip.\(zeroPadded($0, width: 3))" }
        let store = Self.store(parts + ["movie.zip.sfv", "movie.zip", "movie.zipper.001", "other.001"])
        let set = try ObjectDiscovery.resolve([Self.location("movie.zip.001")], store: store)
        #expect(Self.keys(set) == parts)
        #expect(set.parts.map(\.size) == parts.map { UInt64($0.utf8.count) })
        #expect(set.manifest?.location == Self.location("movie.zip.sfv"))
        #expect(set.defaultOutput == Self.location("movie.zip"))
        #expect(set.resolved.discovered)
        #expect(store.listedPrefixes == ["movie.zip."])
    }

    /// More keys than one ListObjectsV2 page, widening past `.999`, in numeric order.
    @Test func overAThousandKeysWidenPast999() throws {
        let parts = (1...1203).map { "big.\(zeroPadded($0, width: 3))" }
        let store = Self.store(parts.shuffled())
        let set = try ObjectDiscovery.resolve([Self.location("big.001")], store: store)
        #expect(Self.keys(set) == parts)
        #expect(set.parts[999].location.key == "big.1000")
    }

    @Test func aGapNamesTheMissingObject() throws {
        let store = Self.store(["x.001", "x.002", "x.004", "x.005"])
        let error = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve([Self.location("x.001")], store: store)
        }
        #expect(error?.code == .missingPart)
        #expect(error?.description == "s3://bucket/x.003: missing part: the set has s3://bucket/x.004 but not this one")
    }

    @Test func aZeroStartAndItsClash() throws {
        let store = Self.store(["x.000", "x.001", "x.002"])
        #expect(
            Self.keys(try ObjectDiscovery.resolve([Self.location("x.000")], store: store)) == [
                "x.000", "x.001", "x.002",
            ])
        let error = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve([Self.location("x.001")], store: store)
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.description.hasPrefix("s3://bucket/x.001: s3://bucket/x.000 exists too") == true)
    }

    @Test func notTheFirstPartNamesTheFirst() throws {
        let store = Self.store(["dir/x.001", "dir/x.002", "dir/x.003"])
        let error = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve([Self.location("dir/x.002")], store: store)
        }
        #expect(error?.message.contains("starts at s3://bucket/dir/x.001") == true)
    }

    @Test func mixedWidthsClash() throws {
        let store = Self.store(["x.001", "x.002", "x.0003"])
        let error = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve([Self.location("x.001")], store: store)
        }
        #expect(error?.path == "s3://bucket/x.0003")
        #expect(error?.code == .invalidInput)
    }

    @Test func gnuLettersAndTheirNeighbours() throws {
        let store = Self.store(["xaa", "xab", "xac", "xml", "x.sfv"])
        let set = try ObjectDiscovery.resolve([Self.location("xaa")], store: store)
        #expect(Self.keys(set) == ["xaa", "xab", "xac"])
        #expect(store.listedPrefixes == ["x"])
    }

    @Test func namesWithSpacesAndUnicodeUnderAFolder() throws {
        let parts = ["a b/мой фильм ü.mkv.part1", "a b/мой фильм ü.mkv.part2", "a b/мой фильм ü.mkv.part3"]
        let store = Self.store(
            parts + ["a b/мой фильм ü.mkv.sfv", "мой фильм ü.mkv.part4", "a b/c/мой фильм ü.mkv.part4"])
        let set = try ObjectDiscovery.resolve([Self.location(parts[0])], store: store)
        #expect(Self.keys(set) == parts)
        #expect(set.manifest?.location.key == "a b/мой фильм ü.mkv.sfv")
        #expect(set.defaultOutput?.key == "a b/мой фильм ü.mkv")
        #expect(store.listedPrefixes == ["a b/мой фильм ü.mkv."])
    }

    @Test func keysInAnotherFolderAreNotNeighbours() throws {
        let store = Self.store(["a/x.001", "a/x.002", "a/b/x.003", "x.003"])
        #expect(
            Self.keys(try ObjectDiscovery.resolve([Self.location("a/x.001")], store: store)) == ["a/x.001", "a/x.002"])
    }

    /// `split --prefix s3://b/dir/` writes `dir/001`, …: the stem is the folder itself.
    @Test func aSetWhoseStemIsAFolder() throws {
        let store = Self.store(["dir/001", "dir/002", "dir/003", "dir/notes"])
        #expect(
            Self.keys(try ObjectDiscovery.resolve([Self.location("dir/001")], store: store)) == [
                "dir/001", "dir/002", "dir/003",
            ])
        #expect(store.listedPrefixes == ["dir/"])
    }

    @Test func aLoneObjectIsASetOfOne() throws {
        let store = Self.store(["notes.txt", "notes.txt.bak"])
        let set = try ObjectDiscovery.resolve([Self.location("notes.txt")], store: store)
        #expect(Self.keys(set) == ["notes.txt"])
        #expect(!set.resolved.discovered)
    }

    @Test func aMissingFirstObjectIsNamed() throws {
        let store = Self.store(["x.002"])
        let error = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve([Self.location("x.001")], store: store)
        }
        #expect(error?.description == "s3://bucket/x.001: No such object")
        #expect(error?.exitStatus == 1)
    }

    @Test func spannedZipVolumesAreRefused() throws {
        let store = Self.store(["a.z01", "a.z02", "a.zip"])
        let error = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve([Self.location("a.z01")], store: store)
        }
        #expect(error?.message.contains("zip -s 0") == true)
    }

    @Test func anExplicitListIsCheckedAndSized() throws {
        let store = Self.store(["x.001", "x.002", "x.003", "x.sfv"])
        let given = ["x.001", "x.002", "x.003"].map(Self.location)
        let set = try ObjectDiscovery.resolve(given, store: store)
        #expect(Self.keys(set) == ["x.001", "x.002", "x.003"])
        #expect(set.parts.allSatisfy { $0.size == 5 })
        #expect(set.manifest?.location.key == "x.sfv")
        // The set's listing, to see what lies beside the list (as a folder is seen).
        #expect(store.listedPrefixes == ["x."])

        let gap = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve(["x.001", "x.003"].map(Self.location), store: store)
        }
        #expect(gap?.code == .missingPart)
        #expect(gap?.path == "s3://bucket/x.002")

        let missing = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve(["x.001", "x.002", "x.003", "x.004"].map(Self.location), store: store)
        }
        #expect(missing?.description == "s3://bucket/x.004: No such object")

        let list = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve(["x.001", "x.002", "x.sfv"].map(Self.location), store: store)
        }
        #expect(list?.message.hasPrefix("a checksum list (sfv), not a part") == true)
        let alone = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve([Self.location("x.sfv")], store: store)
        }
        #expect(alone?.path == "s3://bucket/x.sfv")
        #expect(store.listedPrefixes == ["x.", "x."])
    }

    /// The local rule over the set's listing: a list that stops before objects lying beside it
    /// is refused, naming the first one left out; `--as-given` takes it as it is, unlisted.
    @Test func anExplicitListThatStopsShortOfTheSetIsRefused() throws {
        let store = Self.store(["x.001", "x.002", "x.003", "x.004"])
        let short = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.resolve(["x.001", "x.002"].map(Self.location), store: store)
        }
        #expect(short?.code == .missingPart)
        #expect(short?.path == "s3://bucket/x.003")
        #expect(
            short?.message
                == "lies beside the listed parts but is not in the list, which stops at s3://bucket/x.002: the output "
                + "would lack 2 parts (s3://bucket/x.003 … s3://bucket/x.004). Give every part (or the first alone: "
                + "gcdcat merge s3://bucket/x.001), or use --as-given to merge the list as it is")
        let unlisted = Self.store(["x.001", "x.002", "x.003", "x.004"])
        let asGiven = try ObjectDiscovery.resolve(
            ["x.001", "x.002"].map(Self.location), store: unlisted, asGiven: true)
        #expect(Self.keys(asGiven) == ["x.001", "x.002"])
        #expect(unlisted.listedPrefixes.isEmpty)
    }

    /// A discovered set that starts late carries the local refusal (used when no manifest
    /// vouches for its start), naming the part missing right before it.
    @Test func aLateStartCarriesTheLocalRefusal() throws {
        let store = Self.store(["l.001", "l.003", "y.002"])
        let gap = try ObjectDiscovery.resolve([Self.location("l.003")], store: store)
        #expect(gap.lateStart?.path == "s3://bucket/l.003")
        #expect(
            gap.lateStart?.message.hasPrefix("no s3://bucket/l.002 before it, though s3://bucket/l.001 is there")
                == true)
        let late = try ObjectDiscovery.resolve([Self.location("y.002")], store: store)
        #expect(late.lateStart?.message.hasPrefix("no s3://bucket/y.001 before it, so the set's first part") == true)
    }

    @Test func theShellsOrderIsRepairedWithANote() throws {
        let keys = (1...1001).map { "x.\(zeroPadded($0, width: 3))" }
        let store = Self.store(keys)
        let globOrder = keys.sorted().map(Self.location)
        let set = try ObjectDiscovery.resolve(globOrder, store: store, jobs: 4)
        #expect(Self.keys(set) == keys)
        #expect(set.resolved.notes.count == 1)
    }

    @Test func listingPrefixes() {
        #expect(ObjectDiscovery.listingPrefix(for: "dir/movie.zip.001") == "dir/movie.zip.")
        #expect(ObjectDiscovery.listingPrefix(for: "xaa") == "x")
        #expect(ObjectDiscovery.listingPrefix(for: "disk_001") == "disk")
        #expect(ObjectDiscovery.listingPrefix(for: "f.mkv.part1") == "f.mkv.")
        #expect(ObjectDiscovery.listingPrefix(for: "notes") == "n")
        #expect(ObjectDiscovery.listingPrefix(for: "d/2024") == "d/")
        #expect(ObjectDiscovery.listingPrefix(for: "d/report.txt") == "d/report.")
    }

    @Test func locationsParse() throws {
        #expect(try ObjectLocation(parsing: "s3://b/a/k.001") == ObjectLocation(bucket: "b", key: "a/k.001"))
        #expect(try ObjectLocation(parsing: "s3://b/a b/ü") == ObjectLocation(bucket: "b", key: "a b/ü"))
        #expect(try ObjectLocation(parsing: "/tmp/s3://b/k") == nil)
        #expect(try ObjectLocation(parsing: "movie.zip.001") == nil)
        for bad in ["s3://", "s3://b", "s3://b/", "s3:///k"] {
            #expect(throws: GCDCatError.self, "\(bad)") { try ObjectLocation(parsing: bad) }
        }
        let list = ObjectLocation(bucket: "b", key: "sets/x.sfv")
        #expect(list.sibling("x.001") == ObjectLocation(bucket: "b", key: "sets/x.001"))
        #expect(list.sibling("./sub//x.001") == ObjectLocation(bucket: "b", key: "sets/sub/x.001"))
        #expect(ObjectLocation(bucket: "b", key: "x.sfv").sibling("x.001").key == "x.001")
    }

    @Test func aManifestObjectParsesAsALocalOne() throws {
        let text = "; comment\r\nx.001 CBF43926\r\nsub/x.002\t0000000a\n"
        let memory = MemoryObjectStore(objects: [
            Self.location("sets/x.sfv"): Array(text.utf8),
            Self.location("sets/bad.sfv"): Array("x.001 nothex!!\n".utf8),
            Self.location("sets/empty.sfv"): [],
        ])
        let list = try ObjectDiscovery.loadList(Self.location("sets/x.sfv"), store: memory)
        #expect(list.entries.map(\.name) == ["x.001", "sub/x.002"])
        #expect(list.entries.map(\.expected) == ["cbf43926", "0000000a"])
        let manifest = try ObjectDiscovery.loadManifest(Self.location("sets/x.sfv"), store: memory)
        #expect(manifest.entries.map(\.crc32) == [0xCBF4_3926, 10])
        let bad = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.loadList(Self.location("sets/bad.sfv"), store: memory)
        }
        #expect(bad?.code == .malformedManifest)
        #expect(bad?.path == "s3://bucket/sets/bad.sfv")
        #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.loadList(Self.location("sets/empty.sfv"), store: memory)
        }
        let missing = #expect(throws: GCDCatError.self) {
            try ObjectDiscovery.loadList(Self.location("sets/none.sfv"), store: memory)
        }
        #expect(missing?.description == "s3://bucket/sets/none.sfv: No such object")
    }

    /// A HEAD answers 404 with no body whether the object or its bucket is missing; HeadBucket
    /// tells which, and when it cannot answer the object is what is reported.
    @Test func aMissingBucketIsNamedAsSuch() throws {
        let gone = ObjectLocation(bucket: "gone", key: "x.001")
        let memory = MemoryObjectStore(objects: [Self.location("x.001"): [1]], missingBuckets: ["gone"])
        for store in [memory, MemoryObjectStore(missingBuckets: ["gone"])] {
            let resolved = #expect(throws: GCDCatError.self) { try ObjectDiscovery.resolve([gone], store: store) }
            #expect(resolved?.description == "s3://gone/x.001: No such bucket")
            #expect(resolved?.code == .missingPart)
            let list = #expect(throws: GCDCatError.self) {
                try ObjectDiscovery.loadList(ObjectLocation(bucket: "gone", key: "x.sfv"), store: store)
            }
            #expect(list?.description == "s3://gone/x.sfv: No such bucket")
        }
        let heads = ObjectReader(store: memory, jobs: 2).headsEach([Self.location("x.001"), gone, Self.location("y")])
        #expect(heads.map { (try? $0.get())?.size } == [1, nil, nil])
        #expect(
            heads.map { if case .failure(let error) = $0 { error.description } else { "ok" } } == [
                "ok", "s3://gone/x.001: No such bucket", "s3://bucket/y: No such object",
            ])
        memory.failAlways("HeadBucket")
        let unknown = #expect(throws: GCDCatError.self) { try ObjectDiscovery.resolve([gone], store: memory) }
        #expect(unknown?.description == "s3://gone/x.001: No such object")
    }
}
