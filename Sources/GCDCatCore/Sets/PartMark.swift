import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The evidence a split leaves on each part it names: which split made it, its place in the
/// set and the set's size, kept in the extended attribute `user.gcdcat.part`.
///
/// A name alone cannot always tell a part from a plain file: `p.ab`, left alone by a split
/// killed while naming its set, reads like `configure.ac`. The mark tells: a merge of a file
/// marked as a later part of a set whose other parts are not beside it is refused, and so is a
/// set that ends before the count its marks give, or joins the parts of two splits.
///
/// A mark only counts while the file holds what the split wrote: it records the part's size
/// and modification time, and a file written since (`split` by another tool over the same
/// names, an append, `touch`) carries a stale mark, which is ignored. Copies that keep extended
/// attributes and times (`cp -a`, `rsync -aX`, `mv`) keep a valid mark; others carry none.
/// A file system without user extended attributes gets no mark, and nothing else changes.
///
/// ## Implementation details
/// The value is ASCII: `1 SETID INDEX COUNT SIZE SECONDS.NANOSECONDS`, with SETID 16 hex digits
/// drawn once a split, INDEX 0-based.
public struct PartMark: Sendable {
    public static let attribute = "user.gcdcat.part"

    /// Drawn at random once a split: parts with different ids come from different splits.
    public var setID: UInt64
    /// The part's place in its set, from 0.
    public var index: Int
    /// How many parts the set has.
    public var count: Int
    var size: Int64
    var modified: timespec

    /// Marks the finished files at `paths` (a set's parts, in order) as one set. Best effort:
    /// a file system that keeps no user attributes (or a file that cannot be stat'ed) leaves a
    /// part unmarked, which a merge treats as it treats any file.
    static func stamp(_ paths: [String]) {
        let setID = UInt64.random(in: 1...UInt64.max)
        for (index, path) in paths.enumerated() {
            guard let info = try? Syscall.statIfExists(path) else { continue }
            let mark = PartMark(
                setID: setID, index: index, count: paths.count, size: Int64(info.st_size), modified: info.st_mtim)
            let value = Array(mark.encoded.utf8)
            let done = PathName.withPathCString(path) { name in
                value.withUnsafeBytes { gcdcat_setxattr(name, attribute, $0.baseAddress, $0.count) }
            }
            // ENOTSUP (no user attributes here) holds for every part of the set alike.
            if done != 0 && gcdcat_errno() == ENOTSUP { return }
        }
    }

    /// The mark on the file at `path`, and whether it still describes the file (`current`): a
    /// mark that does not was left by a split on a file rewritten since (GNU split over the same
    /// names keeps the attribute), which says the file is no longer what that split wrote.
    public static func readAny(_ path: String) -> (mark: PartMark, current: Bool)? {
        var buffer = [UInt8](repeating: 0, count: 96)
        let length = PathName.withPathCString(path) { name in
            buffer.withUnsafeMutableBytes { gcdcat_getxattr(name, attribute, $0.baseAddress, $0.count) }
        }
        guard length > 0, let mark = PartMark(decoding: String(decoding: buffer.prefix(length), as: UTF8.self)),
            let info = try? Syscall.statIfExists(path)
        else { return nil }
        let current =
            Int64(info.st_size) == mark.size && info.st_mtim.tv_sec == mark.modified.tv_sec
            && info.st_mtim.tv_nsec == mark.modified.tv_nsec
        return (mark, current)
    }

    var encoded: String {
        let id = String(setID, radix: 16)
        return "1 \(String(repeating: "0", count: 16 - id.count) + id) \(index) \(count) \(size) "
            + "\(modified.tv_sec).\(modified.tv_nsec)"
    }

    init(setID: UInt64, index: Int, count: Int, size: Int64, modified: timespec) {
        self.setID = setID
        self.index = index
        self.count = count
        self.size = size
        self.modified = modified
    }

    /// Reads ``encoded``; nil for anything else (another version, a damaged value).
    init?(decoding text: String) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "1", fields[1].count == 16,
            let setID = UInt64(fields[1], radix: 16),
            let index = Int(fields[2]), let count = Int(fields[3]), index >= 0, index < count,
            let size = Int64(fields[4]), size >= 0
        else { return nil }
        let time = fields[5].split(separator: ".", omittingEmptySubsequences: false)
        guard time.count == 2, let seconds = Int(time[0]), let nanoseconds = Int(time[1]),
            (0..<1_000_000_000).contains(nanoseconds)
        else { return nil }
        self.init(
            setID: setID, index: index, count: count, size: size,
            modified: timespec(tv_sec: seconds, tv_nsec: nanoseconds))
    }
}
