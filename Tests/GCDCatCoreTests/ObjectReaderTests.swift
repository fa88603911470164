import GCDCatCore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ranged reads of objects: every boundary, any callback order, cancellation at any GET, and
/// the server's crc32 trusted instead of reading.
@Suite struct ObjectReaderTests {
    static let range = 16
    /// 0, 1, range−1, range, range+1, two ranges and a bit, and many ranges.
    static let sizes = [0, 1, range - 1, range, range + 1, 2 * range + 1, 10 * range + 7]

    /// A store holding one object per size, and their infos in order.
    static func fixture(sizes: [Int] = sizes, prefix: String = "set/x.") -> (MemoryObjectStore, [ObjectInfo], [[UInt8]])
    {
        var objects: [ObjectLocation: [UInt8]] = [:]
        var infos: [ObjectInfo] = []
        var contents: [[UInt8]] = []
        for (index, size) in sizes.enumerated() {
            let location = ObjectLocation(bucket: "bucket", key: "\(prefix)\(index)")
            let bytes = seededBytes(size, seed: UInt64(index + 1))
            objects[location] = bytes
            infos.append(ObjectInfo(location: location, size: UInt64(size)))
            contents.append(bytes)
        }
        return (MemoryObjectStore(objects: objects), infos, contents)
    }

    static func ranges(_ sizes: [Int]) -> Int { sizes.reduce(0) { $0 + ($1 + range - 1) / range } }

    @Test(arguments: [1, 2, 4, 64, Int.max])
    func everyByteReachesTheCallbackAtItsOffset(jobs: Int) throws {
        let (store, infos, contents) = Self.fixture()
        let received = Mutex(infos.map { [UInt8](repeating: 0xEE, count: Int($0.size)) })
        let calls = Mutex(0)
        let reader = ObjectReader(store: store, jobs: jobs, rangeSize: Self.range)
        let bytes = try reader.read(infos) { object, offset, buffer in
            #expect(buffer.count > 0 && buffer.count <= Self.range)
            #expect(offset % UInt64(Self.range) == 0)
            received.withLock { all in
                for (index, byte) in buffer.enumerated() { all[object][Int(offset) + index] = byte }
            }
            calls.withLock { $0 += 1 }
        }
        #expect(received.withLock { $0 } == contents)
        #expect(bytes == UInt64(Self.sizes.reduce(0, +)))
        #expect(calls.withLock { $0 } == Self.ranges(Self.sizes))
        #expect(store.callCount("GetObject") == Self.ranges(Self.sizes))
    }

    /// Callbacks that take different times arrive in another order; the result is the same.
    @Test func theResultDoesNotDependOnCallbackOrder() throws {
        let sizes = Array(repeating: 5 * Self.range, count: 8)
        let (store, infos, contents) = Self.fixture(sizes: sizes)
        for round in 0..<3 {
            let received = Mutex(infos.map { [UInt8](repeating: 0, count: Int($0.size)) })
            let order = Mutex<[Int]>([])
            let reader = ObjectReader(store: store, jobs: 4, rangeSize: Self.range)
            try reader.read(infos) { object, offset, buffer in
                usleep(UInt32(((object * 7 + Int(offset) + round * 3) % 5) * 300))
                received.withLock { all in
                    for (index, byte) in buffer.enumerated() { all[object][Int(offset) + index] = byte }
                }
                order.withLock { $0.append(object * 1000 + Int(offset)) }
            }
            #expect(received.withLock { $0 } == contents)
            #expect(order.withLock { $0.sorted() } == order.withLock { Array(Set($0)).sorted() })
            #expect(order.withLock { $0.count } == Self.ranges(sizes))
        }
    }

