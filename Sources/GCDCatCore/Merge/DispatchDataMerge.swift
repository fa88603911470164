import CSystemShim
import Dispatch
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `dispatchdata`: every part is memory-mapped and wrapped without copying as DispatchData;
/// the pieces are appended into one DispatchData and written by a single DispatchIO write
/// (the tutorial's example 10.1).
///
/// ## Implementation details
/// - Parts are mapped with `mmap` directly. `Data(contentsOf:options:.alwaysMapped)` keeps
///   small files inline, so a pointer taken from it can dangle.
/// - Each descriptor is closed as soon as its part is mapped, so thousands of parts need no
///   more than one descriptor at a time.
/// - The deallocator is `.custom` with `munmap`: libdispatch's `.unmap` and `.free` crash on
///   Linux (swift-corelibs-libdispatch#947).
/// - 0-byte parts are skipped: `mmap` refuses a zero length.
/// - Mapped file pages count toward RSS (RssFile), not toward anonymous memory; the report shows
///   both. The kernel copies from the mapping inside `write`, so a part truncated meanwhile
///   makes `write` fail with EFAULT rather than raise SIGBUS; gcdcat reports it as a changed
///   input. A requested crc32 is computed by reading the written output back, never from the
///   mappings, except when the output is a pipe: only then would a part truncated meanwhile
///   raise SIGBUS.
/// - Under an address-space limit (`ulimit -v`) a part that cannot be mapped, or mappings that
///   leave less than ``headroom`` free, are an `mmap` ENOMEM error before anything is written.
public struct DispatchDataMerge: MergeStrategy {
    /// Address space left free after mapping the parts, for libdispatch's threads: each takes
    /// an 8 MiB stack, and a DispatchIO write was seen to start 37 of them, besides glibc's two
    /// malloc arenas (64 MiB each, aligned to 64 MiB). 96 MiB hung under `ulimit -v 800000`
    /// with 300 MB of parts every time, 192 MiB in 1 run of 8; 512 MiB leaves room for them all.
    static let headroom = 512 << 20

    /// Address space a DispatchIO merge needs before it starts (stream's check; dispatchdata
    /// asks for ``headroom`` after its mappings): a few threads' stacks and the malloc arenas.
    static let headroomForThreads = 192 << 20

    public init() {}

    public func merge(_ request: MergeRequest, into output: OutputSink, counter: TransferCounter)
        throws -> MergeResult
    {
        let mappings = try request.sources.map { try MappedRange(mapping: $0) }
        // Under an address-space limit the mappings can take the room libdispatch needs for
        // its threads' stacks and buffers; it then never calls back, and the merge hung. Fail
        // here instead, while nothing is written.
        try Syscall.requireAddressSpace(Self.headroom, path: output.path)
        var whole = DispatchData.empty
        for mapping in mappings {
            if let data = mapping.dispatchData() { whole.append(data) }
        }
        let chunks = try Self.write(whole, to: output, limits: request.limits, counter: counter)
        var crc: UInt32?
        if request.computeCRC {
            // Read the written output back rather than the mappings: a part truncated by another
            // process would raise SIGBUS where user space touches its mapping.
            crc =
                output.allowsPositionalWrites
                ? try ParallelChecksum.compute(
                    .crc32, fd: output.fd, path: output.path, length: request.totalBytes, jobs: request.jobs
                ).value
                : Self.crc32(of: mappings, jobs: request.jobs)
        }
        for part in request.parts where request.sources.contains(where: { $0.file == part && $0.reachesEnd }) {
            guard let info = try Syscall.statIfExists(part.path) else {
                throw GCDCatError(.inputChanged, path: part.path, message: "removed while being merged")
            }
            try part.requireUnchangedSize(Int64(info.st_size))
        }
        return MergeResult(bytes: request.totalBytes, chunks: chunks, crc32: crc)
    }

