import CSystemShim
import Dispatch
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `auto`: the kernel copies the bytes; GCD orchestrates the parts.
///
/// ## Implementation details
/// Into a regular file, `jobs` workers (``ParallelMap``) each claim the next part and clone it
/// (`FICLONERANGE`, when block-aligned and the filesystem shares blocks) or `copy_file_range`
/// it to its precomputed offset (or `pread`/`pwrite` it there, across filesystems: never
/// `sendfile`, which writes at the offset every worker shares), so page-cache copies run on
/// every core and cold reads of different parts overlap. Into a pipe or device the parts go one
/// after another at the current position. Either way the part after the ones in flight is
/// prefetched with `posix_fadvise(WILLNEED)` on a utility queue.
///
/// A verified merge and a split with a manifest do not ask this strategy for a crc32: they
/// read the inputs for it on another queue while this one copies (``MergeOperation``'s
/// overlapped verification, ``PieceChecksums``; docs/notes/cow.md). When a crc32 is still
/// requested (a verified merge into a pipe, or parts whose ctime is ahead of the clock), the
/// bytes must pass through user space: `auto` then runs the `offsets` engine, which checksums
/// each chunk between its `pread` and `pwrite`.
public struct KernelCopyMerge: MergeStrategy {
    /// Bytes per `copy_file_range` call: large enough to amortise the syscall, small enough for
    /// prompt progress and cancellation.
    static let minimumSlice = 16 << 20

    public init() {}

    public func merge(_ request: MergeRequest, into output: OutputSink, counter: TransferCounter)
        throws -> MergeResult
    {
        if request.computeCRC {
            var result = try OffsetsMerge().merge(request, into: output, counter: counter)
            result.method = KernelCopier.Method.readWrite.rawValue
            result.notes.append("pread/pwrite, to checksum the bytes as they pass")
            return result
        }
        let sources = request.sources
        let offsets = request.outputOffsets
        let positional = output.allowsPositionalWrites
        // Only a positional output takes several writers; a pipe gets one, in order.
        let jobs = positional ? request.jobs : 1
        let workers = ParallelMap.workerCount(jobs: jobs, items: sources.count)
        let slice = max(request.limits.highWater, Self.minimumSlice)
        let tally = Mutex(CopyTally())
        let prefetcher = Prefetcher(sources: sources)
        prefetcher.prefetch(upTo: workers)

        let calls = try ParallelMap.run(
            count: sources.count, jobs: jobs, makeState: { KernelCopier(sliceSize: slice) },
            finish: { copier in
                tally.withLock { [copier] in $0.add(copier) }
                copier.release()
            }
        ) { copier, index -> Int64 in
            prefetcher.prefetch(upTo: index + workers + 1)
            let source = sources[index]
            guard source.length > 0 else { return 0 }
            let part = source.file
            let opened = try part.open()
            let fd = opened.raw
            let made = try copier.copy(
                from: fd, inputPath: part.path, inputOffset: source.offset, count: source.length,
                to: output.fd, outputPath: output.path, outputOffset: positional ? offsets[index] : nil,
                counter: counter)
            if source.reachesEnd { try part.requireUnchanged(fd: fd) }
            return made
        }
        let totals = tally.withLock { $0 }
        var notes: [String] = []
        if totals.unalignedRanges > 0 && totals.cloneable {
            let count = "\(totals.unalignedRanges) of \(sources.count) parts"
            notes.append(
                totals.triedClone
                    ? "\(count) not cloned: their offsets or sizes are not multiples of the filesystem block; copied instead"
                    : "\(count) not block-aligned (offset or size), so no clone was tried; copied instead")
        }
        return MergeResult(
            bytes: request.totalBytes, chunks: calls.reduce(0, +), method: totals.method.rawValue,
            clonedBytes: totals.clonedBytes, copiedBytes: totals.copiedBytes, notes: notes)
    }
}

/// What every worker's ``KernelCopier`` did, added up.
struct CopyTally {
    var method = KernelCopier.Method.copyFileRange
    var clonedBytes: Int64 = 0
    var copiedBytes: Int64 = 0
    var unalignedRanges = 0
    /// False once any copier found that the filesystem cannot clone at all.
    var cloneable = true
    var triedClone = false
    private var used = false

    mutating func add(_ copier: KernelCopier) {
        if copier.clonedBytes + copier.copiedBytes > 0 {
            method = used ? max(method, copier.slowestMethod) : copier.slowestMethod
            used = true
        }
        clonedBytes += copier.clonedBytes
        copiedBytes += copier.copiedBytes
        unalignedRanges += copier.unalignedRanges
        cloneable = cloneable && copier.cloning
        triedClone = triedClone || copier.triedClone
    }
}

/// Asks the kernel to start reading sources before they are copied, each once.
final class Prefetcher: Sendable {
    private let sources: [SourceRange]
    private let issued = Mutex(0)
    private let queue = DispatchQueue(label: "gcdcat.prefetch", qos: .utility)

    init(sources: [SourceRange]) { self.sources = sources }

    /// Prefetches every source before index `end` that has not been prefetched yet.
    func prefetch(upTo end: Int) {
        let range: Range<Int> = issued.withLock { issued in
            let upper = min(end, sources.count)
            defer { issued = max(issued, upper) }
            return issued..<max(issued, upper)
        }
        for index in range {
            let source = sources[index]
            queue.async {
                // The copy itself will report any error.
                guard let file = try? OwnedDescriptor(opening: source.file.path, O_RDONLY | O_NONBLOCK) else { return }
                _ = gcdcat_fadvise_willneed(file.raw, source.offset, source.length)
            }
        }
    }
}
