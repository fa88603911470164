import Dispatch
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `stream`: one serial queue; every chunk is written, in the order it was read, through a
/// DispatchIO `.stream` channel (the tutorial's example 9.1).
///
/// ## Implementation details
/// A DispatchIO read channel allocates a fresh buffer for every chunk, and on this platform the
/// page faults of those fresh buffers cap a naive merge at a sixth of `cat`'s speed. So the
/// parts are `pread` on the serial queue into a ``BufferPool`` of eight `highWater` buffers;
/// each filled buffer is wrapped without copying as `DispatchData(bytesNoCopy:)` whose custom
/// deallocator returns it to the pool and reads the next chunk. Four buffers go to DispatchIO
/// as one write. The pool bounds the bytes in flight (and the anonymous memory) to
/// `8 × highWater`; nothing ever blocks a thread. The pool is allocated up front and failably:
/// under a memory limit the merge stops with `malloc` ENOMEM naming the output, before a byte
/// is written.
public struct StreamMerge: MergeStrategy {
    /// Two batches: one being written while the next is read.
    static let bufferCount = 8
    static let buffersPerWrite = 4

    public init() {}

    public func merge(_ request: MergeRequest, into output: OutputSink, counter: TransferCounter)
        throws -> MergeResult
    {
        // DispatchIO needs threads of libdispatch's own; under an address-space limit that
        // leaves no room for them it retries their creation for ever. Fail first, cleanly.
        try Syscall.requireAddressSpace(DispatchDataMerge.headroomForThreads, path: output.path)
        let pump = try StreamPump(request: request, output: output, counter: counter)
        return try pump.run()
    }
}

/// The state of one stream merge.
///
/// Every mutable property is touched only on `queue`, a serial queue; that confinement (checked
/// by `dispatchPrecondition`) is what makes the unchecked `Sendable` sound.
private final class StreamPump: @unchecked Sendable {
    let queue = DispatchQueue(label: "gcdcat.stream")
    let request: MergeRequest
    let output: OutputSink
    let counter: TransferCounter
    let pool: BufferPool
    let finished = DispatchSemaphore(value: 0)
    var channel: DispatchIO!

    var sourceIndex = 0
    /// Bytes of the current source already read.
    var sourcePosition: Int64 = 0
    var reader: PartReader
    var inFlight = 0
    var readingDone = false
    var closing = false
    var failure: (any Error)?
    var chunks: Int64 = 0
    var crc: Checksum?

    init(request: MergeRequest, output: OutputSink, counter: TransferCounter) throws {
        self.request = request
        self.output = output
        self.counter = counter
        self.pool = try BufferPool(count: StreamMerge.bufferCount, size: request.limits.highWater, path: output.path)
        self.crc = request.computeCRC ? Checksum(.crc32) : nil
        self.reader = PartReader()
    }

    func run() throws -> MergeResult {
        // Lent: the sink owns the descriptor (standard output is never closed), so the cleanup
        // handler only says the channel let go of it.
        channel = DispatchIO(
            type: .stream, fileDescriptor: try output.fd, queue: queue,
            cleanupHandler: { [finished] _ in finished.signal() })
        request.limits.apply(to: channel)
        queue.async { self.pump() }
        try waitForCleanup()
        reader.closeCurrent()
        if let failure { throw failure }
        return MergeResult(bytes: request.totalBytes, chunks: chunks, crc32: crc?.value)
    }

    /// Waits for the channel's cleanup handler. A pipe whose reader has gone is seen by poll
    /// (POLLERR), not by libdispatch, which waits for it to become writable for ever (its
    /// threads block SIGPIPE, and no write is made to fail with EPIPE): the merge then fails
    /// with EPIPE, and the channel is stopped.
    func waitForCleanup() throws {
        var stopped = 0
        while finished.wait(timeout: .now() + .milliseconds(500)) == .timedOut {
            guard output.readerGone else { continue }
            if stopped == 0 {
                queue.async { [self] in
                    fail(GCDCatError.syscall("write", path: output.path, errno: EPIPE))
                    closing = true
                    channel.close(flags: .stop)
                }
            }
            stopped += 1
            // A stop that does not reach the stuck write: the caller ends the process anyway.
            if stopped > 4 { throw GCDCatError.syscall("write", path: output.path, errno: EPIPE) }
        }
    }

