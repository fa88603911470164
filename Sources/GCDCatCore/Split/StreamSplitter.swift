import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Splits a stream of unknown length (standard input) in one pass, in order.
///
/// ## Implementation details
/// Bytes go straight into the current part. For `--line-boundary`, a part that fills up is cut
/// after its last newline: the bytes after it are copied from that part's file into the next
/// part (after the repeated header) and the part is truncated, so memory stays at one buffer
/// however long the lines. Part CRCs are computed by reading each finished part back, since a
/// cut changes what a part holds after its bytes passed.
struct StreamSplitter {
    let operation: SplitOperation
    let fd: Int32
    let path: String
    let counter: TransferCounter

    private var limit: Int64 {
        switch operation.mode {
        case .size(let size): return size
        case .lines(let limit, _): return limit
        case .parts, .lineCount, .lineChunks, .roundRobin: return Int64.max
        }
    }

    /// Newlines per part, for ``SplitMode/lineCount(_:)``.
    private var linesPerPart: Int? {
        if case .lineCount(let lines, _) = operation.mode { return lines }
        return nil
    }

    private var headerLines: Int {
        switch operation.mode {
        case .lines(_, let lines), .lineCount(_, let lines): return lines
        default: return 0
        }
    }

    /// The byte that ends a line.
    private var separator: UInt8 { operation.separator }

    private var cutsAtNewlines: Bool {
        if case .lines = operation.mode { return true }
        return false
    }

    /// A part being written.
    private struct OpenPart {
        var sink: OutputSink
        var length: Int64 = 0
        /// Where the bytes after the header start.
        var bodyStart: Int64 = 0
        /// Just after the last newline in the part's body, if it has one.
        var afterLastNewline: Int64?
        /// Newlines written, for ``SplitMode/lineCount(_:)``.
        var lines = 0
    }

    /// What the one pass has read and written so far.
    private struct Pass {
        var names: [String] = []
        var header: [UInt8] = []
        var headerDone: Bool
        var whole = Checksum(.crc32)
        var chunks: Int64 = 0
        /// The part being written; every part is in the output set from the moment it is opened.
        var current: OpenPart?
    }

    func run() throws -> SplitResult {
        // Everything that can be checked is checked before the first byte is read: piped
        // data cannot be read twice.
        let inputs = self.inputs
        try operation.checkOutputs(parts: [], inputs: inputs)
        return try OutputSet.transaction(inputs: inputs, overwrite: operation.overwrite, fsync: operation.fsync) {
            try split(into: $0)
        }
    }

