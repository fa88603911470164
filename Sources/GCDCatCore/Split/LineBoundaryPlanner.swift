import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Cuts a regular file into parts that end at newlines, optionally repeating header lines.
///
/// Every part holds at most `limit` bytes, its header included, and ends just after a newline,
/// except the last part when the input does not end in one. A line longer than the room in a
/// part is cut where the room ends. A part that fills its room ends at its last newline even
/// when nothing follows, so the layout is GNU split -C's. A line ends at `separator` (GNU split's `-t`), `\n` unless
/// given.
public struct LineBoundaryPlanner {
    /// One part: the header (when repeated) and a range of the input.
    public struct Piece: Sendable, Equatable {
        public var range: Range<Int64>
        public var repeatsHeader: Bool
    }

    public struct Plan: Sendable, Equatable {
        /// The first `headerLines` lines of the input, as a range of it.
        public var header: Range<Int64>
        public var pieces: [Piece]
    }

    static let window = 1 << 20

    /// Scans `fd` (`size` bytes) and plans the parts.
    ///
    /// ## Errors
    /// `.invalidInput` when the header lines alone fill `limit`; `.io` for read errors.
    public static func plan(
        fd: Int32, path: String, size: Int64, limit: Int64, headerLines: Int, separator: UInt8 = 0x0A
    ) throws -> Plan {
        let buffer = try Syscall.allocate(byteCount: window, alignment: 4096, path: path)
        defer { free(buffer) }
        let headerSize = try headerEnd(
            fd, path: path, size: size, lines: headerLines, separator: separator, buffer: buffer)
        guard headerLines == 0 || headerSize < limit else {
            throw GCDCatError(
                .invalidInput, path: path,
                message:
                    "the \(headerLines) header line(s) take \(headerSize) bytes, which leaves no room in parts of \(limit) bytes"
            )
        }
        var pieces: [Piece] = []
        var start: Int64 = 0
        while start < size {
            let repeats = headerLines > 0 && !pieces.isEmpty
            let room = repeats ? limit - headerSize : limit
            // `room` may be near Int64.max (a huge --size): never add it to `start` unclamped.
            var end = start + min(room, size - start)
            // A full part ends at its last separator even when it is the input's last part, as
            // GNU split -C ends it (`-C 3` of `ab\0c` is `ab\0` and `c`).
            if room <= size - start,
                let newline = try lastNewline(fd, path: path, in: start..<end, separator: separator, buffer: buffer)
            {
                end = newline + 1
            }
            pieces.append(Piece(range: start..<end, repeatsHeader: repeats))
            try SplitLimits.requirePartCount(Int64(pieces.count), path: path)
            start = end
        }
        return Plan(header: 0..<headerSize, pieces: pieces)
    }

    /// How many bytes the first `lines` lines of the `size`-byte `fd` take.
    ///
    /// ## Errors
    /// `.io` for read errors.
    public static func headerSize(fd: Int32, path: String, size: Int64, lines: Int, separator: UInt8) throws -> Int64 {
        let buffer = try Syscall.allocate(byteCount: window, alignment: 4096, path: path)
        defer { free(buffer) }
        return try headerEnd(fd, path: path, size: size, lines: lines, separator: separator, buffer: buffer)
    }

    /// Where the first `lines` lines of the `size`-byte `fd` end: all of it when it holds fewer.
    static func headerEnd(
        _ fd: Int32, path: String, size: Int64, lines: Int, separator: UInt8, buffer: UnsafeMutableRawPointer
    ) throws -> Int64 {
        var end: Int64 = 0
        var found = 0
        while found < lines, end < size {
            guard
                let newline = try nextNewline(
                    fd, path: path, from: end, before: size, separator: separator, buffer: buffer)
            else { return size }
            end = newline + 1
            found += 1
        }
        return end
    }

    /// The offset of the first `separator` at or after `start`, searching before `end`.
    static func nextNewline(
        _ fd: Int32, path: String, from start: Int64, before end: Int64, separator: UInt8 = 0x0A,
        buffer: UnsafeMutableRawPointer
    ) throws -> Int64? {
        var position = start
        while position < end {
            let count = Int(min(Int64(window), end - position))
            let got = try Syscall.pread(fd, into: buffer, count: count, offset: position, path: path)
            guard got > 0 else { return nil }
            if let hit = memchr(buffer, Int32(separator), got) {
                return position + Int64(buffer.distance(to: hit))
            }
            position += Int64(got)
        }
        return nil
    }

    /// The offset of the last `separator` in `range`, searching backwards a window at a time.
    static func lastNewline(
        _ fd: Int32, path: String, in range: Range<Int64>, separator: UInt8 = 0x0A, buffer: UnsafeMutableRawPointer
    ) throws -> Int64? {
        var end = range.upperBound
        while end > range.lowerBound {
            let start = max(range.lowerBound, end - Int64(window))
            let count = Int(end - start)
            let got = try Syscall.pread(fd, into: buffer, count: count, offset: start, path: path)
            if let hit = gcdcat_memrchr(buffer, Int32(separator), got) {
                return start + Int64(buffer.distance(to: hit))
            }
            end = start
        }
        return nil
    }
}
