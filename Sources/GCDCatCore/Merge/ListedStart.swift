import GCDCatSystem

/// Whether the checksum list a merge checks its set against says where the set starts. A set
/// found or listed from above its usual first part (`.002`, `xab`, `x01`) with nothing before it
/// may have lost its start, and without a list it is refused
/// (``PartArguments/Resolved/lateStartRefusal(names:)``). A list of the parts alone, made while
/// the first was absent (`gcdcat checksum movie.zip.0* > movie.zip.sfv`, `sha256sum m.zip.00[234]`),
/// vouches for each part it names and says no more of the start than their names do. A list
/// vouches for the start when it records the whole file (`; gcdcat-whole:`, which a `--start`
/// split's manifest has, or a line for the whole output: the merge checks the parts joined
/// against it), or names a part before the first found (its check then says that part is missing).
enum ListedStart {
    /// The refusal of a merge of `resolved`'s late-starting set by `list`, when the list does not
    /// vouch for the start; nil when it does, when the set starts where sets usually do, or when
    /// the list cannot be read (its check then says why).
    /// `names` is a path in the folder the list's names are relative to, when not its own.
    static func refusal(
        list: String, namesRelativeTo names: String? = nil, resolved: PartArguments.Resolved, parts: [PartFile],
        algorithm: HashAlgorithm?
    ) -> GCDCatError? {
        guard resolved.startsLate,
            let read = reading(list, names: names ?? list, parts: parts, algorithm: algorithm), !read.recordsWhole
        else { return nil }
        let listed = read.roles.roles.indices.filter { read.roles.roles[$0] == .part }.map { read.names[$0] }
        return refusal(
            listedParts: listed, list: list, resolved: resolved, parts: parts.map(\.path), names: FileSystemNames())
    }

    /// The refusal of a merge of `parts`, a set that starts late, by a list that records no
    /// whole file and names `listedParts` of the set: one verdict for files and objects
    /// (`names` is the file system or the bucket's listing).
    static func refusal(
        listedParts: [String], list: String, resolved: PartArguments.Resolved, parts: [String], names: any SetNames
    ) -> GCDCatError? {
        guard resolved.startsLate, let first = parts.first, let usual = resolved.usualFirst,
            let (naming, numbers) = PartArguments.commonSet(parts.map { splitPath($0).name })
        else { return nil }
        let listed = listedParts.compactMap { naming.number(of: splitPath($0).name) }
        // A list that names a part before the first found: its check says that part is missing.
        guard let lowest = listed.min(), lowest >= numbers[0] else { return nil }
        // The usual first part lies beside the set: the refusal without a list says what is amiss.
        if let reading = resolved.firstReading,
            PartDiscovery.existing(reading.with(number: reading.usualFirstNumber), names) != nil
        {
            return resolved.lateStartRefusal(names: names)
        }
        return GCDCatError(
            .missingPart, path: first,
            message:
                "no \(usual.displayPath) before it, and \(list.displayPath) lists the set only from "
                + "\(first.displayPath), so the set's first part may be missing; nothing was written. If the "
                + "set really starts here, "
                + (resolved.discovered ? "list its parts with --as-given" : "give --as-given to join the list as it is")
        )
    }

    /// The names `list` gives, what each is to the set, and whether it records the whole file.
    private static func reading(_ list: String, names base: String, parts: [PartFile], algorithm: HashAlgorithm?) -> (
        names: [String], roles: SetListEntries, recordsWhole: Bool
    )? {
        if let manifest = try? Manifest.load(list) {
            let names = manifest.entries.map(\.name)
            guard
                let roles = try? SetListEntries(
                    names: names, rejections: manifest.entries.map(\.rejection), listPath: base, parts: parts)
            else { return nil }
            // The records above this set's own lines, in an SFV of several sets, or a line for the whole.
            let lines = SFVSetLines(manifest, path: list, roles: roles)
            return (names, roles, lines.manifest.whole != nil || lines.whole != nil)
        }
        guard let read = try? ChecksumList.loadSkippingMalformed(list, forced: algorithm) else { return nil }
        let names = read.list.entries.map(\.name)
        guard
            let roles = try? SetListEntries(
                names: names, rejections: read.list.entries.map(\.rejection), listPath: base, parts: parts)
        else { return nil }
        return (names, roles, roles.wholeBesideParts != nil)
    }
}
