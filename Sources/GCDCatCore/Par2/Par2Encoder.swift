/// Builds a recovery set in one pass over its input slices.
///
/// The files' names, lengths and first-16-KiB MD5s come first (they make the file ids, whose
/// order decides each slice's constant); then each file's slices, in order within the file
/// (files may come in any order, as a split writes its parts). ``finish()`` gives the packets.
///
/// Memory: the recovery slices (count × slice size), the accumulator's batch of inputs (16 MiB,
/// or one slice if larger) and the caller's slice buffer.
public final class Par2Encoder {
    public struct Description: Sendable {
        public var name: String
        public var length: Int64
        public var md5First16K: Par2Hash

        public init(name: String, length: Int64, md5First16K: Par2Hash) {
            self.name = name
            self.length = length
            self.md5First16K = md5First16K
        }

        var id: Par2Hash {
            Par2Hash.md5(md5First16K.bytes + littleEndian(UInt64(length)) + PathName.bytes(of: name))
        }

        func sliceCount(_ sliceSize: Int) -> Int { Int((length + Int64(sliceSize) - 1) / Int64(sliceSize)) }
    }

    /// What ``finish()`` returns: the critical packets (for the index file and every volume)
    /// and the recovery slices' packets, each as its header and body.
    public struct Packets {
        public var setID: Par2Hash
        public var critical: [[UInt8]]
        public var creator: [UInt8]
        /// Exponent order; `header` ends with the 4-byte exponent, `data` is the slice.
        public var recovery: [(header: [UInt8], data: UnsafeRawBufferPointer)]
    }

    public let sliceSize: Int
    public let descriptions: [Description]
    /// Indices into `descriptions`, in the main packet's (file id) order.
    let order: [Int]
    /// The global index of each description's first slice.
    let firstSlice: [Int]
    let constants: [UInt16]
    let accumulator: Par2SliceAccumulator
    private var checksums: [[Par2RecoverySet.SliceChecksum]]
    private var wholeMD5: [Par2Hash?]
    private var running: [MD5Stream] = []
    /// Slices added per file (their checksums come at the next flush).
    private var added: [Int]
    private var batched: [BatchedSlice] = []

    /// ## Errors
    /// `.invalidInput` when the set has more than PAR2's 32 768 slices or the names clash;
    /// `.io` when the recovery slices do not fit in memory.
    /// With `overlapped`, a full batch is multiplied in and hashed on other threads while the
    /// caller goes on adding slices to a second batch (memory: one batch more).
    public init(
        descriptions: [Description], sliceSize: Int, recoverySlices: Int, jobs: Int, overlapped: Bool = false,
        path: String
    ) throws {
        precondition(sliceSize > 0 && sliceSize % 4 == 0)
        self.sliceSize = sliceSize
        self.descriptions = descriptions
        let ids = descriptions.map(\.id)
        guard Set(ids).count == ids.count else {
            throw GCDCatError(.invalidInput, path: path, message: "two inputs have the same name")
        }
        order = descriptions.indices.sorted { ids[$0] < ids[$1] }
        var first = [Int](repeating: 0, count: descriptions.count)
        var next = 0
        for index in order {
            first[index] = next
            next += descriptions[index].sliceCount(sliceSize)
        }
        guard next <= Par2RecoverySet.maximumSlices else {
            throw GCDCatError(
                .invalidInput, path: path,
                message: "\(next) blocks is more than PAR2's \(Par2RecoverySet.maximumSlices); use a larger block size")
        }
        guard recoverySlices <= GaloisField16.order else {
            throw GCDCatError(.invalidInput, path: path, message: "more than 65535 recovery blocks")
        }
        firstSlice = first
        constants = Par2SliceConstants.constants(count: next)
        accumulator = try Par2SliceAccumulator(
            count: recoverySlices, sliceSize: sliceSize, jobs: jobs, overlapped: overlapped, path: path)
        checksums = Array(repeating: [], count: descriptions.count)
        wholeMD5 = Array(repeating: nil, count: descriptions.count)
        added = Array(repeating: 0, count: descriptions.count)
        for _ in descriptions { running.append(MD5Stream()) }
    }

