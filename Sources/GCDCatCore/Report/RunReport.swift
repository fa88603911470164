import GCDCatS3

/// What one run did and cost, for people (``text``) and for benchmarks (JSON via `Codable`).
///
/// ## JSON contract
/// Every report has the same keys, `null` where a value does not apply. `schemaVersion` is
/// raised whenever a key is removed or changes meaning; new keys may appear without a raise.
/// Times are rounded to the microsecond and rates to the byte, so `0.001442` prints instead of
/// `0.0014419999999999997`. Paths are written as given (non-UTF-8 bytes as U+10FFxx, see
/// ``JSONDocument``). The schema is `docs/json-schema/merge.json` (and `split.json`).
public struct RunReport: Codable, Sendable, Equatable {
    /// The version of this JSON layout.
    public static let currentSchemaVersion = JSONDocument.schemaVersion

    public var schemaVersion: Int
    /// The subcommand, as in every gcdcat document.
    public var command: String
    /// The same word as `command`, kept for readers of the first layout.
    public var operation: String
    /// The files read, in order (`-` for standard input).
    public var inputs: [String]
    /// The file written; null for split (its parts are the outputs) and for standard output.
    public var output: String?
    /// Every file written: the output of a merge, or a split's parts in order.
    public var outputs: [String]
    /// The manifest verified against (merge) or written (split); null when none.
    public var manifest: String?
    public var strategy: String
    public var parts: Int
    public var bytes: Int64
    public var highWater: Int
    /// Null when not set: libdispatch's default applied.
    public var lowWater: Int?
    public var chunks: Int64
    public var meanChunkBytes: Int64
    public var wallSeconds: Double
    public var userSeconds: Double
    public var systemSeconds: Double
    public var peakRSSBytes: Int64
    public var peakRSSAnonBytes: Int64
    public var peakRSSFileBytes: Int64
    public var throughputBytesPerSecond: Double
    /// How bytes moved where a strategy chooses at run time (`copy_file_range`, `sendfile`…).
    public var copyMethod: String?
    /// Bytes the output shares with its inputs (clones), and bytes copied; null where not known.
    public var clonedBytes: Int64?
    public var copiedBytes: Int64?
    /// How the bytes moved, where a person should know (parts not cloned, and why).
    public var notes: [String]
    /// The output's (or input's) crc32, as 8 hex digits, when it was computed.
    public var crc32: String?
    public var jobs: Int
    /// Object-storage facts (key `s3`), null when no object was read or written.
    public var objectStore: ObjectStoreFacts?
    /// A split's PAR2 index and volumes (`--par2`); the key is left out without them.
    public var recovery: Par2Creator.Result?
    /// The process's exit status with this report: 0, as a report is printed only on success.
    public var exitStatus: Int32 = 0
    /// True when the bytes were checked against a manifest: a merge's parts against the set's
    /// manifest (and the output against their combined crc32, where it has one). Always false
    /// for split, which writes its manifest rather than checking one.
    public var verified = false
    /// Every warning printed on standard error (without its `gcdcat: warning: ` prefix).
    public var warnings: [String] = []
    /// The parts `merge --remove-parts` deleted, in order; empty otherwise.
    public var removedParts: [String] = []
    /// The parts a merge rebuilt from a PAR2 set's recovery blocks into the output (the parts
    /// themselves untouched), in order; empty otherwise.
    public var rebuiltParts: [RebuiltPart] = []

    enum CodingKeys: String, CodingKey {
        case schemaVersion, command, operation, inputs, output, outputs, manifest, strategy, parts, bytes
        case highWater, lowWater, chunks
        case meanChunkBytes, wallSeconds, userSeconds, systemSeconds, peakRSSBytes, peakRSSAnonBytes
        case peakRSSFileBytes, throughputBytesPerSecond, copyMethod, clonedBytes, copiedBytes, notes, crc32, jobs
        case objectStore = "s3"
        case exitStatus, verified, warnings, removedParts, rebuiltParts, recovery
    }

    public init(
        operation: String, strategy: String, parts: Int, bytes: Int64, limits: ChunkLimits,
        chunks: Int64, jobs: Int, time: (wall: Double, user: Double, system: Double),
        memory: MemorySample, copyMethod: String? = nil, crc32: UInt32? = nil,
        inputs: [String] = [], output: String? = nil, outputs: [String]? = nil, manifest: String? = nil,
        clonedBytes: Int64? = nil, copiedBytes: Int64? = nil, notes: [String] = []
    ) {
        self.clonedBytes = clonedBytes
        self.copiedBytes = copiedBytes
        self.notes = notes
        self.schemaVersion = Self.currentSchemaVersion
        self.command = operation
        self.operation = operation
        self.inputs = inputs
        self.output = output
        self.outputs = outputs ?? output.map { [$0] } ?? []
        self.manifest = manifest
        self.strategy = strategy
        self.parts = parts
        self.bytes = bytes
        self.highWater = limits.highWater
        self.lowWater = limits.lowWater
        self.chunks = chunks
        self.meanChunkBytes = chunks > 0 ? bytes / chunks : 0
        self.wallSeconds = roundedToMicroseconds(time.wall)
        self.userSeconds = roundedToMicroseconds(time.user)
        self.systemSeconds = roundedToMicroseconds(time.system)
        self.peakRSSBytes = memory.peakRSS
        self.peakRSSAnonBytes = memory.rssAnon
        self.peakRSSFileBytes = memory.rssFile
        self.throughputBytesPerSecond = time.wall > 0 ? (Double(bytes) / time.wall).rounded() : 0
        self.copyMethod = copyMethod
        self.crc32 = crc32.map(hex8)
        self.jobs = jobs
    }

