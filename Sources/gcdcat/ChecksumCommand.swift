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

        @OptionGroup var objectStore: ObjectReadOptionGroup

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

        func run() throws {
            let format = format ?? (algorithm == .crc32 ? .sfv : .gnu)
            let clock = ProcessClock()
            let inputs = files.isEmpty ? ["-"] : files
            var results: [JSONFile] = []
            // The SFV header goes out with the first line: when no file can be read, standard
            // output stays empty, as sha256sum's does.
            var header = format == .sfv && !json ? "; Generated by gcdcat \(gcdcatVersion)" : nil
            var job = ChecksumJob(
                inputs: inputs, algorithm: algorithm, jobs: jobs, trustServer: objectStore.trustsStoredChecksums,
                counter: TransferCounter())
            let progress = try job.start(showsProgress: !quiet) {
                try reportingFailures { try objectStore.makeStore() }
            }
            defer { progress?.finish() }
            var listing = ListingWriter(clearsProgressLine: progress != nil)
            try job.forEach { index, value in
                let file = inputs[index]
                switch value {
                case .success(let value):
                    if json {
                        results.append(JSONFile(name: file, checksum: value.hex, source: value.source))
                    } else {
                        if let line = header.take() { try listing.append(line) }
                        try listing.append(format.render(name: file, algorithm: algorithm, hex: value.hex))
                    }
                case .failure(let error):
                    try listing.flush()  // the lines before it first
                    writeToStandardError((progress == nil ? "" : "\r\u{1B}[K") + "gcdcat: \(error)\n")
                    results.append(JSONFile(name: file, error: ErrorReport(command: "checksum", error: error).error))
                }
            }
            try listing.flush()
            progress?.finish()
            let facts = job.facts
            // What the objects checksummed cost; none (every object failed, each said) says nothing.
            let count = job.objectsChecksummed
            if let facts, !json, count > 0 {
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
    }
}
