import GCDCatSystem

/// What the marks a split leaves on its parts (``PartMark``) say of a set found from one name,
/// where names alone cannot tell: a lone file that is a later part (`p.ab` left by a split killed
/// while naming its set), a set that ends before its count, the parts of two splits joined.
///
/// Only the first and the last part found are read: together they give the set's start, its
/// end, and whether one split made both. Under `--as-given` nothing here applies.
enum PartMarkEvidence {
    private static let remedy = "Put the missing parts back, or give --as-given to join what is here"

    /// The refusal of `path`, which discovery took for a lone file, when its mark makes it one
    /// part of a larger set.
    static func loneRefusal(_ path: String, names: any SetNames) -> GCDCatError? {
        guard let mark = names.mark(of: path), mark.count > 1 else { return nil }
        let reading = (NumberedName.readings(of: path) + NumberedName.hexReadings(of: path))
            .first { $0.number >= mark.index }
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
    struct Vouched: Equatable {
        /// The set starts at its first part found (a `split --start`, hex suffixes from `09`),
        /// which then needs no manifest to vouch for its start.
        var start = false
        /// The set ends at its last part found: one split marked every part found, from the
        /// first of its count to the last.
        var whole = false
    }

    /// Checks `set` against the marks on its first and last parts.
    ///
    /// ## Errors
    /// `.invalidInput` when the first and last parts come from two splits, or parts follow the
    /// count the first part's mark gives; `.missingPart` when a mark places parts before the
    /// first or after the last one found.
    static func check(_ set: PartDiscovery.DiscoveredSet, names: any SetNames) throws -> Vouched {
        guard let firstPath = set.parts.first, let lastPath = set.parts.last else { return Vouched() }
        let first = names.mark(of: firstPath)
        let last = set.parts.count > 1 ? names.mark(of: lastPath) : first
        if let first, let last, first.setID != last.setID {
            throw GCDCatError(
                .invalidInput, path: lastPath,
                message:
                    "was made by another split than \(firstPath.displayPath) (the marks each split left on its parts "
                    + "differ), so the set found from \(firstPath.displayPath) would join two splits' parts; remove "
                    + "the stale parts, or give --as-given to join them as they are")
        }
        if let first, first.index > 0 {
            let number = set.naming.number - first.index
            throw missingStart(firstPath, mark: first, first: number >= 0 ? set.naming.with(number: number).name : nil)
        }
        // How many parts the split made: the first part's count, else the last's place.
        guard let (holder, mark) = first.map({ (firstPath, $0) }) ?? last.map({ (lastPath, $0) }) else {
            return Vouched()
        }
        let expected = first != nil ? mark.count : set.parts.count - 1 - mark.index + mark.count
        if expected > set.parts.count {
            throw GCDCatError(
                .missingPart, path: set.naming.with(number: set.naming.number + set.parts.count).name,
                message:
                    "missing part: the split that made \(holder.displayPath) marked it part \(mark.index + 1) of "
                    + "\(mark.count), so the set goes on past \(lastPath.displayPath). " + remedy)
        }
        if first != nil, expected < set.parts.count {
            throw GCDCatError(
                .invalidInput, path: set.parts[expected],
                message:
                    "is not one of the \(mark.count) parts the split that made \(firstPath.displayPath) marked, so the "
                    + "set found from \(firstPath.displayPath) would join other files to them; remove it and those "
                    + "after it, or give --as-given to join them as they are")
        }
        return Vouched(start: first != nil, whole: first != nil && expected == set.parts.count)
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
