/// What one run did and cost, for people (``text``) and for benchmarks (JSON via `Codable`).
public struct RunReport: Codable, Sendable, Equatable {
    public var operation: String
    public var strategy: String
    public var parts: Int
    public var bytes: Int64
    public var highWater: Int
    public var lowWater: Int
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
    /// The output's (or input's) crc32, as 8 hex digits, when it was computed.
    public var crc32: String?
    public var jobs: Int

    public init(
        operation: String, strategy: String, parts: Int, bytes: Int64, limits: ChunkLimits,
        chunks: Int64, jobs: Int, time: (wall: Double, user: Double, system: Double),
        memory: MemorySample, copyMethod: String? = nil, crc32: UInt32? = nil
    ) {
        self.operation = operation
        self.strategy = strategy
        self.parts = parts
        self.bytes = bytes
        self.highWater = limits.highWater
        self.lowWater = limits.lowWater
        self.chunks = chunks
        self.meanChunkBytes = chunks > 0 ? bytes / chunks : 0
        self.wallSeconds = time.wall
        self.userSeconds = time.user
        self.systemSeconds = time.system
        self.peakRSSBytes = memory.peakRSS
        self.peakRSSAnonBytes = memory.rssAnon
        self.peakRSSFileBytes = memory.rssFile
        self.throughputBytesPerSecond = time.wall > 0 ? Double(bytes) / time.wall : 0
        self.copyMethod = copyMethod
        self.crc32 = crc32.map(hex8)
        self.jobs = jobs
    }

    /// The report for a person, one field a line.
    public var text: String {
        let mib = { (bytes: Int64) in ByteSize.humanReadable(bytes) }
        var lines = [
            "operation      \(operation)",
            "strategy       \(strategy)\(copyMethod.map { " (\($0))" } ?? "")",
            "parts          \(parts)",
            "bytes          \(bytes) (\(mib(bytes)))",
            "chunk limits   high-water \(ByteSize(Int64(highWater))), low-water \(ByteSize(Int64(lowWater)))",
            "chunks         \(chunks), mean \(mib(meanChunkBytes))",
            "jobs           \(jobs)",
            "time           \(formatFixed(wallSeconds, decimals: 3)) s wall, \(formatFixed(userSeconds, decimals: 3)) s user, \(formatFixed(systemSeconds, decimals: 3)) s system",
            "throughput     \(formatFixed(throughputBytesPerSecond / 1e9, decimals: 2)) GB/s",
            "peak memory    RSS \(mib(peakRSSBytes)), RssAnon \(mib(peakRSSAnonBytes)), RssFile \(mib(peakRSSFileBytes))",
        ]
        if let crc32 { lines.append("crc32          \(crc32)") }
        return lines.joined(separator: "\n")
    }
}
