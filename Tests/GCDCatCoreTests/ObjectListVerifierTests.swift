import GCDCatCore
import Testing

/// `verify` of a list that is an object: names relative to its folder, OK/FAILED/MISSING/REJECTED
/// as for files, the server's crc32 used and counted.
@Suite struct ObjectListVerifierTests {
    static func location(_ key: String) -> ObjectLocation { ObjectLocation(bucket: "b", key: key) }

    static func crc(_ bytes: [UInt8]) -> String {
        var checksum = Checksum(.crc32)
        checksum.update(bytes)
        return checksum.hex
    }

    static func sha256(_ bytes: [UInt8]) throws -> String {
        var digester = try Digester(.sha256)
        digester.update(bytes)
        return digester.finalize()
    }

    /// Three parts under `sets/`, and a list naming them, one missing and one outside.
    static func fixture() throws -> (MemoryObjectStore, ChecksumList, [[UInt8]]) {
        let parts = (1...3).map { seededBytes(40 + $0 * 17, seed: UInt64($0)) }
        var objects: [ObjectLocation: [UInt8]] = [:]
        for (index, bytes) in parts.enumerated() { objects[location("sets/x.00\(index + 1)")] = bytes }
        var corrupt = parts[1]
        corrupt[5] ^= 0xFF
        objects[location("sets/x.002")] = corrupt
        objects[location("sets/sub/y.bin")] = parts[0]
        let text = """
            x.001 \(crc(parts[0]))
            ./x.002 \(crc(parts[1]))
            x.003 \(crc(parts[2]))
            x.004 00000000
            ../x.001 \(crc(parts[0]))
            \(try sha256(parts[0]))  sub/y.bin

            """
        objects[location("sets/x.sfv")] = Array(text.utf8)
        let list = try ObjectDiscovery.loadList(location("sets/x.sfv"), store: MemoryObjectStore(objects: objects))
        return (MemoryObjectStore(objects: objects), list, parts)
    }

