import GCDCatSystem

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
        guard number > (list.naming.alphabet == .digits ? 1 : 0) else { return }
        // One file whose name only reads as a late number (`disk.img`: `mg` of `disk.i`) is a
        // plain file protected alone, as discovery takes a lone name (`x.003`, `in.bin.ab` are parts).
        let lonePart =
            list.naming.alphabet == .digits
            ? list.naming.width >= 2 || list.naming.stem.lowercased().hasSuffix(".part")
            : PartDiscovery.isLateLonePart(list.naming)
        guard list.paths.count > 1 || lonePart else { return }
        if let found = PartMark.readAny(first), found.standing == .current, found.mark.index == 0 { return }
        throw GCDCatError(
            .missingPart, path: first,
            message:
                "no \(list.naming.with(number: number - 1).name.displayPath) before it, and "
                + "\(list.index.displayPath) protects the set only from \(first.displayPath), so the set's first part "
                + "may be missing; nothing was written. If the set really starts here, merge it by its list (gcdcat "
                + "merge NAME.sfv) or list its parts with --as-given")
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
