/// The alphabets a numbered set spells its suffixes in.
///
/// One table covers every naming gcdcat reads:
///
/// | alphabet | width | spellings of part n                                    | who writes it                  |
/// |----------|-------|--------------------------------------------------------|--------------------------------|
/// | digits   | any   | n zero-padded to the width, widening (`.999`→`.1000`) | gcdcat split, 7-Zip, `.partN`  |
/// | digits   | 2     | also GNU's widening (`x89` → `x9000`)                  | GNU `split -d`                 |
/// | letters  | any   | n in base 26 over the width (`aa`, `ab`, …)            | GNU `split -a N`, `--suffix-length` |
/// | letters  | 2     | also GNU's widening (`yz` → `zaaa`)                    | GNU split, gcdcat `--suffix alpha` |
/// | hex      | any   | n in base 16 over the width (`00` … `0f`, `10`, …)     | GNU and gcdcat `split -x`     |
/// | hex      | 2     | also GNU's widening (`ef` → `f000`)                    | GNU and gcdcat `split -x`     |
///
/// Hex names are read only where a set proves them (``NumberedName/hexReadings(of:)``): `x00`
/// is a digits name until `x0a` lies beside it.
///
/// Any of them may be followed by a fixed tail (GNU's `--additional-suffix`): `out_00.txt`,
/// `out_01.txt` is `out_` + `00` + `.txt` (see ``NumberedName/tail``).
public enum SuffixAlphabet: String, Sendable, CaseIterable {
    case digits
    case letters
    case hex

    var symbols: [Character] {
        switch self {
        case .digits: return Array("0123456789")
        case .letters: return Array("abcdefghijklmnopqrstuvwxyz")
        case .hex: return Array("0123456789abcdef")
        }
    }

    var radix: Int { symbols.count }

    /// GNU split widens by prefixing the last symbol: `z` (letters) or `9` (digits).
    var top: Character { symbols[radix - 1] }

    func contains(_ character: Character) -> Bool {
        switch self {
        case .digits: return character.isASCII && character.isNumber
        case .letters: return character.isASCII && character.isLowercase && character.isLetter
        case .hex: return character.isASCII && (character.isNumber || ("a"..."f").contains(character))
        }
    }

    func value(of symbol: Character) -> Int? { symbols.firstIndex(of: symbol) }

    /// The same symbols as the splitter spells them (one arithmetic for writing and reading).
    private var spelling: SuffixSymbols {
        switch self {
        case .digits: return .digits
        case .letters: return .letters
        case .hex: return .hex
        }
    }

    /// `number` over exactly `width` symbols, or nil when it does not fit.
    func fixed(_ number: Int, width: Int) -> String? { spelling.fixed(number, width: width) }

    /// GNU split's widening suffix: level j is `top`×j, then j+2 symbols whose first is not `top`.
    func widening(_ number: Int) -> String { spelling.widening(number) }

    /// The plain base-`radix` value of `suffix`, or nil on overflow or a foreign symbol.
    func plainValue(_ suffix: Substring) -> Int? {
        guard suffix.count <= 12 else { return nil }
        var value = 0
        for character in suffix {
            guard let digit = self.value(of: character) else { return nil }
            value = value * radix + digit
        }
        return value
    }

    /// The number a GNU widening suffix stands for, or nil when `suffix` is not one.
    func wideningValue(_ suffix: Substring) -> Int? {
        let length = suffix.count
        guard length >= 2, length % 2 == 0, length <= 12 else { return nil }
        let level = (length - 2) / 2
        guard suffix.prefix(level).allSatisfy({ $0 == top }), suffix.dropFirst(level).first != top,
            let tail = plainValue(suffix.dropFirst(level))
        else { return nil }
        var before = 0
        var levelSize = (radix - 1) * radix
        for _ in 0..<level {
            before += levelSize
            levelSize *= radix
        }
        return before + tail
    }
}

/// A name in a numbered set: `dir/movie.zip.` + `001`, `x` + `aa`, `file.part` + `1`.
public struct NumberedName: Equatable, Sendable {
    /// Everything before the suffix, folder included (may end in `/`).
    public var stem: String
    public var alphabet: SuffixAlphabet
    /// The suffix width of the set's first name.
    public var width: Int
    /// This name's number.
    public var number: Int
    /// What follows the suffix in every name of the set (GNU split's `--additional-suffix`):
    /// `.txt` in `out_00.txt`; empty for most sets.
    public var tail: String

    public init(stem: String, alphabet: SuffixAlphabet, width: Int, number: Int, tail: String = "") {
        self.stem = stem
        self.alphabet = alphabet
        self.width = width
        self.number = number
        self.tail = tail
    }

