import ArgumentParser
import FoundationEssentials
import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

extension HashAlgorithm: ExpressibleByArgument {}
extension ChecksumLineFormat: ExpressibleByArgument {}
extension DigestAlgorithm: ExpressibleByArgument {}

extension GCDCat {
    struct ChecksumFiles: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "checksum",
            abstract:
                "Print crc32, adler32, md5, sha1, sha2, sha3 or BLAKE2b checksums as SFV, GNU or BSD lines.",
            usage: "gcdcat checksum [<options>] [<files> ...]",
            discussion: """
                --format gnu prints exactly what sha256sum (md5sum, …) prints, names with a \
                backslash or a newline escaped as they escape them, so 'sha256sum -c' reads it; \
                --format bsd prints what 'sha256sum --tag' and 'rhash --bsd' print. \
                --algorithm blake2b is b2sum's default BLAKE2b-512, and blake2b-N (N a multiple \
                of 8 up to 512) is 'b2sum -l N'; sha3-224 to sha3-512 print what 'rhash --sha3-256' prints. A large file \
                is checksummed with crc32/adler32 in parallel: its segments on --jobs threads, \
                joined with crc32_combine/adler32_combine; md5 and sha read each file once, in \
                order. With no files, or '-', standard input is read.

                An s3://BUCKET/KEY (or s3://BUCKET/KEY?versionId=ID, that version of it) is \
                read with ranged GETs, --jobs at once (crc32 and \
                adler32 objects in parallel ranges, md5/sha one object per job), and printed \
                by the name given; a summary on standard error gives the bytes read. Where \
                the server keeps an object's crc32 (x-amz-checksum-crc32 on HEAD), it is \
                printed without reading the object and the summary says so; \
                --no-stored-checksums reads it anyway.

                Examples:
                  gcdcat checksum movie.zip.0* > movie.zip.sfv
                  gcdcat checksum --algorithm sha256 *.iso > SHA256SUMS
                  gcdcat checksum --algorithm blake2b *.iso > B2SUMS
                  gcdcat checksum --algorithm blake2b-256 *.iso > B2SUMS
                  gcdcat checksum --algorithm adler32 --format bsd big.iso
                  gcdcat checksum s3://bkt/movie.zip.001 s3://bkt/movie.zip.002 --jobs 8
                """)

        @Argument(
            help: "Files or s3:// objects to checksum; - (or none) for standard input.", completion: .file())
        var files: [String] = []

        @Option(help: "The algorithm (also blake2b-8 … blake2b-504, as 'b2sum -l N').")
        var algorithm: HashAlgorithm = .crc32

        @Option(help: "sfv (crc32 only), gnu, bsd or simple (default: sfv for crc32, gnu otherwise).")
        var format: ChecksumLineFormat?

        @OptionGroup var output: OutputOptions
        @OptionGroup var parallelism: JobsOption

        @Flag(help: "Read s3:// objects even where the server keeps their crc32 (x-amz-checksum-crc32).")
        var noStoredChecksums = false

        @OptionGroup var objectStore: ObjectStoreOptions

        var json: Bool { output.json }
        var quiet: Bool { output.quiet }
        var jobs: Int { parallelism.jobs(objects: files.contains(where: ObjectLocation.isObjectPath)) }

        mutating func validate() throws {
            files = PositionalRuns.expand(files)
            if format == .sfv && algorithm != .crc32 {
                throw ValidationError("--format sfv holds crc32 only; use --format gnu or bsd for \(algorithm).")
            }
            if json && format != nil { throw ValidationError("--json and --format are alternatives; give one.") }
            try validateObjectNames(files)
            try objectStore.check(namesObjects: files.contains(where: ObjectLocation.isObjectPath))
        }

        /// One file's line of the JSON document: its checksum, or the error that stopped it.
        struct JSONFile: Encodable {
            var name: String
            var checksum: String?
            /// Why the file could not be read, as error.json's error object.
            var error: ErrorReport.Details?
            /// For an object: "read", or "server" when the value is the server's own crc32.
            var source: ObjectReader.Source?
        }

        /// The JSON document (docs/json-schema/checksum.json).
        struct JSONOutput: Encodable {
            var schemaVersion = JSONDocument.schemaVersion
            var command = "checksum"
            var algorithm: HashAlgorithm
            var inputs: [String]
            var files: [JSONFile]
            var wallSeconds: Double
            var exitStatus: Int32
            /// Present when an object was named: requests, bytes read, crc32s from the server.
            var s3: ObjectStoreFacts?
        }

        /// What the objects among the inputs gave, by input index, and what it cost.
        struct ObjectHashes {
            var results: [Int: Result<ObjectReader.ObjectHash, GCDCatError>] = [:]
            var bytesRead: UInt64 = 0
            var store: CountingObjectStore?
            var facts: ObjectStoreFacts? {
                store.map { store in
                    let sources = results.values.compactMap { try? $0.get().source }
                    return ObjectStoreFacts(
                        counts: store.counts, checkBytesRead: bytesRead,
                        serverChecksums: sources.filter { $0 == .server }.count,
                        recordedChecksums: sources.filter { $0 == .recorded }.count,
                        readChecksums: sources.filter { $0 == .read }.count)
                }
            }
        }

        /// HEADs then reads every `s3://` input in one batch (ranges of all of them share the
        /// jobs), before the files; a malformed name fails on its own.
        private func hashObjects(_ inputs: [String], counter: TransferCounter, label: String, localTotal: Int64)
            throws -> (hashes: ObjectHashes, progress: ProgressMeter?)
        {
            var hashes = ObjectHashes()
            var indices: [Int] = []
            var locations: [ObjectLocation] = []
            for (index, input) in inputs.enumerated() where ObjectLocation.isObjectPath(input) {
                do {
                    locations.append(try ObjectLocation(parsing: input)!)
                    indices.append(index)
                } catch let error as GCDCatError {
                    hashes.results[index] = .failure(error)
                }
            }
            guard !locations.isEmpty else {
                let progress =
                    quiet || inputs.count == hashes.results.count
                    ? nil : ProgressMeter(label: label, total: localTotal, counter: counter)
                return (hashes, progress)
            }
            let store = try reportingFailures { try objectStore.makeStore() }
            hashes.store = store
            let reader = ObjectReader(store: store, jobs: jobs, counter: counter)
            let found = reader.headsEach(locations)
            let objectBytes = found.reduce(Int64(0)) { total, result in
                guard let info = try? result.get() else { return total }
                let trusted = algorithm == .crc32 && !noStoredChecksums && info.crc32 != nil
                return total + (trusted ? 0 : Int64(info.size))
            }
            let progress = quiet ? nil : ProgressMeter(label: label, total: localTotal + objectBytes, counter: counter)
            let (results, bytesRead) = reader.hashesEach(
                found: found, algorithm: algorithm, trustServer: !noStoredChecksums)
            for (index, result) in zip(indices, results) { hashes.results[index] = result }
            hashes.bytesRead = bytesRead
            return (hashes, progress)
        }

        func run() throws {
            let format = format ?? (algorithm == .crc32 ? .sfv : .gnu)
            let clock = ProcessClock()
            let inputs = files.isEmpty ? ["-"] : files
            var results: [JSONFile] = []
            // The SFV header goes out with the first line: when no file can be read, standard
            // output stays empty, as sha256sum's does.
            var header = format == .sfv && !json ? "; Generated by gcdcat \(gcdcatVersion)" : nil
            // One bar over every file's and object's bytes, naming the file being read. The total
            // opens every file: only for a bar that is drawn.
            let counter = TransferCounter()
            let drawsBar = !quiet && isatty(STDERR_FILENO) == 1
            let total = inputs.reduce(Int64(0)) {
                $0
                    + (!drawsBar || $1 == "-" || ObjectLocation.isObjectPath($1)
                        ? 0 : (try? PartFile.validate($1).size) ?? 0)
            }
            // Standard input's bytes are not counted: a bar over it alone would stay at 0 B.
            counter.setCurrent(inputs[0])
            var objects = ObjectHashes()
            var progress: ProgressMeter?
            if inputs != ["-"] {
                (objects, progress) = try hashObjects(inputs, counter: counter, label: inputs[0], localTotal: total)
            }
            defer { progress?.finish() }
            var listing = ListingWriter(clearsProgressLine: progress != nil)
            var window: [Result<String, GCDCatError>?] = []
            for (index, file) in inputs.enumerated() {
                if index % Self.window == 0 {
                    // The next window's regular files, read at once on --jobs worker threads.
                    let end = min(index + Self.window, inputs.count)
                    window = FileHash.ofEach(
                        (index..<end).map { objects.results[$0] == nil && inputs[$0] != "-" ? inputs[$0] : nil },
                        algorithm: algorithm, jobs: jobs, counter: counter)
                }
                counter.setCurrent(file)
                do {
                    var source: ObjectReader.Source?
                    let hex: String
                    if let object = objects.results[index] {
                        let hash = try object.get()
                        hex = hash.hex
                        source = hash.source
                    } else if let hashed = window[index % Self.window] {
                        hex = try hashed.get()
                    } else if file == "-" {
                        hex = try FileHash.ofStream(STDIN_FILENO, path: "standard input", algorithm: algorithm)
                    } else {
                        hex = try FileHash.ofFileOrPipe(file, algorithm: algorithm, jobs: jobs, counter: counter)
                    }
                    if json {
                        results.append(JSONFile(name: file, checksum: hex, source: source))
                    } else {
                        if let line = header.take() { try listing.append(line) }
                        try listing.append(format.render(name: file, algorithm: algorithm, hex: hex))
                    }
                } catch let error as GCDCatError where error.path != "standard output" {
                    try listing.flush()  // the lines before it first
                    writeToStandardError((progress == nil ? "" : "\r\u{1B}[K") + "gcdcat: \(error)\n")
                    results.append(JSONFile(name: file, error: ErrorReport(command: "checksum", error: error).error))
                }
            }
            try listing.flush()
            progress?.finish()
            let facts = objects.facts
            if let facts, !json {
                let count = objects.results.count
                writeToStandardError(
                    "gcdcat: \(count) object\(count == 1 ? "" : "s"): "
                        + "\(ByteSize.humanReadable(Int64(facts.checkBytesRead))) read with ranged GETs"
                        + (facts.serverChecksums > 0
                            ? "; \(facts.serverChecksums) crc32s the server's (x-amz-checksum-crc32), not read" : "")
                        + "\n")
            }
            let failed = results.contains { $0.error != nil }
            if json {
                let document = JSONOutput(
                    algorithm: algorithm, inputs: inputs, files: results,
                    wallSeconds: roundedToMicroseconds(clock.elapsed().wall), exitStatus: failed ? 1 : 0, s3: facts)
                try reportingFailures { try StandardStreams.writeOutput(JSONDocument.encode(document)) }
            }
            if failed { throw ExitCode(1) }
        }

        /// Files read at once: their results wait for the earlier files' lines.
        static let window = 4096
    }
}
