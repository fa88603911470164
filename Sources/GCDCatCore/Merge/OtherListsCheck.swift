import GCDCatSystem

/// The other lists beside a set (``ListsBesideSet``) than the one a merge checks it against:
/// their lines that name the set's parts are checked too, so that two lists that disagree about
/// a part (a good `m.bin.sfv`, a `SHA256SUMS` that says otherwise) stop the merge instead of one
/// of them being passed over. Lines for other files, and whole-file lines, are left to `verify`.
enum OtherListsCheck {
    /// Checks each part a line of `lists` names against that line; `used` is the list the merge
    /// checks against. A mismatch under an algorithm guessed from the value's length alone (no
    /// tag, no list name to tell it) proves nothing and is left out, as `verify` calls it
    /// unconfirmed.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the part, the list and line that disagree, and `used`; those
    /// of reading a part.
    static func check(_ lists: [String], parts: [PartFile], used: String, jobs: Int) throws {
        // Two lists of one algorithm read a part once.
        var known: [String: String] = [:]
        for list in lists {
            guard let entries = try? ChecksumList.loadSkippingMalformed(list).list.entries else { continue }
            for entry in entries where entry.rejection == nil {
                let path = ChecksumListVerifier.resolve(entry.name, listPath: list)
                guard let part = try partNamed(path, among: parts) else { continue }
                let key = "\(entry.algorithm.rawValue) \(part.path)"
                let actual = try known[key] ?? FileHash.of(part.path, algorithm: entry.algorithm, jobs: jobs)
                known[key] = actual
                guard actual != entry.expected, !entry.guessed else { continue }
                throw GCDCatError(
                    .checksumMismatch, path: part.path,
                    message:
                        "\(entry.algorithm.rawValue) is \(actual), but \(list.displayPath) line \(entry.line) says "
                        + "\(entry.expected), and \(used.displayPath), the list the merge checks against, lists it "
                        + "too: the lists disagree, or the part changed since one of them was made, so nothing was "
                        + "merged. gcdcat verify on each list says which holds; name the one to trust with --manifest")
            }
        }
    }

    /// The part that `path` is (same device and inode), if any.
    private static func partNamed(_ path: String, among parts: [PartFile]) throws -> PartFile? {
        guard let info = try Syscall.statIfExists(path) else { return nil }
        return parts.first { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) }
    }
}
