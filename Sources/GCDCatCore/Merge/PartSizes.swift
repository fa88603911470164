import GCDCatSystem

/// What the parts' sizes say of a set its names alone cannot place, with no manifest or marks
/// to vouch for it. One byte split (GNU `-b` or `-n`, 7-Zip, gcdcat) writes every part but the
/// last at one size, and its last no more than one byte a part above it (`-n`'s remainder).
/// - Two splits whose prefixes differ only in their last symbol read as one set: `split -d a.img
///   disk0` writes `disk000` … `disk099`, `split -d b.img disk1` writes `disk100` …, and together
///   they are `disk` + `000` … `104`, one set by every name. Joined, they made one wrong file
///   with exit 0 (`gcdcat disk000`, and `xaaa` over `xa` and `xb` sets alike). A set that keeps
///   one size up to a short (or long) part just before where its names could start another
///   split's set (`disk100`, `xbaa`) is two sets; so is one with a single such part among parts
///   of one size (GNU split run again over an older set's names). A line split (`split -l`)
///   varies more, and is left alone.
/// - One symbol before an extension (`track1.mp3`, `report-a.pdf`) is how files are named by
///   hand as often as `split -a 1 --additional-suffix` names parts: found from the first, files
///   of sizes no byte split writes are refused, not joined into a made-up `track.mp3`.
enum PartSizes {
    /// The refusal of `parts`, numbered by `naming`, when their sizes say they are not the one
    /// set their names read as; nil otherwise. `discovered`: found from the first part, not
    /// listed by the user.
    ///
    /// `lastByte` reads a part's last byte, where that is cheap (a file; not an object): a line
    /// split's parts (`split -l`, `-C`, `-n l/N`) all end at a line end, so sizes that vary say
    /// nothing of them, while a byte split's end anywhere. With it, any set found from its first
    /// part whose parts but the last have more than one size and do not all end at one separator
    /// is refused; without it, or for a list typed out (`merge seg_*.ts`: a stream's segments),
    /// only the patterns of two sets read as one (``gluedRefusal(_:naming:)``).
    static func refusal<Part: ReadablePart>(
        _ parts: [Part], naming: NumberedName, discovered: Bool, lastByte: ((Part) -> UInt8?)? = nil
    ) -> GCDCatError? {
        // Read once, and only for sizes that need it: a part's last byte costs an open and a read.
        var endsAtLineEnds: Bool?
        let lineSplit = {
            if endsAtLineEnds == nil { endsAtLineEnds = lastByte.map { endsAtLines(parts, lastByte: $0) } ?? false }
            return endsAtLineEnds!
        }
        if discovered, let refusal = handNamedRefusal(parts, naming: naming), !lineSplit() { return refusal }
        // A list typed out is the user's: only the patterns of two sets read as one refuse it.
        guard discovered, lastByte != nil else { return gluedRefusal(parts, naming: naming) }
        guard let odd = oddPart(parts), !lineSplit() else { return nil }
        let (first, end) = (parts[0], parts[odd])
        // Shorter, or longer by less than `-n`'s remainder can be: the first set's last part.
        // Longer still: the next set's first, the first set's parts ending whole before it.
        // So is a part whose size the parts after it keep.
        let over = end.byteCount - first.byteCount
        let after = parts[(odd + 1)...].dropLast()
        let nextSet = (!after.isEmpty && after.allSatisfy { $0.byteCount == end.byteCount }) || over > Int64(odd)
        let last = parts[nextSet ? odd - 1 : odd]
        return GCDCatError(
            .invalidInput, path: end.name,
            message:
                "the set's parts are \(first.byteCount) bytes each up to here, which has \(end.byteCount): one byte "
                + "split writes every part but its last at one size, and a line split's parts end at a line end, as "
                + "these do not, so they are not one split's parts (split run again over an older set's names, or "
                + "two splits whose prefixes differ in their last symbol, read as one set); nothing was written. The "
                + "first set seems to end at \(last.name.displayPath): merge the parts you mean with --as-given (gcdcat "
                + "merge --as-given \(first.name.displayPath) … \(last.name.displayPath) -o FILE), or give the set's "
                + "manifest")
    }

    /// The last byte of a part file; nil when it cannot be read (the merge then says why).
    static func lastByte(of part: PartFile) -> UInt8? {
        guard part.size > 0, let file = try? Syscall.openRegularFile(part.path) else { return nil }
        var byte: UInt8 = 0
        let read = withUnsafeMutableBytes(of: &byte) { buffer in
            buffer.baseAddress.flatMap {
                try? Syscall.pread(file.raw, into: $0, count: 1, offset: part.size - 1, path: part.path)
            }
        }
        return read == 1 ? byte : nil
    }

    /// The first part before the last whose size is not the first's, empty parts aside (`-n`'s
    /// of an input smaller than its count); nil when there is none.
    private static func oddPart(_ parts: [some ReadablePart]) -> Int? {
        guard parts.count >= 3, parts[0].byteCount > 0 else { return nil }
        return parts.indices.dropLast().first { parts[$0].byteCount > 0 && parts[$0].byteCount != parts[0].byteCount }
    }

