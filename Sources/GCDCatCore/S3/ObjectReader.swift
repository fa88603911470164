import GCDCatS3
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads objects whose sizes are known as parallel ranged GETs, with bounded memory.
///
/// Two uses, one engine:
/// - ``read(_:_:)`` hands every filled range to a callback, concurrently and in no order:
///   an S3 → local merge writes each range at its offset (`pwrite`), as the `offsets` strategy does.
/// - ``checksums(_:algorithm:trustServer:)`` and ``hashes(_:algorithm:trustServer:)`` give each
///   object's crc32 (joined from its ranges' crc32s with `crc32_combine`), adler32, or md5/sha
///   digest: what `checksum` and `verify` print, and what a server-side merge checks its parts
///   against. Where the store reports an object's crc32 (``ObjectInfo/crc32``, from
///   `x-amz-checksum-crc32`), it is used instead of reading the object, and the result says so.
///
/// ## Errors
/// The first error wins: a failed GET (a ``GCDCatError`` naming the `s3://` object and the S3
/// operation) or whatever the callback throws. No range starts after it; ranges already being
/// read finish, then the error is rethrown.
///
/// ## Implementation details
/// The objects are cut into ranges of ``rangeSize`` bytes (an object of 0 bytes has none),
/// claimed in order by `min(jobs, ranges)` workers (``ParallelMap``). Each worker owns one
/// buffer of ``rangeSize`` bytes for its whole life and GETs straight into it, so memory is
/// `jobs × rangeSize` however large the objects are. An object that changes between ranges is
/// not detected here: the store's GETs carry no `If-Match`.
public struct ObjectReader: Sendable {
    /// 8 MiB: large enough that a request's round trip is small beside its transfer on
    /// loopback, small enough that `jobs` of them stay modest.
    public static let defaultRangeSize = 8 << 20

    public let store: any ObjectStore
    /// Ranged GETs in flight at once.
    public let jobs: Int
    /// Bytes per ranged GET, and per worker buffer.
    public let rangeSize: Int
    /// Counts the bytes read, for a progress bar; optional.
    public let counter: TransferCounter?

    public init(
        store: any ObjectStore, jobs: Int, rangeSize: Int = ObjectReader.defaultRangeSize,
        counter: TransferCounter? = nil
    ) {
        precondition(rangeSize > 0, "a range must hold at least one byte")
        self.store = store
        self.jobs = max(1, jobs)
        self.rangeSize = rangeSize
        self.counter = counter
    }

    /// One ranged GET: bytes `offset..<offset + length` of object `object` of the list.
    struct Slice: Sendable {
        var object: Int
        var offset: UInt64
        var length: Int
    }

    /// The ranges that cover `objects`, object after object, each in order.
    func slices(of objects: [ObjectInfo]) -> [Slice] {
        slices(covering: objects.map { 0..<$0.size })
    }

    /// What to do when a GET or the per-range work fails.
    enum FailurePolicy {
        /// Stop every worker and rethrow the first error.
        case cancelAll
        /// Record the error against its object, skip that object's other ranges, go on.
        case skipObject
    }

    /// Per-slice results (nil for a slice skipped after its object failed), each object's first
    /// error under ``FailurePolicy/skipObject``, and the bytes fetched.
    struct Mapped<Result: Sendable> {
        var results: [Result?]
        var failures: [Int: GCDCatError]
        var bytesRead: UInt64
    }