    public var name: String { spellings(of: number).first ?? stem }

    /// The number a set in this naming usually starts at: 1 for digits (`.001`; a `.000` set
    /// starts below it), 0 for letters and hex (`aa`, `00`), and 0 for two digits, GNU `split
    /// -d`'s `x00` and `out_00.txt` (with `--additional-suffix`), but for a download manager's
    /// `.part01`. One digit that ends the name starts at 0 too (`x0` of `split -a 1 -d`), but
    /// for `.part1`; before a tail (`part1.txt`) it starts at 1, as names numbered by hand do.
    /// A set that starts above it with nothing below may have lost its first parts:
    /// `out_01.txt` … `out_04.txt` alone is refused unless a list or the parts' marks vouch for
    /// its start (`--numeric-suffixes=1`), as a short output would be silent.
    public var usualFirstNumber: Int {
        guard alphabet == .digits, !stem.lowercased().hasSuffix(".part") else { return alphabet == .digits ? 1 : 0 }
        return width == 2 || (width == 1 && tail.isEmpty) ? 0 : 1
    }

    /// Whether a set whose first part is number `first` may have lost the parts before it: `first`
    /// is above ``usualFirstNumber`` and, for digits before an extension, zero-padded as a split
    /// pads them (`out_02.txt`). `report2023.txt` and `report2024.txt` are files whose names hold
    /// a year, not parts 2023 and 2024 of a set with 2022 parts lost.
    public func startsLate(from first: Int) -> Bool {
        guard first > usualFirstNumber else { return false }
        guard alphabet == .digits, !tail.isEmpty else { return true }
        return zeroPadded(first, width: width).first == "0"
    }

    /// The names part `number` may have in this set, the usual one first.
    public func spellings(of number: Int) -> [String] {
        guard number >= 0 else { return [] }
        var suffixes: [String] = []
        switch alphabet {
        case .digits:
            suffixes.append(zeroPadded(number, width: width))
        case .letters, .hex:
            if width == 2 { suffixes.append(alphabet.widening(number)) }
            if let fixed = alphabet.fixed(number, width: width) { suffixes.append(fixed) }
        }
        if alphabet == .digits && width == 2 { suffixes.append(alphabet.widening(number)) }
        var seen = Set<String>()
        return suffixes.filter { seen.insert($0).inserted }.map { stem + $0 + tail }
    }

    /// The suffix in `text` (what follows the stem: the suffix, then the ``tail``), or nil when
    /// the tail is not there or the suffix has a symbol outside the alphabet.
    public func suffix(in text: Substring) -> Substring? {
        guard text.hasSuffix(tail) else { return nil }
        let suffix = text.dropLast(tail.count)
        return !suffix.isEmpty && suffix.allSatisfy(alphabet.contains) ? suffix : nil
    }

    /// The number `text` (a suffix, then the ``tail``) stands for in this set, or nil when the
    /// set never spells a number so.
    public func number(ofSuffix text: Substring) -> Int? {
        guard let suffix = suffix(in: text) else { return nil }
        // GNU's widening reading first: `x9000` is part 90 of `x00`'s set, not part 9000.
        let candidates = [width == 2 ? alphabet.wideningValue(suffix) : nil, alphabet.plainValue(suffix)]
        for case let candidate? in candidates where spellings(of: candidate).contains(stem + text) {
            return candidate
        }
        return nil
    }

    /// The same set at another number.
    public func with(number: Int) -> NumberedName {
        var copy = self
        copy.number = number
        return copy
    }

    /// The ways `path` can read as a numbered name. Digits give one reading (the whole trailing
    /// run, 1–12 digits); letters give one per width from 2 to the trailing run's length (at most
    /// 8), widest first (but a reading that leaves no stem last): `xaaa` may be `x`+`aaa` or `xa`+`aa`, and only the neighbours tell.
    ///
    /// Readings with a ``tail`` come after all others, for names that do not end in digits:
    /// `out_00.txt` is `out_` + `00` + `.txt`.
    /// A tail is one to three extensions (`.txt`, `.tar.gz`), and its suffix is at least two
    /// symbols wide, as split writes them, or one digit (`part1.txt` of `split -a 1
    /// --numeric-suffixes=1`), which a neighbour must confirm (see ``PartDiscovery``).
    public static func readings(of path: String) -> [NumberedName] {
        let base = splitPath(path).name
        let readings = plainReadings(of: path)
        // A name that ends in digits is a plain set (`movie.zip.001`), never `movie` + `zip` + `.001`,
        // unless the digits end a word (`out_00.mp4`, `xaa.tar.bz2`): then the extension's digits are
        // read first, and a neighbour decides (see ``PartDiscovery``).
        guard !readings.contains(where: { $0.alphabet == .digits }) || endsInWordDigits(base) else { return readings }
        guard !endsAsAFirstPart(readings) else { return readings }
        return readings + tailedReadings(of: path, plainReadings) { $0.width >= 2 || $0.alphabet == .digits }
    }