    /// Adds slice `index` of file `file` (`bytes` of its data: the slice size, or the rest of the
    /// file for its last slice). Slices of one file must come in order. `padding` is no longer
    /// used (the accumulator pads its own copy); it stays for the callers' sake.
    public func add(file: Int, slice index: Int, bytes: UnsafeRawBufferPointer, padding buffer: inout [UInt8]) {
        precondition(index == added[file] && bytes.count <= sliceSize)
        added[file] += 1
        let constant = constants[firstSlice[file] + index]
        let coefficients = (0..<accumulator.count).map { GaloisField16.power(constant, $0) }
        let slot = accumulator.add(bytes, coefficients: coefficients)
        batched.append(BatchedSlice(file: file, slot: slot, length: bytes.count))
        if accumulator.isFull { flush() }
    }

    /// Slices whose MD5s are computed together (the multi-buffer MD5's lanes).
    static let hashLanes = 8

    /// A slice in the accumulator's batch, waiting for its hashes.
    private struct BatchedSlice {
        var file: Int
        var slot: Int
        var length: Int
    }

    /// Multiplies the batch into the recovery slices while the other work hashes it: each slice's
    /// MD5 and CRC32, and each file's running MD5 (in order; up to eight files' streams a piece,
    /// in lanes). Overlapped, it returns at once and the checksums are recorded when the next
    /// flush finds this one ended.
    private func flush() {
        guard !batched.isEmpty else { return }
        let slices = batched
        batched.removeAll(keepingCapacity: true)
        let results = HashResults(count: slices.count)
        // Each slot's bytes now: overlapped, the accumulator fills the other batch meanwhile.
        let slots = SlotBytes(slices.map { accumulator.batched($0.slot) })
        var work = fileHashWork(slices, slots)
        // The slices' own MD5s are independent streams: eight at a time run through the
        // multi-buffer MD5, a quarter of the cost of one stream each (1 GiB create: 2.3 of 13.9
        // CPU seconds were these hashes).
        for group in stride(from: 0, to: slices.count, by: Self.hashLanes) {
            let positions = Array(group..<min(group + Self.hashLanes, slices.count))
            work.append {
                let bytes = positions.map { slots.bytes[$0] }
                let streams = positions.map { _ in MD5Stream() }
                MD5Stream.update(streams, with: bytes)
                for (lane, position) in positions.enumerated() {
                    var crc = Checksum(.crc32)
                    crc.update(bytes[lane])
                    results.store(position, .init(md5: streams[lane].finalize(), crc32: crc.value))
                }
            }
        }
        let record = { [self] in
            for (position, slice) in slices.enumerated() {
                checksums[slice.file].append(results.value(position))
                if checksums[slice.file].count == descriptions[slice.file].sliceCount(sliceSize) {
                    wholeMD5[slice.file] = running[slice.file].finalize()
                }
            }
        }
        if accumulator.overlapped {
            accumulator.flushInBackground(alongside: work, then: record)
        } else {
            accumulator.flush(alongside: work)
            record()
        }
    }

    /// The files' running MD5s over a batch: files in groups of ``hashLanes``, a piece each, whose
    /// round r hashes every file's r-th slice of the batch in one multi-buffer MD5 call. A batch
    /// of one file's slices (as a split feeds them) is one stream, as before; `protect` feeds
    /// eight files' slices in turn, which makes their whole-file MD5s a quarter of the cost.
    private func fileHashWork(_ slices: [BatchedSlice], _ slots: SlotBytes) -> [@Sendable () -> Void] {
        let files = Set(slices.map(\.file)).sorted()
        var work: [@Sendable () -> Void] = []
        for group in stride(from: 0, to: files.count, by: Self.hashLanes) {
            let members = files[group..<min(group + Self.hashLanes, files.count)]
            let streams = SendableMD5s(members.map { running[$0] })
            // pieces[k]: the (slot position, length) of file members[k]'s slices, in order.
            let pieces = members.map { file in
                slices.indices.filter { slices[$0].file == file }.map { ($0, slices[$0].length) }
            }
            work.append {
                for round in 0..<(pieces.map(\.count).max() ?? 0) {
                    let lanes = pieces.indices.filter { round < pieces[$0].count }
                    MD5Stream.update(
                        lanes.map { streams.streams[$0] },
                        with: lanes.map { lane in
                            let (position, length) = pieces[lane][round]
                            return UnsafeRawBufferPointer(rebasing: slots.bytes[position][0..<length])
                        })
                }
            }
        }
        return work
    }

