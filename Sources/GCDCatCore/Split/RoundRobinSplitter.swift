import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Deals the input's lines to `count` parts in turn (GNU `split -n r/N`): line 1 to the first
/// part, line 2 to the second, …, line N+1 to the first again. A file or standard input, in one
/// pass.
///
/// The parts do not join back into the input, so no manifest can describe them: none is
/// written. Every part is open until the end (each holds a descriptor), and nothing is named
/// until all are complete, as for any split. With ``SplitOperation/elideEmpty`` the parts that
/// got no line (the last ones, when there are fewer lines than parts) are not written.
struct RoundRobinSplitter {
    let operation: SplitOperation
    let count: Int
    let counter: TransferCounter

    /// Bytes gathered for one part before they are written to it.
    static let pending = 64 << 10

    func run() throws -> SplitResult {
        guard operation.manifest == .none else {
            throw GCDCatError(
                .invalidInput, path: operation.manifestPath,
                message: "round-robin parts do not join back into the input, so no manifest can describe them")
        }
        guard !operation.writesObjects else {
            throw GCDCatError(
                .invalidInput, path: operation.naming.prefix,
                message: "round-robin parts are written as local files; choose a local prefix")
        }
        guard count > 0 else { throw GCDCatError(.invalidInput, path: operation.input, message: "no parts to deal to") }
        try SplitLimits.requirePartCount(Int64(count), path: operation.input)
        try operation.naming.requireCapacity(count)
        let names = try (0..<count).map { try operation.naming.name(at: $0) }
        let input = try openInput()
        let (fd, path, inputs) = (input.raw, input.path, input.files)
        try operation.checkOutputs(parts: names, inputs: inputs)
        try operation.refuseRemovingInput(count: count, inputs: inputs)
        let budget = SplitLimits.unnamedPartBudget(jobs: operation.jobs)
        guard count <= budget else {
            throw GCDCatError(
                .invalidInput, path: operation.input,
                message: "r/\(count) keeps \(count) parts open at once; the open-file limit allows \(budget)")
        }
        return try OutputSet.transaction(inputs: inputs, overwrite: operation.overwrite, fsync: operation.fsync) {
            try writeParts(fd: fd, path: path, names: names, into: $0)
        }
    }

    /// The writer loop: every line into its part of `set` (opened with its first line), then
    /// the set concluded.
    private func writeParts(fd: Int32, path: String, names: [String], into set: OutputSet) throws -> SplitResult {
        var sinks = [OutputSink?](repeating: nil, count: count)
        var checksums = [Checksum](repeating: Checksum(.crc32), count: count)
        var buffers = [[UInt8]](repeating: [], count: count)
        func flush(_ index: Int) throws {
            guard !buffers[index].isEmpty else { return }
            if sinks[index] == nil { sinks[index] = try set.open(.part(index), .path(names[index])) }
            let sink = sinks[index]!
            try buffers[index].withUnsafeBytes { bytes in
                checksums[index].update(bytes)
                try Syscall.writeAll(sink.fd, from: bytes.baseAddress!, count: bytes.count, path: sink.path)
            }
            buffers[index].removeAll(keepingCapacity: true)
        }
        let (bytesRead, chunks) = try Self.deal(
            fd: fd, path: path, separator: operation.separator, count: count, counter: counter
        ) { index, bytes in
            buffers[index].append(contentsOf: bytes)
            if buffers[index].count >= Self.pending { try flush(index) }
        }
        for index in 0..<count { try flush(index) }
        // As GNU split: every part exists, empty or not, unless empty ones are elided.
        for index in 0..<count where sinks[index] == nil && !operation.elideEmpty {
            sinks[index] = try set.open(.part(index), .path(names[index]))
        }
        for sink in set.parts { try sink.finishWriting(fsync: operation.fsync) }
        let kept = (0..<count).filter { sinks[$0] != nil }
        let warnings = try operation.conclude(
            set, names: kept.map { names[$0] }, crcs: kept.map { checksums[$0].value }, whole: nil,
            joining: .roundRobin)
        return SplitResult(
            partPaths: kept.map { names[$0] }, partCRCs: kept.map { checksums[$0].value }, manifestPath: nil,
            bytesRead: bytesRead, bytesWritten: bytesRead, chunks: chunks, inputCRC: nil,
            notes: ["round-robin parts do not join back into the input: no manifest was written"],
            warnings: warnings)
    }

    /// Writes the lines of part `k` (1-based) to `output` (GNU `split -n r/K/N`).
    func extract(_ k: Int, to output: Int32, outputPath: String) throws {
        let input = try openInput()
        let (fd, path) = (input.raw, input.path)
        var pending: [UInt8] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            try pending.withUnsafeBytes {
                try Syscall.writeAll(output, from: $0.baseAddress!, count: $0.count, path: outputPath)
            }
            pending.removeAll(keepingCapacity: true)
        }
        _ = try Self.deal(fd: fd, path: path, separator: operation.separator, count: count, counter: counter) {
            index, bytes in
            guard index == k - 1 else { return }
            pending.append(contentsOf: bytes)
            if pending.count >= Self.pending { try flush() }
        }
        try flush()
    }

    /// The input: a file opened here, or standard input (never closed here).
    private struct Input: ~Copyable {
        /// The file's descriptor, closed with this value; nil for standard input.
        let opened: OwnedDescriptor?
        let raw: Int32
        /// Its name in errors.
        let path: String
        /// The file no part may replace (none for a pipe).
        let files: [PartFile]
    }

    private func openInput() throws -> Input {
        if operation.input == "-" {
            guard let info = try? Syscall.fstat(STDIN_FILENO, path: "standard input"),
                info.st_mode & S_IFMT == S_IFREG
            else { return Input(opened: nil, raw: STDIN_FILENO, path: "standard input", files: []) }
            let file = PartFile(
                path: "standard input", size: Int64(info.st_size), device: UInt64(info.st_dev),
                inode: UInt64(info.st_ino))
            return Input(opened: nil, raw: STDIN_FILENO, path: "standard input", files: [file])
        }
        let file = try PartFile.validate(operation.input)
        let opened = try file.open()
        let raw = opened.raw
        return Input(opened: consume opened, raw: raw, path: file.path, files: [file])
    }

    /// Reads `fd` to its end and hands each piece of a line to `take` with the part it goes
    /// to; returns the bytes and reads. A line longer than a read arrives in pieces, all for
    /// the same part.
    static func deal(
        fd: Int32, path: String, separator: UInt8, count: Int, counter: TransferCounter,
        take: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws -> (bytes: Int64, chunks: Int64) {
        let size = 1 << 20
        let buffer = try Syscall.allocate(byteCount: size, alignment: 4096, path: path)
        defer { free(buffer) }
        var part = 0
        var total: Int64 = 0
        var chunks: Int64 = 0
        while true {
            let got = try Syscall.read(fd, into: buffer, count: size, path: path)
            if got == 0 { break }
            chunks += 1
            total += Int64(got)
            counter.add(bytes: Int64(got), chunks: 0)
            var start = 0
            while start < got {
                var end = got
                var ended = false
                if let hit = memchr(buffer + start, Int32(separator), got - start) {
                    end = buffer.distance(to: hit) + 1
                    ended = true
                }
                try take(part, UnsafeRawBufferPointer(start: buffer + start, count: end - start))
                if ended { part = part + 1 == count ? 0 : part + 1 }
                start = end
            }
        }
        return (total, chunks)
    }
}