    @Test(arguments: [1, 3])
    func checksumsJoinTheRangesCRCs(jobs: Int) throws {
        let (store, infos, contents) = Self.fixture()
        for algorithm in ChecksumAlgorithm.allCases {
            let reader = ObjectReader(store: store, jobs: jobs, rangeSize: Self.range)
            let result = try reader.checksums(infos, algorithm: algorithm)
            var expected: [Checksum] = []
            for bytes in contents {
                var checksum = Checksum(algorithm)
                checksum.update(bytes)
                expected.append(checksum)
            }
            #expect(result.objects.map(\.checksum) == expected, "\(algorithm)")
            #expect(result.objects.allSatisfy { $0.source == .read })
            #expect(result.bytesRead == UInt64(Self.sizes.reduce(0, +)))
            #expect(result.trustedFromServer == 0)
        }
    }

    @Test func aKnownValueThroughRanges() throws {
        let location = ObjectLocation(bucket: "bucket", key: "digits")
        let store = MemoryObjectStore(objects: [location: Array("123456789".utf8)])
        let reader = ObjectReader(store: store, jobs: 2, rangeSize: 2)
        let result = try reader.checksums([ObjectInfo(location: location, size: 9)])
        #expect(result.objects[0].checksum.hex == "cbf43926")
        #expect(store.callCount("GetObject") == 5)
    }

