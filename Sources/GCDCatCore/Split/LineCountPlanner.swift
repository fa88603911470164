import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Cuts a regular file into parts of a fixed number of lines (GNU `split -l`).
///
/// Every part but the last holds exactly `lines` newlines and ends just after the last of
/// them; the last holds the rest, with or without a final newline. A line ends at `separator`
/// (GNU split's `-t`), `\n` unless given. With `headerLines`, the input's first lines are a
/// header that every later part repeats (see ``SplitOperation``): the first part holds the
/// header and `lines` lines after it, and the ranges of the later parts exclude it.
public enum LineCountPlanner {
    static let window = 1 << 20

    /// Scans `fd` (`size` bytes) once, forwards, and returns each part's range.
    ///
    /// ## Errors
    /// `.invalidInput` past ``SplitLimits/maximumParts``; `.io` for read errors.
    public static func plan(
        fd: Int32, path: String, size: Int64, lines: Int, headerLines: Int = 0, separator: UInt8 = 0x0A
    ) throws -> [Range<Int64>] {
        precondition(lines > 0, "a part holds at least one line")
        let buffer = try Syscall.allocate(byteCount: window, alignment: 4096, path: path)
        defer { free(buffer) }
        let headerEnd = try LineBoundaryPlanner.headerEnd(
            fd, path: path, size: size, lines: headerLines, separator: separator, buffer: buffer)
        var ranges: [Range<Int64>] = []
        var partStart: Int64 = 0
        var seen = 0
        var position: Int64 = headerEnd
        while position < size {
            let got = try Syscall.pread(
                fd, into: buffer, count: Int(min(Int64(window), size - position)), offset: position, path: path)
            guard got > 0 else { break }
            var index = 0
            while index < got, let hit = memchr(buffer + index, Int32(separator), got - index) {
                index = buffer.distance(to: hit) + 1
                seen += 1
                if seen == lines {
                    let end = position + Int64(index)
                    ranges.append(partStart..<end)
                    try SplitLimits.requirePartCount(Int64(ranges.count), path: path)
                    partStart = end
                    seen = 0
                }
            }
            position += Int64(got)
        }
        if partStart < position { ranges.append(partStart..<position) }
        try SplitLimits.requirePartCount(Int64(ranges.count), path: path)
        return ranges
    }
}