    /// The packets; every file must have had all its slices. A non-empty `record` (a split's
    /// empty parts, its repeated header) joins the critical packets, so that every volume holds it.
    public func finish(creator: String, record: Par2SetRecord = Par2SetRecord()) -> Packets {
        flush()
        accumulator.waitForBackgroundFlush()
        for (index, description) in descriptions.enumerated() where description.length == 0 {
            wholeMD5[index] = running[index].finalize()
        }
        let ids = descriptions.map(\.id)
        var main = littleEndian(UInt64(sliceSize)) + littleEndian(UInt32(descriptions.count))
        for index in order { main += ids[index].bytes }
        let setID = Par2Hash.md5(main)
        var critical = [Par2Packet.encode(setID: setID, type: .main, body: main)]
        for index in order {
            let description = descriptions[index]
            let body =
                ids[index].bytes + wholeMD5[index]!.bytes + description.md5First16K.bytes
                + littleEndian(UInt64(description.length)) + Par2Packet.padded(PathName.bytes(of: description.name))
            critical.append(Par2Packet.encode(setID: setID, type: .fileDescription, body: body))
        }
        for index in order {
            var body = ids[index].bytes
            for slice in checksums[index] { body += slice.md5.bytes + littleEndian(slice.crc32) }
            critical.append(Par2Packet.encode(setID: setID, type: .sliceChecksums, body: body))
        }
        if !record.isEmpty {
            critical.append(Par2Packet.encode(setID: setID, type: .gcdcatRecord, body: record.body))
        }
        let creatorPacket = Par2Packet.encode(
            setID: setID, type: .creator, body: Par2Packet.padded(Array(creator.utf8)))
        let recovery = (0..<accumulator.count).map { exponent in
            let data = UnsafeRawBufferPointer(accumulator.slice(exponent))
            let stream = MD5Stream()
            let prefix = setID.bytes + Par2PacketType.recoverySlice.signature + littleEndian(UInt32(exponent))
            prefix.withUnsafeBytes { stream.update($0) }
            stream.update(data)
            let header = Par2Packet.header(
                setID: setID, type: .recoverySlice, bodyLength: 4 + sliceSize, hash: stream.finalize())
            return (header + littleEndian(UInt32(exponent)), data)
        }
        return Packets(setID: setID, critical: critical, creator: creatorPacket, recovery: recovery)
    }
}

/// The batched slices' bytes, read by the hashing work on other threads.
private struct SlotBytes: @unchecked Sendable {
    let bytes: [UnsafeRawBufferPointer]
    init(_ bytes: [UnsafeRawBufferPointer]) { self.bytes = bytes }
}

/// MD5 streams handed to one piece of work at a time.
private struct SendableMD5s: @unchecked Sendable {
    let streams: [MD5Stream]
    init(_ streams: [MD5Stream]) { self.streams = streams }
}

/// The slice checksums of a batch, each written by one piece of work and read after all end
/// (raw storage: concurrent writes to distinct elements of an array property would trip Swift's
/// exclusivity checks).
private final class HashResults: @unchecked Sendable {
    private let values: UnsafeMutablePointer<Par2RecoverySet.SliceChecksum?>
    private let count: Int

    init(count: Int) {
        self.count = count
        values = .allocate(capacity: max(count, 1))
        values.initialize(repeating: nil, count: count)
    }

    deinit {
        values.deinitialize(count: count)
        values.deallocate()
    }

    func store(_ index: Int, _ value: Par2RecoverySet.SliceChecksum) { values[index] = value }

    func value(_ index: Int) -> Par2RecoverySet.SliceChecksum { values[index]! }
}
