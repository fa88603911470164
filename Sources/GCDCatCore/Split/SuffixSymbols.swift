/// The symbols GNU split spells a suffix in: letters (the default), digits (`-d`) or hex (`-x`).
///
/// Splitting needs hex, which merge's reading table (``SuffixAlphabet``) does not guess at: a
/// name such as `x0a` would read as letters and digits alike.
struct SuffixSymbols: Sendable, Equatable {
    let symbols: [Character]

    static let letters = SuffixSymbols(symbols: Array("abcdefghijklmnopqrstuvwxyz"))
    static let digits = SuffixSymbols(symbols: Array("0123456789"))
    static let hex = SuffixSymbols(symbols: Array("0123456789abcdef"))

    var radix: Int { symbols.count }

    /// GNU split widens by prefixing the last symbol: `z`, `9` or `f`.
    var top: Character { symbols[radix - 1] }

    func contains(_ character: Character) -> Bool { symbols.contains(character) }

    /// `number` over exactly `width` symbols, or nil when it does not fit.
    func fixed(_ number: Int, width: Int) -> String? {
        var rest = number
        var characters = [Character](repeating: symbols[0], count: width)
        for position in stride(from: width - 1, through: 0, by: -1) {
            characters[position] = symbols[rest % radix]
            rest /= radix
        }
        return rest == 0 ? String(characters) : nil
    }

    /// GNU split's widening suffix: level j is `top`×j, then j+2 symbols whose first is not `top`.
    func widening(_ number: Int) -> String {
        var rest = number
        var level = 0
        var levelSize = (radix - 1) * radix
        while rest >= levelSize {
            rest -= levelSize
            level += 1
            levelSize *= radix
        }
        return String(repeating: top, count: level) + (fixed(rest, width: level + 2) ?? "")
    }

    /// The value of `text` in these symbols, or nil for a foreign symbol or past `limit`.
    func value(of text: Substring, limit: Int) -> Int? {
        var value = 0
        for character in text {
            guard let digit = symbols.firstIndex(of: character) else { return nil }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: radix)
            guard !overflow, scaled <= limit - digit else { return nil }
            value = scaled + digit
        }
        return value
    }

    /// How many symbols the last of `count` names numbered from `start` needs (GNU split's
    /// `suffix_length_needed` for `-n`; it counts `start` only when it is below `count`).
    func widthNeeded(count: Int, start: Int) -> Int {
        var last = max(0, count - 1)
        if start < count { last += start }
        var needed = 0
        repeat {
            needed += 1
            last /= radix
        } while last > 0
        return needed
    }
}
