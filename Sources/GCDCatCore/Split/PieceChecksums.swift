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
    private static func compute(pieces: [[SourceRange]], input: PartFile, feeding recovery: SplitRecoveryVolumes)
        throws -> [UInt32]
    {
        let opened = try input.open()
        let fd = opened.raw
        // Whole blocks per read where they fit in 1 MiB, so most pass to the encoder uncopied.
        let size = recovery.sliceSize < 1 << 20 ? (1 << 20) / recovery.sliceSize * recovery.sliceSize : 1 << 20
        let buffer = try Syscall.allocate(byteCount: size, alignment: 4096, path: input.path)
        defer { free(buffer) }
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
}
