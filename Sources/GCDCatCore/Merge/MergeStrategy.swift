import GCDCatSystem

/// The merge strategies, by the names the CLI takes.
public enum MergeStrategyKind: String, CaseIterable, Sendable, Codable {
    /// Kernel copies (`copy_file_range` at each part's offset, falling back to `pread`/`pwrite`;
    /// into a pipe, `sendfile` then `read`/`write`), parts prefetched.
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

/// A byte range of an input file: a whole part when merging, a slice of the input when splitting.
public struct SourceRange: Sendable, Hashable {
    public var file: PartFile
    public var offset: Int64
    public var length: Int64

    public init(file: PartFile, offset: Int64 = 0, length: Int64? = nil) {
        self.file = file
        self.offset = offset
        self.length = length ?? file.size - offset
    }

    /// True when the range runs to the end of the file as validated, so the file's size can be
    /// re-checked once it is consumed.
    public var reachesEnd: Bool { offset + length == file.size }
}

/// Everything a strategy needs, validated by the caller; strategies do not re-validate it.
public struct MergeRequest: Sendable {
    /// The byte ranges to concatenate, in output order; each file was checked to be a readable
    /// regular file of known size.
    public var sources: [SourceRange]
    public var limits: ChunkLimits
    /// How many queues work at once where a strategy runs in parallel.
    public var jobs: Int
    /// Compute the crc32 of the output from the bytes as they pass (see ``MergeResult/crc32``).
    public var computeCRC: Bool

    /// Whole parts, concatenated.
    public init(parts: [PartFile], limits: ChunkLimits = .default, jobs: Int = 2, computeCRC: Bool = false) {
        self.init(sources: parts.map { SourceRange(file: $0) }, limits: limits, jobs: jobs, computeCRC: computeCRC)
    }

    public init(sources: [SourceRange], limits: ChunkLimits = .default, jobs: Int = 2, computeCRC: Bool = false) {
        self.sources = sources
        self.limits = limits
        self.jobs = max(1, jobs)
        self.computeCRC = computeCRC
    }

    /// The distinct input files, in first-use order.
    public var parts: [PartFile] {
        var seen = Set<PartFile>()
        return sources.map(\.file).filter { seen.insert($0).inserted }
    }

    public var totalBytes: Int64 { sources.reduce(0) { $0 + $1.length } }

    /// Where each source starts in the output.
    public var outputOffsets: [Int64] {
        var offsets: [Int64] = []
        offsets.reserveCapacity(sources.count)
        var next: Int64 = 0
        for source in sources {
            offsets.append(next)
            next += source.length
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
    /// For `auto`: bytes shared with the inputs by clones, and bytes copied by any other method.
    public var clonedBytes: Int64?
    public var copiedBytes: Int64?
    /// Things about how the bytes moved that a person should know (ranges not cloned, and why).
    public var notes: [String]

    public init(
        bytes: Int64, chunks: Int64, crc32: UInt32? = nil, method: String? = nil, clonedBytes: Int64? = nil,
        copiedBytes: Int64? = nil, notes: [String] = []
    ) {
        self.bytes = bytes
        self.chunks = chunks
        self.crc32 = crc32
        self.method = method
        self.clonedBytes = clonedBytes
        self.copiedBytes = copiedBytes
        self.notes = notes
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