    /// GETs every slice into a worker's buffer and maps it through `body`, in parallel; the
    /// results come back in slice order.
    func map<Result: Sendable>(
        _ objects: [ObjectInfo], _ slices: [Slice], policy: FailurePolicy,
        _ body: @Sendable (Slice, UnsafeRawBufferPointer) throws -> Result
    ) throws -> Mapped<Result> {
        guard !slices.isEmpty else { return Mapped(results: [], failures: [:], bytesRead: 0) }
        let store = store
        let counter = counter
        let size = min(rangeSize, slices.map(\.length).max() ?? 1)
        let path = objects[slices[0].object].location.description
        let failures = Mutex<[Int: GCDCatError]>([:])
        let bytesRead = Atomic<UInt64>(0)
        let results = try ParallelMap.run(
            count: slices.count, jobs: jobs, pool: .threads,
            makeState: { try Syscall.allocate(byteCount: size, alignment: Int(getpagesize()), path: path) },
            finish: { free($0) }
        ) { buffer, index -> Result? in
            let slice = slices[index]
            let location = objects[slice.object].location
            let etag = objects[slice.object].etag
            if policy == .skipObject, failures.withLock({ $0[slice.object] != nil }) { return nil }
            do {
                let bytes = UnsafeMutableRawBufferPointer(start: buffer, count: slice.length)
                try store.get(
                    location, range: slice.offset..<slice.offset + UInt64(slice.length), ifMatch: etag, into: bytes)
                bytesRead.add(UInt64(slice.length), ordering: .relaxed)
                counter?.add(bytes: Int64(slice.length))
                return try body(slice, UnsafeRawBufferPointer(bytes))
            } catch let error where policy == .skipObject {
                let failure =
                    error as? GCDCatError ?? GCDCatError(.io, path: location.description, message: "\(error)")
                failures.withLock { if $0[slice.object] == nil { $0[slice.object] = failure } }
                return nil
            }
        }
        return Mapped(
            results: results, failures: failures.withLock { $0 }, bytesRead: bytesRead.load(ordering: .relaxed))
    }

    /// Reads every byte of `objects` and hands each range to
    /// `body(objectIndex, offsetInObject, bytes)`.
    ///
    /// `body` runs on several threads at once, in no particular order, and must be thread-safe;
    /// `bytes` is valid only during the call (the buffer is reused for the worker's next range).
    /// It is never called for an object of 0 bytes. Returns the bytes read.
    ///
    /// ## Errors
    /// See the type's "Errors": the first failed GET or the first error `body` throws.
    @discardableResult
    public func read(
        _ objects: [ObjectInfo], _ body: @Sendable (Int, UInt64, UnsafeRawBufferPointer) throws -> Void
    ) throws -> UInt64 {
        try map(objects, slices(of: objects), policy: .cancelAll) { slice, bytes in
            try body(slice.object, slice.offset, bytes)
        }.bytesRead
    }

    /// Where an object's value came from.
    public enum Source: String, Sendable, Codable {
        /// The store's own crc32 of the object (`x-amz-checksum-crc32`), trusted without reading.
        case server
        /// The crc32 gcdcat recorded in the object's metadata when it uploaded it
        /// (``RecordedChecksum``), trusted without reading.
        case recorded
        /// Computed from the object's bytes, read with ranged GETs.
        case read
    }

    /// One object's checksum.
    public struct ObjectChecksum: Sendable, Equatable {
        public var object: ObjectInfo
        public var checksum: Checksum
        public var source: Source
    }

    /// Checksums of a list of objects, and what it cost.
    public struct Checksums: Sendable, Equatable {
        /// One per object, in the order given.
        public var objects: [ObjectChecksum]
        /// Bytes fetched with GETs; 0 when every value came from the server.
        public var bytesRead: UInt64
        /// How many values came from the server rather than from reading.
        public var trustedFromServer: Int { count(.server) }
        /// How many came from gcdcat's recorded metadata.
        public var trustedFromRecord: Int { count(.recorded) }
        /// How many were computed from the objects' bytes.
        public var read: Int { count(.read) }

        public func count(_ source: Source) -> Int { objects.filter { $0.source == source }.count }
    }

