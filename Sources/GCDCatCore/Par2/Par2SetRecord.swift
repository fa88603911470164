/// What a gcdcat split's PAR2 set records besides PAR2's own packets, in an application packet
/// (type `gcdcat\0\0SetInfo`, which par2cmdline and turbo skip as they skip any packet type they
/// do not know):
///
/// - the set's **empty files**: PAR2 gives an empty file no block, and par2cmdline and turbo
///   mishandle one listed in the main packet, so a split's empty parts are left out of it; named
///   here, a lost one is reported and recreated, and one that now holds bytes is damaged;
/// - a **repeated header** (`split --header-lines`): every part after the first starts with the
///   whole file's first `size` bytes, which a merge drops, as the SFV's `; gcdcat-header:` says.
///
/// Body, little-endian: `u32 version (1)`, `u32 flags (bit 0: a header)`, `u64 header size`,
/// `u32 header crc32`, `u32 count of empty files`, then each name as `u32 length` and its bytes,
/// padded to 4. The packet is untrusted input like every other: its MD5 is checked by the reader,
/// every count and length against the bytes that hold it, and each name as a file's name is.
public struct Par2SetRecord: Sendable, Equatable {
    /// The header a split repeated atop every part after the first, as its SFV records it.
    public typealias Header = Manifest.Header

    /// The empty files' names, relative to the set's folder, as the file descriptions spell them.
    public var emptyFiles: [String]
    public var header: Header?

    public init(emptyFiles: [String] = [], header: Header? = nil) {
        self.emptyFiles = emptyFiles
        self.header = header
    }

    static let version: UInt32 = 1

    var isEmpty: Bool { emptyFiles.isEmpty && header == nil }

    /// The packet's body.
    var body: [UInt8] {
        var body = littleEndian(Self.version) + littleEndian(UInt32(header == nil ? 0 : 1))
        body += littleEndian(UInt64(header?.size ?? 0)) + littleEndian(header?.crc32 ?? 0)
        body += littleEndian(UInt32(emptyFiles.count))
        for name in emptyFiles {
            let bytes = PathName.bytes(of: name)
            body += littleEndian(UInt32(bytes.count)) + Par2Packet.padded(bytes)
        }
        return body
    }

    /// The record in `body`, its names as raw bytes (checked by the caller); nil when the body
    /// is of another version or does not hold what it counts.
    static func decode(_ body: [UInt8]) -> (emptyFiles: [[UInt8]], header: Header?)? {
        let bytes = body[...]
        guard bytes.count >= 24, readLittleEndian(UInt32.self, bytes, at: 0) == version else { return nil }
        let flags = readLittleEndian(UInt32.self, bytes, at: 4)
        let size = readLittleEndian(UInt64.self, bytes, at: 8)
        let crc = readLittleEndian(UInt32.self, bytes, at: 16)
        let count = Int(readLittleEndian(UInt32.self, bytes, at: 20))
        guard flags & ~1 == 0, count <= (bytes.count - 24) / 4 else { return nil }
        var header: Header?
        if flags & 1 != 0 {
            guard size > 0, size <= UInt64(Int64.max) else { return nil }
            header = Header(size: Int64(size), crc32: crc)
        }
        var names: [[UInt8]] = []
        var offset = 24
        for _ in 0..<count {
            guard offset + 4 <= bytes.count else { return nil }
            let length = Int(readLittleEndian(UInt32.self, bytes, at: offset))
            offset += 4
            guard length <= bytes.count - offset else { return nil }
            names.append(Array(bytes[offset..<offset + length]))
            offset += (length + 3) / 4 * 4
        }
        return (names, header)
    }
}
