import GCDCatSystem

/// The parts of a marked set whose marks do not vouch for their bytes, checked against the
/// crc32s the split recorded in its marks (``PartMark``) before a merge joins them.
///
/// A part whose mark of the set's split is current is taken as that split wrote it. The
/// others are read, once the merge has checked its output and with all its jobs: a part
/// changed since (its size or time moved) must still have the crc32
/// its mark records, which tells a `touch` or a plain `cp` back from a backup from a rewrite;
/// and the crc32s of all the parts must add up to the set's, which tells the split's own
/// part, copied without its mark, from another file put in its place (a newer version's parts
/// moved in beside an older set's). A list beside the set checks each part's bytes, not that
/// they are one split's parts, so this check runs after it too.
struct MarkedContentCheck: Sendable, Equatable {
    struct Doubt: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            /// Marked by the set's split, but its size or time changed: its crc32 was this.
            case changed(UInt32)
            /// A current mark of another split.
            case otherSplit
            /// No mark, or a stale one of another split.
            case unmarked
        }
        var position: Int
        var kind: Kind
        /// The part's crc32, when it was read already (a moved mark tried as the set's anchor).
        var read: UInt32? = nil
    }

    var parts: [String]
    /// Each part's crc32 as its current mark of the set's split records it; nil for a doubt.
    var marked: [UInt32?]
    /// The part whose mark places the set, and the crc32 its mark gives the whole set.
    var anchor: Int
    var setCRC: UInt32
    var doubts: [Doubt]
    /// How the messages name the set (`the set found from p.001`, `the parts given`).
    var the: String
    var manifestBeside: Bool

    /// Reads the doubtful parts and refuses a set that is not the one the split marked.
    ///
    /// ## Errors
    /// `.invalidInput` naming the part that differs (or, when the crc32s only fail to add up,
    /// a part not vouched for: another split's before an unmarked one); the read errors of
    /// ``FileChecksum``.
    func run(jobs: Int) throws {
        var crcs = marked
        // The changed parts first: each is checked against its own mark, and named when it differs.
        for doubt in doubts.sorted(by: { Self.isChanged($0) && !Self.isChanged($1) }) {
            let crc = try doubt.read ?? FileChecksum.of(parts[doubt.position], algorithm: .crc32, jobs: jobs).value
            if case .changed(let expected) = doubt.kind, crc != expected {
                throw changed(doubt.position, crc: crc, expected: expected)
            }
            crcs[doubt.position] = crc
        }
        guard PartMark.setCRC(of: crcs.map { $0 ?? 0 }) != setCRC else { return }
        let unproven = doubts.filter { !Self.isChanged($0) }
        guard let blamed = unproven.first(where: Self.isOtherSplit) ?? unproven.first else { return }
        throw refusal(blamed, others: unproven.count - 1)
    }

    /// Without reading (`--no-verify`): a part another split marked is refused, as the marks
    /// alone show it; the rest is joined as it is.
    func runWithoutReading() throws {
        guard !manifestBeside, let other = doubts.first(where: Self.isOtherSplit) else { return }
        throw refusal(other, others: 0)
    }

    private static func isOtherSplit(_ doubt: Doubt) -> Bool {
        if case .otherSplit = doubt.kind { true } else { false }
    }

    private static func isChanged(_ doubt: Doubt) -> Bool {
        if case .changed = doubt.kind { true } else { false }
    }

    private var anchorPath: String { parts[anchor].displayPath }

    private func changed(_ position: Int, crc: UInt32, expected: UInt32) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: parts[position],
            message:
                "was changed since the split that made \(anchorPath) marked it (its crc32 is \(hex8(crc)), the mark "
                + "says \(hex8(expected))), while \(anchorPath) is as that split wrote it, so \(the) would join two "
                + "writes' parts (another split over the same names, or a damaged part?); split again with --force, "
                + "or give --as-given to join them as they are")
    }

    private func refusal(_ doubt: Doubt, others: Int) -> GCDCatError {
        let path = parts[doubt.position]
        if case .otherSplit = doubt.kind {
            return GCDCatError(
                .invalidInput, path: path,
                message:
                    "was made by another split than \(anchorPath) (the marks each split left on its parts differ), so "
                    + "\(the) would join two splits' parts; keep the parts of one split, or give --as-given to join them as "
                    + "they are")
        }
        let more =
            others == 0
            ? "" : " (\(others) other \(others == 1 ? "part here carries" : "parts here carry") none either)"
        return GCDCatError(
            .invalidInput, path: path,
            message:
                "carries no mark of the split that made \(anchorPath)\(more), and the parts' crc32s do not add up to "
                + "the set that split marked, so \(the) would join two writes' parts (a newer version's part moved in "
                + "beside an older set's?); put back the parts of one split, or give --as-given to join them as they are"
        )
    }
}