    /// Reads chunks into free buffers and submits them, a batch per DispatchIO write.
    ///
    /// One write operation per batch of ``StreamMerge/buffersPerWrite`` buffers rather than per
    /// buffer: every operation costs libdispatch a few thread hand-offs, and on this 2-core VM
    /// those, not the copying, dominated at 1 MiB chunks (larger chunks ran several times faster).
    func pump() {
        dispatchPrecondition(condition: .onQueue(queue))
        while failure == nil, !readingDone {
            var batch = DispatchData.empty
            var buffersInBatch = 0
            while buffersInBatch < StreamMerge.buffersPerWrite, let buffer = pool.take() {
                do {
                    let count = try readNextChunk(into: buffer.pointer)
                    guard count > 0 else {
                        pool.give(buffer)
                        readingDone = true
                        break
                    }
                    batch.append(wrap(buffer, count: count))
                    buffersInBatch += 1
                } catch {
                    pool.give(buffer)
                    fail(error)
                    break
                }
            }
            if batch.count > 0 { submit(batch) }
            // Out of free buffers: the deallocator of a written batch calls back in.
            if buffersInBatch < StreamMerge.buffersPerWrite { break }
        }
        closeIfFinished()
    }

    /// Fills `buffer` from the current source, moving to the next at its end; 0 at the end.
    func readNextChunk(into buffer: UnsafeMutableRawPointer) throws -> Int {
        while sourceIndex < request.sources.count {
            let source = request.sources[sourceIndex]
            let remaining = source.length - sourcePosition
            if remaining == 0 {
                if source.reachesEnd && source.length > 0 {
                    try source.file.requireUnchanged(fd: try reader.descriptor(for: source.file))
                }
                sourceIndex += 1
                sourcePosition = 0
                continue
            }
            let fd = try reader.descriptor(for: source.file)
            let want = Int(min(remaining, Int64(pool.bufferSize)))
            try readExactly(fd, into: buffer, count: want, at: source.offset + sourcePosition, of: source.file)
            sourcePosition += Int64(want)
            chunks += 1
            crc?.update(UnsafeRawBufferPointer(start: buffer, count: want))
            return want
        }
        return 0
    }

    /// A pool buffer as DispatchData, without copying; its release returns the buffer and
    /// reads on.
    func wrap(_ buffer: BufferPool.Buffer, count: Int) -> DispatchData {
        DispatchData(
            bytesNoCopy: UnsafeRawBufferPointer(start: buffer.pointer, count: count),
            deallocator: .custom(queue) { [self] in
                pool.give(buffer)
                pump()
            })
    }

    func submit(_ data: DispatchData) {
        inFlight += 1
        let total = data.count
        var reported = 0
        channel.write(offset: 0, data: data, queue: queue) { [self] done, remaining, error in
            if error != 0 {
                if failure == nil && error != ECANCELED {
                    fail(GCDCatError.syscall("write", path: output.path, errno: error))
                }
            } else {
                let written = done ? total : total - (remaining?.count ?? 0)
                counter.add(bytes: Int64(written - reported), chunks: 0)
                reported = written
            }
            if done {
                inFlight -= 1
                closeIfFinished()
            }
        }
    }

    func fail(_ error: any Error) {
        if failure == nil { failure = error }
    }

    /// Closes the channel once reading ended (or failed) and no write is outstanding.
    func closeIfFinished() {
        guard !closing, inFlight == 0, readingDone || failure != nil else { return }
        closing = true
        channel.close(flags: failure == nil ? [] : .stop)
    }
}
