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
///   of one size (GNU split run again over an older set's names). A line split's sizes vary
///   more, but `split -l N` writes every part but its last with N lines: one whose part just
///   before such a boundary has fewer lines than the parts before it is two sets as well
///   (`split -d -l 10 a x` and `split -a 1 -d -l 10 b x1`).
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
    /// only the patterns of two sets read as one (``gluedRefusal(_:naming:)``). `separators`
    /// counts a part's line ends, for the line split's check (``lineGluedRefusal``).
    static func refusal<Part: ReadablePart>(
        _ parts: [Part], naming: NumberedName, discovered: Bool, lastByte: ((Part) -> UInt8?)? = nil,
        separators: ((Part, UInt8) -> PartLines?)? = nil
    ) -> GCDCatError? {
        // Read once, and only for sizes that need it: a part's last byte costs an open and a read.
        var lineEnd: UInt8??
        let separator = {
            if lineEnd == nil {
                lineEnd = .some(lastByte.flatMap { lineSeparator(parts, lastByte: $0, lines: separators) })
            }
            return lineEnd!
        }
        let lineSplit = { separator() != nil }
        if discovered, let refusal = handNamedRefusal(parts, naming: naming), !lineSplit() { return refusal }
        // A list typed out is the user's: only the patterns of two sets read as one refuse it.
        guard discovered, lastByte != nil else { return gluedRefusal(parts, naming: naming) }
        guard let odd = oddPart(parts) else { return nil }
        if let separator = separator() {
            return separators.flatMap { lineGluedRefusal(parts, naming: naming, separator: separator, count: $0) }
        }
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

    /// The separator every part but the last ends with, as a line split's do: a newline, or an
    /// ASCII punctuation, symbol or blank (`split -t ';'`, `-t '|'`); nil when they do not.
    ///
    /// `split -C SIZE` cuts a line longer than SIZE into parts of SIZE bytes that hold no line
    /// end: such parts of the largest size, read with `lines`, do not stop a set of newline
    /// parts being a line split's (a29 M3).
    private static func lineSeparator<Part: ReadablePart>(
        _ parts: [Part], lastByte: (Part) -> UInt8?, lines: ((Part, UInt8) -> PartLines?)? = nil
    ) -> UInt8? {
        let nonEmpty = parts.dropLast().filter { $0.byteCount > 0 }
        let ends = nonEmpty.map(lastByte)
        let newline = UInt8(ascii: "\n")
        if let lines, ends.contains(newline), !ends.allSatisfy({ $0 == newline }) {
            let largest = parts.map(\.byteCount).max() ?? 0
            let cut = zip(nonEmpty, ends).filter { $0.1 != newline }.map(\.0)
            let mendable =
                cut.allSatisfy { $0.byteCount == largest } && cut.allSatisfy { lines($0, newline)?.count == 0 }
            return mendable ? newline : nil
        }
        guard let first = ends.first, let separator = first, ends.allSatisfy({ $0 == separator }) else { return nil }
        let byte = Character(Unicode.Scalar(separator))
        // Not NUL (`split -t '\0'`): disk images and archives end runs of zeros as often.
        return byte == "\n" || (separator < 0x80 && (byte.isPunctuation || byte.isSymbol || byte.isWhitespace))
            ? separator : nil
    }

    /// How many `separator` bytes a part file holds, and how far into it the first one ends (0
    /// for none); nil when it cannot be read (the merge then says why).
    static func lines(of part: PartFile, separator: UInt8) -> PartLines? {
        guard let file = try? Syscall.openRegularFile(part.path) else { return nil }
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var lines = PartLines(count: 0, firstLine: 0)
        var offset = 0
        while true {
            guard let read = try? Syscall.read(file.raw, into: buffer.baseAddress!, count: size, path: part.path)
            else { return nil }
            let chunk = buffer.prefix(read)
            if lines.count == 0, let first = chunk.firstIndex(of: separator) { lines.firstLine = offset + first + 1 }
            lines.count += count(separator, in: UnsafeRawBufferPointer(rebasing: chunk))
            offset += read
            if read < size { return lines }
        }
    }

    /// How many bytes of `buffer` are `byte`, eight at a time: a byte-wise count ran at 1.5 GB/s,
    /// slower than the copy it comes before.
    static func count(_ byte: UInt8, in buffer: UnsafeRawBufferPointer) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let pattern = UInt64(byte) &* ones
        let words = buffer.count / 8
        var total = 0
        for index in 0..<words {
            // Zero bytes of `x` are the matches; each sets its high bit in `zero`, exactly.
            let x = buffer.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) ^ pattern
            let zero = ~(((x & low7) &+ low7) | x | low7)
            total += zero.nonzeroBitCount
        }
        for offset in (words * 8)..<buffer.count where buffer[offset] == byte { total += 1 }
        return total
    }

    /// A part's line ends: how many, and where the first ends (0 for none).
    struct PartLines: Equatable {
        var count: Int
        var firstLine: Int
    }

    /// `split -l N` writes every part but its last with N lines. Where the counts break that, the
    /// set is two sets read as one, refused naming where the first ends:
    /// - at a part where another split's names could start (`x10` after `x09`: `split -d -l 10
    ///   a x` then `split -a 1 -d -l 10 b x1`), after three parts of N or more, with a count of
    ///   its own or after a shorter part;
    /// - at a part at least two lines short, followed by parts all of one count no smaller than
    ///   the last's (split run again over an older set's names), or by the last part alone
    ///   after three parts of N. The short part may be the first (a rerun of one part).
    ///
    /// Not refused: sets whose parts are all within two lines' bytes of each other (`split -n
    /// l/K`, whatever its counts), and a break the next part's first line would not have fitted
    /// beside (`split -C` closes a part only then). The parts are counted in order up to the
    /// first whose count differs from the first's: an honest `-l` set is read once.
    private static func lineGluedRefusal<Part: ReadablePart>(
        _ parts: [Part], naming: NumberedName, separator: UInt8, count: (Part, UInt8) -> PartLines?
    ) -> GCDCatError? {
        guard parts.count >= 3 else { return nil }
        var counted: [Int: PartLines?] = [:]
        func lines(_ index: Int) -> PartLines? {
            if let known = counted[index] { return known }
            let lines = count(parts[index], separator)
            counted[index] = .some(lines)
            return lines
        }
        let last = parts.count - 1
        guard let each = lines(0)?.count,
            let differs = (1..<last).first(where: { lines($0)?.count != each }), let other = lines(differs)?.count
        else { return nil }
        let atBoundary = { (index: Int) in startsAnotherSplit(parts[index].name, naming: naming) }
        let largest = parts.map(\.byteCount).max() ?? 0
        // `split -C` would have put the next part's first line in this one, or in one beside it.
        func notColumns(_ end: Int) -> Bool {
            (max(end - 1, 0)...min(end + 1, last - 1)).contains { index in
                guard let next = lines(index + 1)?.firstLine, next > 0 else { return false }
                return parts[index].byteCount + Int64(next) <= largest
            }
        }
        // Where the first set ends, and what follows it.
        var end: Int?
        var why = ""
        if differs >= 3, atBoundary(differs), notColumns(differs - 1) {
            end = differs - 1
            why = "\(parts[differs].name.displayPath) after it has \(other), where another split's names could start"
        } else if differs >= 3, other < each - 1, atBoundary(differs + 1), notColumns(differs) {
            end = differs
            why = "\(parts[differs + 1].name.displayPath) after it starts where another split's names could"
        } else {
            // The short part: the one that differs, or a first part alone before parts of more lines.
            let short = other < each - 1 ? differs : (differs == 1 && each < other - 1 ? 0 : nil)
            if let short, let shortCount = lines(short)?.count, notColumns(short) {
                let after = (short + 1)..<last
                let older = after.first.flatMap { lines($0)?.count }
                let oneCount =
                    after.allSatisfy { lines($0)?.count == older }
                    && (short > 0 || older.map { $0 > shortCount + 1 } == true)
                if oneCount, (lines(last)?.count ?? .max) <= (older ?? .max),
                    after.isEmpty ? short >= 3 : short + after.count >= 3
                {
                    end = short
                    why =
                        older.map { "the parts after it have \($0) each" }
                        ?? "only \(parts[last].name.displayPath) after it"
                }
            }
        }
        guard let end else { return nil }
        // `split -n l/K` cuts at line ends near equal offsets: its parts are within about two
        // lines of each other, whatever their counts.
        let widest = counted.values.compactMap { $0?.firstLine }.max() ?? 0
        guard (parts.map(\.byteCount).max() ?? 0) - (parts.map(\.byteCount).min() ?? 0) > Int64(2 * widest) else {
            return nil
        }
        let (first, end_) = (parts[0].name, parts[end].name)
        let counts =
            end == 0
            ? "has \(lines(0)?.count ?? 0) lines, and \(why)"
            : "the set's parts have \(each) lines each up to here, which has \(lines(end)?.count ?? 0), and \(why)"
        return GCDCatError(
            .invalidInput, path: end_,
            message:
                "\(counts): split -l writes every part but its last with one line count, so these look like two sets "
                + "read as one (another split whose prefix differs in its last symbol, or split run again over an "
                + "older set's names); nothing was written. If the first set ends here, merge "
                + (end == 0
                    ? "it alone with --as-given (gcdcat merge --as-given \(first.displayPath) -o FILE)"
                    : "its \(end + 1) parts with --as-given (gcdcat merge --as-given \(first.displayPath) … "
                        + "\(end_.displayPath) -o FILE)")
                + "; if this is one set, merge it by its manifest, or with --as-given")
    }

    /// Whether another split's names could start at `name`: its number's symbols but the first
    /// are all the alphabet's first (`x10` of two digits, `xba` of two letters), where a prefix
    /// one symbol longer (`x1`, `xb`) begins.
    private static func startsAnotherSplit(_ name: String, naming: NumberedName) -> Bool {
        let step = (1..<max(naming.width, 1)).reduce(1) { product, _ in product * naming.alphabet.radix }
        return naming.width >= 2 && (naming.number(of: name).map { $0 % step == 0 } ?? false)
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
        let atBoundary = { (index: Int) in startsAnotherSplit(parts[index].name, naming: naming) }
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
