import Testing

@testable import GCDCatCore

/// S3 keys are bytes: `é` in NFC (C3 A9) and in NFD (65 CC 81) are two objects, though Swift's
/// `String` calls them equal.
struct ObjectKeyBytesTests {
    static let nfc = "caf\u{E9}.001"
    static let nfd = "cafe\u{301}.001"

    @Test func nfcAndNFDKeysAreDifferentLocations() {
        let composed = ObjectLocation(bucket: "bkt", key: Self.nfc)
        let decomposed = ObjectLocation(bucket: "bkt", key: Self.nfd)
        #expect(Self.nfc == Self.nfd)  // what String says
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(composed == ObjectLocation(bucket: "bkt", key: "caf\u{E9}.001"))
    }

    /// Two parts named on the command line resolve to two objects, each with its own size; as
    /// sets they are part 001 of two different names, refused as two sets (not as one twice).
    @Test func anNFCAndAnNFDPartResolveToTwoObjects() throws {
        let store = MemoryObjectStore()
        store.store(S3MergeTests.at(Self.nfc), [UInt8](repeating: 1, count: 4))
        store.store(S3MergeTests.at(Self.nfd), [UInt8](repeating: 2, count: 2))
        let given = [S3MergeTests.at(Self.nfc), S3MergeTests.at(Self.nfd)]
        let set = try ObjectDiscovery.resolve(given, store: store, asGiven: true)
        #expect(set.parts.map(\.size) == [4, 2])
        #expect(set.parts.map { Array($0.location.key.utf8) } == [Array(Self.nfc.utf8), Array(Self.nfd.utf8)])
        let error = #expect(throws: GCDCatError.self) { try ObjectDiscovery.resolve(given, store: store) }
        #expect(error?.message.contains("another set than") == true)
    }

    /// The outside check's merge of an NFC part and an NFD part: refused as "given twice".
    @Test func aMergeOfAnNFCAndAnNFDPartJoinsBoth() throws {
        let store = MemoryObjectStore()
        let first = [UInt8](repeating: 1, count: 100)
        let second = [UInt8](repeating: 2, count: 200)
        store.store(S3MergeTests.at(Self.nfc), first)
        store.store(S3MergeTests.at(Self.nfd), second)
        let parts = try S3MergeTests.heads(store, [S3MergeTests.at(Self.nfc), S3MergeTests.at(Self.nfd)])
        _ = try ObjectSetMerge(
            store: store, parts: parts, manifest: nil, output: S3MergeTests.objectOutput(store, "joined")
        ).run()
        #expect(store.bytes(S3MergeTests.at("joined")) == first + second)
    }
}
