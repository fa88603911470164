#if canImport(Glibc)
    import Glibc
#endif

/// Local ranges → one object: the merge strategy for an `s3://` output (``OutputSink/object``).
///
/// The output is cut into parts of ``MultipartSizing/partSize(total:preferred:)``; `jobs`
/// workers each hold one buffer of that size, fill it with `pread`s of the sources that cover
/// their part, checksum it (when asked) and upload it. Memory is `jobs × part size` whatever
/// the total. The crc32s of the parts are joined in order with `crc32_combine`, so a split's
/// manifest and a merge's check come from the bytes as they were uploaded, with no second read.
/// An output of 0 bytes is put in one request (an upload needs a part).
///
/// ## Errors
/// The first failed read or request; the caller (``OutputSink/produce(_:inputs:overwrite:bytes:fsync:unnamed:_:)``)
/// then aborts the upload.
struct MultipartUploadMerge: MergeStrategy {
    func merge(_ request: MergeRequest, into output: OutputSink, counter: TransferCounter) throws -> MergeResult {
        guard let object = output.object else {
            throw GCDCatError(.invalidInput, path: output.path, message: "not an object output")
        }
        let total = UInt64(request.totalBytes)
        guard total > 0 else {
            object.hold([])
            return MergeResult(bytes: 0, chunks: 0, crc32: request.computeCRC ? 0 : nil, method: "PutObject")
        }
        let partSize = MultipartSizing.partSize(total: total, preferred: object.target.partSize)
        let count = MultipartSizing.partCount(total: total, partSize: partSize)
        try object.begin()
        let sources = request.sources
        let offsets = request.outputOffsets
        let computeCRC = request.computeCRC
        let checksums = try ParallelMap.run(
            count: count, jobs: request.jobs,
            makeState: { try Syscall.allocate(byteCount: partSize, alignment: 4096, path: output.path) },
            finish: { free($0) }
        ) { buffer, index -> Checksum in
            let start = UInt64(index) * UInt64(partSize)
            let length = Int(min(UInt64(partSize), total - start))
            try Self.fill(buffer, from: sources, offsets: offsets, at: Int64(start), count: length)
            let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
            var checksum = Checksum(.crc32)
            if computeCRC { checksum.update(bytes) }
            try object.uploadPart(index + 1, bytes)
            counter.add(bytes: Int64(length))
            return checksum
        }
        return MergeResult(
            bytes: Int64(total), chunks: Int64(count),
            crc32: computeCRC ? Checksum.combine(.crc32, checksums).value : nil,
            method:
                "multipart upload, \(count) part\(count == 1 ? "" : "s") of \(ByteSize.humanReadable(Int64(partSize)))")
    }

    /// Reads output bytes `start..<start + count` from the sources that hold them.
    static func fill(
        _ buffer: UnsafeMutableRawPointer, from sources: [SourceRange], offsets: [Int64], at start: Int64, count: Int
    ) throws {
        var filled = 0
        // The first source that holds `start`: offsets are ascending.
        var index = max(0, (offsets.lastIndex { $0 <= start } ?? 0))
        while filled < count, index < sources.count {
            let source = sources[index]
            let position = start + Int64(filled) - offsets[index]
            let available = source.length - position
            if available <= 0 {
                index += 1
                continue
            }
            let wanted = Int(min(Int64(count - filled), available))
            let fd = try source.file.open()
            defer { close(fd) }
            let read = try Syscall.pread(
                fd, into: buffer + filled, count: wanted, offset: source.offset + position, path: source.file.path)
            guard read == wanted else {
                try source.file.requireUnchangedSize(Int64(source.offset + position) + Int64(read))
                throw GCDCatError(.inputChanged, path: source.file.path, message: "shrank while it was read")
            }
            filled += wanted
            index += 1
        }
    }
}
