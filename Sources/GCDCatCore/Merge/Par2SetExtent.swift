import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

extension MergeOperation {
    /// Refuses a merge by `list` (a `.par2` of the set) that would leave out the set's first
    /// parts: one lying beside the set before the first part the `.par2` lists (it was made over
    /// some of the parts: `protect f.bin.002 f.bin.003`), or none there while the first part
    /// listed is above the set's usual start (`.001`, `aa`): the set's first part may be gone.
    /// (`disk.img` protected alone is one file, not a late part `mg` of `disk.i`.)
    /// The mark of a split that started late by design (`--start`) vouches for the start.
    ///
    /// ## Errors
    /// `.invalidInput` naming the part beside the set; `.missingPart` naming the first part
    /// listed.
    static func refuseUnlistedStart(_ list: Par2PartList) throws {
        let first = list.paths[0]
        let number = list.naming.number(ofSuffix: suffix(of: first, in: list)) ?? 0
        let names = FileSystemNames()
        if number > 0, let before = PartDiscovery.existing(list.naming.with(number: number - 1), names) {
            var start = before
            var below = number - 1
            while below > 0, let lower = PartDiscovery.existing(list.naming.with(number: below - 1), names) {
                start = lower
                below -= 1
            }
            throw GCDCatError(
                .invalidInput, path: before,
                message:
                    "lies beside the set, but \(list.index.displayPath) lists its parts only from "
                    + "\(first.displayPath); nothing was written. Merge the set from its first part (gcdcat merge "
                    + "\(start.displayPath)), or list the parts to join (with --as-given)")
        }
        guard number > list.naming.usualFirstNumber else { return }
        // One file whose name only reads as a late number (`disk.img`: `mg` of `disk.i`) is a
        // plain file protected alone, as discovery takes a lone name (`x.003`, `in.bin.ab` are parts).
        let lonePart =
            list.naming.alphabet == .digits
            ? list.naming.width >= 2 || list.naming.stem.lowercased().hasSuffix(".part")
            : PartDiscovery.isLateLonePart(list.naming)
        guard list.paths.count > 1 || lonePart else { return }
        if let found = PartMark.readAny(first), found.standing == .current, found.mark.index == 0 { return }
        // The set's list beside it, or the name split gives one.
        let candidates = list.naming.manifestCandidates
        let byList =
            candidates.first { (try? Syscall.statIfExists($0)) != nil }.map {
                "merge it by its list (gcdcat merge \($0.displayPath))"
            }
            ?? "merge it by its list if it has one (gcdcat merge \(candidates[0].displayPath), as split names it)"
        throw GCDCatError(
            .missingPart, path: first,
            message:
                "no \(list.naming.with(number: number - 1).name.displayPath) before it, and "
                + "\(list.index.displayPath) protects the set only from \(first.displayPath), so the set's first part "
                + "may be missing; nothing was written. If the set really starts here, \(byList) or list its parts "
                + "with --as-given")
    }

    /// Refuses a merge by `list` whose parts skip a number (`.001 .002 .004`): a numbered set has
    /// no hole, so the part between is the set's whether it lies there (the `.par2` was made
    /// without it) or not (it may be lost, unprotected). An empty file in the hole adds nothing,
    /// and PAR2 lists no empty file.
    ///
    /// ## Errors
    /// `.invalidInput` naming a part lying in the hole; `.missingPart` naming the first number
    /// missing.
    static func refuseUnlistedGaps(_ list: Par2PartList) throws {
        let numbers = list.paths.map { list.naming.number(ofSuffix: suffix(of: $0, in: list)) ?? 0 }
        for (previous, next) in zip(numbers, numbers.dropFirst()) where next > previous + 1 {
            for number in (previous + 1)..<next {
                let naming = list.naming.with(number: number)
                guard let found = PartDiscovery.existing(naming, FileSystemNames()) else {
                    throw GCDCatError(
                        .missingPart, path: naming.name,
                        message:
                            "missing part: \(list.index.displayPath) protects the parts before and after it but not "
                            + "it, so it cannot be rebuilt; nothing was written. Find it, or list the parts to join "
                            + "(with --as-given)")
                }
                if let info = try Syscall.statIfExists(found), info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 {
                    continue
                }
                throw GCDCatError(
                    .invalidInput, path: found,
                    message:
                        "lies in the set, but \(list.index.displayPath) does not protect it, so it cannot be checked; "
                        + "nothing was written. Protect the set again with it (gcdcat protect), or list the parts to "
                        + "join (with --as-given)")
            }
        }
    }

