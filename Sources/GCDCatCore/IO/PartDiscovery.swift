#if canImport(Glibc)
    import Glibc
#endif

/// Finds the rest of a numbered set from its first part: `movie.zip.001` finds `.002`, `.003`, …
///
/// Numbers are zero-padded to the first part's width and widen past it (`.999` → `.1000`), as
/// 7-Zip and HJSplit name them. The set ends at the first number with no file. A file with a
/// higher number in the same folder means a volume is missing in between, which is an error.
public enum PartDiscovery {
    /// The pieces of a numbered name: `movie.zip.001` is base `movie.zip`, number 1, width 3.
    public struct NumberedName: Equatable, Sendable {
        public var base: String
        public var number: Int
        public var width: Int

        public init(base: String, number: Int, width: Int) {
            self.base = base
            self.number = number
            self.width = width
        }

        public func name(for number: Int) -> String {
            "\(base).\(zeroPadded(number, width: width))"
        }
    }

    /// Parses `NAME.NNN` (at least one digit after the last dot, and a non-empty NAME).
    public static func numberedName(_ path: String) -> NumberedName? {
        guard let dot = path.lastIndex(of: ".") else { return nil }
        let digits = path[path.index(after: dot)...]
        let base = String(path[..<dot])
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            !base.isEmpty, !base.hasSuffix("/"), digits.count <= 9, let number = Int(digits)
        else { return nil }
        return NumberedName(base: base, number: number, width: digits.count)
    }

    /// True when `path` looks like the first part of a set: `NAME.000` or `NAME.001`.
    public static func isFirstPart(_ path: String) -> Bool {
        guard let name = numberedName(path) else { return false }
        return name.number <= 1
    }

    /// The parts of the set that starts at `firstPart`, in order.
    ///
    /// ## Errors
    /// `.missingPart` names the first missing number when a later one exists.
    public static func discover(firstPart: String) throws -> [String] {
        guard let first = numberedName(firstPart) else {
            throw GCDCatError(
                .invalidInput, path: firstPart,
                message: "not a numbered first part (expected a name such as movie.zip.001)")
        }
        var paths: [String] = []
        var number = first.number
        while pathExists(first.name(for: number)) {
            paths.append(first.name(for: number))
            number += 1
        }
        guard !paths.isEmpty else {
            throw GCDCatError(
                .missingPart, path: firstPart, syscall: "open", errno: ENOENT,
                message: describeErrno(ENOENT))
        }
        if let later = try highestNumber(like: first), later > number {
            throw GCDCatError(
                .missingPart, path: first.name(for: number),
                message:
                    "missing part: the set has \(first.name(for: later)) but not this one")
        }
        return paths
    }

    /// The highest number of any `base.NNN` file beside the first part, if any.
    static func highestNumber(like first: NumberedName) throws -> Int? {
        let slash = first.base.lastIndex(of: "/")
        let directory = slash.map { String(first.base[...$0]) } ?? "./"
        let stem = slash.map { String(first.base[first.base.index(after: $0)...]) } ?? first.base
        var highest: Int?
        for name in try directoryEntries(directory) {
            guard let parsed = numberedName(name), parsed.base == stem else { continue }
            highest = max(highest ?? parsed.number, parsed.number)
        }
        return highest
    }

    static func pathExists(_ path: String) -> Bool {
        (try? Syscall.statIfExists(path, followLinks: false)) != nil
    }
}
