#if canImport(Glibc)
    import Glibc
#endif

/// A packet of a .par2 file whose own MD5 checked out.
public struct Par2ScannedPacket: Sendable {
    public var setID: Par2Hash
    public var type: Par2PacketType
    /// The body; empty for a recovery slice, whose data stays in its file (see `recovery`).
    public var body: [UInt8]
    public var recovery: Par2RecoverySliceLocation?
}

/// Where a recovery slice's data lies, to be read when a repair needs it.
public struct Par2RecoverySliceLocation: Sendable, Equatable {
    public var path: String
    /// The offset of the slice's data (after the packet header and the 4-byte exponent).
    public var dataOffset: Int64
    public var exponent: Int
    public var length: Int
}

/// A packet whose hash failed (or whose length was impossible), where it lies: what a note
/// names, so that the user knows which .par2 file is damaged.
public struct Par2DamagedPacket: Sendable, Equatable {
    public var path: String
    /// The offset of its `PAR2\0PKT` magic.
    public var offset: Int64
    /// The type its header names, nil when that is unreadable or unknown (the header itself
    /// may be the damaged part).
    public var type: Par2PacketType?
}

/// Reads the packets of a .par2 file, which is untrusted input.
///
/// Every packet's MD5 is checked; a packet that fails (or whose length is impossible) is
/// skipped and the scan resumes at the next `PAR2\0PKT` after its magic, as par2cmdline does:
/// the critical packets are repeated in every volume, so a damaged copy costs nothing. A length
/// is checked against the file's size before anything is read, and a packet other than a
/// recovery slice may not exceed ``maximumBody`` (a recovery slice's body is hashed as it
/// streams past, never held). Unknown packet types are skipped once their hash is checked.
public enum Par2PacketReader {
    /// The largest body of a packet that is held in memory: an IFSC packet for PAR2's
    /// 32 768 slices is 640 KiB, a main packet for 32 768 files 512 KiB.
    public static let maximumBody = 4 << 20
    static let window = 1 << 20

    /// The valid packets of `path` in file order, and the damaged packets skipped.
    ///
    /// ## Errors
    /// `.io` naming `path` and the syscall when it cannot be opened or read.
    public static func scan(path: String) throws -> (packets: [Par2ScannedPacket], damaged: [Par2DamagedPacket]) {
        let file = try Syscall.openRegularFile(path)
        let size = file.size
        var packets: [Par2ScannedPacket] = []
        var damaged: [Par2DamagedPacket] = []
        var position: Int64 = 0
        while let start = try findMagic(file.raw, path: path, from: position, size: size) {
            if let read = try readPacket(file.raw, path: path, at: start, size: size) {
                if let packet = read.packet { packets.append(packet) }
                position = start + read.length
            } else {
                damaged.append(
                    Par2DamagedPacket(path: path, offset: start, type: try headerType(file.raw, path: path, at: start)))
                position = start + Int64(Par2Packet.magic.count)
            }
        }
        return (packets, damaged)
    }

    /// The offset of the next magic at or after `from`, reading windows that overlap by 7 bytes.
    ///
    /// The next packet nearly always starts at `from` (where the last one ended), so that is
    /// looked at first with a read of the magic alone: a window read there took the next packet's
    /// whole body (a recovery slice) into a fresh 1 MiB buffer, once for every packet, and a scan
    /// of 100 MiB of volumes read 870 MiB.
    static func findMagic(_ fd: Int32, path: String, from: Int64, size: Int64) throws -> Int64? {
        let magic = Par2Packet.magic
        guard from + Int64(magic.count) <= size else { return nil }
        var head = [UInt8](repeating: 0, count: magic.count)
        let got = try head.withUnsafeMutableBytes { (raw) throws -> Int in
            try Syscall.pread(fd, into: raw.baseAddress!, count: magic.count, offset: from, path: path)
        }
        if got == magic.count, head == magic { return from }
        var buffer = [UInt8](repeating: 0, count: window)
        var offset = from
        while offset + Int64(magic.count) <= size {
            let count = try buffer.withUnsafeMutableBytes { (raw) throws -> Int in
                try Syscall.pread(fd, into: raw.baseAddress!, count: window, offset: offset, path: path)
            }
            guard count >= magic.count else { return nil }
            var index = 0
            while index + magic.count <= count {
                if buffer[index] == 0x50, buffer[index..<index + magic.count].elementsEqual(magic) {
                    return offset + Int64(index)
                }
                index += 1
            }
            offset += Int64(count - magic.count + 1)
        }
        return nil
    }

