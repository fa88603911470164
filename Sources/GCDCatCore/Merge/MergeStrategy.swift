/// The merge strategies, by the names the CLI takes.
public enum MergeStrategyKind: String, CaseIterable, Sendable, Codable {
    /// Kernel copies (`copy_file_range`, then `sendfile`, then read/write), parts prefetched.
    case auto
    /// One serial queue, a DispatchIO `.stream` channel, pooled buffers written in order.
    case stream
    /// Several queues write each part at its precomputed offset with positional I/O.
    case offsets
    /// Parts memory-mapped into one DispatchData, written by a single DispatchIO write.
    case dispatchdata

    /// The implementation.
    public var strategy: any MergeStrategy {
        switch self {
        case .auto: return KernelCopyMerge()
        case .stream: return StreamMerge()
        case .offsets: return OffsetsMerge()
        case .dispatchdata: return DispatchDataMerge()
        }
    }
}

/// Everything a strategy needs, validated by the caller; strategies do not re-validate it.
public struct MergeRequest: Sendable {
    /// The parts, in output order, each checked to be a readable regular file of known size.
    public var parts: [PartFile]
    public var limits: ChunkLimits
    /// How many queues work at once where a strategy runs in parallel.
    public var jobs: Int
    /// Compute the crc32 of the output from the bytes as they pass (see ``MergeResult/crc32``).
    public var computeCRC: Bool

    public init(parts: [PartFile], limits: ChunkLimits = .default, jobs: Int = 2, computeCRC: Bool = false) {
        self.parts = parts
        self.limits = limits
        self.jobs = max(1, jobs)
        self.computeCRC = computeCRC
    }

    public var totalBytes: Int64 { parts.reduce(0) { $0 + $1.size } }

    /// Where each part starts in the output.
    public var outputOffsets: [Int64] {
        var offsets: [Int64] = []
        offsets.reserveCapacity(parts.count)
        var next: Int64 = 0
        for part in parts {
            offsets.append(next)
            next += part.size
        }
        return offsets
    }
}

/// What a strategy did.
public struct MergeResult: Sendable, Equatable {
    public var bytes: Int64
    /// Read or write operations actually issued (syscalls, or DispatchIO deliveries).
    public var chunks: Int64
    /// The crc32 of the output, when requested and the strategy saw the bytes.
    public var crc32: UInt32?
    /// How the kernel copy ended up moving bytes, for `auto`.
    public var method: String?

    public init(bytes: Int64, chunks: Int64, crc32: UInt32? = nil, method: String? = nil) {
        self.bytes = bytes
        self.chunks = chunks
        self.crc32 = crc32
        self.method = method
    }
}

/// One way to concatenate the parts of a ``MergeRequest`` into an open output.
///
/// A strategy writes exactly `request.totalBytes` bytes starting at the output's current
/// position (offset 0 for a new file), counts its progress in `counter`, and throws a
/// ``GCDCatError`` naming the file and syscall on the first failure. It never opens more than a
/// bounded number of parts at once.
public protocol MergeStrategy: Sendable {
    func merge(_ request: MergeRequest, into output: OutputSink, counter: TransferCounter) throws
        -> MergeResult
}
