/// The packets of a PAR2 2.0 file: a 64-byte header (magic `PAR2\0PKT`, length, the MD5 of
/// everything from the recovery set id on, the recovery set id, the type) and a body whose
/// length is a multiple of 4.
public enum Par2PacketType: Sendable, Equatable, CaseIterable {
    case main
    case fileDescription
    case sliceChecksums
    case recoverySlice
    case creator
    /// gcdcat's own packet (``Par2SetRecord``): other tools skip it as a type they do not know.
    case gcdcatRecord

    /// The 16-byte type field.
    var signature: [UInt8] {
        let name: String
        switch self {
        case .gcdcatRecord: return Array("gcdcat\0\0SetInfo\0".utf8)
        case .main: name = "Main"
        case .fileDescription: name = "FileDesc"
        case .sliceChecksums: name = "IFSC"
        case .recoverySlice: name = "RecvSlic"
        case .creator: name = "Creator"
        }
        let bytes = Array("PAR 2.0\0".utf8) + Array(name.utf8)
        return bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
    }

    /// The type named by a 16-byte field; nil for a type gcdcat does not know (skipped).
    init?(signature: ArraySlice<UInt8>) {
        guard let type = Self.allCases.first(where: { $0.signature.elementsEqual(signature) }) else { return nil }
        self = type
    }
}

/// Building packets.
enum Par2Packet {
    static let magic: [UInt8] = Array("PAR2\0PKT".utf8)
    static let headerSize = 64

    /// A whole packet: header and body (the body's length must be a multiple of 4).
    static func encode(setID: Par2Hash, type: Par2PacketType, body: [UInt8]) -> [UInt8] {
        let stream = MD5Stream()
        let hashed = setID.bytes + type.signature
        hashed.withUnsafeBytes { stream.update($0) }
        body.withUnsafeBytes { stream.update($0) }
        return header(setID: setID, type: type, bodyLength: body.count, hash: stream.finalize()) + body
    }

    /// The 64-byte header of a packet whose hash was computed by the caller (a recovery slice's
    /// body is streamed, never held twice).
    static func header(setID: Par2Hash, type: Par2PacketType, bodyLength: Int, hash: Par2Hash) -> [UInt8] {
        precondition(bodyLength % 4 == 0)
        return magic + littleEndian(UInt64(headerSize + bodyLength)) + hash.bytes + setID.bytes + type.signature
    }

    /// Pads `bytes` with zeros to a multiple of 4, as names and the creator's text are stored.
    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }
}

func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

/// The little-endian integer at `offset` of `bytes` (the caller checked the length).
func readLittleEndian<T: FixedWidthInteger>(_ type: T.Type, _ bytes: ArraySlice<UInt8>, at offset: Int) -> T {
    var value: T = 0
    let start = bytes.startIndex + offset
    for index in 0..<MemoryLayout<T>.size { value |= T(bytes[start + index]) << (8 * index) }
    return value
}
