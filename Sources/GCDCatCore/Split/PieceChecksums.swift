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
final class PieceChecksums: Sendable {
    private let reading: BackgroundWork<[UInt32]>

    /// Starts reading at once.
    init(pieces: [[SourceRange]], input: PartFile, jobs: Int) {
        reading = BackgroundWork { try Self.compute(pieces: pieces, input: input, jobs: jobs) }
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
}
