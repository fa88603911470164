import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

extension Par2Verification {
    /// The set at `indexPath` (its index or any of its volumes) loaded and verified, and each
    /// damaged or missing file looked for under the set's other names and in `extras`
    /// (``findMovedFiles(extras:)``): what `verify` reports and `repair` starts from.
    ///
    /// ## Errors
    /// Those of ``Par2RecoverySet/load(indexPath:)``, of ``Par2Verifier/verify(_:jobs:counter:copy:)``
    /// and of the search.
    public static func checking(indexPath: String, extras: [String] = [], jobs: Int) throws -> Par2Verification {
        try checking(Par2RecoverySet.load(indexPath: indexPath), extras: extras, jobs: jobs)
    }

    /// ``checking(indexPath:extras:jobs:)`` of a set already loaded.
    public static func checking(_ set: Par2RecoverySet, extras: [String] = [], jobs: Int) throws -> Par2Verification {
        var verification = try Par2Verifier.verify(set, jobs: jobs)
        try verification.findMovedFiles(extras: extras)
        return verification
    }

    /// Where each file's bytes are read from: the file where they were found whole
    /// (``Par2FileStatus/foundIn``), else its own name; nil for a missing file found nowhere.
    public func sourcePath(of index: Int) -> String? {
        let status = files[index]
        if let found = status.foundIn { return found }
        return status.state == .missing ? nil : set.path(of: set.files[index])
    }

    /// Looks for the whole bytes of each damaged or missing file among the set's other files
    /// (present under their own names), `extras` (files the user names) and the scratch copies a
    /// killed gcdcat left beside them (``LeftoverTemporaries``), as par2 does for a
    /// set whose files were renamed or swapped: a candidate whose size is the file's and whose
    /// first 16 KiB have the MD5 the set gives them (its FileDesc packet's hash16k) is read
    /// whole, and used only when its whole MD5 is the file's too. A file found has no bad block
    /// left: its ``Par2FileStatus/foundIn`` names the candidate, and it is still damaged or
    /// missing under its own name (repair copies the bytes there; a merge reads them from it).
    ///
    /// A candidate that holds only some blocks of a file (cut, shifted or itself damaged) is
    /// not used: there is no block-level search.
    ///
    /// ## Errors
    /// `.io` naming a candidate that could not be read.
    public mutating func findMovedFiles(extras: [String] = []) throws {
        let wanted = files.indices.filter {
            files[$0].state != .ok && files[$0].foundIn == nil && set.files[$0].length > 0
        }
        // A file given that is not there is said even when nothing is looked for: a typo.
        for extra in extras {
            let info: stat?
            do {
                info = try Syscall.statIfExists(extra)
            } catch {
                // A symlink loop (ELOOP), a name too long: not "no such file".
                searchNotes.append("\(extra.displayPath): \(error.message), so not searched")
                continue
            }
            if info == nil {
                searchNotes.append("\(extra.displayPath): no such file, so not searched")
            } else if let info, info.st_mode & S_IFMT != S_IFREG {
                searchNotes.append("\(extra.displayPath): \(Syscall.notRegularReason(info.st_mode)), so not searched")
            }
        }
        guard !wanted.isEmpty else { return }
        var candidates: [String] = []
        for (index, file) in set.files.enumerated() where files[index].state != .missing && file.length > 0 {
            candidates.append(set.path(of: file))
        }
        for extra in extras where !candidates.contains(extra) { candidates.append(extra) }
        // A repair killed between the renames of two copies (swapped files) left the second one
        // under its scratch name (`.NAME.gcdcat-XXXXXX`), checked but not named: so the rerun has it.
        let paths = wanted.map { set.path(of: set.files[$0]) }
        for (leftover, _) in LeftoverTemporaries.find(for: paths)
        where LeftoverTemporaries.isStale(leftover) && !candidates.contains(leftover) {
            candidates.append(leftover)
        }
        let lengths = Set(wanted.map { set.files[$0].length })
        for candidate in candidates {
            guard let info = try? Syscall.statIfExists(candidate), info.st_mode & S_IFMT == S_IFREG,
                lengths.contains(Int64(info.st_size))
            else { continue }
            let open = wanted.filter {
                files[$0].foundIn == nil && set.files[$0].length == Int64(info.st_size)
                    && set.path(of: set.files[$0]) != candidate
            }
            guard !open.isEmpty else { continue }
            let opened = try Syscall.openRegularFile(candidate)
            let head = try Self.md5(opened.raw, path: candidate, count: 16 << 10)
            let heads = open.filter { set.files[$0].md5First16K == head }
            guard !heads.isEmpty else { continue }
            // Never the 16 KiB alone: the whole file's MD5 decides.
            let whole = try Self.md5(opened.raw, path: candidate, count: Int64(info.st_size))
            guard let match = heads.first(where: { set.files[$0].md5 == whole }) else {
                let names = heads.map { set.path(of: set.files[$0]).displayPath }.joined(separator: ", ")
                searchNotes.append(
                    "\(candidate.displayPath) has the size and first 16 KiB of \(names), but not its bytes after them "
                        + "(its MD5 differs): not used")
                continue
            }
            files[match].foundIn = candidate
            files[match].badSlices = []
        }
    }

    /// The MD5 of the first `count` bytes of `fd` (fewer if it is shorter).
    static func md5(_ fd: Int32, path: String, count: Int64) throws -> Par2Hash {
        let stream = MD5Stream()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < count {
            let want = Int(min(Int64(buffer.count), count - offset))
            let got = try Syscall.pread(fd, into: buffer.baseAddress!, count: want, offset: offset, path: path)
            if got == 0 { break }
            stream.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += Int64(got)
        }
        return stream.finalize()
    }
}
