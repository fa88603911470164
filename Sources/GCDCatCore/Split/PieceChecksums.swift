#if canImport(Glibc)
    import Glibc
#endif

/// The crc32 of each piece of a split, read from the input on its own queue while the kernel
/// clones or copies the pieces into their parts.
///
/// The input is read once, in order (a repeated header once per piece that repeats it). The
/// parts' bytes never pass through user space; that they are the bytes read here rests on the
/// input being unchanged from validation to the end (``PartFile/requireUnchangedSinceValidation()``,
/// which the caller checks), as for a verified merge (docs/notes/cow.md).
///
/// With `recovery` (`split --par2`), the same read feeds every piece's bytes to the PAR2 encoder.
final class PieceChecksums: Sendable {
    private let reading: BackgroundWork<[UInt32]>

    /// Starts reading at once.
    init(pieces: [[SourceRange]], input: PartFile, jobs: Int, recovery: SplitRecoveryVolumes? = nil) {
        reading = BackgroundWork {
            if let recovery { return try Self.compute(pieces: pieces, input: input, feeding: recovery) }
            return try Self.compute(pieces: pieces, input: input, jobs: jobs)
        }
    }

    /// Waits for the reading to end; the crc32 of each piece, in order. A second wait (after a
    /// failure elsewhere) returns at once.
    ///
    /// ## Errors
    /// Read errors naming the input; `.inputChanged` if it shrank or was replaced.
    func wait() throws -> [UInt32] {
        try reading.wait()
    }

    private static func compute(pieces: [[SourceRange]], input: PartFile, jobs: Int) throws -> [UInt32] {
        let opened = try input.open()
        let fd = opened.raw
        return try pieces.map { ranges in
            try ranges.reduce(Checksum(.crc32)) { sum, range in
                sum.combined(
                    with: try ParallelChecksum.compute(
                        .crc32, fd: fd, path: input.path, offset: range.offset, length: range.length, jobs: jobs))
            }.value
        }
    }

    /// The crc32s of the pieces, their bytes passed to `recovery` as they are read (one thread
    /// reads; the encoder spreads each block over the cores).
    ///
    /// With blocks of at most 1 MiB, eight pieces are read side by side, a stretch of whole
    /// blocks of each in turn, so that the encoder's batches hold blocks of eight parts and it
    /// hashes the parts' whole-file MD5s together in lanes (``Par2Encoder/hashLanes``), as
    /// `protect` feeds its files; read in order, each part's MD5 was one stream. The input is
    /// still read once; only the order of the reads changes.
    private static func compute(pieces: [[SourceRange]], input: PartFile, feeding recovery: SplitRecoveryVolumes)
        throws -> [UInt32]
    {
        let opened = try input.open()
        let fd = opened.raw
        // Whole blocks per read where they fit in 1 MiB, so most pass to the encoder uncopied.
        let size = recovery.sliceSize < 1 << 20 ? (1 << 20) / recovery.sliceSize * recovery.sliceSize : 1 << 20
        let buffer = try Syscall.allocate(byteCount: size, alignment: 4096, path: input.path)
        defer { free(buffer) }
        if recovery.sliceSize <= 1 << 20 {
            return try sideBySide(pieces: pieces, fd: fd, path: input.path, buffer: buffer, stretch: size, recovery)
        }
        return try pieces.enumerated().map { piece, ranges in
            var crc = Checksum(.crc32)
            for range in ranges {
                var offset = range.offset
                while offset < range.offset + range.length {
                    let want = Int(min(Int64(size), range.offset + range.length - offset))
                    let got = try Syscall.pread(fd, into: buffer, count: want, offset: offset, path: input.path)
                    guard got == want else {
                        throw GCDCatError(.inputChanged, path: input.path, message: "shrank while it was read")
                    }
                    let bytes = UnsafeRawBufferPointer(start: buffer, count: got)
                    crc.update(bytes)
                    recovery.add(piece: piece, bytes)
                    offset += Int64(got)
                }
            }
            recovery.endPiece(piece)
            return crc.value
        }
    }

    /// ``compute(pieces:input:feeding:)`` for blocks of at most `stretch` bytes (a whole number
    /// of blocks): pieces in groups of ``Par2Encoder/hashLanes``, a stretch of each in turn.
    private static func sideBySide(
        pieces: [[SourceRange]], fd: Int32, path: String, buffer: UnsafeMutableRawPointer, stretch: Int,
        _ recovery: SplitRecoveryVolumes
    ) throws -> [UInt32] {
        var crcs = [UInt32](repeating: 0, count: pieces.count)
        for first in stride(from: 0, to: pieces.count, by: Par2Encoder.hashLanes) {
            let members = Array(first..<min(first + Par2Encoder.hashLanes, pieces.count))
            let lengths = members.map { pieces[$0].reduce(Int64(0)) { $0 + $1.length } }
            var done = [Int64](repeating: 0, count: members.count)
            var sums = members.map { _ in Checksum(.crc32) }
            for (lane, piece) in members.enumerated() where lengths[lane] == 0 { recovery.endPiece(piece) }
            while members.indices.contains(where: { done[$0] < lengths[$0] }) {
                for (lane, piece) in members.enumerated() where done[lane] < lengths[lane] {
                    let count = Int(min(Int64(stretch), lengths[lane] - done[lane]))
                    try read(pieces[piece], from: done[lane], count: count, into: buffer, fd: fd, path: path)
                    let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
                    sums[lane].update(bytes)
                    // A whole number of blocks, or the piece's last bytes, which endPiece ends
                    // before the next piece's come.
                    recovery.add(piece: piece, bytes)
                    done[lane] += Int64(count)
                    if done[lane] == lengths[lane] { recovery.endPiece(piece) }
                }
            }
            for (lane, piece) in members.enumerated() { crcs[piece] = sums[lane].value }
        }
        return crcs
    }

    /// Reads `count` bytes of the piece made of `ranges`, from its offset `start`, into `buffer`.
    ///
    /// ## Errors
    /// Read errors naming the input; `.inputChanged` if it shrank.
    private static func read(
        _ ranges: [SourceRange], from start: Int64, count: Int, into buffer: UnsafeMutableRawPointer, fd: Int32,
        path: String
    ) throws {
        var filled = 0
        var rangeStart: Int64 = 0
        for range in ranges where filled < count {
            let rangeEnd = rangeStart + range.length
            let next = start + Int64(filled)
            if next >= rangeStart && next < rangeEnd {
                let want = Int(min(Int64(count - filled), rangeEnd - next))
                let got = try Syscall.pread(
                    fd, into: buffer + filled, count: want, offset: range.offset + (next - rangeStart), path: path)
                guard got == want else {
                    throw GCDCatError(.inputChanged, path: path, message: "shrank while it was read")
                }
                filled += want
            }
            rangeStart = rangeEnd
        }
    }
}