    /// Refuses a merge by `list` that stops short of what the set says of itself: the mark a
    /// split left on a part counts more parts than `list` has (the last ones gone, and not
    /// protected, so not rebuilt), or, when `sfv` is given (the set's SFV beside it), that list
    /// names a part the `.par2` does not protect.
    ///
    /// ## Errors
    /// `.missingPart` naming the first part the set has past `list`.
    static func refuseShortOfTheSet(_ list: Par2PartList, sfv: String?) throws {
        let last = list.naming.number(ofSuffix: suffix(of: list.paths.last!, in: list)) ?? 0
        // Empty parts past the last are the set's too, though PAR2 lists no empty file.
        var empty = 0
        while let path = PartDiscovery.existing(list.naming.with(number: last + 1 + empty), FileSystemNames()),
            let info = try? Syscall.statIfExists(path), info.st_mode & S_IFMT == S_IFREG, info.st_size == 0
        {
            empty += 1
        }
        let next = list.naming.with(number: last + 1 + empty)
        for (position, path) in list.paths.enumerated() {
            guard let found = PartMark.readAny(path), found.standing == .current else { continue }
            guard found.mark.count - found.mark.index + position > list.paths.count + empty else { break }
            if let there = PartDiscovery.existing(next, FileSystemNames()) {
                throw GCDCatError(
                    .invalidInput, path: there,
                    message:
                        "lies beside the set, which the split that made \(path.displayPath) marked as "
                        + "\(found.mark.count) parts, but \(list.index.displayPath) protects \(list.paths.count), so a "
                        + "merge by it would leave the rest out; nothing was written. Merge the set from its first part "
                        + "(gcdcat merge \(list.paths[0].displayPath))")
            }
            throw GCDCatError(
                .missingPart, path: next.name,
                message:
                    "missing part: the split that made \(path.displayPath) marked it part \(found.mark.index + 1) of "
                    + "\(found.mark.count), but \(list.index.displayPath) protects \(list.paths.count) parts, so the set "
                    + "goes on past \(list.paths.last!.displayPath) where no recovery block can rebuild it; nothing was "
                    + "written")
        }
        guard let sfv, let manifest = try? Manifest.load(sfv) else { return }
        let protected = Set(list.paths.map { splitPath($0).name })
        guard let extra = manifest.entries.first(where: { !protected.contains($0.name) }) else { return }
        let path = folderPrefix(of: sfv) + extra.name
        let there = (try? Syscall.statIfExists(path)) != nil
        throw GCDCatError(
            .missingPart, path: path,
            message:
                "\(sfv.displayPath) lists it, but \(list.index.displayPath) does not protect it, so a merge by "
                + "\(list.index.displayPath) would leave it out; nothing was written. "
                + (there
                    ? "Merge the set from its first part (gcdcat merge \(list.paths[0].displayPath)), which its list checks"
                    : "It is missing, and no recovery block can rebuild it"))
    }

    /// The set's SFV beside it, if there is one.
    static func sfvBeside(_ list: Par2PartList) -> String? {
        list.naming.manifestCandidates.first { $0.hasSuffix(".sfv") && (try? Syscall.statIfExists($0)) != nil }
    }

    private static func folderPrefix(of path: String) -> String {
        Par2PartList.folderPrefix(of: path)
    }

    /// Refuses a merge by `list` when parts lie beside the set past the last one it lists.
    ///
    /// ## Errors
    /// `.invalidInput` naming the first such part.
    func refusePartsPastPar2(_ list: Par2PartList, notes: inout [String]) throws {
        guard !(try emptyPartsPastLast(list, notes: &notes)),
            let beyond = PartDiscovery.existing(list.naming.with(number: lastNumber(list) + 1), FileSystemNames())
        else { return }
        throw Self.pastLastRefusal(beyond, list: list)
    }

    static func pastLastRefusal(_ beyond: String, list: Par2PartList) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: beyond,
            message:
                "lies beside the set, but \(list.index.displayPath) lists its parts only up to "
                + "\(list.paths.last!.displayPath); nothing was written. Move it away if it is not part "
                + "of the set, or list the parts to join (with --as-given)")
    }

    /// The suffix of `path`, a part of `list`'s set: what follows the set's stem.
    static func suffix(of path: String, in list: Par2PartList) -> Substring {
        String(path.unicodeScalars.dropFirst(list.naming.stem.unicodeScalars.count))[...]
    }
}
