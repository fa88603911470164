import CZlib

/// The checksums zlib provides.
public enum ChecksumAlgorithm: String, CaseIterable, Sendable, Codable {
    case crc32
    case adler32

    /// The value of no bytes: crc32 starts at 0, adler32 at 1.
    public var initialValue: UInt32 { self == .crc32 ? 0 : 1 }
}

/// A running checksum, and the arithmetic to join checksums of adjacent pieces.
///
/// The bytes go through the fastest ``ChecksumBackend``; joining uses zlib's
/// `crc32_combine`/`adler32_combine`.
public struct Checksum: Sendable, Equatable {
    public let algorithm: ChecksumAlgorithm
    public private(set) var value: UInt32
    public private(set) var length: Int64

    public init(_ algorithm: ChecksumAlgorithm) {
        self.algorithm = algorithm
        self.value = algorithm.initialValue
        self.length = 0
    }

    public init(_ algorithm: ChecksumAlgorithm, value: UInt32, length: Int64) {
        self.algorithm = algorithm
        self.value = value
        self.length = length
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = ChecksumBackend.selected(for: algorithm).update(algorithm, value, base, bytes.count)
        length += Int64(bytes.count)
    }

    public mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The checksum of this piece followed by `next`.
    public func combined(with next: Checksum) -> Checksum {
        precondition(algorithm == next.algorithm, "cannot combine \(algorithm) with \(next.algorithm)")
        let joined: UInt32
        switch algorithm {
        case .crc32:
            joined = UInt32(crc32_combine(uLong(value), uLong(next.value), Int(next.length)))
        case .adler32:
            joined = UInt32(adler32_combine(uLong(value), uLong(next.value), Int(next.length)))
        }
        return Checksum(algorithm, value: joined, length: length + next.length)
    }

    /// The crc32 of what follows `prefix` in the piece this checksum covers: crc32 is linear, so
    /// crc(P+B) = crc32_combine(crc(P), 0, |B|) xor crc(B), and B's needs no read.
    public func removingPrefix(_ prefix: Checksum) -> Checksum {
        precondition(algorithm == .crc32 && prefix.algorithm == .crc32, "only crc32 removes a prefix")
        precondition(prefix.length <= length, "a prefix longer than the piece")
        let rest = length - prefix.length
        let shifted = UInt32(crc32_combine(uLong(prefix.value), 0, Int(rest)))
        return Checksum(.crc32, value: value ^ shifted, length: rest)
    }

    /// Joins checksums of adjacent pieces, in order.
    public static func combine(_ algorithm: ChecksumAlgorithm, _ pieces: [Checksum]) -> Checksum {
        pieces.reduce(Checksum(algorithm)) { $0.combined(with: $1) }
    }

    /// Eight lowercase hex digits.
    public var hex: String { hex8(value) }
}

/// `value` as exactly eight lowercase hex digits.
public func hex8(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits  // hex, so not zeroPadded
}
