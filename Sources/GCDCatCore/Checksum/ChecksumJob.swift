import GCDCatS3

#if canImport(Glibc)
    import Glibc
#endif

/// What `gcdcat checksum` reads: the value of each input, in the order given, each failing on
/// its own. The `s3://` objects among the inputs are HEAD-ed and read first, in one batch (the
/// ranges of all of them share the jobs); the regular files are read a window at a time on
/// `jobs` threads; standard input and pipes are read in order, when their turn comes.
///
/// The caller draws progress between ``headObjects(makeStore:)``, which says how many object
/// bytes are to be read, and ``readObjects()``, then takes the values in order from
/// ``forEach(_:)``.
public struct ChecksumJob {
    /// One input's value as lowercase hex, and for an object where it came from.
    public struct Value {
        public var hex: String
        public var source: ObjectReader.Source?
    }

    public let inputs: [String]
    public let algorithm: HashAlgorithm
    public let jobs: Int
    /// Take an object's crc32 from the server (x-amz-checksum-crc32) when it keeps one.
    public let trustServer: Bool
    public let counter: TransferCounter

    private var objects: [Int: Result<ObjectReader.ObjectHash, GCDCatError>] = [:]
    private var located: (indices: [Int], found: [Result<ObjectInfo, GCDCatError>], reader: ObjectReader)?
    private var objectBytesRead: UInt64 = 0
    private var store: CountingObjectStore?

    /// Regular files read at once: their values wait for the earlier inputs'.
    public static let window = 4096

    public init(inputs: [String], algorithm: HashAlgorithm, jobs: Int, trustServer: Bool, counter: TransferCounter) {
        self.inputs = inputs
        self.algorithm = algorithm
        self.jobs = jobs
        self.trustServer = trustServer
        self.counter = counter
    }

    /// HEADs and reads the objects among the inputs (``headObjects(makeStore:)``, then
    /// ``readObjects()``) under one progress bar over every file's and object's bytes, drawn
    /// when `showsProgress` and standard error is a terminal. Returns the bar, for the caller to
    /// finish once it has taken the values (``forEach(_:)``).
    ///
    /// ## Errors
    /// What `makeStore` throws.
    public mutating func start(
        showsProgress: Bool, makeStore: () throws -> CountingObjectStore
    ) throws -> ProgressMeter? {
        // The total opens every file: only for a bar that is drawn.
        let drawsBar = showsProgress && isatty(STDERR_FILENO) == 1
        let total = inputs.reduce(Int64(0)) {
            $0
                + (!drawsBar || $1 == "-" || ObjectLocation.isObjectPath($1)
                    ? 0 : (try? PartFile.validate($1).size) ?? 0)
        }
        // Standard input's bytes are not counted: a bar over it alone would stay at 0 B.
        counter.setCurrent(inputs[0])
        guard inputs != ["-"] else { return nil }
        let objectBytes = try headObjects(makeStore: makeStore)
        let progress =
            showsProgress && (objectBytes != nil || !nothingToRead)
            ? ProgressMeter(label: inputs[0], total: total + (objectBytes ?? 0), counter: counter) : nil
        readObjects()
        return progress
    }

    /// Whether every input is an object name that failed to parse: nothing is left to read.
    public var nothingToRead: Bool { objects.count == inputs.count }

    /// HEADs the objects among the inputs, on a store that `makeStore` makes only when there is
    /// one (a malformed name fails on its own, as its value). Returns the object bytes
    /// ``readObjects()`` will read (an object whose crc32 the server keeps is not read), or nil
    /// when no input names an object.
    ///
    /// ## Errors
    /// What `makeStore` throws.
    public mutating func headObjects(makeStore: () throws -> CountingObjectStore) throws -> Int64? {
        var indices: [Int] = []
        var locations: [ObjectLocation] = []
        for (index, input) in inputs.enumerated() where ObjectLocation.isObjectPath(input) {
            do {
                locations.append(try ObjectLocation(parsing: input)!)
                indices.append(index)
            } catch let error as GCDCatError {
                objects[index] = .failure(error)
            }
        }
        guard !locations.isEmpty else { return nil }
        let store = try makeStore()
        self.store = store
        let reader = ObjectReader(store: store, jobs: jobs, counter: counter)
        let found = reader.headsEach(locations)
        located = (indices, found, reader)
        let (algorithm, trustServer) = (self.algorithm, self.trustServer)
        return found.reduce(Int64(0)) { total, result in
            guard let info = try? result.get() else { return total }
            return total + ObjectReader.bytesToRead(info, algorithm: algorithm, trustServer: trustServer)
        }
    }

    /// Reads the objects ``headObjects(makeStore:)`` found.
    public mutating func readObjects() {
        guard let (indices, found, reader) = located else { return }
        let (results, bytesRead) = reader.hashesEach(found: found, algorithm: algorithm, trustServer: trustServer)
        for (index, result) in zip(indices, results) { objects[index] = result }
        objectBytesRead = bytesRead
        located = nil
    }

    /// Calls `body` with each input's index and value (or the error that stopped it), in order.
    ///
    /// ## Errors
    /// What `body` throws.
    public func forEach(_ body: (Int, Result<Value, GCDCatError>) throws -> Void) throws {
        var window: [Result<String, GCDCatError>?] = []
        for (index, input) in inputs.enumerated() {
            if index % Self.window == 0 {
                // The next window's regular files, read at once on the worker threads.
                let end = min(index + Self.window, inputs.count)
                window = FileHash.ofEach(
                    (index..<end).map { objects[$0] == nil && inputs[$0] != "-" ? inputs[$0] : nil },
                    algorithm: algorithm, jobs: jobs, counter: counter)
            }
            counter.setCurrent(input)
            let value: Result<Value, GCDCatError>
            do {
                if let object = objects[index] {
                    let hash = try object.get()
                    value = .success(Value(hex: hash.hex, source: hash.source))
                } else if let hashed = window[index % Self.window] {
                    value = .success(Value(hex: try hashed.get()))
                } else if input == "-" {
                    let hex = try FileHash.ofStream(STDIN_FILENO, path: "standard input", algorithm: algorithm)
                    value = .success(Value(hex: hex))
                } else {
                    let hex = try FileHash.ofFileOrPipe(input, algorithm: algorithm, jobs: jobs, counter: counter)
                    value = .success(Value(hex: hex))
                }
            } catch let error as GCDCatError {
                value = .failure(error)
            }
            try body(index, value)
        }
    }

    /// What reading the objects cost (requests, bytes, crc32s the server gave), when any input
    /// named one and a store was made.
    public var facts: ObjectStoreFacts? {
        store.map { store in
            let sources = objects.values.compactMap { try? $0.get().source }
            return ObjectStoreFacts(
                counts: store.counts, checkBytesRead: objectBytesRead,
                serverChecksums: sources.filter { $0 == .server }.count,
                recordedChecksums: sources.filter { $0 == .recorded }.count,
                readChecksums: sources.filter { $0 == .read }.count)
        }
    }

    /// How many inputs were objects that a store was asked about.
    public var objectCount: Int { objects.count }

    /// How many of those objects got their checksum (the others failed, each said by its error).
    public var objectsChecksummed: Int { objects.values.filter { (try? $0.get()) != nil }.count }
}
