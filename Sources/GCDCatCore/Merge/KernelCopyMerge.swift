import CSystemShim
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `auto`: the kernel copies the bytes; GCD orchestrates the parts.
///
/// ## Implementation details
/// Into a regular file, `jobs` workers on `concurrentPerform` each claim the next part and
/// `copy_file_range` it to its precomputed offset, so page-cache copies run on every core and
/// cold reads of different parts overlap. Into a pipe or device the parts go one after another
/// at the current position. Either way the part after the ones in flight is prefetched with
/// `posix_fadvise(WILLNEED)` on a utility queue, so the disk reads ahead while the copy runs.
/// Data never passes through user space, so a requested crc32 is computed afterwards by reading
/// the output back in parallel (it is hot in the page cache).
public struct KernelCopyMerge: MergeStrategy {
    /// Bytes per `copy_file_range` call: large enough to amortise the syscall, small enough for
    /// prompt progress and cancellation.
    static let minimumSlice = 16 << 20

    public init() {}

    public func merge(_ request: MergeRequest, into output: OutputSink, counter: TransferCounter)
        throws -> MergeResult
    {
        let sources = request.sources
        let offsets = request.outputOffsets
        let workers = output.allowsPositionalWrites ? min(request.jobs, max(sources.count, 1)) : 1
        let slice = max(request.limits.highWater, Self.minimumSlice)
        let cursor = WorkCursor(count: sources.count)
        let latch = FailureLatch()
        let calls = Atomic<Int64>(0)
        let slowestMethod = Mutex(KernelCopier.Method.copyFileRange)
        let prefetcher = Prefetcher(sources: sources)
        prefetcher.prefetch(upTo: workers)

        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var copier = KernelCopier(sliceSize: slice)
            defer { copier.release() }
            while !latch.hasFailed, let index = cursor.claim() {
                prefetcher.prefetch(upTo: index + workers + 1)
                latch.capture {
                    let source = sources[index]
                    guard source.length > 0 else { return }
                    let part = source.file
                    let fd = try part.open()
                    defer { _ = close(fd) }
                    let made = try copier.copy(
                        from: fd, inputPath: part.path, inputOffset: source.offset, count: source.length,
                        to: output.fd, outputPath: output.path,
                        outputOffset: output.allowsPositionalWrites ? offsets[index] : nil,
                        counter: counter)
                    if source.reachesEnd { try part.requireUnchanged(fd: fd) }
                    calls.add(made, ordering: .relaxed)
                }
            }
            slowestMethod.withLock { $0 = max($0, copier.method) }
        }
        try latch.check()
        let total = request.totalBytes
        var crc: UInt32?
        if request.computeCRC {
            crc = try ParallelChecksum.compute(
                .crc32, fd: output.fd, path: output.path, length: total, jobs: request.jobs
            ).value
        }
        return MergeResult(
            bytes: total, chunks: calls.load(ordering: .relaxed), crc32: crc,
            method: slowestMethod.withLock { $0.rawValue })
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
                let fd = open(source.file.path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return }  // The copy itself will report the error.
                _ = gcdcat_fadvise_willneed(fd, source.offset, source.length)
                close(fd)
            }
        }
    }
}
