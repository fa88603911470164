#if canImport(Glibc)
    import Glibc
#endif

/// What `split --par2` asks for: recovery blocks as a share of the parts' blocks, and their size.
public struct RecoveryRequest: Sendable, Equatable {
    /// Recovery blocks per 100 source blocks, rounded as par2's `-r` (at least one block).
    public var percent: Int
    /// The block size, a multiple of 4; nil for par2's default (about 2000 blocks in all).
    public var blockSize: Int?
    public var layout: Par2VolumeLayout

    public init(percent: Int, blockSize: Int? = nil, layout: Par2VolumeLayout = .variable(files: nil)) {
        self.percent = percent
        self.blockSize = blockSize
        self.layout = layout
    }
}

/// The PAR2 recovery volumes of a split's parts, built from the same read of the input that
/// checksums the parts (``PieceChecksums``): each piece's bytes pass through here once, in
/// order, and the volumes and index join the split's ``OutputSet``.
///
/// PAR2 orders the blocks of a set by its files' ids, which hash each file's first 16 KiB; so
/// the first 16 KiB of every part are read before the pass (a few pages per part, which the
/// pass then finds in the page cache). Empty parts are left out of the set, as `par2 create`
/// leaves out empty files.
///
/// Memory: the recovery blocks (their count × the block size), plus two batches of blocks
/// (``Par2SliceAccumulator``: 16 MiB each, at least a block) and one block.
final class SplitRecoveryVolumes: @unchecked Sendable {
    let indexPath: String
    let request: RecoveryRequest
    private let volumes: [(name: String, firstExponent: Int, count: Int)]
    /// The index's folder as its path spells it, with its slash (empty for the current folder).
    private let folderPrefix: String
    private let encoder: Par2Encoder
    /// The encoder's file for each piece; nil for an empty piece.
    private let files: [Int?]
    /// The empty parts' names in the set, which gcdcat's record lists (PAR2 gives them no block).
    private let emptyNames: [String]
    // The pass's position, touched only by the one reading thread: the partial block being
    // filled (of one piece at a time) and each piece's next block.
    private var slice: [UInt8]
    private var padding: [UInt8]
    private var filled = 0
    private var sliceIndex: [Int]

    /// The index's and volumes' paths, for checking before anything is written.
    var outputPaths: [String] { [indexPath] + volumes.map { folderPrefix + $0.name } }

    var sliceSize: Int { encoder.sliceSize }

    /// Plans the set of `pieces` (the parts' ranges of `input`, named `partPaths`); nil when
    /// every part is empty (no block to protect).
    ///
    /// ## Errors
    /// `.invalidInput` when the set would exceed PAR2's 32 768 blocks (naming the fix); read
    /// errors naming the input.
    static func plan(
        pieces: [[SourceRange]], partPaths: [String], input: PartFile, indexPath: String, request: RecoveryRequest,
        jobs: Int
    ) throws -> SplitRecoveryVolumes? {
        let lengths = pieces.map { $0.reduce(0) { $0 + $1.length } }
        guard lengths.contains(where: { $0 > 0 }) else { return nil }
        return try SplitRecoveryVolumes(
            pieces: pieces, lengths: lengths, partPaths: partPaths, input: input, indexPath: indexPath,
            request: request, jobs: jobs)
    }

    private init(
        pieces: [[SourceRange]], lengths: [Int64], partPaths: [String], input: PartFile, indexPath: String,
        request: RecoveryRequest, jobs: Int
    ) throws {
        self.indexPath = indexPath
        self.request = request
        folderPrefix = String(
            indexPath[..<(indexPath.lastIndex(of: "/").map { indexPath.index(after: $0) } ?? indexPath.startIndex)])
        let names = try SplitOperation.manifestNames(partPaths, manifestPath: indexPath)
        for (path, name) in zip(partPaths, names) {
            if let refusal = Par2Backslash.refusal(
                path: path, name: name,
                fix: "nothing was written. Give a --prefix without one, or split without --par2")
            {
                throw GCDCatError(.invalidInput, message: refusal)
            }
        }
        let kept = lengths.indices.filter { lengths[$0] > 0 }
        emptyNames = lengths.indices.filter { lengths[$0] == 0 }.map { names[$0] }
        let (sliceSize, sourceBlocks, recovery) = Par2BlockCount.plan(
            fileSizes: kept.map { lengths[$0] }, blockSize: request.blockSize, percent: request.percent)
        guard sourceBlocks <= Par2RecoverySet.maximumSlices else {
            throw GCDCatError(
                .invalidInput, path: indexPath,
                message: "--par2-block-size \(sliceSize) gives \(sourceBlocks) blocks, more than PAR2's "
                    + "\(Par2RecoverySet.maximumSlices); use a larger block size")
        }
        volumes = request.layout.names(base: String(splitPath(indexPath).name.dropLast(5)), recoverySlices: recovery)
        let opened = try input.open()
        let fd = opened.raw
        let descriptions = try kept.map { index in
            Par2Encoder.Description(
                name: names[index], length: lengths[index],
                md5First16K: try Self.headMD5(pieces[index], fd: fd, path: input.path))
        }
        encoder = try Par2Encoder(
            descriptions: descriptions, sliceSize: sliceSize, recoverySlices: recovery, jobs: jobs, overlapped: true,
            path: indexPath)
        var next = 0
        files = lengths.map { length in
            guard length > 0 else { return nil }
            defer { next += 1 }
            return next
        }
        slice = [UInt8](repeating: 0, count: sliceSize)
        padding = [UInt8](repeating: 0, count: sliceSize)
        sliceIndex = [Int](repeating: 0, count: pieces.count)
    }

