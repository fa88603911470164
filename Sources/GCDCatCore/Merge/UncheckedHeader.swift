import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The header a split repeated atop every part (`split --header-lines`), as the set's SFV beside
/// the parts records it (`; gcdcat-header: SIZE CRC32`), for a merge that does not check the
/// parts against that SFV (`--no-verify`, or `--as-given` with the parts out of its order):
/// skipping the check must not skip the restoration, or the header is joined again atop every
/// part's data. Only the header's bytes at the head of each part after the first are read, to
/// be sure they are the header the record describes before they are dropped.
struct UncheckedHeader {
    /// Bytes dropped from the head of every part after the first; 0 for none.
    var size: Int64 = 0
    /// What the merge says: the SFV could not be read, or its record does not fit the parts.
    var warnings: [String] = []

    /// The header the first SFV among `candidates` (the set's own lists, by split's rule) records
    /// for `parts`; none when no such SFV lies beside them, or it records no header.
    ///
    /// ## Errors
    /// Read errors of a part's head, naming the part.
    static func read(for parts: [PartFile], candidates: [String], jobs: Int) throws -> UncheckedHeader {
        guard parts.count > 1 else { return UncheckedHeader() }
        for candidate in candidates where candidate.hasSuffix(".sfv") {
            guard let info = try Syscall.statIfExists(candidate), info.st_mode & S_IFMT == S_IFREG else { continue }
            return try read(for: parts, list: candidate, jobs: jobs)
        }
        return UncheckedHeader()
    }

    /// The header the SFV at `list` records for `parts`.
    static func read(for parts: [PartFile], list: String, jobs: Int) throws -> UncheckedHeader {
        let header: Manifest.Header
        do {
            let manifest = try Manifest.load(list)
            guard let recorded = try MergeVerification.setEntries(of: manifest, path: list, parts: parts).0.header
            else { return UncheckedHeader() }
            header = recorded
        } catch let error as GCDCatError {
            return UncheckedHeader(warnings: [
                "\(list.displayPath) beside the set cannot be read (\(error.message)), so a header it may record "
                    + "(split --header-lines) was not dropped: if every part repeats one, so does the output"
            ])
        }
        for part in parts.dropFirst() where try !starts(part, with: header, jobs: jobs) {
            return UncheckedHeader(warnings: [
                "\(list.displayPath) records a \(header.size)-byte header that every part after the first repeats, "
                    + "but \(part.path.displayPath) does not start with it, so no header was dropped and the parts "
                    + "are joined whole"
            ])
        }
        return UncheckedHeader(size: header.size)
    }

    /// Whether `part` begins with the `header` bytes (by their size and crc32).
    private static func starts(_ part: PartFile, with header: Manifest.Header, jobs: Int) throws -> Bool {
        guard part.size >= header.size else { return false }
        let input = try part.open()
        let head = try ParallelChecksum.compute(.crc32, fd: input.raw, path: part.path, length: header.size, jobs: jobs)
        return head.value == header.crc32
    }
}