    @Test(arguments: [1, 4])
    func outcomesReadLikeALocalVerify(jobs: Int) throws {
        let (memory, list, parts) = try Self.fixture()
        let located = ObjectListVerifier.locate(
            list.entries, listObject: Self.location("sets/x.sfv"), store: memory, jobs: jobs)
        let reader = ObjectReader(store: memory, jobs: jobs, rangeSize: 16)
        let verification = ObjectListVerifier.verify(located, reader: reader)
        var corrupt = parts[1]
        corrupt[5] ^= 0xFF
        #expect(
            verification.outcomes.map(\.line) == [
                "x.001: OK",
                "./x.002: FAILED (expected \(Self.crc(parts[1])), got \(Self.crc(corrupt)))",
                "x.003: OK",
                "x.004: MISSING",
                "../x.001: REJECTED ('..' component; not opened)",
                "sub/y.bin: OK",
            ])
        #expect(verification.outcomes[1].path == "s3://b/sets/x.002")
        #expect(verification.outcomes[5].path == "s3://b/sets/sub/y.bin")
        #expect(ChecksumListVerifier.exitStatus(verification.outcomes) == 1)
        #expect(verification.bytesRead == UInt64(parts[0].count * 2 + parts[1].count + parts[2].count))
        #expect(verification.trustedFromServer == 0)
        #expect(ObjectListVerifier.bytesToRead(located, trustServer: true) == Int64(verification.bytesRead))
        // Only the mismatch left: exit 2.
        let mismatchOnly = Array(verification.outcomes.prefix(3))
        #expect(ChecksumListVerifier.exitStatus(mismatchOnly) == 2)
    }

    /// A list joined from two tools' (sha256 and sha3-256 lines, both 64 hex digits): the line
    /// that matches confirms the sha256 guess, a line that matches as sha3-256 is UNCONFIRMED
    /// (read again under each other algorithm of that length), and one that matches under none
    /// is FAILED: the verdicts a local list gets (``ListVerdict``).
    @Test(arguments: [1, 3])
    func aListMixingTwoAlgorithmsOfOneLengthGetsTheLocalVerdicts(jobs: Int) throws {
        let bytes = (1...3).map { seededBytes(30 + $0 * 11, seed: UInt64(90 + $0)) }
        var sha3 = try Digester(.sha3Bits256)
        sha3.update(bytes[1])
        var objects: [ObjectLocation: [UInt8]] = [:]
        for (index, data) in bytes.enumerated() { objects[Self.location("m/f\(index)")] = data }
        objects[Self.location("m/f2")]![0] ^= 0xFF
        let text = "\(try Self.sha256(bytes[0]))  f0\n\(sha3.finalize())  f1\n\(try Self.sha256(bytes[2]))  f2\n"
        objects[Self.location("m/LIST")] = Array(text.utf8)
        let memory = MemoryObjectStore(objects: objects)
        let list = try ObjectDiscovery.loadList(Self.location("m/LIST"), store: memory)
        #expect(list.entries.allSatisfy { $0.guessed && $0.algorithm == .sha256 })
        let located = ObjectListVerifier.locate(
            list.entries, listObject: Self.location("m/LIST"), store: memory, jobs: jobs)
        let verification = ObjectListVerifier.verify(
            located, reader: ObjectReader(store: memory, jobs: jobs, rangeSize: 16))
        #expect(verification.outcomes.map(\.status.word) == ["OK", "UNCONFIRMED", "FAILED"])
        #expect(ChecksumListVerifier.exitStatus(verification.outcomes) == 1)
        // Every object once; then f1 and f2 (no match) as blake2b-256 and as sha3-256.
        let counts = bytes.map(\.count)
        #expect(verification.bytesRead == UInt64(counts[0] + 3 * counts[1] + 3 * counts[2]))
    }

    @Test func theServersCRCReplacesReading() throws {
        let (memory, list, parts) = try Self.fixture()
        let store = InstrumentedStore(memory, reportsCRC32: true)
        let located = ObjectListVerifier.locate(
            list.entries, listObject: Self.location("sets/x.sfv"), store: store, jobs: 2)
        let verification = ObjectListVerifier.verify(
            located, reader: ObjectReader(store: store, jobs: 2, rangeSize: 16))
        #expect(verification.outcomes.map(\.status.word) == ["OK", "FAILED", "OK", "MISSING", "REJECTED", "OK"])
        #expect(verification.trustedFromServer == 3)
        #expect(verification.sources == [.server, .server, .server, nil, nil, .read])
        // Only the sha256 object was read.
        #expect(verification.bytesRead == UInt64(parts[0].count))
        #expect(memory.callCount("GetObject") == (parts[0].count + 15) / 16)
        let readAll = ObjectListVerifier.verify(
            located, reader: ObjectReader(store: store, jobs: 2, rangeSize: 16), trustServer: false)
        #expect(readAll.trustedFromServer == 0)
        #expect(readAll.outcomes.map(\.status.word) == ["OK", "FAILED", "OK", "MISSING", "REJECTED", "OK"])
    }

    @Test func aFailingGetIsUnreadableAndTheRestAreChecked() throws {
        let (memory, list, _) = try Self.fixture()
        let located = ObjectListVerifier.locate(
            list.entries, listObject: Self.location("sets/x.sfv"), store: memory, jobs: 1)
        memory.failCall("GetObject", at: 1)
        let verification = ObjectListVerifier.verify(
            located, reader: ObjectReader(store: memory, jobs: 1, rangeSize: 1 << 20))
        #expect(
            verification.outcomes.map(\.status.word) == ["UNREADABLE", "FAILED", "OK", "MISSING", "REJECTED", "OK"])
        #expect(
            verification.outcomes[0].line
                == "x.001: UNREADABLE (s3://b/sets/x.001: GetObject: InternalError (HTTP 500): injected failure)")
    }

    @Test func checksumsOfNamedObjectsNameTheMissingOne() throws {
        let (memory, _, parts) = try Self.fixture()
        let reader = ObjectReader(store: memory, jobs: 3, rangeSize: 16)
        let names = ["sets/x.001", "sets/none", "sets/x.003"].map(Self.location)
        let (results, bytesRead) = reader.hashesEach(of: names, algorithm: .crc32)
        #expect(try results[0].get().hex == Self.crc(parts[0]))
        #expect(try results[2].get().hex == Self.crc(parts[2]))
        if case .failure(let error) = results[1] {
            #expect(error.description == "s3://b/sets/none: No such object")
        } else {
            Issue.record("a missing object must fail")
        }
        #expect(bytesRead == UInt64(parts[0].count + parts[2].count))
    }
}
