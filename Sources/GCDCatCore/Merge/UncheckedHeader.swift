import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The header a split repeated atop every part (`split --header-lines`), as the set's SFV beside
/// the parts records it (`; gcdcat-header: SIZE CRC32`), for a merge that does not check the
/// parts against that SFV (`--no-verify`, or `--as-given` with the parts out of its order):
/// skipping the check must not skip the restoration, or the header is joined again atop every
/// part's data. Only the header's bytes at the head of each part after the first are read, to
/// be sure they are the header the record describes before they are dropped. The whole file's
/// size the SFV records is compared with the parts' sizes too: a stat, no read.
struct UncheckedHeader {
    /// Bytes dropped from the head of every part after the first; 0 for none.
    var size: Int64 = 0
    /// What the merge says: the SFV could not be read, or its record does not fit the parts.
    var warnings: [String] = []
    /// The whole file the SFV records (`; gcdcat-whole:`) when it lists as many parts as are
    /// given, and the SFV's path: the size they must join to, which a stat of each tells.
    var whole: (record: Manifest.Whole, list: String)?

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
        var found = UncheckedHeader()
        do {
            let manifest = try MergeVerification.setEntries(of: Manifest.load(list), path: list, parts: parts).0
            if let whole = manifest.whole, manifest.entries.count == parts.count { found.whole = (whole, list) }
            guard let recorded = manifest.header else { return found }
            header = recorded
        } catch let error as GCDCatError {
            return UncheckedHeader(warnings: [
                "\(list.displayPath) beside the set cannot be read (\(error.message)), so a header it may record "
                    + "(split --header-lines) was not dropped: if every part repeats one, so does the output"
            ])
        }
        for part in parts.dropFirst() where try !starts(part, with: header, jobs: jobs) {
            found.warnings = [
                "\(list.displayPath) records a \(header.size)-byte header that every part after the first repeats, "
                    + "but \(part.path.displayPath) does not start with it, so no header was dropped and the parts "
                    + "are joined whole"
            ]
            return found
        }
        found.size = header.size
        return found
    }

    /// The warning for `parts` that, their repeated headers dropped, join to another size than
    /// the whole file the SFV records: a part cut short, missing or grown since, told without
    /// reading one. A warning, not a refusal: `--no-verify` is the way to merge such parts as
    /// they are. None when the header record could not be used (warned of already).
    func otherSizeWarning(of parts: [PartFile]) -> String? {
        guard warnings.isEmpty, let whole else { return nil }
        let (record, list) = whole
        let joined = parts.reduce(Int64(0)) { $0 + $1.size } - size * Int64(max(parts.count - 1, 0))
        guard joined != record.size else { return nil }
        let gap =
            joined < record.size
            ? "\(record.size - joined) bytes short of it" : "\(joined - record.size) bytes longer than it"
        return "\(list.displayPath) records \(record.size) bytes for \(record.name.displayPath), but its parts join to "
            + "\(joined) as they are now, so the output is \(gap) (a part cut short, missing or grown since?)"
    }

    /// Whether `part` begins with the `header` bytes (by their size and crc32).
    private static func starts(_ part: PartFile, with header: Manifest.Header, jobs: Int) throws -> Bool {
        guard part.size >= header.size else { return false }
        let input = try part.open()
        let head = try ParallelChecksum.compute(.crc32, fd: input.raw, path: part.path, length: header.size, jobs: jobs)
        return head.value == header.crc32
    }
}