    /// The `algorithm` checksum of each object. With `trustServer`, an object whose
    /// ``ObjectInfo/crc32`` is known is not read for a crc32: the server's value is used and
    /// marked ``Source/server``; with `trustRecorded`, one whose ``ObjectInfo/recordedCRC32``
    /// is known (gcdcat's metadata; the server's value comes first) is not read either, and is
    /// marked ``Source/recorded``. Ranges of all the other objects are checksummed in parallel
    /// and joined in order with `crc32_combine`/`adler32_combine`.
    ///
    /// ## Errors
    /// The first failed GET, naming its object; the rest is cancelled.
    public func checksums(
        _ objects: [ObjectInfo], algorithm: ChecksumAlgorithm = .crc32, trustServer: Bool = true,
        trustRecorded: Bool = false
    ) throws -> Checksums {
        let each = try checksums(
            objects, algorithm: algorithm, trustServer: trustServer, trustRecorded: trustRecorded, policy: .cancelAll)
        return Checksums(objects: try each.results.map { try $0.get() }, bytesRead: each.bytesRead)
    }

    /// Like ``checksums(_:algorithm:trustServer:)``, but an object that cannot be read fails on
    /// its own: its error takes its place and the others are still checksummed (what `verify`
    /// and `checksum` report, object by object).
    public func checksumsEach(
        _ objects: [ObjectInfo], algorithm: ChecksumAlgorithm = .crc32, trustServer: Bool = true
    ) -> (results: [Result<ObjectChecksum, GCDCatError>], bytesRead: UInt64) {
        do {
            return try checksums(
                objects, algorithm: algorithm, trustServer: trustServer, trustRecorded: false, policy: .skipObject)
        } catch {
            // Only a worker's buffer can fail outside an object: every object fails with it.
            let failure = error as? GCDCatError ?? GCDCatError(.io, message: "\(error)")
            return (objects.map { _ in .failure(failure) }, 0)
        }
    }

    private func checksums(
        _ objects: [ObjectInfo], algorithm: ChecksumAlgorithm, trustServer: Bool, trustRecorded: Bool,
        policy: FailurePolicy
    ) throws -> (results: [Result<ObjectChecksum, GCDCatError>], bytesRead: UInt64) {
        let trusted = objects.map { object -> (crc32: UInt32, source: Source)? in
            guard algorithm == .crc32 else { return nil }
            if trustServer, let crc32 = object.crc32 { return (crc32, .server) }
            if trustRecorded, let crc32 = object.recordedCRC32 { return (crc32, .recorded) }
            return nil
        }
        let toRead = objects.indices.filter { trusted[$0] == nil }
        let readObjects = toRead.map { objects[$0] }
        let slices = slices(of: readObjects)
        let mapped = try map(readObjects, slices, policy: policy) { _, bytes in
            var checksum = Checksum(algorithm)
            checksum.update(bytes)
            return checksum
        }
        let perObject = Self.joined(mapped.results, of: slices, count: readObjects.count, algorithm)
        var results: [Result<ObjectChecksum, GCDCatError>] = []
        var next = 0
        for (index, object) in objects.enumerated() {
            if let stored = trusted[index] {
                let checksum = Checksum(.crc32, value: stored.crc32, length: Int64(object.size))
                results.append(.success(ObjectChecksum(object: object, checksum: checksum, source: stored.source)))
            } else {
                if let failure = mapped.failures[next] {
                    results.append(.failure(failure))
                } else {
                    results.append(.success(ObjectChecksum(object: object, checksum: perObject[next], source: .read)))
                }
                next += 1
            }
        }
        return (results, mapped.bytesRead)
    }

    /// The bytes ``hashesEach(_:algorithm:trustServer:)`` reads of `object`: none when the
    /// server's crc32 stands for it (a crc32, with `trustServer`), else all of them.
    public static func bytesToRead(_ object: ObjectInfo, algorithm: HashAlgorithm, trustServer: Bool) -> Int64 {
        algorithm == .crc32 && trustServer && object.crc32 != nil ? 0 : Int64(object.size)
    }

