import GCDCatS3
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Local ranges → one object: the merge strategy for an `s3://` output (``OutputSink/object``).
///
/// The output is cut into parts of ``MultipartSizing/partSize(total:preferred:)``; `jobs`
/// workers each hold one buffer of that size, fill it with `pread`s of the sources that cover
/// their part, crc32 it and upload it. Memory is `jobs × part size` whatever
/// the total. The crc32s of the parts are joined in order with `crc32_combine`, so a split's
/// manifest and a merge's check come from the bytes as they were uploaded.
/// An output of 0 bytes is put in one request (an upload needs a part).
///
/// The object records its crc32 in its metadata (``RecordedChecksum``), which S3 takes only at
/// CreateMultipartUpload, before any part. So each part's bytes are read once first and
/// crc32'd (`jobs` parts at once, 1 MiB reads: hot local data, ISA-L); before a part is sent,
/// the crc32 of its buffer must equal that first value, or the upload stops (`.inputChanged`,
/// naming the file) and is aborted: the record always describes the bytes that were sent.
///
/// ## Errors
/// The first failed read or request; `.inputChanged` when a source changed between the first
/// read and the upload. The caller (``OutputSink/produce(_:inputs:overwrite:bytes:fsync:unnamed:_:)``)
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
        let sources = request.sources
        let offsets = request.outputOffsets
        // The record must be given at CreateMultipartUpload: the parts are crc32'd first.
        let expected = try ParallelMap.run(
            count: count, jobs: request.jobs,
            makeState: { try Syscall.allocate(byteCount: Self.checkBufferSize, alignment: 4096, path: output.path) },
            finish: { free($0) }
        ) { buffer, index -> Checksum in
            let start = UInt64(index) * UInt64(partSize)
            return try Self.crc32(
                from: sources, offsets: offsets, at: Int64(start), count: Int(min(UInt64(partSize), total - start)),
                buffer: buffer)
        }
        try object.begin(recording: Checksum.combine(.crc32, expected).value, partCount: count)
        let checksums = try ParallelMap.run(
            count: count, jobs: request.jobs, pool: .threads,
            makeState: { try Syscall.allocate(byteCount: partSize, alignment: 4096, path: output.path) },
            finish: { free($0) }
        ) { buffer, index -> Checksum in
            let start = UInt64(index) * UInt64(partSize)
            let length = Int(min(UInt64(partSize), total - start))
            try Self.fill(buffer, from: sources, offsets: offsets, at: Int64(start), count: length)
            let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
            var checksum = Checksum(.crc32)
            checksum.update(bytes)
            // The bytes about to be sent must be those the record describes.
            guard checksum.value == expected[index].value else {
                let files = Self.files(of: sources, offsets: offsets, at: Int64(start), count: length)
                throw GCDCatError(
                    .inputChanged, path: files.first ?? output.path,
                    message:
                        "changed while it was uploaded to \(object.location)"
                        + (files.count > 1 ? " (part \(index + 1) holds bytes of \(files.count) files)" : "")
                        + ": crc32 \(hex8(expected[index].value)) when first read, \(checksum.hex) when sent; "
                        + "nothing was published")
            }
            try object.uploadPart(index + 1, bytes)
            counter.add(bytes: Int64(length))
            return checksum
        }
        return MergeResult(
            bytes: Int64(total), chunks: Int64(count),
            crc32: request.computeCRC ? Checksum.combine(.crc32, checksums).value : nil,
            method:
                "multipart upload, \(count) part\(count == 1 ? "" : "s") of \(ByteSize.humanReadable(Int64(partSize)))")
    }

    /// The first pass's buffer: 1 MiB reads, like ``ParallelChecksum``.
    static let checkBufferSize = 1 << 20

    /// The crc32 of output bytes `start..<start + count`, read from the sources through
    /// `buffer` (``checkBufferSize`` bytes).
    static func crc32(
        from sources: [SourceRange], offsets: [Int64], at start: Int64, count: Int, buffer: UnsafeMutableRawPointer
    ) throws -> Checksum {
        var checksum = Checksum(.crc32)
        var done = 0
        while done < count {
            let length = min(checkBufferSize, count - done)
            try fill(buffer, from: sources, offsets: offsets, at: start + Int64(done), count: length)
            checksum.update(UnsafeRawBufferPointer(start: buffer, count: length))
            done += length
        }
        return checksum
    }

    /// The paths of the files that hold output bytes `start..<start + count`, in order.
    static func files(of sources: [SourceRange], offsets: [Int64], at start: Int64, count: Int) -> [String] {
        var paths: [String] = []
        for (index, source) in sources.enumerated()
        where offsets[index] < start + Int64(count) && offsets[index] + source.length > start
            && paths.last != source.file.path
        {
            paths.append(source.file.path)
        }
        return paths
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
            let opened = try source.file.open()
            let fd = opened.raw
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