    /// The n-th GET fails, for every n: the error names the object that GET was for, and no
    /// more than the GETs already under way follow it.
    @Test(arguments: [1, 4])
    func aFailedGetCancelsTheRestAndNamesItsObject(jobs: Int) throws {
        let total = Self.ranges(Self.sizes)
        for failing in 1...total {
            let (store, infos, _) = Self.fixture()
            store.failCall("GetObject", at: failing)
            let reader = ObjectReader(store: store, jobs: jobs, rangeSize: Self.range)
            // Each range takes a moment, as a real write would, so that the other workers cannot
            // outrun the failing one while it records the error.
            let error = #expect(throws: GCDCatError.self) {
                try reader.read(infos) { _, _, _ in if jobs > 1 { usleep(1000) } }
            }
            #expect(error?.syscall == "GetObject")
            if jobs == 1 {
                // Ranges go object after object: the failing GET is for this object.
                var object = 0
                var before = 0
                while before + (Self.sizes[object] + Self.range - 1) / Self.range < failing {
                    before += (Self.sizes[object] + Self.range - 1) / Self.range
                    object += 1
                }
                #expect(error?.path == infos[object].location.description, "GET \(failing)")
                #expect(store.callCount("GetObject") == failing)
            } else {
                #expect(infos.map(\.location.description).contains(error?.path ?? ""))
                // A worker between its cancellation check and its GET may still send one, and on
                // two cores a preempted worker can be one GET late: allow two per worker.
                #expect(store.callCount("GetObject") <= failing + 2 * jobs, "GET \(failing)")
            }
        }
    }

    @Test func aCallbackErrorCancelsTheRest() throws {
        let sizes = Array(repeating: 4 * Self.range, count: 10)
        let (store, infos, _) = Self.fixture(sizes: sizes)
        let reader = ObjectReader(store: store, jobs: 2, rangeSize: Self.range)
        let thrown = GCDCatError(.io, path: "out", syscall: "pwrite", errno: 28, message: "No space left on device")
        let error = #expect(throws: GCDCatError.self) {
            try reader.read(infos) { object, offset, _ in
                if object == 1 && offset == 0 { throw thrown }
                // The other worker must not outrun the failing one to the end: 40 in-memory
                // ranges take microseconds, less than recording the error may take under load.
                if object > 1 { usleep(2000) }
            }
        }
        #expect(error == thrown)
        #expect(store.callCount("GetObject") < Self.ranges(sizes))
    }

    /// `checksumsEach` reports an unreadable object on its own and still checksums the rest.
    @Test func eachObjectFailsOnItsOwn() throws {
        let (store, infos, contents) = Self.fixture()
        try store.delete(infos[4].location)
        let reader = ObjectReader(store: store, jobs: 3, rangeSize: Self.range)
        let (results, bytesRead) = reader.checksumsEach(infos)
        for (index, result) in results.enumerated() {
            if index == 4 {
                #expect(throws: GCDCatError.self) { try result.get() }
                #expect((try? result.get()) == nil)
                if case .failure(let error) = result {
                    #expect(error.description == "s3://bucket/set/x.4: GetObject: NoSuchKey (HTTP 404)")
                }
            } else {
                var expected = Checksum(.crc32)
                expected.update(contents[index])
                #expect(try result.get().checksum == expected)
            }
        }
        #expect(bytesRead == UInt64(Self.sizes.reduce(0, +) - Self.sizes[4]))
    }

    /// An object whose crc32 the store reports is not read: the value is the server's, and says so.
    @Test func theServersCRCIsTrustedAndCounted() throws {
        let (store, infos, contents) = Self.fixture()
        var withServer = infos
        var crc = Checksum(.crc32)
        crc.update(contents[6])
        withServer[6].crc32 = crc.value
        withServer[2].crc32 = 0xDEAD_BEEF  // trusted as given: it is the server's word
        let reader = ObjectReader(store: store, jobs: 2, rangeSize: Self.range)
        let result = try reader.checksums(withServer)
        #expect(result.trustedFromServer == 2)
        #expect(result.objects[6].source == .server && result.objects[6].checksum == crc)
        #expect(result.objects[2].source == .server && result.objects[2].checksum.value == 0xDEAD_BEEF)
        #expect(result.bytesRead == UInt64(Self.sizes.reduce(0, +) - Self.sizes[6] - Self.sizes[2]))
        #expect(store.callCount("GetObject") == Self.ranges(Self.sizes) - Self.ranges([Self.sizes[6], Self.sizes[2]]))
        // Not trusted on request, and never for adler32.
        let untrusted = try reader.checksums(withServer, trustServer: false)
        #expect(untrusted.trustedFromServer == 0)
        #expect(untrusted.objects[2].checksum.value != 0xDEAD_BEEF)
        #expect(try reader.checksums(withServer, algorithm: .adler32).trustedFromServer == 0)
    }

    @Test(arguments: [HashAlgorithm.md5, .sha256, .sha512, .crc32])
    func digestsReadEachObjectInOrder(algorithm: HashAlgorithm) throws {
        let (store, infos, contents) = Self.fixture()
        let reader = ObjectReader(store: store, jobs: 3, rangeSize: Self.range)
        let (results, bytesRead) = reader.hashesEach(infos, algorithm: algorithm)
        for (result, bytes) in zip(results, contents) {
            let expected: String
            if let checksum = algorithm.checksum {
                var value = Checksum(checksum)
                value.update(bytes)
                expected = value.hex
            } else {
                var digester = try Digester(algorithm.digest!)
                digester.update(bytes)
                expected = digester.finalize()
            }
            #expect(try result.get().hex == expected)
        }
        #expect(bytesRead == UInt64(Self.sizes.reduce(0, +)))
    }

    @Test func aDigestOfAMissingObjectFailsAlone() throws {
        let (store, infos, _) = Self.fixture()
        try store.delete(infos[1].location)
        let (results, _) = ObjectReader(store: store, jobs: 2, rangeSize: Self.range)
            .hashesEach(infos, algorithm: .sha256)
        #expect(results.enumerated().allSatisfy { index, result in (try? result.get()) == nil ? index == 1 : true })
        #expect((try? results[1].get()) == nil)
    }

    /// No more GETs are in flight than `jobs`: memory is `jobs × rangeSize`.
    @Test(arguments: [1, 2, 5])
    func getsInFlightStayWithinJobs(jobs: Int) throws {
        let (memory, infos, _) = Self.fixture(sizes: Array(repeating: 6 * Self.range, count: 6))
        let store = InstrumentedStore(memory, getDelay: 500)
        try ObjectReader(store: store, jobs: jobs, rangeSize: Self.range).read(infos) { _, _, _ in }
        #expect(store.peak <= jobs)
        #expect(memory.callCount("GetObject") == 36)
    }
}
