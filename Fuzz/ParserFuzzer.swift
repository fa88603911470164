// A libFuzzer target for the parsers that read untrusted text: SFV manifests, checksum lists
// (SFV, GNU, BSD), size flags, and the numeric flags of split (counts, suffix lengths, first
// numbers) with the arithmetic behind them.
// Built by scripts/fuzz.sh together with GCDCatCore's sources (swiftc -sanitize=fuzzer).
// Any crash, hang or sanitizer report is a bug; thrown errors are the expected outcome.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let manifest = try? Manifest.parse(text, path: "fuzz.sfv") {
        for entry in manifest.entries where entry.name.hasPrefix("/") {
            precondition(entry.rejection != nil, "an absolute name was not rejected")
        }
        _ = manifest.render(generator: "fuzz")
    }
    if let list = try? ChecksumList.parse(bytes: Array(UnsafeBufferPointer(start: data, count: size)), path: "fuzz") {
        for entry in list.entries {
            precondition(entry.rejection != nil || !entry.name.hasPrefix("/"), "an absolute name was not rejected")
            precondition(entry.expected.count == entry.algorithm.hexLength, "a value of the wrong length")
        }
    }
    if let parsed = try? ByteSize(parsing: text) {
        precondition(parsed.bytes >= 0, "a size parsed negative")
        _ = parsed.description
    }
    fuzzFlags(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    return 0
}

/// Reads tokens as split's flags would (`--size`, `--high-water`, `--parts`, `--suffix-length`,
/// `--start`, as ArgumentParser hands them over: `Int(text)` for counts) and, for every value
/// within the documented bounds, runs the arithmetic that follows: nothing may trap.
func fuzzFlags(_ tokens: [String]) {
    guard tokens.count >= 4 else { return }
    let size = try? ByteSize(parsing: tokens[0])
    let highWater = try? ByteSize(parsing: tokens[1])
    let count = Int(tokens[2])
    let width = Int(tokens[3])
    let start = tokens.count > 4 ? Int(tokens[4]) : nil
    let total = Int64(tokens.count > 5 ? Int(tokens[5]) ?? 0 : 0) & ((1 << 50) - 1)
    if let highWater, highWater.bytes <= Int64(Int.max) {
        if let limits = try? ChunkLimits.userChosen(highWater: Int(highWater.bytes), lowWater: nil) {
            precondition(ChunkLimits.allowedHighWater.contains(limits.highWater), "a high-water mark out of bounds")
        }
    }
    if let size, size.bytes > 0 {
        let parts = SplitLimits.partCount(total: total, size: size.bytes)
        precondition(parts >= 0 && (parts == 0) == (total == 0), "a wrong part count")
    }
    guard let count, count >= 1, count <= SplitLimits.maximumParts else { return }
    let fixedWidth = width.flatMap { (1...SplitLimits.maximumSuffixLength).contains($0) ? $0 : nil }
    let first = start.flatMap { (0...SplitLimits.maximumStart).contains($0) ? $0 : nil }
    for style in PartNaming.Style.allCases {
        let naming = PartNaming(prefix: "p.", style: style, width: fixedWidth, start: first)
        if (try? naming.requireCapacity(count)) != nil {
            let last = try? naming.name(at: count - 1)
            precondition(last.map { naming.isPartName($0) } ?? false, "a part name not recognised as one")
        }
    }
    if total > 0, total <= 1 << 20 {
        let ranges = SplitPlan.byCount(total: total, count: count)
        precondition(ranges.last?.upperBound == total, "parts do not cover the input")
    }
}