    /// The type named by the header at `start`, nil when it is cut short or names no known type.
    static func headerType(_ fd: Int32, path: String, at start: Int64) throws -> Par2PacketType? {
        var header = [UInt8](repeating: 0, count: Par2Packet.headerSize)
        let got = try header.withUnsafeMutableBytes { (raw) throws -> Int in
            try Syscall.pread(fd, into: raw.baseAddress!, count: Par2Packet.headerSize, offset: start, path: path)
        }
        return got == Par2Packet.headerSize ? Par2PacketType(signature: header[48..<64]) : nil
    }

    /// The packet at `start` (nil inside for a valid packet of an unknown type), or nil when its
    /// length is impossible or its hash fails.
    static func readPacket(_ fd: Int32, path: String, at start: Int64, size: Int64) throws
        -> (packet: Par2ScannedPacket?, length: Int64)?
    {
        var header = [UInt8](repeating: 0, count: Par2Packet.headerSize)
        let got = try header.withUnsafeMutableBytes { (raw) throws -> Int in
            try Syscall.pread(fd, into: raw.baseAddress!, count: Par2Packet.headerSize, offset: start, path: path)
        }
        guard got == Par2Packet.headerSize else { return nil }
        let length = readLittleEndian(UInt64.self, header[...], at: 8)
        guard length >= UInt64(Par2Packet.headerSize), length % 4 == 0, length <= UInt64(size - start) else {
            return nil
        }
        let bodyLength = Int(length) - Par2Packet.headerSize
        let type = Par2PacketType(signature: header[48..<64])
        let setID = Par2Hash(header[32..<48])
        let stream = MD5Stream()
        header[32..<64].withUnsafeBytes { stream.update($0) }
        if type == .recoverySlice {
            guard bodyLength >= 4 else { return nil }
            var first4 = [UInt8](repeating: 0, count: 4)
            try streamBody(fd, path: path, from: start + 64, count: bodyLength, into: stream, prefix: &first4)
            guard stream.finalize().bytes == Array(header[16..<32]) else { return nil }
            let location = Par2RecoverySliceLocation(
                path: path, dataOffset: start + 68, exponent: Int(readLittleEndian(UInt32.self, first4[...], at: 0)),
                length: bodyLength - 4)
            return (Par2ScannedPacket(setID: setID, type: .recoverySlice, body: [], recovery: location), Int64(length))
        }
        guard bodyLength <= maximumBody else { return nil }
        var body = [UInt8](repeating: 0, count: bodyLength)
        let read = try body.withUnsafeMutableBytes { (raw) throws -> Int in
            bodyLength == 0
                ? 0 : try Syscall.pread(fd, into: raw.baseAddress!, count: bodyLength, offset: start + 64, path: path)
        }
        guard read == bodyLength else { return nil }
        body.withUnsafeBytes { stream.update($0) }
        guard stream.finalize().bytes == Array(header[16..<32]) else { return nil }
        guard let type else { return (nil, Int64(length)) }
        return (Par2ScannedPacket(setID: setID, type: type, body: body, recovery: nil), Int64(length))
    }

    /// Feeds `count` bytes at `from` to `stream`, keeping the first four in `prefix`.
    private static func streamBody(
        _ fd: Int32, path: String, from: Int64, count: Int, into stream: MD5Stream, prefix: inout [UInt8]
    ) throws {
        var buffer = [UInt8](repeating: 0, count: min(window, count))
        var done = 0
        while done < count {
            let want = min(buffer.count, count - done)
            let got = try buffer.withUnsafeMutableBytes { (raw) throws -> Int in
                try Syscall.pread(fd, into: raw.baseAddress!, count: want, offset: from + Int64(done), path: path)
            }
            guard got == want else {
                throw GCDCatError(.inputChanged, path: path, message: "the file shrank while it was read")
            }
            if done == 0 { prefix = Array(buffer[0..<4]) }
            buffer.withUnsafeBytes { stream.update(UnsafeRawBufferPointer(rebasing: $0[0..<want])) }
            done += want
        }
    }
}
