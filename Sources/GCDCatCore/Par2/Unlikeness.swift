/// How little of a damaged file is the set's, when so little is that it is another file at the
/// name (a newer version, which may share a header with the old one) rather than a damaged copy:
/// fewer than half of its blocks match. Repair keeps such a file as `NAME.1` before replacing it,
/// as par2 keeps every damaged file; a copy with a few bad blocks is replaced.
struct Unlikeness: Sendable, Equatable {
    /// The file's blocks that are the set's, and all of its blocks.
    let matching: Int
    let total: Int

    /// nil for a file that is no damaged file of the set, or one that is mostly the set's.
    init?(_ file: Par2RecoverySet.File, _ status: Par2FileStatus) {
        guard status.state == .damaged, !file.slices.isEmpty else { return nil }
        let matching = file.slices.count - status.badSlices.count
        guard matching * 2 < file.slices.count else { return nil }
        (self.matching, self.total) = (matching, file.slices.count)
    }

    /// "not one block of b.dat was the set's", "only 40 of 1000 blocks of b.dat were the set's".
    func sentence(_ path: String) -> String {
        matching == 0
            ? "not one block of \(path.displayPath) was the set's"
            : "only \(matching) of \(total) blocks of \(path.displayPath) \(matching == 1 ? "was" : "were") the set's"
    }

    /// "not one block is the set's", "only 40 of 1000 blocks are the set's".
    var clause: String {
        matching == 0
            ? "not one block is the set's"
            : "only \(matching) of \(total) blocks \(matching == 1 ? "is" : "are") the set's"
    }
}
