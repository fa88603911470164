import GCDCatSystem

/// How split parts are named: a prefix, then a numeric or alphabetic suffix.
///
/// - Numeric (the default) is 7-Zip/HJSplit style: `.001`, `.002`, …, zero-padded to three
///   digits and widening past `.999` to `.1000`, as `gcdcat merge` and `7z e -tsplit` read it.
/// - Alphabetic is GNU split style: `aa`, `ab`, …, `yz`, then `zaaa` … `zyzz`, then `zzaaaa`:
///   names keep sorting in order as they widen, so `cat x*` still joins them.
/// - GNU numeric (`split -d`) is `00`, `01`, …, `89`, then `9000` … `9899`, then `990000`: the
///   same widening over digits, starting at 0. GNU hex (`split -x`) widens the same way over
///   `0`–`f` (`ef`, then `f000`).
/// - A start given for digits or hex (`--numeric-suffixes=FROM`) is the first suffix itself, so
///   the width is fixed, at 2 unless given, as GNU split does: `95`, `96`, … `99`, never widened
///   (a widened series from 95 would read `9005`).
/// - A fixed ``width`` never widens: running out of names is an error, raised before any part
///   is written.
/// - An ``additionalSuffix`` (GNU's `--additional-suffix`) follows every suffix: `x00.txt`.
public struct PartNaming: Sendable, Equatable {
    public enum Style: String, Sendable, CaseIterable {
        case numeric
        case alpha
        case gnuNumeric = "gnu-numeric"
        case hex
    }

    public var prefix: String
    public var style: Style
    /// A fixed suffix width, or nil to widen as needed.
    public var width: Int?
    /// The first suffix's number: numeric default 1 (`.001`), alpha default 0 (`aa`).
    public var start: Int
    /// Text after every suffix, as GNU split's `--additional-suffix` (`.txt`); may not hold `/`.
    public var additionalSuffix: String

    public init(
        prefix: String, style: Style = .numeric, width: Int? = nil, start: Int? = nil, additionalSuffix: String = ""
    ) {
        self.prefix = prefix
        self.style = style
        // GNU split: "the suffix auto length feature is incompatible with a user specified start
        // value", for `-d` and `-x` alike.
        self.width = width ?? (start != nil && (style == .gnuNumeric || style == .hex) ? 2 : nil)
        self.start = start ?? (style == .numeric ? 1 : 0)
        self.additionalSuffix = additionalSuffix
    }

    /// The name of part `index` (0-based).
    ///
    /// ## Errors
    /// `.invalidInput` when a fixed width has no name left for it.
    public func name(at index: Int) throws -> String {
        try suffixedName(at: index) + additionalSuffix
    }

    private func suffixedName(at index: Int) throws -> String {
        let number = start + index
        switch style {
        case .numeric where width == nil:
            return prefix + zeroPadded(number, width: 3)
        case .numeric, .gnuNumeric, .alpha, .hex:
            if let width {
                guard let suffix = alphabet.fixed(number, width: width) else { throw exhausted(index) }
                return prefix + suffix
            }
            return prefix + alphabet.widening(number)
        }
    }

    var alphabet: SuffixSymbols {
        switch style {
        case .alpha: return .letters
        case .hex: return .hex
        case .numeric, .gnuNumeric: return .digits
        }
    }

    /// The fixed width GNU split gives `count` names numbered from `start` in this style's
    /// symbols when it knows the count (`-n`): enough for the last, and at least 2.
    public func alphabetWidth(count: Int, start: Int) -> Int {
        max(2, minimumAlphabetWidth(count: count, start: start))
    }

    /// The narrowest width that names `count` names numbered from `start`: what `-a` may not go
    /// below (`-n 3 -a 1 -d` names x0, x1, x2, as GNU split does).
    public func minimumAlphabetWidth(count: Int, start: Int) -> Int {
        alphabet.widthNeeded(count: count, start: start)
    }

    /// True when `path` is a name of this series (the prefix and a suffix of its style), so
    /// some split with this naming could write a part there.
    public func isPartName(_ path: String) -> Bool {
        let path = normalizedPath(path)
        let prefix = normalizedPath(self.prefix + "x").dropLast()
        guard path.hasPrefix(prefix), path.hasSuffix(additionalSuffix) else { return false }
        let suffix = path.dropFirst(prefix.count).dropLast(additionalSuffix.count)
        guard !suffix.isEmpty, width.map({ suffix.count == $0 }) ?? true else { return false }
        switch style {
        case .numeric:
            return (width != nil || suffix.count >= 3) && suffix.allSatisfy { $0.isASCII && $0.isNumber }
        case .alpha, .gnuNumeric, .hex:
            guard suffix.allSatisfy({ alphabet.contains($0) }) else { return false }
            if width != nil { return true }
            // Widening names are `z`×j then j+2 letters, the first of them not `z`: aa, zaaa, zzaaaa
            // (over digits: 00, 9000, 990000).
            guard suffix.count % 2 == 0 else { return false }
            let level = suffix.count / 2 - 1
            return suffix.prefix(level).allSatisfy { $0 == alphabet.top }
                && suffix.dropFirst(level).first != alphabet.top
        }
    }

    /// True when merge can find the set again from its first name: one of the naming table's
    /// readings of it (``NumberedName/readings(of:)``) has this prefix and additional suffix.
    /// An additional suffix that ends in a digit (`x.001.001`) or is no extension (`_part.txt`)
    /// cannot be told from the number.
    public var readsBack: Bool {
        guard !additionalSuffix.isEmpty, let first = try? name(at: 0) else { return true }
        // A hex split's first name may be spelt with a letter (`--hex-suffixes=1f`: `out_1f.txt`).
        let hex = style == .hex ? NumberedName.hexReadings(of: first) : []
        return (NumberedName.readings(of: first) + hex).contains { $0.stem == prefix && $0.tail == additionalSuffix }
    }

    /// Checks that `count` parts all get names, before anything is written.
    public func requireCapacity(_ count: Int) throws {
        if count > 0 { _ = try name(at: count - 1) }
    }

    /// The manifest beside the parts: the prefix without a trailing `.`, `_` or `-`, plus `.sfv`.
    public var defaultManifestPath: String {
        var stem = prefix
        while let last = stem.last, last == "." || last == "_" || last == "-" { stem.removeLast() }
        if stem.isEmpty || stem.hasSuffix("/") { stem += "parts" }
        return stem + ".sfv"
    }

    private func exhausted(_ index: Int) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: prefix,
            message:
                "suffixes exhausted: \(index + 1) parts need more than \(width ?? 0) \(style == .alpha ? "letters" : style == .hex ? "hex digits" : "digits") (raise --suffix-length)"
        )
    }
}

/// `path` without `./` components and repeated slashes, so that `./a//b` and `a/b` compare equal.
func normalizedPath(_ path: String) -> String {
    let absolute = path.hasPrefix("/")
    let components = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
    return (absolute ? "/" : "") + components.joined(separator: "/")
}

/// True when `a` and `b` name the same file: equal once normalized, the same name in the same
/// folder, or the same existing inode.
func samePath(_ a: String, _ b: String) -> Bool {
    if normalizedPath(a) == normalizedPath(b) { return true }
    // The same name in the same folder, spelt two ways (`x` and `/here/x`), even when absent.
    let (folderA, nameA) = splitPath(a)
    let (folderB, nameB) = splitPath(b)
    if nameA == nameB, let realA = Syscall.realPath(folderA), realA == Syscall.realPath(folderB) { return true }
    guard let first = try? Syscall.statIfExists(a), let second = try? Syscall.statIfExists(b) else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
}
