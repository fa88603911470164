import Testing

@testable import GCDCatCore

/// The packet reader and set assembly on untrusted .par2 files: real ones from par2cmdline
/// 0.8.1 (Fixtures/par2, made with `par2 create -s512 -r30 set.par2 alpha.bin beta.bin`), and
/// the same files flipped, cut and given hostile counts.
@Suite struct Par2PacketReaderTests {
    static let fixtures: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/Fixtures/par2"
    }()
    static let volumes = ["set.par2", "set.vol0+1.par2", "set.vol1+2.par2", "set.vol3+2.par2"]

    @Test func readsParCmdlineSet() throws {
        let set = try Par2RecoverySet.load(indexPath: Self.fixtures + "/set.par2")
        #expect(set.sliceSize == 512)
        #expect(set.files.map(\.name).sorted() == ["alpha.bin", "beta.bin"])
        #expect(set.files.map(\.length).sorted() == [2049, 5000])
        #expect(set.sliceCount == 15)
        #expect(set.recoverySlices.map(\.exponent) == [0, 1, 2, 3, 4])
        #expect(set.damagedPackets == 0)
        // par2cmdline orders the files by id as a little-endian number.
        #expect(set.files[0].id < set.files[1].id)
        let verification = try Par2Verifier.verify(set, jobs: 2)
        #expect(verification.isComplete)
    }

    /// A packet is accepted only if it is byte for byte one of the original file's packets.
    static func signature(_ packet: Par2ScannedPacket, file: [UInt8]) -> [UInt8] {
        var bytes = packet.setID.bytes + packet.type.signature + packet.body
        if let recovery = packet.recovery {
            bytes += littleEndian(UInt32(recovery.exponent))
            bytes += file[Int(recovery.dataOffset)..<Int(recovery.dataOffset) + recovery.length]
        }
        return bytes
    }

    @Test func damagedFilesNeverCrashAndNeverYieldADamagedPacket() throws {
        let scratch = TemporaryDirectory()
        var generator = SplitMix64(seed: 2023)
        for name in Self.volumes {
            let original = readFile(Self.fixtures + "/" + name)!
            writeFile(scratch.file("original"), original)
            let good = Set(
                try Par2PacketReader.scan(path: scratch.file("original")).packets.map {
                    Self.signature($0, file: original)
                })
            #expect(!good.isEmpty)
            for round in 0..<150 {
                var mutated = original
                switch round % 3 {
                case 0:  // byte flips
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        mutated[Int.random(in: 0..<mutated.count, using: &generator)] ^= UInt8.random(
                            in: 1...255, using: &generator)
                    }
                case 1:  // truncation
                    mutated = Array(mutated.prefix(Int.random(in: 0..<mutated.count, using: &generator)))
                default:  // a hostile length field in a random packet header
                    let starts = (0..<mutated.count - 8).filter { mutated[$0..<$0 + 8].elementsEqual(Par2Packet.magic) }
                    let start = starts.randomElement(using: &generator)!
                    let hostile: [UInt64] = [
                        0, 4, 63, 64, UInt64.max, UInt64.max - 63, 1 << 62, UInt64(mutated.count) * 2,
                    ]
                    let length = hostile.randomElement(using: &generator)!
                    mutated.replaceSubrange(start + 8..<start + 16, with: littleEndian(length))
                }
                let path = scratch.file("mutated")
                writeFile(path, mutated)
                let scanned = try Par2PacketReader.scan(path: path)
                for packet in scanned.packets {
                    #expect(good.contains(Self.signature(packet, file: mutated)), "round \(round) of \(name)")
                }
            }
        }
    }

    /// Bytes that are no packet, before the first packet and between packets, are skipped: the
    /// scan looks for the next magic where the last packet ended, then searches on from there.
    @Test func packetsAfterBytesThatAreNoPacketAreStillFound() throws {
        let scratch = TemporaryDirectory()
        for name in Self.volumes {
            let original = readFile(Self.fixtures + "/" + name)!
            writeFile(scratch.file("original"), original)
            let expected = try Par2PacketReader.scan(path: scratch.file("original")).packets.map {
                Self.signature($0, file: original)
            }
            #expect(expected.count > 1)
            let starts = (0..<original.count - 8).filter { original[$0..<$0 + 8].elementsEqual(Par2Packet.magic) }
            var padded = original
            for start in starts.reversed() {
                padded.insert(contentsOf: Array("PAR2 junk,".utf8) + [0, 7, 13], at: start)
            }
            writeFile(scratch.file("padded"), padded)
            let scanned = try Par2PacketReader.scan(path: scratch.file("padded"))
            #expect(scanned.packets.map { Self.signature($0, file: padded) } == expected, "\(name)")
            #expect(scanned.damaged.isEmpty, "\(name)")
        }
    }

    @Test func setSurvivesOneDamagedCopyOfEachCriticalPacket() throws {
        let scratch = TemporaryDirectory()
        for name in Self.volumes + ["alpha.bin", "beta.bin"] {
            writeFile(scratch.file(name), readFile(Self.fixtures + "/" + name)!)
        }
        var index = readFile(scratch.file("set.par2"))!
        for offset in stride(from: 100, to: index.count, by: 64) { index[offset] ^= 0x55 }
        writeFile(scratch.file("set.par2"), index)
        let set = try Par2RecoverySet.load(indexPath: scratch.file("set.par2"))
        #expect(set.damagedPackets > 0)
        #expect(set.files.count == 2)
        #expect(try Par2Verifier.verify(set, jobs: 1).isComplete)
    }

    /// A main packet (and file description) with a valid hash but hostile contents.
    static func assemble(main: [UInt8], extra: [(Par2PacketType, [UInt8])] = []) throws -> Par2RecoverySet {
        let setID = Par2Hash.md5(main)
        var packets = [Par2ScannedPacket(setID: setID, type: .main, body: main, recovery: nil)]
        for (type, body) in extra {
            packets.append(Par2ScannedPacket(setID: setID, type: type, body: body, recovery: nil))
        }
        return try Par2RecoverySet.assemble(packets, damaged: 0, directory: "/tmp", origin: "x.par2")
    }

    static func fileDescription(name: [UInt8], length: UInt64 = 10) -> (Par2Hash, [UInt8]) {
        let md5First16K = Par2Hash.md5([UInt8](repeating: 1, count: 10))
        let id = Par2Hash.md5(md5First16K.bytes + littleEndian(length) + name)
        return (id, id.bytes + md5First16K.bytes + md5First16K.bytes + littleEndian(length) + Par2Packet.padded(name))
    }

    @Test func hostileCountsAndNamesAreRefusedBeforeUse() throws {
        let error = { (body: () throws -> Par2RecoverySet) -> String? in
            do {
                _ = try body()
                return nil
            } catch let error as GCDCatError {
                #expect(error.code == .malformedManifest)
                return error.message
            } catch { return "\(error)" }
        }
        // Four billion files, none listed.
        let huge = littleEndian(UInt64(512)) + littleEndian(UInt32.max)
        #expect(error { try Self.assemble(main: huge) }?.contains("counts more files") == true)
        // A slice size of 2^62, and one that is not a multiple of 4.
        #expect(
            error { try Self.assemble(main: littleEndian(UInt64(1) << 62) + littleEndian(UInt32(0))) }?.contains(
                "out of bounds") == true)
        #expect(
            error { try Self.assemble(main: littleEndian(UInt64(514)) + littleEndian(UInt32(0))) }?.contains(
                "out of bounds") == true)
        for (name, why) in [("../evil", "'..'"), ("/etc/passwd", "absolute"), ("a/../../b", "'..'"), ("a\0b", "NUL")] {
            let (id, body) = Self.fileDescription(name: Array(name.utf8))
            let main = littleEndian(UInt64(512)) + littleEndian(UInt32(1)) + id.bytes
            #expect(
                error { try Self.assemble(main: main, extra: [(.fileDescription, body)]) }?.contains(why) == true,
                "\(name)")
        }
        // A file of 2^40 bytes in 512-byte slices: more slices than PAR2 allows.
        let (id, body) = Self.fileDescription(name: Array("big".utf8), length: 1 << 40)
        let main = littleEndian(UInt64(512)) + littleEndian(UInt32(1)) + id.bytes
        #expect(
            error { try Self.assemble(main: main, extra: [(.fileDescription, body)]) }?.contains("more than 32768")
                == true)
        #expect(error { try Self.assemble(main: main) }?.contains("damaged or missing") == true)
    }

    /// gcdcat's record (a split's empty parts, its repeated header) is untrusted input too: its
    /// names are confined as a file description's are, and counts or lengths it does not hold
    /// leave it unread.
    @Test func theSetRecordIsReadWithItsNamesConfinedAndCountsBounded() throws {
        let main = littleEndian(UInt64(512)) + littleEndian(UInt32(0))
        let record = Par2SetRecord(
            emptyFiles: ["p.003", "sub/p.004"], header: Par2SetRecord.Header(size: 6, crc32: 0x1234_5678))
        let set = try Self.assemble(main: main, extra: [(.gcdcatRecord, record.body)])
        #expect(set.files.map(\.name) == ["p.003", "sub/p.004"])
        #expect(set.files.allSatisfy { $0.length == 0 && $0.slices.isEmpty && $0.md5 == Par2Hash.md5([]) })
        #expect(set.header == Par2SetRecord.Header(size: 6, crc32: 0x1234_5678))
        for (name, why) in [("../evil", "'..'"), ("/etc/passwd", "absolute"), ("a\0b", "NUL"), ("", "empty")] {
            let hostile = Par2SetRecord(emptyFiles: [name]).body
            do {
                _ = try Self.assemble(main: main, extra: [(.gcdcatRecord, hostile)])
                Issue.record("\(name) was accepted")
            } catch let error as GCDCatError {
                #expect(error.code == .malformedManifest && error.message.contains(why), "\(error.message)")
            }
        }
        // Four billion names in 24 bytes, a name longer than the body, another version, unknown
        // flags, a header of 0 bytes: the record is not read.
        let header =
            littleEndian(UInt32(1)) + littleEndian(UInt32(0)) + littleEndian(UInt64(0)) + littleEndian(UInt32(0))
        for body in [
            header + littleEndian(UInt32.max),
            header + littleEndian(UInt32(1)) + littleEndian(UInt32(1 << 30)) + Array("abcd".utf8),
            littleEndian(UInt32(2)) + Array(header.dropFirst(4)) + littleEndian(UInt32(0)),
            littleEndian(UInt32(1)) + littleEndian(UInt32(2)) + Array(header.dropFirst(8)) + littleEndian(UInt32(0)),
            littleEndian(UInt32(1)) + littleEndian(UInt32(1)) + Array(header.dropFirst(8)) + littleEndian(UInt32(0)),
        ] {
            let set = try Self.assemble(main: main, extra: [(.gcdcatRecord, body)])
            #expect(set.files.isEmpty && set.header == nil)
        }
    }
}

/// A name from a `.par2` must stay inside the set's folder and name one file one way: `./a.bin`
/// beside `a.bin` had repair overwrite the good `a.bin` with the other file's bytes.
@Suite struct Par2NameTests {
    @Test(arguments: [
        ("a.bin", nil), ("sub/a.bin", nil), ("", "is empty"), ("/etc/passwd", "is absolute"),
        ("sub/../../x", "contains '..'"), ("sub//a.bin", "has an empty component"), ("./a.bin", "has a '.' component"),
        ("sub/./a.bin", "has a '.' component"), (".a.bin", nil), ("a.bin.", nil),
        (String(repeating: "b", count: 255), nil),
        (String(repeating: "b", count: 256), "has a component longer than 255 bytes"),
        (
            String(repeating: "d", count: 255) + "/" + String(repeating: "b", count: 256),
            "has a component longer than 255 bytes"
        ),
        (
            Array(repeating: String(repeating: "d", count: 200), count: 21).joined(separator: "/"),
            "is longer than 4095 bytes"
        ),
    ])
    func unsafeNamesAreRefused(name: String, reason: String?) {
        #expect(Par2RecoverySet.unsafeNameReason(Array(name.utf8)) == reason)
    }
}