    /// Whether every part but the last ends with one separator, as a line split's do: a newline,
    /// or an ASCII punctuation or blank (`split -t ';'`).
    private static func endsAtLines<Part: ReadablePart>(_ parts: [Part], lastByte: (Part) -> UInt8?) -> Bool {
        let ends = parts.dropLast().filter { $0.byteCount > 0 }.map(lastByte)
        guard let first = ends.first, let separator = first, ends.allSatisfy({ $0 == separator }) else { return false }
        let byte = Character(Unicode.Scalar(separator))
        // Not NUL (`split -t '\0'`): disk images and archives end runs of zeros as often.
        return byte == "\n" || (separator < 0x80 && (byte.isPunctuation || byte.isWhitespace))
    }

    private static func handNamedRefusal(_ parts: [some ReadablePart], naming: NumberedName) -> GCDCatError? {
        guard naming.width == 1, !naming.tail.isEmpty, parts.count >= 2, let last = parts.last else { return nil }
        let size = parts[0].byteCount
        let oneSize = parts.dropLast().allSatisfy { $0.byteCount == size || $0.byteCount == 0 }
        guard !oneSize || last.byteCount >= size + Int64(parts.count) else { return nil }
        let sizes = parts.prefix(4).map { "\($0.byteCount)" }.joined(separator: ", ") + (parts.count > 4 ? ", …" : "")
        let listed = parts.prefix(3).map(\.name.displayPath).joined(separator: " ") + (parts.count > 3 ? " …" : "")
        return GCDCatError(
            .invalidInput, path: parts[0].name,
            message:
                "its name reads as the first of \(parts.count) numbered files (\(listed)), but they are \(sizes) bytes, "
                + "sizes no byte split writes (each part but the last of one size), and they do not end at line ends "
                + "as a line split's parts do: files named by hand, not one "
                + "split's parts, so no set was merged and nothing was written. To join them, list them and name the "
                + "output (gcdcat merge \(listed) -o FILE); a set that is one split's parts merges by its manifest, or "
                + "with --as-given")
    }

    /// A set whose sizes stop being one split's at one part: the last of a first set, with the
    /// parts after it of another size (a split whose prefix differs in its last symbol, at the
    /// boundary where its names begin), or of the first size again (split run again over an
    /// older set's names: `x00` … `x02` new, `x03` … the old set's last parts). An empty part is
    /// `-n`'s of a tiny input, and sizes that vary more are a line split's: both left alone.
    private static func gluedRefusal(_ parts: [some ReadablePart], naming: NumberedName) -> GCDCatError? {
        guard parts.count >= 3, let second = secondSetStart(parts, naming: naming) else { return nil }
        let (end, next) = (parts[second.index - 1], parts[second.index])
        let why =
            second.atBoundary
            ? "another split's, whose prefix differs in its last symbol, starting at \(next.name.displayPath)"
            : "split run again over an older set's names, its parts ending at \(end.name.displayPath)"
        return GCDCatError(
            .invalidInput, path: end.name,
            message:
                "the set's parts are \(parts[0].byteCount) bytes each up to here, which has \(end.byteCount), and "
                + "\(next.name.displayPath) after it has \(next.byteCount): one byte split writes every part but its "
                + "last at one size, so these look like two sets read as one (\(why)); nothing was written. If the "
                + "first set ends here, merge its \(second.index) parts with --as-given (gcdcat merge --as-given "
                + "\(parts[0].name.displayPath) … \(end.name.displayPath) -o FILE); if this is one set, merge it by its "
                + "manifest, or with --as-given")
    }

    /// Where a second set starts among `parts`, and whether there its names could start another
    /// split's (`disk100`, `xbaa`); nil when the sizes are one split's, or a line split's.
    private static func secondSetStart(
        _ parts: [some ReadablePart], naming: NumberedName
    ) -> (index: Int, atBoundary: Bool)? {
        let size = parts[0].byteCount
        guard let odd = parts.dropLast().firstIndex(where: { $0.byteCount != size }), parts[odd].byteCount > 0
        else { return nil }
        let step = (1..<max(naming.width, 1)).reduce(1) { product, _ in product * naming.alphabet.radix }
        let atBoundary = { (index: Int) in
            naming.width >= 2 && (naming.number(of: parts[index].name).map { $0 % step == 0 } ?? false)
        }
        // The parts from `index` on but the last are of one size, as one split's are.
        let oneSplit = { (index: Int) in
            let rest = parts[index...].dropLast()
            return rest.allSatisfy { $0.byteCount == (rest.first?.byteCount ?? 0) }
        }
        let after = parts[(odd + 1)...].dropLast()
        // The first set's last part, then the first size again: one set's names written over another's.
        if !after.isEmpty, after.allSatisfy({ $0.byteCount == size }) { return (odd + 1, false) }
        // The first set's last part, short or long, then another split's at its names' boundary.
        if atBoundary(odd + 1), oneSplit(odd + 1) { return (odd + 1, true) }
        // A first set of whole parts, then another split's parts of another size (two at least).
        if odd >= 2, atBoundary(odd), after.count >= 1, oneSplit(odd) { return (odd, true) }
        return nil
    }
}
