import GCDCatSystem

/// The other lists beside a set (``ListsBesideSet``) than the one a merge checks it against:
/// their lines for the set's parts and for the whole file are checked too, so that two lists
/// that disagree (a good `m.bin.sfv`, a `SHA256SUMS` that says otherwise) stop the merge instead
/// of one of them being passed over. Lines for other files are left to `verify`.
enum OtherListsCheck {
    /// Checks each line of `lists` that names one of `parts` or the file they join to; `used` is
    /// the list the merge checks against. Returns one note a list: that it agrees, or that its
    /// values under an algorithm guessed from their length matched nothing (a mismatch there
    /// proves nothing: `verify` calls it unconfirmed).
    ///
    /// A whole-file line is checked on the parts joined, unless `used` records a header the
    /// split repeated atop every part (the output then is not the parts joined).
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the part (or list), the list and line that disagree, and
    /// `used`; those of reading a part.
    static func check(
        _ lists: [String], parts: [PartFile], used: String, jobs: Int, outputName: String? = nil
    ) throws -> [String] {
        let joinsWhole = (try? Manifest.load(used).header) == nil
        // Two lists of one algorithm read a part once.
        var known: [String: String] = [:]
        var notes: [String] = []
        var agreeing: [String] = []
        for list in lists {
            guard let loaded = try? ChecksumList.loadSkippingMalformed(list) else { continue }
            // A line gcdcat cannot read is said, never passed over as agreement.
            if let malformed = loaded.malformed.first {
                notes.append(
                    "\(list.displayPath) beside the set also lists it, but gcdcat cannot read all of it "
                        + "(\(malformed.message)); its other lines were checked")
            }
            let entries = loaded.list.entries
            let roles = try SetListEntries(
                names: entries.map(\.name), rejections: entries.map(\.rejection), listPath: list, parts: parts,
                outputName: outputName
            ).roles
            var unconfirmed = false
            // A list whose lines for the set name only parts that are not there (`v2.sfv` of
            // `v2001` … beside `v1001` …, read as later parts of `v` + four digits) checked
            // nothing, and agrees with nothing.
            var checked = false
            for (entry, role) in zip(entries, roles) where entry.rejection == nil && role != .other {
                let key = "\(entry.algorithm.rawValue) \(role == .whole ? "" : entry.name)"
                let actual: String
                let shown: String
                if role == .whole {
                    guard joinsWhole, MergeVerification.joins(entry.algorithm) else { continue }
                    guard
                        let value = try known[key]
                            ?? MergeVerification.joined(parts, algorithm: entry.algorithm, jobs: jobs)?.value
                    else { continue }
                    actual = value
                    shown = list
                } else {
                    let path = ChecksumListVerifier.resolve(entry.name, listPath: list)
                    guard let part = try MergeVerification.part(path, of: parts) else { continue }
                    actual = try known[key] ?? FileHash.of(part.path, algorithm: entry.algorithm, jobs: jobs)
                    shown = part.path
                }
                known[key] = actual
                checked = true
                guard actual != entry.expected else { continue }
                if entry.guessed {
                    unconfirmed = true
                    continue
                }
                // verify cannot check a line of the whole file against the parts (a29 M1): the way
                // to settle it is the merge by that list.
                let message =
                    role == .whole
                    ? "the parts joined give \(entry.algorithm.rawValue) \(actual), but \(list.displayPath) line "
                        + "\(entry.line) says \(entry.expected) for \(entry.name.displayPath), the whole file, and "
                        + "\(used.displayPath), the list the merge checks against, lists the parts: a part changed "
                        + "since one of them was made, or \(list.displayPath) is of another file, so nothing "
                        + "was merged. Name the list to trust with --manifest (--manifest \(list.displayPath) checks "
                        + "the parts joined against it)"
                    : "\(entry.algorithm.rawValue) is \(actual), but \(list.displayPath) line \(entry.line) says "
                        + "\(entry.expected), and \(used.displayPath), the list the merge checks against, lists it "
                        + "too: the lists disagree, or a part changed since one of them was made, so nothing was "
                        + "merged. gcdcat verify on each list says which holds; name the one to trust with --manifest"
                throw GCDCatError(.checksumMismatch, path: shown, message: message)
            }
            if !loaded.malformed.isEmpty || !checked {
                continue
            } else if unconfirmed {
                notes.append(
                    "\(list.displayPath) beside the set also lists it, but some of its values match nothing under "
                        + "the algorithm their length suggests; gcdcat verify \(list.displayPath) says more")
            } else {
                agreeing.append(list)
            }
        }
        if !agreeing.isEmpty { notes.insert(MergeVerification.othersNote(agreeing, used: used), at: 0) }
        return notes
    }
}
