import GCDCatSystem

/// What the marks a split leaves on its parts (``PartMark``) say of a set found from one name,
/// where names alone cannot tell: a lone file that is a later part (`p.ab` left by a split killed
/// while naming its set), a set that ends before its count, the parts of two splits joined.
///
/// Every part's mark is read: the first current one gives the set's start, its end, and the
/// crc32s the other parts' bytes must add up to. Under `--as-given` nothing here applies.
enum PartMarkEvidence {
    private static let remedy = "Put the missing parts back, or give --as-given to join what is here"

    /// The refusal of `path`, which discovery took for a lone file, when its mark makes it one
    /// part of a larger set.
    static func loneRefusal(_ path: String, names: any SetNames) -> GCDCatError? {
        guard let found = names.mark(of: path), found.mark.count > 1 else { return nil }
        let mark = found.mark
        // A lone file is read whole only to be refused, and only when its mark has moved.
        if found.standing == .stale || (found.standing == .moved && PartMark.crc32(of: path, jobs: 1) != mark.crc32) {
            return nil
        }
        // A reading by letters names a first part only from `a…a`: `backup.img`, a part saved
        // under another name, has no `backup.ime` before it.
        let reading = (NumberedName.readings(of: path) + NumberedName.hexReadings(of: path))
            .first { $0.number >= mark.index && ($0.alphabet != .letters || $0.number == mark.index) }
        if mark.index > 0 {
            return missingStart(path, mark: mark, first: reading.map { $0.with(number: $0.number - mark.index).name })
        }
        let next = reading.map { $0.with(number: $0.number + 1).name.displayPath } ?? "its next part"
        return GCDCatError(
            .missingPart, path: path,
            message:
                "no \(next) beside it: the split that made it marked it part 1 of \(mark.count), so the set's other "
                + "parts are missing. " + remedy)
    }

    /// What the marks of a set's first and last parts vouch for.
    struct Vouched {
        /// The set starts at its first part found (a `split --start`, hex suffixes from `09`),
        /// which then needs no manifest to vouch for its start.
        var start = false
        /// The set ends at its last part found: one split marked every part found, from the
        /// first of its count to the last.
        var whole = false
        /// The check of the parts' bytes against the crc32s the marks record, with the parts whose
        /// marks do not vouch for them (changed since, unmarked, or marked by another split).
        var content: MarkedContentCheck?
        /// The split repeated its input's header lines atop every part (``PartMark/Joining``).
        var repeatsHeader = false
    }

    /// Checks the parts of a set (found from its first part, or listed) against the marks they
    /// carry. The first part with a current mark places the others (when no mark is current, as
    /// after `touch p.*`, the first moved one whose bytes are still its mark's): every other
    /// mark of its split on a file of the mark's size must be at its place, and the mark's place
    /// and count give the set's start and end. The parts that carry no current mark of that
    /// split are left to a ``MarkedContentCheck`` of their bytes against the crc32s the marks
    /// record, which reads them after the merge has checked its output. With a manifest beside
    /// the set (`manifestBeside`), which checks every part, the places are the manifest's to
    /// judge.
    ///
    /// ## Errors
    /// `.invalidInput` for a part out of its place or parts past the marked count;
    /// `.missingPart` when the marks place parts before the first or after the last one given.
    static func check(
        parts: [String], naming: NumberedName, found: Bool, manifestBeside: Bool, names: any SetNames
    ) throws -> Vouched {
        var marks = parts.map { names.mark(of: $0) }
        var read: [Int: UInt32] = [:]
        guard let anchor = anchor(parts, marks: &marks, read: &read), let mark = marks[anchor]?.mark else {
            return Vouched()
        }
        let the = found ? "the set found from \(parts[0].displayPath)" : "the parts given"
        let anchorPath = parts[anchor].displayPath
        // The place of parts[0] in the split that made parts[anchor].
        let offset = mark.index - anchor
        if mark.joining == .roundRobin { throw roundRobinRefusal(parts[anchor], mark: mark) }
        var doubts: [MarkedContentCheck.Doubt] = []
        for (position, reading) in marks.enumerated() where position != anchor {
            guard let reading, reading.mark.isOfSet(mark) else {
                let other = reading?.standing == .current
                doubts.append(
                    MarkedContentCheck.Doubt(
                        position: position, kind: other ? .otherSplit : .unmarked))
                continue
            }
            if reading.standing != .current {
                doubts.append(
                    MarkedContentCheck.Doubt(
                        position: position, kind: .changed(reading.mark.crc32), markedSize: reading.mark.size))
            }
            // A moved mark was moved with its file's bytes, or stands where the split put it.
            if reading.standing != .stale && !manifestBeside && reading.mark.index - position != offset {
                throw outOfPlace(parts[position], index: reading.mark.index, position: position, anchorPath, the)
            }
        }
        // A part the marks place before the first one given stands among them, under a later
        // name (the first two swapped): out of place, not missing, whatever a list beside says.
        if let (position, index) = placedBefore(offset, marks: marks, anchor: anchor, of: mark) {
            throw outOfPlace(parts[position], index: index, position: position, anchorPath, the)
        }
        let content = MarkedContentCheck(
            parts: parts,
            marked: marks.map { $0?.standing == .current && $0?.mark.isOfSet(mark) == true ? $0?.mark.crc32 : nil },
            anchor: anchor, setCRC: mark.setCRC, doubts: doubts, alreadyRead: read, the: the,
            manifestBeside: manifestBeside)
        // A set the marks do not make whole: another split's part there says why first.
        if offset != 0 || mark.count != parts.count { try content.runWithoutReading() }
        // A list that starts late is refused by ``PartArguments/Resolved/lateStartRefusal(names:)``,
        // when its names say it starts late (`out_01.dat`); one whose names start where such sets
        // may (`p.1` after a lost `p.0`), by the marks here.
        if offset > 0 && !found && naming.startsLate(from: naming.number) { return Vouched() }
        if offset > 0 {
            let number = naming.number - offset
            throw missingStart(parts[0], mark: mark, first: number >= 0 ? naming.with(number: number).name : nil)
        }
        if offset < 0 {
            throw GCDCatError(
                .invalidInput, path: parts[0],
                message:
                    "is not one of the \(mark.count) parts the split that made \(anchorPath) marked, which starts "
                    + "\(-offset) place(s) later; remove it, or give --as-given to join the parts as they are")
        }
        if mark.count > parts.count {
            throw GCDCatError(
                .missingPart, path: naming.with(number: naming.number + parts.count).name,
                message:
                    "missing part: the split that made \(anchorPath) marked it part \(mark.index + 1) of "
                    + "\(mark.count), so the set goes on past \(parts[parts.count - 1].displayPath). " + remedy)
        }
        if mark.count < parts.count {
            throw GCDCatError(
                .invalidInput, path: parts[mark.count],
                message:
                    "is not one of the \(mark.count) parts the split that made \(anchorPath) marked, so \(the) "
                    + "would join other files to them; remove it and those after it, or give --as-given to join them "
                    + "as they are")
        }
        return Vouched(
            start: true, whole: true, content: content, repeatsHeader: mark.joining == .repeatedHeader)
    }

