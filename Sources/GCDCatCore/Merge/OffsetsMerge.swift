import CSystemShim
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// `offsets`: several serial queues each copy segments of the parts to their precomputed
/// offsets in the output, in parallel (the tutorial's example 9.2, without its bug).
///
/// ## Implementation details
/// The tutorial opens the output in append mode, and on Linux a positional write to an
/// append-mode descriptor ignores its offset, so its parts land in completion order. The output
/// here is opened without append mode. A DispatchIO `.random` channel would not help either: every regular file
/// on one device shares one libdispatch disk queue, which issues one syscall at a time. So each
/// of `jobs` queues runs a loop of `pread` from a part and `pwrite` at the output offset,
/// through its own `highWater` buffer. Parts are cut into segments of at least 32 MiB so that
/// one huge part still spreads across queues.
///
/// An output that is not gcdcat's own new file (a pipe, standard output) takes no positional
/// writes, so there one queue writes the segments in order.
public struct OffsetsMerge: MergeStrategy {
    static let minimumSegment: Int64 = 32 << 20

    public init() {}

    struct Segment {
        var source: Int
        /// Offset in the source's file.
        var fileOffset: Int64
        var outputOffset: Int64
        var length: Int64
    }

    static func segments(for request: MergeRequest) -> [Segment] {
        let segmentSize = max(minimumSegment, Int64(request.limits.highWater))
        var segments: [Segment] = []
        for (index, start) in request.outputOffsets.enumerated() {
            let source = request.sources[index]
            var offset: Int64 = 0
            while offset < source.length {
                let length = min(segmentSize, source.length - offset)
                segments.append(
                    Segment(
                        source: index, fileOffset: source.offset + offset, outputOffset: start + offset,
                        length: length))
                offset += length
            }
        }
        return segments
    }

    public func merge(_ request: MergeRequest, into output: OutputSink, counter: TransferCounter)
        throws -> MergeResult
    {
        let positional = output.allowsPositionalWrites
        let total = request.totalBytes
        let segments = Self.segments(for: request)
        let jobs = positional ? max(1, min(request.jobs, segments.count)) : 1
        let cursor = WorkCursor(count: segments.count)
        let latch = FailureLatch()
        let checksums = ResultSlots<Checksum>(count: request.computeCRC ? segments.count : 0)
        let chunkCounts = ResultSlots<Int64>(count: jobs)
        let pool = BufferPool(count: jobs, size: request.limits.highWater)
        let group = DispatchGroup()

        for worker in 0..<jobs {
            let queue = DispatchQueue(label: "gcdcat.offsets.\(worker)")
            queue.async(group: group) {
                guard let buffer = pool.take() else { return }
                defer { pool.give(buffer) }
                var reader = PartReader()
                defer { reader.closeCurrent() }
                var chunks: Int64 = 0
                while !latch.hasFailed, let index = cursor.claim() {
                    latch.capture {
                        let segment = segments[index]
                        var checksum = request.computeCRC ? Checksum(.crc32) : nil
                        chunks += try copySegment(
                            segment, request: request, reader: &reader, buffer: buffer,
                            output: output, positional: positional, checksum: &checksum,
                            counter: counter)
                        if let checksum { checksums[index] = checksum }
                    }
                }
                chunkCounts[worker] = chunks
            }
        }
        group.wait()
        try latch.check()
        let crc =
            request.computeCRC
            ? Checksum.combine(.crc32, checksums.values.compactMap { $0 }).value : nil
        return MergeResult(
            bytes: total, chunks: chunkCounts.values.reduce(0) { $0 + ($1 ?? 0) }, crc32: crc)
    }

    private func copySegment(
        _ segment: Segment, request: MergeRequest, reader: inout PartReader,
        buffer: BufferPool.Buffer, output: OutputSink, positional: Bool,
        checksum: inout Checksum?, counter: TransferCounter
    ) throws -> Int64 {
        let source = request.sources[segment.source]
        let fd = try reader.descriptor(for: source.file)
        var done: Int64 = 0
        var chunks: Int64 = 0
        while done < segment.length {
            let want = Int(min(Int64(buffer.size), segment.length - done))
            try readExactly(fd, into: buffer.pointer, count: want, at: segment.fileOffset + done, of: source.file)
            checksum?.update(UnsafeRawBufferPointer(start: buffer.pointer, count: want))
            if positional {
                try Syscall.pwriteAll(
                    output.fd, from: buffer.pointer, count: want,
                    offset: segment.outputOffset + done, path: output.path)
            } else {
                try Syscall.writeAll(output.fd, from: buffer.pointer, count: want, path: output.path)
            }
            done += Int64(want)
            chunks += 1
            counter.add(bytes: Int64(want))
        }
        if source.reachesEnd && segment.fileOffset + segment.length == source.file.size {
            try source.file.requireUnchanged(fd: fd)
        }
        return chunks
    }
}

/// Keeps one file open per worker, re-opening only when the worker moves to another file.
struct PartReader {
    private var current: (file: PartFile, fd: Int32)?

    mutating func descriptor(for file: PartFile) throws -> Int32 {
        if let current, current.file == file { return current.fd }
        closeCurrent()
        let fd = try file.open()
        current = (file, fd)
        return fd
    }

    mutating func closeCurrent() {
        if let current { close(current.fd) }
        current = nil
    }
}

/// Reads exactly `count` bytes at `offset`, or throws `.inputChanged` if the file ends first.
func readExactly(
    _ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64, of file: PartFile
) throws {
    let got = try Syscall.pread(fd, into: buffer, count: count, offset: offset, path: file.path)
    guard got == count else {
        throw GCDCatError(
            .inputChanged, path: file.path,
            message: "ended at byte \(offset + Int64(got)) of \(file.size): it shrank while gcdcat was reading it")
    }
}
