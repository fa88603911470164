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
/// The crc32s tell a part whose time alone changed (`touch`, a plain `cp` back from a backup)
/// from one rewritten, and a part put in from elsewhere from the one the split wrote there
/// (``MarkedContentCheck``).
///
/// ## Implementation details
/// The value is ASCII: `2 SETID INDEX COUNT SIZE SECONDS.NANOSECONDS CRC32 SETCRC32 EDGECRC32
/// JOINING`, with SETID 16 hex digits drawn once a split, INDEX 0-based, NANOSECONDS 9 digits,
/// CRC32 the part's, SETCRC32 the crc32 of every part's crc32 in order (4 bytes each,
/// big-endian), EDGECRC32 that of its first and last 4 KiB (``edgeCRC(_:)``): 8 hex digits
/// each; JOINING one letter (``Joining``). A mark of another version reads as none.
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
    /// The part's crc32 as the split wrote it.
    var crc32: UInt32
    /// ``setCRC(of:)`` of every part of the set.
    var setCRC: UInt32
    /// ``edgeCRC(_:)`` of the part as the split wrote it.
    var edgeCRC: UInt32
    /// How the set's parts join back to what was split.
    public var joining: Joining

    /// How a set's parts join back to what was split.
    public enum Joining: Character, Sendable {
        /// Joined in order, they are the input.
        case concatenated = "c"
        /// Each repeats the input's header lines (`--header-lines`): only a manifest, which
        /// records the header, tells a merge to drop it.
        case repeatedHeader = "h"
        /// Lines dealt out in turn (`-n r/N`): joined, they are not the input.
        case roundRobin = "r"
    }

    /// Marks the finished files at `paths` (a set's parts, in order, whose crc32s are `crcs`)
    /// as one set. Best effort: a file system that keeps no user attributes (or a file that
    /// cannot be stat'ed) leaves a part unmarked, which a merge treats as it treats any file.
    /// Returns the parts left unmarked on a file system that keeps attributes (ENOSPC, EIO,
    /// EDQUOT), with the errno of their `setxattr`: a merge reads those to check them.
    @discardableResult
    static func stamp(_ paths: [String], crcs: [UInt32], joining: Joining) -> [(index: Int, errno: Int32)] {
        guard crcs.count == paths.count else { return [] }
        var failed: [(index: Int, errno: Int32)] = []
        let setID = UInt64.random(in: 1...UInt64.max)
        let setCRC = setCRC(of: crcs)
        for (index, path) in paths.enumerated() {
            guard let info = try? Syscall.statIfExists(path), let edgeCRC = edgeCRC(path) else { continue }
            let mark = PartMark(
                setID: setID, index: index, count: paths.count, size: Int64(info.st_size), modified: info.st_mtim,
                crc32: crcs[index], setCRC: setCRC, edgeCRC: edgeCRC, joining: joining)
            let value = Array(mark.encoded.utf8)
            let done = PathName.withPathCString(path) { name in
                value.withUnsafeBytes { gcdcat_setxattr(name, attribute, $0.baseAddress, $0.count) }
            }
            guard done != 0 else { continue }
            let error = gcdcat_errno()
            // ENOTSUP (no user attributes here) holds for every part of the set alike.
            if error == ENOTSUP { return [] }
            failed.append((index, error))
        }
        return failed
    }

    /// How a mark stands to the file that carries it now.
    public enum Standing: Sendable, Equatable {
        /// The file has the mark's size, time and first and last bytes: as the split wrote it.
        case current
        /// The mark's size, but its time moved (`touch`, a copy to a file system of whole
        /// seconds, `cp` back from a backup) or its edges differ (`cp -p` of another part written
        /// in the same clock tick): only a read of its bytes (``confirmed(_:jobs:)``) tells.
        case moved
        /// Another size: the file was rewritten since (GNU split over the same names keeps the
        /// attribute), so it is no longer what that split wrote.
        case stale
    }

    /// The mark on the file at `path`, and how it stands to the file. Reads only the mark, the
    /// file's status and its first and last 4 KiB: a part's bytes are read later, once the
    /// merge knows it will run, and by all its jobs (``MarkedContentCheck``).
    public static func readAny(_ path: String) -> (mark: PartMark, standing: Standing)? {
        var buffer = [UInt8](repeating: 0, count: 192)
        let length = PathName.withPathCString(path) { name in
            buffer.withUnsafeMutableBytes { gcdcat_getxattr(name, attribute, $0.baseAddress, $0.count) }
        }
        guard length > 0, let mark = PartMark(decoding: String(decoding: buffer.prefix(length), as: UTF8.self)),
            let info = try? Syscall.statIfExists(path)
        else { return nil }
        guard Int64(info.st_size) == mark.size else { return (mark, .stale) }
        let sameTime = info.st_mtim.tv_sec == mark.modified.tv_sec && info.st_mtim.tv_nsec == mark.modified.tv_nsec
        return (mark, sameTime && edgeCRC(path) == mark.edgeCRC ? .current : .moved)
    }

    /// The crc32 of the whole file at `path`, when its mark has moved; nil when it cannot be read.
    static func crc32(of path: String, jobs: Int) -> UInt32? {
        try? FileChecksum.of(path, algorithm: .crc32, jobs: jobs).value
    }

    /// The crc32 of the first and the last 4 KiB of the file at `path` (of all of a smaller
    /// one, twice); nil when it cannot be read.
    static func edgeCRC(_ path: String) -> UInt32? {
        guard let file = try? Syscall.openRegularFile(path) else { return nil }
        let size = file.size
        let span = Int(min(size, 4096))
        var bytes = [UInt8](repeating: 0, count: 2 * span)
        let read = bytes.withUnsafeMutableBytes { buffer -> Int? in
            guard let base = buffer.baseAddress,
                let head = try? Syscall.pread(file.raw, into: base, count: span, offset: 0, path: path),
                let tail = try? Syscall.pread(
                    file.raw, into: base + span, count: span, offset: size - Int64(span), path: path)
            else { return nil }
            return head + tail
        }
        guard read == 2 * span else { return nil }
        var checksum = Checksum(.crc32)
        checksum.update(bytes)
        return checksum.value
    }

    /// Whether this mark and `other` are of one set: one split's, or two runs' of the same split
    /// over the same input (the same count and crc32s), whose parts are the same bytes.
    func isOfSet(_ other: PartMark) -> Bool {
        setID == other.setID || (setCRC == other.setCRC && count == other.count && joining == other.joining)
    }

    /// The crc32 of `crcs` (a set's parts' crc32s, in order), 4 big-endian bytes each: what
    /// every mark of a set records, so that the parts a merge finds can be checked against the
    /// set the split wrote from any one mark.
    static func setCRC(of crcs: [UInt32]) -> UInt32 {
        var checksum = Checksum(.crc32)
        checksum.update(crcs.flatMap { crc in (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) } })
        return checksum.value
    }

    var encoded: String {
        let id = String(setID, radix: 16)
        let nanoseconds = String(modified.tv_nsec)
        return "2 \(String(repeating: "0", count: 16 - id.count) + id) \(index) \(count) \(size) "
            + "\(modified.tv_sec).\(String(repeating: "0", count: 9 - nanoseconds.count) + nanoseconds) "
            + "\(hex8(crc32)) \(hex8(setCRC)) \(hex8(edgeCRC)) \(joining.rawValue)"
    }

    init(
        setID: UInt64, index: Int, count: Int, size: Int64, modified: timespec, crc32: UInt32, setCRC: UInt32,
        edgeCRC: UInt32, joining: Joining
    ) {
        self.setID = setID
        self.index = index
        self.count = count
        self.size = size
        self.modified = modified
        self.crc32 = crc32
        self.setCRC = setCRC
        self.edgeCRC = edgeCRC
        self.joining = joining
    }

    /// Reads ``encoded``; nil for anything else (another version, a damaged value).
    init?(decoding text: String) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 10, fields[0] == "2", fields[1].count == 16,
            let setID = UInt64(fields[1], radix: 16),
            let index = Int(fields[2]), let count = Int(fields[3]), index >= 0, index < count,
            let size = Int64(fields[4]), size >= 0
        else { return nil }
        let time = fields[5].split(separator: ".", omittingEmptySubsequences: false)
        guard time.count == 2, let seconds = Int(time[0]), let nanoseconds = Int(time[1]),
            time[1].count == 9, (0..<1_000_000_000).contains(nanoseconds),
            fields[6...8].allSatisfy({ $0.count == 8 }), let crc32 = UInt32(fields[6], radix: 16),
            let setCRC = UInt32(fields[7], radix: 16), let edgeCRC = UInt32(fields[8], radix: 16),
            fields[9].count == 1, let joining = fields[9].first.flatMap(Joining.init(rawValue:))
        else { return nil }
        self.init(
            setID: setID, index: index, count: count, size: size,
            modified: timespec(tv_sec: seconds, tv_nsec: nanoseconds), crc32: crc32, setCRC: setCRC,
            edgeCRC: edgeCRC, joining: joining)
    }
}
