#if canImport(Glibc)
    import Glibc
#endif

/// Finding where the lines of a stream's buffer end, for the splits that cut a stream by lines
/// as it arrives (`--lines` into files or into `--filter` commands).
enum SeparatorScan {
    /// The shortest prefix of `bytes` holding `count` separators (all of `bytes` when it holds
    /// fewer): its length and how many separators it holds.
    static func prefix(
        of bytes: UnsafeRawBufferPointer, endingAfter count: Int, separator: UInt8
    ) -> (length: Int, found: Int) {
        guard let base = bytes.baseAddress, count > 0 else { return (0, 0) }
        var found = 0
        var index = 0
        while index < bytes.count, let hit = memchr(base + index, Int32(separator), bytes.count - index) {
            index = base.distance(to: hit) + 1
            found += 1
            if found == count { return (index, found) }
        }
        return (bytes.count, found)
    }
}