    /// A merge's `verified` and `manifest` for a person: what the parts were checked against.
    private var verificationText: String {
        guard verified else { return "no" }
        return "yes, against " + (manifest.map(\.displayPath) ?? "the crc32s their split marked them with")
    }

    /// The report for a person, one field a line.
    public var text: String {
        let mib = { (bytes: Int64) in ByteSize.humanReadable(bytes) }
        var lines = [
            "operation      \(operation)",
            "strategy       \(strategy)\(copyMethod.map { " (\($0))" } ?? "")",
            "parts          \(parts)",
            "bytes          \(bytes) (\(mib(bytes)))",
            "chunk limits   high-water \(ByteSize(Int64(highWater))), low-water \(lowWater.map { ByteSize(Int64($0)).description } ?? "libdispatch default")",
            "chunks         \(chunks), mean \(mib(meanChunkBytes))",
            "jobs           \(jobs)",
            "time           \(formatFixed(wallSeconds, decimals: 3)) s wall, \(formatFixed(userSeconds, decimals: 3)) s user, \(formatFixed(systemSeconds, decimals: 3)) s system",
            "throughput     \(formatFixed(throughputBytesPerSecond / 1e9, decimals: 2)) GB/s",
            "peak memory    RSS \(mib(peakRSSBytes)), RssAnon \(mib(peakRSSAnonBytes)), RssFile \(mib(peakRSSFileBytes))",
        ]
        if let clonedBytes, let copiedBytes {
            lines.append("moved          \(mib(clonedBytes)) cloned, \(mib(copiedBytes)) copied")
        }
        if let crc32 { lines.append("crc32          \(crc32)") }
        if operation == "merge" { lines.append("verified       \(verificationText)") }
        lines += objectStore?.lines ?? []
        lines += notes.map { "note           \($0)" }
        if !removedParts.isEmpty { lines.append("removed        \(counted(removedParts.count, "part"))") }
        lines += rebuiltParts.map {
            "rebuilt        \($0.path.displayPath) (\($0.state), \(counted($0.blocks, "block")), from PAR2)"
        }
        lines += warnings.map { "warning        \($0)" }
        return lines.joined(separator: "\n")
    }

    /// Like the synthesized form, but optional fields are written as `null` rather than left
    /// out, so every report has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(command, forKey: .command)
        try container.encode(operation, forKey: .operation)
        try container.encode(inputs, forKey: .inputs)
        try container.encode(output, forKey: .output)
        try container.encode(outputs, forKey: .outputs)
        try container.encode(manifest, forKey: .manifest)
        try container.encode(strategy, forKey: .strategy)
        try container.encode(parts, forKey: .parts)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(highWater, forKey: .highWater)
        try container.encode(lowWater, forKey: .lowWater)
        try container.encode(chunks, forKey: .chunks)
        try container.encode(meanChunkBytes, forKey: .meanChunkBytes)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        try container.encode(userSeconds, forKey: .userSeconds)
        try container.encode(systemSeconds, forKey: .systemSeconds)
        try container.encode(peakRSSBytes, forKey: .peakRSSBytes)
        try container.encode(peakRSSAnonBytes, forKey: .peakRSSAnonBytes)
        try container.encode(peakRSSFileBytes, forKey: .peakRSSFileBytes)
        try container.encode(throughputBytesPerSecond, forKey: .throughputBytesPerSecond)
        try container.encode(copyMethod, forKey: .copyMethod)
        try container.encode(crc32, forKey: .crc32)
        try container.encode(clonedBytes, forKey: .clonedBytes)
        try container.encode(copiedBytes, forKey: .copiedBytes)
        try container.encode(notes, forKey: .notes)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(objectStore, forKey: .objectStore)
        try container.encode(exitStatus, forKey: .exitStatus)
        try container.encode(verified, forKey: .verified)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(removedParts, forKey: .removedParts)
        try container.encode(rebuiltParts, forKey: .rebuiltParts)
        try container.encodeIfPresent(recovery, forKey: .recovery)
    }
}

/// `seconds` to the nearest microsecond: finer digits are noise, and the shortest decimal that
/// reads back as the rounded double is short.
public func roundedToMicroseconds(_ seconds: Double) -> Double {
    (seconds * 1e6).rounded() / 1e6
}