    /// The MD5 of the first 16 KiB of the part made of `ranges`.
    private static func headMD5(_ ranges: [SourceRange], fd: Int32, path: String) throws -> Par2Hash {
        var head: [UInt8] = []
        for range in ranges where head.count < 16384 && range.length > 0 {
            let want = Int(min(Int64(16384 - head.count), range.length))
            var chunk = [UInt8](repeating: 0, count: want)
            let got = try chunk.withUnsafeMutableBytes { raw in
                try Syscall.pread(fd, into: raw.baseAddress!, count: want, offset: range.offset, path: path)
            }
            guard got == want else {
                throw GCDCatError(.inputChanged, path: path, message: "shrank while it was read; nothing was written")
            }
            head += chunk
        }
        return Par2Hash.md5(head)
    }

    /// Adds the next `bytes` of `piece` (each piece's bytes in order). Pieces may come side by
    /// side, but a block is filled from one piece at a time: bytes that leave a partial block
    /// come only at a piece's end, and ``endPiece(_:)`` follows before another piece's bytes.
    func add(piece: Int, _ bytes: UnsafeRawBufferPointer) {
        guard let file = files[piece] else { return }
        let size = encoder.sliceSize
        var rest = bytes
        while !rest.isEmpty {
            if filled == 0 && rest.count >= size {
                // A whole block in the caller's buffer: no copy.
                encoder.add(
                    file: file, slice: sliceIndex[piece],
                    bytes: UnsafeRawBufferPointer(rebasing: rest[..<(rest.startIndex + size)]),
                    padding: &padding)
                sliceIndex[piece] += 1
                rest = UnsafeRawBufferPointer(rebasing: rest[(rest.startIndex + size)...])
                continue
            }
            let take = min(size - filled, rest.count)
            slice.withUnsafeMutableBytes { target in
                (target.baseAddress! + filled).copyMemory(from: rest.baseAddress!, byteCount: take)
            }
            filled += take
            rest = UnsafeRawBufferPointer(rebasing: rest[(rest.startIndex + take)...])
            if filled == size { flush(file, piece: piece) }
        }
    }

    /// Ends `piece`: its last, shorter block goes to the encoder.
    func endPiece(_ piece: Int) {
        guard let file = files[piece] else { return }
        if filled > 0 { flush(file, piece: piece) }
    }

    private func flush(_ file: Int, piece: Int) {
        slice.withUnsafeBytes { buffer in
            encoder.add(
                file: file, slice: sliceIndex[piece], bytes: UnsafeRawBufferPointer(rebasing: buffer[..<filled]),
                padding: &padding)
        }
        sliceIndex[piece] += 1
        filled = 0
    }

    /// Adds the volumes and the index to `set`, once every piece has passed (the volumes, then
    /// the index; ``OutputSet/publish(naming:jobs:prepare:)`` names them in that order too).
    /// gcdcat's record in them lists the empty parts and `header`, the one every part after the
    /// first repeats.
    func addOutputs(to set: OutputSet, header: Par2SetRecord.Header?, target: (String) throws -> OutputTarget) throws
        -> Par2Creator.Result
    {
        let packets = encoder.finish(
            creator: Par2Creator.creator, record: Par2SetRecord(emptyFiles: emptyNames, header: header))
        try Par2Creator.addOutputs(
            packets, volumes: volumes.map { (folderPrefix + $0.name, $0.firstExponent, $0.count) },
            indexPath: indexPath, to: set, target: target)
        return Par2Creator.Result(
            index: indexPath, volumes: volumes.map { folderPrefix + $0.name }, sourceBlocks: encoder.constants.count,
            recoveryBlocks: encoder.accumulator.count, blockSize: encoder.sliceSize,
            bytesRead: encoder.descriptions.reduce(0) { $0 + $1.length })
    }
}
