/// The DispatchIO high- and low-water marks, and the size of every buffer gcdcat reads into.
///
/// On Linux libdispatch never moves more than 1 MiB per read or write syscall, whatever
/// `highWater` says; larger values still size gcdcat's own buffers and kernel copies.
public struct ChunkLimits: Sendable, Equatable, Codable {
    public static let defaultHighWater: Int = 1 << 20

    public var highWater: Int
    public var lowWater: Int

    /// Validated limits. `lowWater` defaults to `highWater`.
    ///
    /// ## Errors
    /// A message naming the flag when either is zero or negative, or `lowWater > highWater`.
    public init(highWater: Int = ChunkLimits.defaultHighWater, lowWater: Int? = nil) throws(ChunkLimitsError) {
        guard highWater > 0 else { throw .notPositive(flag: "--high-water") }
        let low = lowWater ?? highWater
        guard low > 0 else { throw .notPositive(flag: "--low-water") }
        guard low <= highWater else { throw .lowAboveHigh(low: low, high: highWater) }
        guard highWater <= 1 << 30 else { throw .tooLarge(flag: "--high-water") }
        self.highWater = highWater
        self.lowWater = low
    }

    public static let `default` = ChunkLimits(uncheckedHighWater: defaultHighWater, lowWater: defaultHighWater)

    init(uncheckedHighWater: Int, lowWater: Int) {
        self.highWater = uncheckedHighWater
        self.lowWater = lowWater
    }
}

public enum ChunkLimitsError: Error, Equatable, Sendable, CustomStringConvertible {
    case notPositive(flag: String)
    case lowAboveHigh(low: Int, high: Int)
    case tooLarge(flag: String)

    public var description: String {
        switch self {
        case .notPositive(let flag): return "\(flag) must be greater than zero"
        case .lowAboveHigh(let low, let high):
            return "--low-water (\(ByteSize(Int64(low)))) must not exceed --high-water (\(ByteSize(Int64(high))))"
        case .tooLarge(let flag): return "\(flag) must be at most 1G"
        }
    }
}