    /// Writes `data` with one DispatchIO write on a `.stream` channel; returns the deliveries.
    static func write(
        _ data: DispatchData, to output: OutputSink, limits: ChunkLimits, counter: TransferCounter
    ) throws -> Int64 {
        let queue = DispatchQueue(label: "gcdcat.dispatchdata")
        let closed = DispatchSemaphore(value: 0)
        let outcome = Mutex<(chunks: Int64, error: Int32)>((0, 0))
        // Lent: the sink owns the descriptor (standard output is never closed), so the cleanup
        // handler only says the channel let go of it.
        let channel = DispatchIO(
            type: .stream, fileDescriptor: try output.fd, queue: queue,
            cleanupHandler: { _ in closed.signal() })
        limits.apply(to: channel)
        let total = data.count
        let reported = Mutex(0)
        channel.write(offset: 0, data: data, queue: queue) { done, remaining, error in
            let left = remaining?.count ?? 0
            let progress: Int = reported.withLock { reported in
                let written = done && error == 0 ? total : total - left
                defer { reported = max(reported, written) }
                return max(0, written - reported)
            }
            counter.add(bytes: Int64(progress), chunks: 0)
            outcome.withLock {
                if error != 0 { $0.error = error } else { $0.chunks += 1 }
            }
            if done { channel.close() }
        }
        if total == 0 { channel.close() }
        try waitForClose(closed, progress: { reported.withLock { $0 } }, output: output)
        let (chunks, error) = outcome.withLock { $0 }
        if error == EFAULT {
            throw GCDCatError(
                .inputChanged, syscall: "write", errno: EFAULT,
                message: "a mapped part was truncated while being merged")
        }
        if error != 0 { throw GCDCatError.syscall("write", path: output.path, errno: error) }
        return chunks
    }

    /// Waits for the channel's cleanup handler. Under an address-space limit libdispatch may be
    /// unable to start the thread that performs the write; it then retries for ever
    /// (`_dispatch_temporary_resource_shortage`) and the handler never runs. So a write that
    /// makes no progress while the address space is exhausted is an `mmap` ENOMEM error.
    static func waitForClose(
        _ closed: DispatchSemaphore, progress: () -> Int, output: OutputSink
    ) throws {
        var seen = progress()
        while closed.wait(timeout: .now() + .seconds(2)) == .timedOut {
            // A pipe whose reader has gone: libdispatch may wait for it to become writable for
            // ever (its worker threads block SIGPIPE, and the error never reaches the handler).
            if output.readerGone {
                throw GCDCatError.syscall("write", path: output.path, errno: EPIPE)
            }
            let now = progress()
            if now == seen {
                // On failure the channel still holds the mappings; the caller exits after this.
                try Syscall.requireAddressSpace(headroom, path: output.path)
            }
            seen = now
        }
    }

    /// The crc32 of the mapped parts in order, checksummed in parallel and combined.
    static func crc32(of mappings: [MappedRange], jobs: Int) -> UInt32 {
        let pieces = try? ParallelMap.map(count: mappings.count, jobs: jobs) { index in
            var checksum = Checksum(.crc32)
            mappings[index].withBytes { checksum.update($0) }
            return checksum
        }
        return Checksum.combine(.crc32, pieces ?? []).value
    }
}

/// A source range's read-only mapping, unmapped when the last DispatchData holding it is released.
final class MappedRange: Sendable {
    /// The page-aligned start of the mapping, as `mmap` returned it.
    private let mapping: MappedAddress?
    private let mappedLength: Int
    /// Bytes between the mapping's start and the range's.
    private let lead: Int
    let size: Int

    /// Maps `source` (from the page boundary at or below its offset) and closes the descriptor.
    init(mapping source: SourceRange) throws {
        size = Int(source.length)
        let page = Int64(getpagesize())
        let alignedOffset = source.offset / page * page
        lead = Int(source.offset - alignedOffset)
        mappedLength = size + lead
        guard source.length > 0 else {
            mapping = nil
            return
        }
        let pointer = try Self.map(source.file, length: mappedLength, offset: alignedOffset)
        _ = madvise(pointer, mappedLength, MADV_SEQUENTIAL)
        mapping = MappedAddress(pointer: pointer)
    }

    /// Maps `length` bytes of `file` from `offset`; the mapping outlives the descriptor.
    private static func map(_ file: PartFile, length: Int, offset: Int64) throws -> UnsafeMutableRawPointer {
        let opened = try file.open()
        return try Syscall.mapReadOnly(opened.raw, length: length, offset: offset, path: file.path)
    }

    private var start: UnsafeMutableRawPointer? { mapping.map { $0.pointer + lead } }

    /// Wraps the mapping without copying. The DispatchData keeps `self`, and so the mapping,
    /// alive until libdispatch is done with it.
    func dispatchData() -> DispatchData? {
        guard let start else { return nil }
        return DispatchData(
            bytesNoCopy: UnsafeRawBufferPointer(start: start, count: size),
            deallocator: .custom(nil) { withExtendedLifetime(self) {} })
    }

    func withBytes(_ body: (UnsafeRawBufferPointer) -> Void) {
        guard let start else { return }
        body(UnsafeRawBufferPointer(start: start, count: size))
    }

    deinit {
        if let mapping { _ = gcdcat_unmap(mapping.pointer, mappedLength) }
    }
}

/// A mapping's address; the pages are read-only, so sharing it across threads is safe.
private struct MappedAddress: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