    /// Standard input's file, when it is one: no part may replace it.
    private var inputs: [PartFile] {
        guard let info = try? Syscall.fstat(fd, path: path), info.st_mode & S_IFMT == S_IFREG else { return [] }
        return [
            PartFile(path: path, size: Int64(info.st_size), device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        ]
    }

    /// The writer loop: reads the stream to its end into parts of `set`, then concludes the set.
    private func split(into set: OutputSet) throws -> SplitResult {
        let bufferSize = operation.limits.highWater
        let buffer = try Syscall.allocate(byteCount: bufferSize, alignment: 4096, path: path)
        defer { free(buffer) }
        var pass = Pass(headerDone: headerLines == 0)
        while true {
            let got = try Syscall.read(fd, into: buffer, count: bufferSize, path: path)
            if got == 0 { break }
            pass.chunks += 1
            counter.add(bytes: Int64(got), chunks: 0)
            let bytes = UnsafeRawBufferPointer(start: buffer, count: got)
            pass.whole.update(bytes)
            try consume(bytes, pass: &pass, set: set)
        }
        if var last = pass.current, cutsAtNewlines, last.length == limit, let end = last.afterLastNewline,
            end < last.length
        {
            // A full last part still ends at its last newline, as GNU split -C ends it.
            pass.current = try startPart(&pass, set: set)
            try cut(&last, into: &pass.current!)
        }
        try pass.current?.sink.finishWriting(fsync: operation.fsync)
        // Only now is the count known: standard input redirected from an old part past the new
        // set's last is refused as a named input is, not removed by --force.
        try operation.refuseRemovingInput(count: pass.names.count, inputs: inputs)
        var crcs: [UInt32] = []
        var total: Int64 = 0
        for sink in set.parts {
            let file = try sink.openForReading()
            let checksum = try FileChecksum.of(fd: file.raw, path: sink.path, algorithm: .crc32, jobs: operation.jobs)
            total += checksum.length
            crcs.append(checksum.value)
        }
        var header = Checksum(.crc32)
        if headerLines > 0 && pass.names.count > 1 { header.update(pass.header) }
        let warnings = try operation.conclude(
            set, names: pass.names, crcs: crcs,
            whole: Manifest.Whole(name: path, size: pass.whole.length, crc32: pass.whole.value),
            header: header.length > 0 ? Manifest.Header(size: header.length, crc32: header.value) : nil,
            joining: header.length > 0 ? .repeatedHeader : .concatenated)
        return SplitResult(
            partPaths: pass.names, partCRCs: crcs, manifestPath: operation.manifestPath,
            bytesRead: pass.whole.length, bytesWritten: total, chunks: pass.chunks, inputCRC: pass.whole.value,
            warnings: warnings)
    }

    /// Writes one buffer of the stream into the parts, starting (and cutting) parts as they fill.
    private func consume(_ bytes: UnsafeRawBufferPointer, pass: inout Pass, set: OutputSet) throws {
        var offset = 0
        if !pass.headerDone {
            // The first part starts with the header lines as ordinary bytes.
            if pass.current == nil { pass.current = try startPart(&pass, set: set) }
            offset = collectHeader(bytes, into: &pass.header, done: &pass.headerDone)
            if Int64(pass.header.count) >= limit {
                throw GCDCatError(
                    .invalidInput, path: path,
                    message:
                        "the \(headerLines) header line(s) take at least \(pass.header.count) bytes, which leaves no room in parts of \(limit) bytes"
                )
            }
            try write(UnsafeRawBufferPointer(rebasing: bytes[0..<offset]), to: &pass.current!)
            pass.current!.bodyStart = pass.current!.length
            pass.current!.afterLastNewline = nil
        }
        while offset < bytes.count {
            if pass.current == nil { pass.current = try startPart(&pass, set: set) }
            if pass.current!.length == limit || pass.current!.lines == linesPerPart {
                var full = pass.current!
                pass.current = try startPart(&pass, set: set)
                try cut(&full, into: &pass.current!)
                continue
            }
            var take = min(Int(limit - pass.current!.length), bytes.count - offset)
            if let linesPerPart {
                let (length, found) = SeparatorScan.prefix(
                    of: UnsafeRawBufferPointer(rebasing: bytes[offset...]),
                    endingAfter: linesPerPart - pass.current!.lines,
                    separator: separator)
                take = length
                pass.current!.lines += found
            }
            try write(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]), to: &pass.current!)
            offset += take
        }
    }

    /// Opens the next part in `set`, checked as a file split checks all of them up front, and
    /// writes the repeated header into it.
    private func startPart(_ pass: inout Pass, set: OutputSet) throws -> OpenPart {
        let (name, sink) = try operation.startStreamedPart(index: pass.names.count, input: path, set: set)
        var part = OpenPart(sink: sink)
        pass.names.append(name)
        if !pass.header.isEmpty {
            try write(pass.header, to: &part)
            part.bodyStart = part.length
            // The header's own newline is no place to cut: a part cut there would hold only the
            // header (a file split never writes one).
            part.afterLastNewline = nil
        }
        return part
    }

    /// Takes header lines from the front of `bytes`; returns how many bytes belong to the header.
    private func collectHeader(_ bytes: UnsafeRawBufferPointer, into header: inout [UInt8], done: inout Bool) -> Int {
        var lines = header.reduce(0) { $0 + ($1 == separator ? 1 : 0) }
        var index = 0
        while index < bytes.count && lines < headerLines {
            header.append(bytes[index])
            if bytes[index] == separator { lines += 1 }
            index += 1
        }
        if lines >= headerLines { done = true }
        return index
    }

    /// Ends a full `part` after its last newline, moving the rest into `next`.
    private func cut(_ part: inout OpenPart, into next: inout OpenPart) throws {
        if cutsAtNewlines, let end = part.afterLastNewline, end < part.length {
            var copier = KernelCopier(sliceSize: 8 << 20)
            defer { copier.release() }
            _ = try copier.copy(
                from: part.sink.fd, inputPath: part.sink.path, inputOffset: end, count: part.length - end,
                to: next.sink.fd, outputPath: next.sink.path, outputOffset: next.length)
            next.length += part.length - end
            if try lseek(next.sink.fd, off_t(next.length), SEEK_SET) < 0 {
                throw GCDCatError.syscall("lseek", path: next.sink.path, errno: errno)
            }
            guard try ftruncate(part.sink.fd, off_t(end)) == 0 else {
                throw GCDCatError.syscall("ftruncate", path: part.sink.path, errno: errno)
            }
            part.length = end
            next.afterLastNewline = nil
        }
        try part.sink.finishWriting(fsync: operation.fsync)
    }

    private func write(_ bytes: [UInt8], to part: inout OpenPart) throws {
        try bytes.withUnsafeBytes { try write($0, to: &part) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, to part: inout OpenPart) throws {
        guard bytes.count > 0 else { return }
        try Syscall.writeAll(part.sink.fd, from: bytes.baseAddress!, count: bytes.count, path: part.sink.path)
        if let hit = gcdcat_memrchr(bytes.baseAddress!, Int32(separator), bytes.count) {
            let end = part.length + Int64(bytes.baseAddress!.distance(to: hit)) + 1
            if end > part.bodyStart { part.afterLastNewline = end }
        }
        part.length += Int64(bytes.count)
    }
}