    /// The readings `plain` gives of `path` without each of its tails (``extensionTails(of:)``),
    /// shortest tail first, that `keep` keeps, each with its tail.
    static func tailedReadings(
        of path: String, _ plain: (String) -> [NumberedName], keep: (NumberedName) -> Bool
    ) -> [NumberedName] {
        extensionTails(of: splitPath(path).name).flatMap { tail in
            plain(String(path.dropLast(tail.count))).filter(keep).map {
                var reading = $0
                reading.tail = tail
                return reading
            }
        }
    }

    /// True when a name's plain readings end it as a letters set's first part after a dot
    /// (`cd1.aa`, `disk001.img.aa`: GNU split of `cd1.`): that set's, never read with a tail as
    /// `cd` + `1` + `.aa`, which joined `cd2.aa` to it.
    static func endsAsAFirstPart(_ plain: [NumberedName]) -> Bool {
        plain.contains { $0.alphabet == .letters && $0.number == 0 && $0.stem.hasSuffix(".") }
    }

    /// True when `base` ends in digits right after a letter, as extensions do (`.mp4`, `.bz2`,
    /// `.h264`), where a split's number never is: it follows a separator or the prefix's end.
    static func endsInWordDigits(_ base: String) -> Bool {
        let beforeDigits = base.reversed().drop { SuffixAlphabet.digits.contains($0) }.first
        return base.contains(".") && beforeDigits.map { $0.isASCII && $0.isLetter } == true
    }

    /// The readings of `path` as one letter after a separator (`out_a`, `out_c.txt`, `f.b`,
    /// `xa`: GNU `split -a 1`), with or without a tail; apart from ``readings(of:)``, since so many
    /// names end so (`report-a.pdf`): a set only beside its `a` and a neighbour (``PartDiscovery``).
    static func oneLetterReadings(of path: String) -> [NumberedName] {
        ([""] + extensionTails(of: splitPath(path).name)).compactMap { tail in
            let rest = path.dropLast(tail.count)
            let base = splitPath(String(rest)).name
            guard let letter = base.last, SuffixAlphabet.letters.contains(letter), let before = base.dropLast().last,
                base.dropLast() == "x" || before == "_" || before == "-" || before == "."
            else { return nil }
            return NumberedName(
                stem: String(rest.dropLast()), alphabet: .letters, width: 1,
                number: SuffixAlphabet.letters.value(of: letter) ?? 0, tail: tail)
        }
    }

    /// The ``oneLetterReadings(of:)`` of `path` whose set's `a` lies in `names`: without it, a
    /// name such as `report-b.pdf` is no part.
    static func oneLetterReadings(of path: String, names: any SetNames) -> [NumberedName] {
        oneLetterReadings(of: path).filter { PartDiscovery.existing($0.with(number: 0), names) != nil }
    }

    /// The tails `base` may have after its suffix, shortest first: `.gz`, then `.tar.gz`.
    static func extensionTails(of base: String) -> [String] {
        var tails: [String] = []
        var rest = Substring(base)
        while tails.count < 3, let dot = rest.lastIndex(of: "."), dot > rest.startIndex {
            let tail = base[dot...]
            let word = rest[rest.index(after: dot)...]
            guard (1...10).contains(word.count), word.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else { break }
            tails.append(String(tail))
            rest = rest[..<dot]
        }
        return tails
    }

    /// The ways `path` can read as a hex-numbered name (GNU `split -x`), widest first, from 2 to
    /// 8 symbols: apart from ``readings(of:)``, since most names end in symbols that are hex too
    /// (`movie.zip.001`, `data.cafe`), and only a set's other names can tell (see
    /// ``PartDiscovery``).
    /// Readings with a ``tail`` (`out_0a.txt`, of `split -x --additional-suffix=.txt`) come after
    /// the others, as in ``readings(of:)``; they never split a run of digits (`2023.csv` is no
    /// `2` + `023` + `.csv`), and their suffix starts with a digit, as a hex set's first parts do:
    /// `movie1.iso.001` is no `movi` + `e1` + `.iso.001`.
    public static func hexReadings(of path: String) -> [NumberedName] {
        let readings = plainHexReadings(of: path)
        guard !endsAsAFirstPart(plainReadings(of: path)) else { return readings }
        return readings
            + tailedReadings(of: path, plainHexReadings) {
                !($0.stem.last.map(SuffixAlphabet.digits.contains) ?? false)
                    && $0.name.dropFirst($0.stem.count).first.map(SuffixAlphabet.digits.contains) == true
            }
    }

