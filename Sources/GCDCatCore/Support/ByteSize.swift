import GCDCatSystem

/// A byte count parsed from a human-written size, as coreutils reads them.
///
/// Accepted: `4096`, `64K`, `1M`, `2MiB`, `1G`, `1MB`, `500KB`, `1T`. `K`, `M`, `G`, `T` and their
/// `iB` forms are powers of 1024; `KB`, `MB`, `GB`, `TB` are powers of 1000. A lone `B` means bytes.
/// Case is ignored for the unit. Overflow, a negative or fractional number, and anything else
/// are rejected.
public struct ByteSize: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var bytes: Int64

    public init(_ bytes: Int64) { self.bytes = bytes }

    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }

    /// The reason a text is not a size; used in usage errors that name the flag.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case notANumber(String)
        case unknownUnit(String)
        case tooLarge(String)
        case negative(String)

        public var description: String {
            switch self {
            case .empty: return "empty size"
            case .notANumber(let text): return "'\(text)' is not a size (try 4096, 64K, 1M, 2MiB or 1MB)"
            case .unknownUnit(let unit): return "unknown unit '\(unit)' (use K, M, G, T, KiB…, KB…)"
            case .tooLarge(let text): return "'\(text)' is too large"
            case .negative(let text): return "'\(text)' is negative; a size must be positive"
            }
        }
    }

    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw .empty }
        if trimmed.hasPrefix("-") {
            // `--size -q`: the value was forgotten and the next option taken for it.
            guard trimmed.dropFirst().first?.isNumber == true else { throw .notANumber(text) }
            throw .negative(text)
        }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int64(digits) else {
            throw digits.isEmpty ? .notANumber(text) : .tooLarge(text)
        }
        let unit = trimmed.dropFirst(digits.count).lowercased()
        let multiplier: Int64
        switch unit {
        case "", "b": multiplier = 1
        case "k", "kib": multiplier = 1 << 10
        case "m", "mib": multiplier = 1 << 20
        case "g", "gib": multiplier = 1 << 30
        case "t", "tib": multiplier = 1 << 40
        case "kb": multiplier = 1_000
        case "mb": multiplier = 1_000_000
        case "gb": multiplier = 1_000_000_000
        case "tb": multiplier = 1_000_000_000_000
        default:
            if unit.first.map({ $0.isNumber || $0 == "." || $0 == "-" }) ?? false {
                throw .notANumber(text)
            }
            throw .unknownUnit(String(unit))
        }
        let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw .tooLarge(text) }
        self.bytes = product
    }

    /// The largest exact binary unit: `1M`, `64K`, `1536` (as accepted by the parser).
    public var description: String {
        let units: [(Int64, String)] = [(1 << 40, "T"), (1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")]
        for (size, name) in units where bytes >= size && bytes % size == 0 {
            return "\(bytes / size)\(name)"
        }
        return "\(bytes)"
    }

    /// A human-readable approximation for reports: `1.50 GiB`.
    public static func humanReadable(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var index = 0
        while value >= 1024, index < units.count - 1 {
            value /= 1024
            index += 1
        }
        return index == 0 ? "\(bytes) B" : "\(formatFixed(value, decimals: 2)) \(units[index])"
    }
}

/// `number` in decimal, zero-padded to at least `width` digits: `zeroPadded(7, width: 3)` is
/// `007`; wider numbers are not cut (`1000`).
public func zeroPadded(_ number: Int, width: Int) -> String {
    let digits = String(number)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// `value` with a fixed number of decimals, without Foundation's locale-dependent formatting.
public func formatFixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : "inf" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (abs(value) * scale).rounded()
    let whole = Int64(rounded / scale)
    let fraction = Int64(rounded - Double(whole) * scale)
    let sign = value < 0 && rounded != 0 ? "-" : ""
    guard decimals > 0 else { return "\(sign)\(whole)" }
    var fractionText = String(fraction)
    while fractionText.count < decimals { fractionText = "0" + fractionText }
    return "\(sign)\(whole).\(fractionText)"
}
