import GCDCatSystem

/// The lines of an SFV that a local merge checks its set against: the parts' lines, with the
/// `; gcdcat-whole:` and `; gcdcat-header:` records above them, and the line for the whole file
/// the parts join to, which cksfv writes when it is given the file before its split (`cksfv -q
/// movie.zip > movie.zip.sfv`, alone or with the parts). That line is checked on the parts'
/// crc32s combined, which the check reads anyway, as a sha256 list's whole line is checked on
/// the parts joined; read as a part, it made the list "another set's".
struct SFVSetLines {
    /// The SFV with the set's part lines only.
    var manifest: Manifest
    /// The line for the whole output, when the SFV has one.
    var whole: Manifest.Entry?
    /// The note naming the lines that are no part of the set, if any.
    var notes: [String]

    /// `names` is a path in the folder the names are relative to, when not the SFV's own.
    ///
    /// ## Errors
    /// `.io` when a listed name cannot be examined (``SetListEntries``).
    init(
        _ manifest: Manifest, path: String, parts: [PartFile], namesRelativeTo names: String? = nil,
        outputName: String? = nil
    ) throws {
        self.init(
            manifest, path: path,
            roles: try SetListEntries(
                names: manifest.entries.map(\.name), rejections: manifest.entries.map(\.rejection),
                listPath: names ?? path, parts: parts, outputName: outputName))
    }

    init(_ manifest: Manifest, path: String, roles: SetListEntries) {
        guard let wholeIndex = roles.wholeLine else {
            (self.manifest, notes) = MergeVerification.setEntries(of: manifest, path: path, roles: roles)
            whole = nil
            return
        }
        whole = manifest.entries[wholeIndex]
        let partLines = roles.checked.filter { $0 != wholeIndex }
        let others = roles.ignored.filter { $0 != wholeIndex }
        var kept = manifest
        kept.entries = partLines.map { manifest.entries[$0] }
        // The records above this set's lines, not another set's (one SFV made of two sets').
        if !others.isEmpty { (kept.whole, kept.header) = manifest.records(of: partLines.first ?? wholeIndex) }
        self.manifest = kept
        notes =
            others.isEmpty ? [] : [MergeVerification.ignoredNote(others.map { manifest.entries[$0].name }, list: path)]
    }

    /// The parts the part lines are matched to: all of them, or with a whole line (which
    /// vouches for every part) the first as many as are listed.
    func matched(_ parts: [PartFile]) -> [PartFile] {
        whole == nil ? parts : Array(parts.prefix(manifest.entries.count))
    }
}
