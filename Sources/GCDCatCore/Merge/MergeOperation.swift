/// A whole merge: resolve and validate the parts, open the output safely, run a strategy,
/// and commit the output only if every byte arrived.
public struct MergeOperation: Sendable {
    public var partPaths: [String]
    public var output: OutputTarget
    public var strategy: MergeStrategyKind
    public var limits: ChunkLimits
    public var jobs: Int
    public var overwrite: Bool
    public var fsync: Bool
    public var allowDuplicates: Bool
    public var computeCRC: Bool

    public init(
        partPaths: [String], output: OutputTarget, strategy: MergeStrategyKind = .auto,
        limits: ChunkLimits = .default, jobs: Int = 2, overwrite: Bool = false,
        fsync: Bool = false, allowDuplicates: Bool = false, computeCRC: Bool = false
    ) {
        self.partPaths = partPaths
        self.output = output
        self.strategy = strategy
        self.limits = limits
        self.jobs = jobs
        self.overwrite = overwrite
        self.fsync = fsync
        self.allowDuplicates = allowDuplicates
        self.computeCRC = computeCRC
    }

    /// Checks every part, in order, before anything is written.
    ///
    /// ## Errors
    /// The first part that is missing, not a regular file, unreadable, or (without
    /// `allowDuplicates`) the same file as an earlier part.
    public func validatedParts() throws -> [PartFile] {
        var seen: [PartIdentity: String] = [:]
        return try partPaths.map { path in
            let part = try PartFile.validate(path)
            let identity = PartIdentity(device: part.device, inode: part.inode)
            if !allowDuplicates, let earlier = seen[identity] {
                throw GCDCatError(
                    .invalidInput, path: path,
                    message: "is the same file as \(earlier), given earlier (use --allow-duplicates if you mean it)")
            }
            seen[identity] = path
            return part
        }
    }

    /// Validates, merges, and commits; on any failure the output is removed.
    public func run(counter: TransferCounter = TransferCounter()) throws -> (MergeRequest, MergeResult) {
        let request = MergeRequest(
            parts: try validatedParts(), limits: limits, jobs: jobs, computeCRC: computeCRC)
        return (request, try run(request, counter: counter))
    }

    /// Merges already-validated parts and commits the output.
    ///
    /// With `expectedCRC`, the crc32 of the bytes that passed must equal it, or the output is
    /// discarded with a `.checksumMismatch` error.
    public func run(_ request: MergeRequest, counter: TransferCounter, expectedCRC: UInt32? = nil) throws
        -> MergeResult
    {
        let sink = try OutputSink.open(output, inputs: request.parts, overwrite: overwrite)
        do {
            // Reserving the blocks up front reports a full disk before any data is written,
            // and made every strategy faster here (ext4 allocates once instead of per write).
            if sink.allowsPositionalWrites && request.totalBytes > 0 {
                try preallocate(sink, bytes: request.totalBytes)
            }
            let result = try strategy.strategy.merge(request, into: sink, counter: counter)
            if let expectedCRC, let actual = result.crc32, actual != expectedCRC {
                throw GCDCatError(
                    .checksumMismatch, path: sink.path,
                    message:
                        "the merged bytes have crc32 \(hex8(actual)), but the verified parts combine to \(hex8(expectedCRC)): a part changed during the merge"
                )
            }
            try sink.commit(fsync: fsync)
            return result
        } catch {
            sink.discard()
            throw error
        }
    }
}

private struct PartIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
}

/// Turns the part arguments into the list of parts and the default output name.
public enum PartArguments {
    /// One numbered first part (`NAME.001` or `NAME.000`) expands to its whole set; several
    /// arguments are taken in the order given. The default output is the first part's name
    /// without its number, when it has one.
    public static func resolve(_ arguments: [String]) throws -> Resolved {
        if arguments.count == 1, PartDiscovery.isFirstPart(arguments[0]) {
            let parts = try PartDiscovery.discover(firstPart: arguments[0])
            return Resolved(
                parts: parts, defaultOutput: PartDiscovery.numberedName(arguments[0])?.base, discovered: true)
        }
        return Resolved(
            parts: arguments, defaultOutput: arguments.first.flatMap { PartDiscovery.numberedName($0)?.base },
            discovered: false)
    }

    public struct Resolved: Sendable, Equatable {
        public var parts: [String]
        /// The first part's name without its number, when it has one.
        public var defaultOutput: String?
        /// True when the parts were found from a first part, rather than all given.
        public var discovered: Bool
    }
}
