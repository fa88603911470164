import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Cuts a regular file into `count` parts of about equal size without splitting lines (GNU
/// `split -n l/N`).
///
/// The file is divided into `count` byte ranges as `-n N` divides it (``SplitPlan/byCount(total:count:)``,
/// GNU's layout); each line goes whole to the part where its last byte before the boundary
/// lies, as GNU split does: part c ends after the first separator at or past its boundary's last
/// byte. A line that spans whole ranges leaves their parts empty, so there are always `count`
/// parts, some perhaps empty.
public enum LineChunkPlanner {
    /// Scans `fd` (`size` bytes) forwards and returns the `count` parts' ranges, in order.
    ///
    /// ## Errors
    /// `.io` for read errors.
    public static func plan(
        fd: Int32, path: String, size: Int64, count: Int, separator: UInt8 = 0x0A
    ) throws -> [Range<Int64>] {
        precondition(count > 0, "a split makes at least one part")
        let buffer = try Syscall.allocate(byteCount: LineBoundaryPlanner.window, alignment: 4096, path: path)
        defer { free(buffer) }
        var ranges: [Range<Int64>] = []
        ranges.reserveCapacity(count)
        var start: Int64 = 0
        for index in 1..<Int64(count) {
            let boundary = SplitPlan.chunkBoundary(index, total: size, count: count)
            var end = start
            if boundary > start {
                let found = try LineBoundaryPlanner.nextNewline(
                    fd, path: path, from: max(start, boundary - 1), before: size, separator: separator, buffer: buffer)
                end = found.map { $0 + 1 } ?? size
            }
            ranges.append(start..<end)
            start = end
        }
        ranges.append(start..<size)
        return ranges
    }
}
