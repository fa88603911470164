import GCDCatSystem

/// Two splits whose prefixes differ only in their last symbol read as one set: `split -d a.img
/// disk0` writes `disk000` … `disk099`, `split -d b.img disk1` writes `disk100` …, and together
/// they are `disk` + `000` … `104`, one set by every name. Joined, they made one wrong file with
/// exit 0 (`gcdcat disk000`, and `xaaa` over `xa` and `xb` sets alike).
///
/// The names cannot tell, but the sizes can: one byte split (GNU `-b` or `-n`, 7-Zip, gcdcat)
/// writes every part but the last at one size. A set that keeps one size up to where its names
/// could start another split's set (`disk100`, `xbaa`), and changes there, is two sets. A line
/// split (`split -l`) varies before then, and is left alone.
enum GluedSets {
    /// The refusal of `parts`, numbered by `naming` with no manifest or marks to vouch for
    /// them, when their sizes say two sets were read as one; nil otherwise.
    static func refusal(_ parts: [some ReadablePart], naming: NumberedName) -> GCDCatError? {
        guard parts.count >= 3, naming.width >= 2 else { return nil }
        let numbers = parts.map { naming.number(of: $0.name) }
        // Where the first symbol of the suffix changes: every 100 for three digits, 676 for three letters.
        let step = (1..<naming.width).reduce(1) { product, _ in product * naming.alphabet.radix }
        let size = parts[0].byteCount
        for index in 1..<parts.count {
            guard let number = numbers[index], number % step == 0 else { continue }
            // Sizes that vary before the boundary: a line split, whose sizes say nothing.
            guard parts[..<(index - 1)].allSatisfy({ $0.byteCount == size }) else { return nil }
            let endDiffers = index >= 2 && parts[index - 1].byteCount != size
            let nextDiffers = index < parts.count - 1 && parts[index].byteCount != size
            guard endDiffers || nextDiffers else { continue }
            return refusal(parts, at: index, naming: naming)
        }
        return nil
    }

    private static func refusal(_ parts: [some ReadablePart], at index: Int, naming: NumberedName) -> GCDCatError {
        let (end, start) = (parts[index - 1], parts[index])
        // The prefixes the two splits were given: the stem and the suffix's first symbol.
        let prefix = { (part: any ReadablePart) in String(part.name.dropLast(naming.width - 1 + naming.tail.count)) }
        let glob = { (part: any ReadablePart) in
            prefix(part) + String(repeating: "?", count: naming.width - 1) + naming.tail
        }
        return GCDCatError(
            .invalidInput, path: start.name,
            message:
                "the set's parts are \(parts[0].byteCount) bytes each up to here, then \(end.name.displayPath) has "
                + "\(end.byteCount) and \(start.name.displayPath) \(start.byteCount), just where the names could "
                + "start another split's set (\(prefix(end).displayPath) … then \(prefix(start).displayPath) …): two "
                + "sets read as one would make one wrong file; nothing was written. If they are two sets, merge each "
                + "with its parts listed (gcdcat merge --as-given \(glob(parts[0]).displayPath) -o FILE); if this is "
                + "one set, merge it by its manifest, or with --as-given")
    }
}
