import CSystemShim

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

    func run() throws -> SplitResult {
        // Everything that can be checked is checked before the first byte is read: piped
        // data cannot be read twice.
        try operation.checkOutputs(parts: [], inputs: inputs)
        var finished: [OutputSink] = []
        var current: OpenPart?
        do {
            let result = try split(finished: &finished, current: &current)
            return result
        } catch {
            current?.sink.discard()
            for sink in finished { sink.discard() }
            throw error
        }
    }

    /// Standard input's file, when it is one: no part may replace it.
    private var inputs: [PartFile] {
        guard let info = try? Syscall.fstat(fd, path: path), info.st_mode & S_IFMT == S_IFREG else { return [] }
        return [
            PartFile(path: path, size: Int64(info.st_size), device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        ]
    }

    private func split(finished: inout [OutputSink], current: inout OpenPart?) throws -> SplitResult {
        let inputs = self.inputs
        let unnamedParts = SplitLimits.unnamedPartBudget(jobs: operation.jobs)
        let bufferSize = operation.limits.highWater
        let buffer = try Syscall.allocate(byteCount: bufferSize, alignment: 4096, path: path)
        defer { free(buffer) }
        var header: [UInt8] = []
        var headerDone = headerLines == 0
        var whole = Checksum(.crc32)
        var names: [String] = []
        var chunks: Int64 = 0

        func startPart() throws -> OpenPart {
            try SplitLimits.requirePartCount(Int64(names.count + 1), path: path)
            let name = try operation.naming.name(at: names.count)
            if let manifestPath = operation.manifestPath, samePath(name, manifestPath) {
                throw GCDCatError(
                    .invalidInput, path: manifestPath,
                    message: "the manifest would be part \(name.displayPath); name another manifest")
            }
            try OutputSink.check(name, inputs: inputs, overwrite: operation.overwrite)
            var part = OpenPart(
                sink: try OutputSink.open(
                    .path(name), inputs: inputs, overwrite: operation.overwrite, unnamed: names.count < unnamedParts))
            names.append(name)
            do {
                if !header.isEmpty {
                    try write(header, to: &part)
                    part.bodyStart = part.length
                    // The header's own newline is no place to cut: a part cut there would hold
                    // only the header (a file split never writes one).
                    part.afterLastNewline = nil
                }
            } catch {
                // Not yet in `current` or `finished`: nobody else would discard it.
                part.sink.discard()
                throw error
            }
            return part
        }

        while true {
            let got = try Syscall.read(fd, into: buffer, count: bufferSize, path: path)
            if got == 0 { break }
            chunks += 1
            counter.add(bytes: Int64(got), chunks: 0)
            let bytes = UnsafeRawBufferPointer(start: buffer, count: got)
            whole.update(bytes)
            var offset = 0
            if !headerDone {
                // The first part starts with the header lines as ordinary bytes.
                if current == nil { current = try startPart() }
                offset = collectHeader(bytes, into: &header, done: &headerDone)
                if Int64(header.count) >= limit {
                    throw GCDCatError(
                        .invalidInput, path: path,
                        message:
                            "the \(headerLines) header line(s) take at least \(header.count) bytes, which leaves no room in parts of \(limit) bytes"
                    )
                }
                try write(UnsafeRawBufferPointer(rebasing: bytes[0..<offset]), to: &current!)
                current!.bodyStart = current!.length
                current!.afterLastNewline = nil
            }
            while offset < got {
                if current == nil { current = try startPart() }
                if current!.length == limit || current!.lines == linesPerPart {
                    // Each open file is always in `current` or `finished`, so a failure discards it.
                    var full = current!
                    finished.append(full.sink)
                    current = try startPart()
                    try cut(&full, into: &current!)
                    continue
                }
                var take = min(Int(limit - current!.length), got - offset)
                if let linesPerPart {
                    let (length, found) = Self.prefix(
                        of: bytes[offset...], endingAfter: linesPerPart - current!.lines, separator: separator)
                    take = length
                    current!.lines += found
                }
                let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take])
                try write(slice, to: &current!)
                offset += take
            }
        }
        if var last = current {
            current = nil
            if cutsAtNewlines, last.length == limit, let end = last.afterLastNewline, end < last.length {
                // A full last part still ends at its last newline, as GNU split -C ends it.
                finished.append(last.sink)
                current = try startPart()
                try cut(&last, into: &current!)
                last = current!
                current = nil
            }
            finished.append(last.sink)
            try last.sink.finishWriting(fsync: operation.fsync)
        }
        var headerChecksum = Checksum(.crc32)
        if headerLines > 0 && names.count > 1 { headerChecksum.update(header) }
        return try conclude(
            finished: finished, names: names, whole: whole, header: headerChecksum.length > 0 ? headerChecksum : nil,
            chunks: chunks)
    }

    /// The shortest prefix of `bytes` holding `newlines` newlines (or all of it): its length and
    /// how many newlines it holds.
    private static func prefix(
        of bytes: UnsafeRawBufferPointer.SubSequence, endingAfter newlines: Int, separator: UInt8
    ) -> (
        length: Int, newlines: Int
    ) {
        let base = bytes.base.baseAddress!
        var found = 0
        var index = bytes.startIndex
        while index < bytes.endIndex, let hit = memchr(base + index, Int32(separator), bytes.endIndex - index) {
            index = base.distance(to: hit) + 1
            found += 1
            if found == newlines { return (index - bytes.startIndex, found) }
        }
        return (bytes.count, found)
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
            if lseek(next.sink.fd, off_t(next.length), SEEK_SET) < 0 {
                throw GCDCatError.syscall("lseek", path: next.sink.path, errno: errno)
            }
            guard ftruncate(part.sink.fd, off_t(end)) == 0 else {
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

    /// Checksums the finished parts, writes the manifest, and publishes everything.
    private func conclude(
        finished: [OutputSink], names: [String], whole: Checksum, header: Checksum?, chunks: Int64
    ) throws -> SplitResult {
        var crcs: [UInt32] = []
        var total: Int64 = 0
        for sink in finished {
            let fd = try sink.openForReading()
            defer { close(fd) }
            let checksum = try FileChecksum.of(fd: fd, path: sink.path, algorithm: .crc32, jobs: operation.jobs)
            total += checksum.length
            crcs.append(checksum.value)
        }
        var lists: [OutputSink] = []
        if let list = try operation.writeDigestList(names: names, parts: finished, inputs: []) { lists.append(list) }
        if let manifestPath = operation.manifestPath {
            let entries = try SplitOperation.manifestNames(names, manifestPath: manifestPath)
            let manifest = Manifest(
                entries: zip(entries, crcs).map { Manifest.Entry(name: $0, crc32: $1) },
                whole: Manifest.Whole(name: path, size: whole.length, crc32: whole.value),
                header: header.map { Manifest.Header(size: $0.length, crc32: $0.value) })
            lists.append(try operation.writeManifest(manifest, to: manifestPath, inputs: []))
        }
        let notes = try operation.publishAll(parts: finished, lists: lists)
        return SplitResult(
            partPaths: names, partCRCs: crcs, manifestPath: operation.manifestPath, bytesRead: whole.length,
            bytesWritten: total, chunks: chunks, inputCRC: whole.value, warnings: notes)
    }
}