    /// The part whose mark places the set: the first whose mark is current, or else the first
    /// moved one whose bytes are still its mark's (read here, so it counts as current after);
    /// the crc32s of the moved ones read on the way, which were not, go to `read`.
    private static func anchor(
        _ parts: [String], marks: inout [(mark: PartMark, standing: PartMark.Standing)?], read: inout [Int: UInt32]
    ) -> Int? {
        if let current = marks.firstIndex(where: { $0?.standing == .current }) { return current }
        for (position, found) in marks.enumerated() where found?.standing == .moved {
            guard let found, let crc = PartMark.crc32(of: parts[position], jobs: 1) else { continue }
            read[position] = crc
            if crc == found.mark.crc32 {
                marks[position]?.standing = .current
                return position
            }
        }
        return nil
    }

    /// The position and place of a part other than the `anchor` whose mark of its split places it
    /// before place `offset`, the first part's; nil when none does.
    private static func placedBefore(
        _ offset: Int, marks: [(mark: PartMark, standing: PartMark.Standing)?], anchor: Int, of mark: PartMark
    ) -> (position: Int, index: Int)? {
        for (position, reading) in marks.enumerated() where position != anchor {
            guard let reading, reading.standing != .stale, reading.mark.isOfSet(mark), reading.mark.index < offset
            else { continue }
            return (position, reading.mark.index)
        }
        return nil
    }

    /// Whether the marks on `parts` (a set, in order) put its first part under another part's
    /// name: the first part's mark places it later, and another part carries that split's mark
    /// of an earlier place. Reads only the marks (no mark counts once its file's size changed).
    static func startStandsElsewhere(_ parts: [String], names: any SetNames) -> Bool {
        guard let first = parts.first, let found = names.mark(of: first), found.standing != .stale,
            found.mark.index > 0
        else { return false }
        return parts.dropFirst().contains { path in
            guard let other = names.mark(of: path) else { return false }
            return other.standing != .stale && other.mark.isOfSet(found.mark) && other.mark.index < found.mark.index
        }
    }

    private static func outOfPlace(
        _ path: String, index: Int, position: Int, _ anchorPath: String, _ the: String
    ) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: path,
            message:
                "is part \(index + 1) of the split that made \(anchorPath), but stands at place \(position + 1) of "
                + "\(the); give the parts in their order, or --as-given to join them as they are")
    }

    private static func roundRobinRefusal(_ path: String, mark: PartMark) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: path,
            message:
                "is part \(mark.index + 1) of \(mark.count) of a round-robin split (-n r/\(mark.count)), which deals out "
                + "its input's lines in turn: joined, its parts are not the input. Give --as-given to join them as "
                + "they are")
    }

    private static func missingStart(_ path: String, mark: PartMark, first: String?) -> GCDCatError {
        GCDCatError(
            .missingPart, path: path,
            message:
                "no \(first?.displayPath ?? "first part") before it: the split that made it marked it part "
                + "\(mark.index + 1) of \(mark.count), so the set's first part is missing (a split stopped while "
                + "naming its parts leaves later ones alone). " + remedy)
    }
}
