import GCDCatSystem

/// A marked set's parts checked against the crc32s its split recorded in their marks
/// (``PartMark``) before a merge publishes them.
///
/// Without a list in use, every part is read (``runReadingAll(_:jobs:counter:)``), as a list
/// would have it read: a part's current mark says its size and time are the split's, not its
/// bytes. With a list, which checked each part's bytes but not that one split wrote them all,
/// only the parts whose marks do not vouch for them are read (``run(jobs:)``), after it. Either
/// way, a part changed since (its size or time moved) must still have the crc32 its mark
/// records, which tells a `touch` or a plain `cp` back from a backup from a rewrite; and the
/// crc32s of all the parts must add up to the set's, which tells the split's own part, copied
/// without its mark, from another file put in its place (a newer version's parts moved in beside
/// an older set's).
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
        /// The size the set's split marked a changed part with.
        var markedSize: Int64?
    }

    var parts: [String]
    /// Each part's crc32 as its current mark of the set's split records it; nil for a doubt.
    var marked: [UInt32?]
    /// The part whose mark places the set, and the crc32 its mark gives the whole set.
    var anchor: Int
    var setCRC: UInt32
    var doubts: [Doubt]
    /// The crc32s of parts read already, by position: moved marks tried as the set's anchor.
    var alreadyRead: [Int: UInt32] = [:]
    /// How the messages name the set (`the set found from p.001`, `the parts given`).
    var the: String
    var manifestBeside: Bool

    /// True when some part's mark does not vouch for its bytes.
    var hasDoubts: Bool { !doubts.isEmpty }

    /// Reads the doubtful parts and refuses a set that is not the one the split marked: what a
    /// merge does after a list checked each part's bytes.
    ///
    /// ## Errors
    /// `.checksumMismatch` for a part changed since the split marked it; `.invalidInput` naming
    /// a part not vouched for (another split's before an unmarked one) when the crc32s do not add
    /// up; the read errors of ``FileChecksum``.
    func run(jobs: Int) throws {
        var crcs = marked
        for doubt in doubts {
            crcs[doubt.position] =
                try alreadyRead[doubt.position]
                ?? FileChecksum.of(parts[doubt.position], algorithm: .crc32, jobs: jobs).value
        }
        try judge(crcs.map { $0 ?? 0 })
    }

    /// Reads every part (`files`, the set's parts in order) and refuses a set that is not, byte
    /// for byte, the one the split marked: what a merge does when no list checks the parts. A
    /// part whose mark is current must still have the crc32 the mark records, since its size
    /// and time do not show an edit whose time was put back (`touch -r`) or a sector gone bad.
    /// Returns the parts' crc32s joined: the output's.
    ///
    /// ## Errors
    /// Those of ``run(jobs:)``, and `.checksumMismatch` for a part whose current mark records
    /// another crc32.
    func runReadingAll(_ files: [PartFile], jobs: Int, counter: TransferCounter? = nil) throws -> Checksum {
        let checksums = try files.enumerated().map { position, file in
            try alreadyRead[position].map { Checksum(.crc32, value: $0, length: file.size) }
                ?? FileChecksum.of([file], jobs: jobs, counter: counter)[0]
        }
        let crcs = checksums.map(\.value)
        for (position, expected) in marked.enumerated() {
            guard let expected, crcs[position] != expected else { continue }
            throw damaged(position, crc: crcs[position], expected: expected)
        }
        try judge(crcs)
        return Checksum.combine(.crc32, checksums)
    }

    /// The place of the first part whose current mark records another crc32 than `crcs` gives
    /// (every part's, in order, as a list gives them); nil when they agree.
    func contradiction(_ crcs: [UInt32]) -> Int? {
        guard crcs.count == marked.count else { return nil }
        return marked.indices.first { marked[$0] != nil && marked[$0] != crcs[$0] }
    }

    /// Refuses a part that `list` vouches for (`crcs`, every part's as its check read them)
    /// whose current mark records other bytes: its size and time are the split's, so it was
    /// edited with its time put back before the list was made over it.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the part.
    func requireAgreement(_ crcs: [UInt32], list: String) throws {
        guard let position = contradiction(crcs), let expected = marked[position] else { return }
        throw GCDCatError(
            .checksumMismatch, path: parts[position],
            message:
                "matches \(list.displayPath), but its crc32 \(hex8(crcs[position])) is not the \(hex8(expected)) the "
                + "mark its split left on it records, though its size and time are as that split wrote them: its "
                + "bytes were changed with the time put back before \(list.displayPath) was made, so nothing was "
                + "written; put back the part its split wrote, or give --no-verify to join the parts as they are")
    }

    /// Refuses the set when `crcs`, every part's, are not the ones its split marked: a changed
    /// part is named by its own mark first, then the parts not vouched for when the crc32s do
    /// not add up to the set's.
    private func judge(_ crcs: [UInt32]) throws {
        for doubt in doubts {
            if case .changed(let expected) = doubt.kind, crcs[doubt.position] != expected {
                throw changed(doubt.position, crc: crcs[doubt.position], expected: expected)
            }
        }
        guard PartMark.setCRC(of: crcs) != setCRC else { return }
        let unproven = doubts.filter { !Self.isChanged($0) }
        guard let blamed = unproven.first(where: Self.isOtherSplit) ?? unproven.first else { return }
        throw refusal(blamed, others: unproven.count - 1)
    }

    /// Without reading (`--no-verify`): a part whose size is not the one its split marked, which
    /// a stat shows (cut short, appended to, or rewritten by another split over the same names).
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the part, its size and the marked one.
    func refuseResized() throws {
        for doubt in doubts {
            let path = parts[doubt.position]
            guard let marked = doubt.markedSize, let info = try? Syscall.statIfExists(path),
                Int64(info.st_size) != marked
            else { continue }
            throw GCDCatError(
                .checksumMismatch, path: path,
                message:
                    "is \(info.st_size) bytes, but the split that made \(anchorPath) marked it \(marked) bytes: it "
                    + "was cut short, appended to or rewritten since, so \(the) would not join to what that split "
                    + "read, and nothing was written; put back the part its split wrote, or give --as-given to join "
                    + "the parts as they are")
        }
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
            .checksumMismatch, path: parts[position],
            message:
                "was changed since the split that made \(anchorPath) marked it (its crc32 is \(hex8(crc)), the mark "
                + "says \(hex8(expected))), while \(anchorPath) is as that split wrote it, so \(the) would join two "
                + "writes' parts (another split over the same names, or a damaged part?); split again with --force, "
                + "or give --as-given to join them as they are")
    }

    private func damaged(_ position: Int, crc: UInt32, expected: UInt32) -> GCDCatError {
        GCDCatError(
            .checksumMismatch, path: parts[position],
            message:
                "crc32 is \(hex8(crc)), but the mark its split left on it says \(hex8(expected)), though its size and "
                + "time are as that split wrote them: its bytes were changed with the time put back (touch -r, or a "
                + "tool that keeps times) or went bad on disk, so nothing was written; put back the part its split "
                + "wrote, or give --no-verify to join the parts as they are")
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