    /// One object's hash as lowercase hex, as `checksum` prints it.
    public struct ObjectHash: Sendable, Equatable {
        public var object: ObjectInfo
        public var hex: String
        public var source: Source
    }

    /// Any ``HashAlgorithm`` of each object, each object failing on its own (see
    /// ``checksumsEach(_:algorithm:trustServer:)``). crc32 and adler32 are read in parallel
    /// ranges; md5/sha cannot be split, so one worker reads each object range after range, and
    /// `jobs` objects are hashed at once.
    public func hashesEach(
        _ objects: [ObjectInfo], algorithm: HashAlgorithm, trustServer: Bool = true
    ) -> (results: [Result<ObjectHash, GCDCatError>], bytesRead: UInt64) {
        if let checksum = algorithm.checksum {
            let each = checksumsEach(objects, algorithm: checksum, trustServer: trustServer)
            return (
                each.results.map { result in
                    result.map { ObjectHash(object: $0.object, hex: $0.checksum.hex, source: $0.source) }
                }, each.bytesRead
            )
        }
        let digest = algorithm.digest!
        let store = store
        let counter = counter
        let size = min(rangeSize, Int(clamping: objects.map(\.size).max() ?? 1))
        let bytesRead = TransferCounter()
        let path = objects.first?.location.description ?? ""
        let hash: @Sendable (UnsafeMutableRawPointer, Int) -> Result<ObjectHash, GCDCatError> = { buffer, index in
            let object = objects[index]
            do {
                // One worker reads the object range after range, so its bytes reach the digest in order.
                var digester = try Digester(digest)
                var offset: UInt64 = 0
                while offset < object.size {
                    let length = Int(min(UInt64(size), object.size - offset))
                    let bytes = UnsafeMutableRawBufferPointer(start: buffer, count: length)
                    try store.get(
                        object.location, range: offset..<offset + UInt64(length), ifMatch: object.etag, into: bytes)
                    bytesRead.add(bytes: Int64(length))
                    counter?.add(bytes: Int64(length))
                    digester.update(UnsafeRawBufferPointer(bytes))
                    offset += UInt64(length)
                }
                return .success(ObjectHash(object: object, hex: digester.finalize(), source: .read))
            } catch let error as GCDCatError {
                return .failure(error)
            } catch {
                return .failure(GCDCatError(.io, path: object.location.description, message: "\(error)"))
            }
        }
        let results: [Result<ObjectHash, GCDCatError>]
        do {
            // One buffer per worker, reused for every object it hashes.
            results = try ParallelMap.run(
                count: objects.count, jobs: jobs, pool: .threads,
                makeState: { try Syscall.allocate(byteCount: max(1, size), alignment: Int(getpagesize()), path: path) },
                finish: { free($0) }, { buffer, index in hash(buffer, index) })
        } catch {
            // Only a worker's buffer can fail outside an object: every object fails with it.
            let failure = error as? GCDCatError ?? GCDCatError(.io, path: path, message: "\(error)")
            return (objects.map { _ in .failure(failure) }, 0)
        }
        return (results, UInt64(bytesRead.bytes))
    }
}

extension ObjectReader {
    /// Each named object HEAD-ed, `jobs` at once, for its size and the server's crc32; a
    /// missing one fails on its own (`.missingPart`, "No such object" or "No such bucket"), as does one the store
    /// refuses (its error names the object and `HeadObject`).
    public func headsEach(_ locations: [ObjectLocation]) -> [Result<ObjectInfo, GCDCatError>] {
        let store = store
        let head: @Sendable (Int) -> Result<ObjectInfo, GCDCatError> = { index in
            do {
                guard let info = try store.head(locations[index]) else {
                    return .failure(ObjectDiscovery.missing(locations[index], store: store))
                }
                return .success(info)
            } catch {
                return .failure(
                    error as? GCDCatError
                        ?? GCDCatError(.io, path: locations[index].description, message: "\(error)"))
            }
        }
        // `head` never throws, so neither does the map.
        return (try? ParallelMap.map(count: locations.count, jobs: jobs, pool: .threads, head)) ?? []
    }

