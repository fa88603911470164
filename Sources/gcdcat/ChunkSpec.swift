import ArgumentParser

/// GNU split's CHUNKS, the value of `-n`/`--number` (gcdcat's `--parts`): `N`, `K/N`, `l/N`,
/// `l/K/N`, `r/N` or `r/K/N`.
struct ChunkSpec: ExpressibleByArgument, Equatable, CustomStringConvertible {
    enum Kind: String {
        /// N parts of about equal size, by bytes.
        case bytes = ""
        /// N parts of about equal size, each ending at a line's end.
        case lines = "l/"
        /// N parts, the lines dealt to them in turn.
        case roundRobin = "r/"
    }

    var kind: Kind
    /// Only part K (1-based), written to standard output.
    var k: Int?
    var n: Int

    init?(argument: String) {
        // GNU skips leading blanks.
        var text = Substring(argument.drop { $0 == " " || $0 == "\t" })
        kind = .bytes
        for candidate in [Kind.lines, .roundRobin] where text.hasPrefix(candidate.rawValue) {
            kind = candidate
            text = text.dropFirst(2)
        }
        let fields = text.split(separator: "/", omittingEmptySubsequences: false)
        // N out of bounds (0, -1, Int.max) is left to validate(), which names the bound.
        guard (1...2).contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            let n = Int(fields.last!)
        else { return nil }
        self.n = n
        if fields.count == 2 {
            guard let k = Int(fields[0]), (1...max(n, 1)).contains(k) else { return nil }
            self.k = k
        }
    }

    var description: String { kind.rawValue + (k.map { "\($0)/" } ?? "") + "\(n)" }
}