    /// The hex readings of `path` without a tail.
    static func plainHexReadings(of path: String) -> [NumberedName] {
        let base = splitPath(path).name
        let run = base.reversed().prefix { SuffixAlphabet.hex.contains($0) }.count
        guard run >= 2 else { return [] }
        let all = Array(stride(from: min(run, 8), through: 2, by: -1))
        return (all.filter { $0 < base.count } + all.filter { $0 >= base.count }).compactMap { width in
            let shape = NumberedName(stem: String(path.dropLast(width)), alphabet: .hex, width: width, number: 0)
            return shape.number(ofSuffix: path.suffix(width)[...]).map { shape.with(number: $0) }
        }
    }

    /// This digits name read as hex over the same stem, width and tail (`out_0` of `split -a 1 -x`
    /// too, one symbol wide); nil when the suffix is no hex number.
    var hexShape: NumberedName? {
        guard alphabet == .digits else { return nil }
        let shape = NumberedName(stem: stem, alphabet: .hex, width: width, number: 0, tail: tail)
        return shape.number(ofSuffix: name.dropFirst(stem.count)[...]).map { shape.with(number: $0) }
    }

    /// The hex reading of this digits name's set, when a name beside it proves the set hex: one
    /// of the next 16 numbers spelt with a letter (`x0a` after `x00` … `x09`) exists.
    func provenHex(_ names: any SetNames) -> NumberedName? {
        guard alphabet == .digits, let hex = hexShape else { return nil }
        let lettered = (hex.number..<hex.number + 16).lazy.map { hex.with(number: $0) }.filter {
            $0.name.dropFirst(self.stem.count).dropLast(self.tail.count).contains { !$0.isNumber }
        }
        return lettered.contains { PartDiscovery.existing($0, names) != nil } ? hex : nil
    }

    /// The readings of `path` without a tail.
    static func plainReadings(of path: String) -> [NumberedName] {
        let base = splitPath(path).name
        var readings: [NumberedName] = []
        let digits = base.reversed().prefix { SuffixAlphabet.digits.contains($0) }.count
        // Up to 12 digits: split's `--start` reaches 999 999 999 999 (`f.9999999998` … `f.10000000000`).
        if (1...12).contains(digits) {
            let suffix = base.suffix(digits)
            readings.append(
                NumberedName(
                    stem: String(path.dropLast(digits)), alphabet: .digits, width: digits,
                    number: Int(suffix) ?? 0))
        }
        let letters = base.reversed().prefix { SuffixAlphabet.letters.contains($0) }.count
        if letters >= 2 {
            // A reading that leaves a stem (`x` + `aa`) beats one that eats the whole name.
            let all = Array(stride(from: min(letters, 8), through: 2, by: -1))
            let widths = all.filter { $0 < base.count } + all.filter { $0 >= base.count }
            for width in widths {
                let stem = String(path.dropLast(width))
                let shape = NumberedName(stem: stem, alphabet: .letters, width: width, number: 0)
                if let number = shape.number(ofSuffix: path.suffix(width)[...]) {
                    readings.append(shape.with(number: number))
                }
            }
        }
        return readings
    }

    /// The output name a merge defaults to: the stem without a trailing `.`, `_` or `-`, and
    /// without `.part` (`movie.mkv.part1` → `movie.mkv`); nil when nothing is left.
    public var wholeName: String? {
        var whole = stem
        trimSeparators(&whole)
        if whole.lowercased().hasSuffix(".part") {
            whole.removeLast(5)
            trimSeparators(&whole)
        }
        // `out_00.txt`'s whole is `out.txt`.
        return whole.isEmpty || whole.hasSuffix("/") ? nil : whole + tail
    }

    /// Where a manifest for this set may be: split's rule first (``PartNaming/defaultManifestPath``),
    /// then the whole file's name plus `.sfv`, then the same two names with `.sha256` and `.md5`
    /// (the lists download sites publish); the first that exists is used.
    public var manifestCandidates: [String] {
        let sfv = PartNaming(prefix: stem).defaultManifestPath
        var stems = [String(sfv.dropLast(4))]
        if let wholeName, !stems.contains(wholeName) { stems.append(wholeName) }
        return [".sfv", ".sha256", ".md5"].flatMap { ext in stems.map { $0 + ext } }
    }

    private func trimSeparators(_ text: inout String) {
        while let last = text.last, last == "." || last == "_" || last == "-" { text.removeLast() }
    }
}