    /// Any ``HashAlgorithm`` of each object as ``headsEach(_:)`` found it (a failed HEAD keeps
    /// its error): what `gcdcat checksum s3://…` prints.
    public func hashesEach(
        found: [Result<ObjectInfo, GCDCatError>], algorithm: HashAlgorithm, trustServer: Bool = true
    ) -> (results: [Result<ObjectHash, GCDCatError>], bytesRead: UInt64) {
        let infos = found.compactMap { try? $0.get() }
        let (hashes, bytesRead) = hashesEach(infos, algorithm: algorithm, trustServer: trustServer)
        var next = hashes.makeIterator()
        let results = found.map { result -> Result<ObjectHash, GCDCatError> in
            switch result {
            case .success: return next.next()!
            case .failure(let error): return .failure(error)
            }
        }
        return (results, bytesRead)
    }

    /// Any ``HashAlgorithm`` of each object named, HEAD-ed first (see ``headsEach(_:)``).
    public func hashesEach(
        of locations: [ObjectLocation], algorithm: HashAlgorithm, trustServer: Bool = true
    ) -> (results: [Result<ObjectHash, GCDCatError>], bytesRead: UInt64) {
        hashesEach(found: headsEach(locations), algorithm: algorithm, trustServer: trustServer)
    }
}

extension ObjectReader {
    /// The slices that cover `ranges`: each slice's `object` is the index of its range, its
    /// `offset` is in the range's object.
    func slices(covering ranges: [Range<UInt64>]) -> [Slice] {
        var slices: [Slice] = []
        let step = UInt64(rangeSize)
        for (index, range) in ranges.enumerated() {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let length = Int(min(step, range.upperBound - offset))
                slices.append(Slice(object: index, offset: offset, length: length))
                offset += UInt64(length)
            }
        }
        return slices
    }

    /// The crc32 of each of `ranges` of one object, from parallel ranged GETs joined with
    /// `crc32_combine`: a split's manifest when its parts were copied on the server.
    ///
    /// ## Errors
    /// The first failed GET, naming the object.
    public func checksums(_ object: ObjectInfo, ranges: [Range<UInt64>]) throws -> (
        checksums: [Checksum], bytesRead: UInt64
    ) {
        try checksums(of: ranges.map { (object, $0) })
    }

    /// The crc32 of each piece, a range of an object, from parallel ranged GETs joined with
    /// `crc32_combine`: what a server-side merge reads of its parts besides the slices it
    /// downloaded to upload (whose crc32s it took as they passed).
    ///
    /// ## Errors
    /// The first failed GET, naming its object.
    public func checksums(of pieces: [(object: ObjectInfo, range: Range<UInt64>)]) throws -> (
        checksums: [Checksum], bytesRead: UInt64
    ) {
        let slices = slices(covering: pieces.map(\.range))
        let mapped = try map(pieces.map(\.object), slices, policy: .cancelAll) { _, bytes in
            var checksum = Checksum(.crc32)
            checksum.update(bytes)
            return checksum
        }
        return (Self.joined(mapped.results, of: slices, count: pieces.count, .crc32), mapped.bytesRead)
    }

    /// Each object's (or piece's) checksum, joined from its slices' in order: `results` are per
    /// slice, as ``map(_:_:policy:_:)`` returns them, nil for one skipped.
    static func joined(
        _ results: [Checksum?], of slices: [Slice], count: Int, _ algorithm: ChecksumAlgorithm
    ) -> [Checksum] {
        var joined = [Checksum](repeating: Checksum(algorithm), count: count)
        for (slice, checksum) in zip(slices, results) {
            if let checksum { joined[slice.object] = joined[slice.object].combined(with: checksum) }
        }
        return joined
    }
}
