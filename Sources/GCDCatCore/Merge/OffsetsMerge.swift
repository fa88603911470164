import CSystemShim
import Dispatch
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `offsets`: several workers each copy segments of the parts to their precomputed
/// offsets in the output, in parallel (the tutorial's example 9.2, without its bug).
///
/// ## Implementation details
/// The tutorial opens the output in append mode, and on Linux a positional write to an
/// append-mode descriptor ignores its offset, so its parts land in completion order. The output
/// here is opened without append mode. A DispatchIO `.random` channel would not help either:
/// every regular file on one device shares one libdispatch disk queue, which issues one syscall
/// at a time. So each of `jobs` workers (``ParallelMap``) runs a loop of `pread` from a part and
/// `pwrite` at the output offset, through its own `highWater` buffer (allocated failably: a
/// memory limit is an error naming the output, not a trap). Parts are cut into segments of at least 32 MiB so that
/// one huge part still spreads across queues.
///
/// An output that is not gcdcat's own new file (a pipe, standard output) takes no positional
/// writes, so there one worker writes the segments in order.
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
        // Only gcdcat's own file takes several writers; a pipe gets one, writing in order.
        let jobs = positional ? request.jobs : 1
        let bufferSize = request.limits.highWater
        let results = try ParallelMap.run(
            count: segments.count, jobs: jobs,
            makeState: {
                (
                    buffer: try Syscall.allocate(byteCount: bufferSize, alignment: 4096, path: output.path),
                    reader: PartReader()
                )
            },
            finish: { worker in
                free(worker.buffer)
                worker.reader.closeCurrent()
            }
        ) { worker, index -> (chunks: Int64, checksum: Checksum?) in
            var checksum = request.computeCRC ? Checksum(.crc32) : nil
            let chunks = try copySegment(
                segments[index], request: request, reader: worker.reader, buffer: worker.buffer,
                bufferSize: bufferSize, output: output, positional: positional, checksum: &checksum,
                counter: counter)
            return (chunks, checksum)
        }
        let crc = request.computeCRC ? Checksum.combine(.crc32, results.compactMap(\.checksum)).value : nil
        return MergeResult(bytes: total, chunks: results.reduce(0) { $0 + $1.chunks }, crc32: crc)
    }

    private func copySegment(
        _ segment: Segment, request: MergeRequest, reader: PartReader,
        buffer: UnsafeMutableRawPointer, bufferSize: Int, output: OutputSink, positional: Bool,
        checksum: inout Checksum?, counter: TransferCounter
    ) throws -> Int64 {
        let source = request.sources[segment.source]
        let fd = try reader.descriptor(for: source.file)
        var done: Int64 = 0
        var chunks: Int64 = 0
        while done < segment.length {
            let want = Int(min(Int64(bufferSize), segment.length - done))
            try readExactly(fd, into: buffer, count: want, at: segment.fileOffset + done, of: source.file)
            checksum?.update(UnsafeRawBufferPointer(start: buffer, count: want))
            if positional {
                try Syscall.pwriteAll(
                    output.fd, from: buffer, count: want,
                    offset: segment.outputOffset + done, path: output.path)
            } else {
                try Syscall.writeAll(output.fd, from: buffer, count: want, path: output.path)
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
///
/// A class: each worker owns one, and the descriptor it holds cannot be copied.
final class PartReader {
    /// The open file, its number, and which part it is.
    private var descriptor: OwnedDescriptor?
    private var current: (file: PartFile, fd: Int32)?

    /// The descriptor of `file`, valid until the next call or ``closeCurrent()``.
    func descriptor(for file: PartFile) throws -> Int32 {
        if let current, current.file == file { return current.fd }
        closeCurrent()
        let opened = try file.open()
        current = (file, opened.raw)
        descriptor = consume opened
        return current!.fd
    }

    func closeCurrent() {
        descriptor = nil
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
