import GCDCatS3
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One split as the user asked for it, a file, standard input or an object into files or
/// objects: the single entry the `split` command calls. It writes one chunk to standard output
/// (`-n K/N`), pipes each part through a command (`--filter`), or runs the ``SplitOperation``
/// and returns its result with the report; the command only parses its options into one and
/// prints what comes back.
public struct SplitJob {
    public var operation: SplitOperation
    /// `-n K/N`'s K: only chunk K is written, to standard output.
    public var extractedChunk: Int?
    /// `--filter`: each part is piped through this command instead of written.
    public var filter: String?
    /// The store every `s3://` name goes through; called only when one is needed.
    public var makeStore: () throws -> CountingObjectStore

    /// `operation` as given, except that standard input is always streamed.
    public init(operation: SplitOperation, makeStore: @escaping () throws -> CountingObjectStore) {
        self.operation = operation
        if operation.input == "-" { self.operation.strategy = .stream }
        self.makeStore = makeStore
    }

    /// What a split did.
    public enum Outcome {
        /// One chunk went to standard output, or every part through the filter: nothing to report.
        case streamed
        /// The parts (and manifest, lists, recovery volumes) were published.
        case published(SplitResult, RunReport)
    }

    /// Splits as asked; `starting` is called with each part's name before the filter gets it.
    ///
    /// ## Errors
    /// Those of ``SplitOperation/run(counter:)``, ``SplitOperation/extract(chunk:counter:)``
    /// ``SplitFilter/run(_:counter:starting:)`` and ``SplitFilter/runStreaming(_:from:path:counter:starting:)``;
    /// the store's when it cannot be made.
    public func run(starting: (String) -> Void, measure: MergeJob.Measure) throws -> Outcome {
        if let extractedChunk {
            try operation.extract(chunk: extractedChunk)
            return .streamed
        }
        var operation = operation
        if let filter {
            operation.manifest = .none
            let command = SplitFilter(command: filter)
            if operation.input != "-" {
                _ = try command.run(operation, starting: starting)
            } else if case .roundRobin(let count) = operation.mode {
                _ = try command.runRoundRobin(
                    operation, count: count, from: STDIN_FILENO, path: "standard input", starting: starting)
            } else if SplitFilter.cutsAsItArrives(operation.mode) {
                _ = try command.runStreaming(operation, from: STDIN_FILENO, path: "standard input", starting: starting)
            } else {
                _ = try command.runSpooled(operation, from: STDIN_FILENO, path: "standard input", starting: starting)
            }
            return .streamed
        }
        let inputIsObject = ObjectLocation.isObjectPath(operation.input)
        let store = operation.writesObjects || inputIsObject ? try makeStore() : nil
        operation.objectStore = store
        var result: SplitResult?
        let (time, memory) = try measure(operation.input, inputSize(store), ProcessClock()) { counter in
            result = try operation.run(counter: counter)
        }
        guard let result else { return .streamed }
        let strategy =
            !inputIsObject ? operation.strategy.rawValue : operation.writesObjects ? "server-copy" : "ranged-get"
        var report = RunReport(
            operation: "split", strategy: strategy, parts: result.partPaths.count, bytes: result.bytesWritten,
            limits: operation.limits, chunks: result.chunks, jobs: operation.jobs, time: time, memory: memory,
            copyMethod: result.copyMethod, crc32: result.inputCRC, inputs: [operation.input],
            outputs: result.partPaths, manifest: result.manifestPath, clonedBytes: result.clonedBytes,
            copiedBytes: result.copiedBytes, notes: result.notes)
        report.recovery = result.recovery
        report.objectStore = store.map {
            ObjectStoreFacts(
                counts: $0.counts, copyParts: result.serverCopyParts, copiedBytes: result.serverCopiedBytes,
                checkBytesRead: result.checkBytesRead)
        }
        return .published(result, report)
    }

    /// The input's size, for the progress bar only (the split HEADs an object again); 0 for
    /// standard input, or when it cannot be found.
    private func inputSize(_ store: CountingObjectStore?) -> Int64 {
        let input = operation.input
        if ObjectLocation.isObjectPath(input) {
            guard let store, let location = try? ObjectLocation(parsing: input), let info = try? store.head(location)
            else { return 0 }
            return Int64(clamping: info.size)
        }
        return input == "-" ? 0 : (try? PartFile.validate(input).size) ?? 0
    }
}

extension SplitJob {
    /// The parts' lengths of a `.size` or `.parts` split of the local file `input`, before
    /// anything is read; nil for standard input, an object, a file that cannot be found, and
    /// the other modes, whose lengths depend on the lines.
    public static func plannedPartLengths(ofFile input: String, mode: SplitMode) -> [Int64]? {
        guard input != "-", !ObjectLocation.isObjectPath(input), let info = try? PartFile.validate(input) else {
            return nil
        }
        let ranges =
            switch mode {
            case .size(let size) where size > 0: SplitPlan.bySize(total: info.size, size: size)
            case .parts(let count) where count > 0: SplitPlan.byCount(total: info.size, count: count)
            default: [Range<Int64>]()
            }
        return ranges.isEmpty ? nil : ranges.map { Int64($0.count) }
    }
}
