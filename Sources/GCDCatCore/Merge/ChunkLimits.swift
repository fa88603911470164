import Dispatch

/// The DispatchIO high- and low-water marks, and the size of every buffer gcdcat reads into.
///
/// On Linux libdispatch never moves more than 1 MiB per read or write syscall, whatever
/// `highWater` says; larger values still size gcdcat's own buffers and kernel copies.
///
/// `lowWater` is nil unless given: libdispatch then keeps its own default. Setting it equal to
/// a 1 MiB high-water mark doubled the stream strategy's time here (0.51–0.64 s against
/// 0.24–0.31 s for 1 GiB), so gcdcat does not set it on its own.
public struct ChunkLimits: Sendable, Equatable, Codable {
    public static let defaultHighWater: Int = 1 << 20

    public var highWater: Int
    public var lowWater: Int?

    /// Validated limits.
    ///
    /// ## Errors
    /// A message naming the flag when either is zero or negative, or `lowWater > highWater`.
    public init(highWater: Int = ChunkLimits.defaultHighWater, lowWater: Int? = nil) throws(ChunkLimitsError) {
        guard highWater > 0 else { throw .notPositive(flag: "--high-water") }
        if let lowWater {
            guard lowWater > 0 else { throw .notPositive(flag: "--low-water") }
            guard lowWater <= highWater else { throw .lowAboveHigh(low: lowWater, high: highWater) }
        }
        guard highWater <= 1 << 30 else { throw .tooLarge(flag: "--high-water") }
        self.highWater = highWater
        self.lowWater = lowWater
    }

    public static let `default` = ChunkLimits(uncheckedHighWater: defaultHighWater)

    /// The high-water marks a user may choose. Below 4 KiB every syscall moves a few bytes
    /// (`--high-water 1` made a 10 MB stream merge run for minutes); above 1 GiB each buffer
    /// alone would outgrow most memory limits.
    public static let allowedHighWater = 4096...(1 << 30)

    /// Limits as a user asks for them: like ``init(highWater:lowWater:)``, and the high-water
    /// mark must lie within ``allowedHighWater``. (Tests use smaller marks to reach chunk edges.)
    ///
    /// ## Errors
    /// A message naming the flag and the bound.
    public static func userChosen(highWater: Int, lowWater: Int?) throws(ChunkLimitsError) -> ChunkLimits {
        guard highWater >= allowedHighWater.lowerBound else { throw .tooSmall(flag: "--high-water") }
        return try ChunkLimits(highWater: highWater, lowWater: lowWater)
    }

    init(uncheckedHighWater: Int) {
        self.highWater = uncheckedHighWater
        self.lowWater = nil
    }

    /// Applies the marks to a channel; an unset low-water mark keeps libdispatch's default.
    func apply(to channel: DispatchIO) {
        channel.setLimit(highWater: highWater)
        if let lowWater { channel.setLimit(lowWater: lowWater) }
    }
}

public enum ChunkLimitsError: Error, Equatable, Sendable, CustomStringConvertible {
    case notPositive(flag: String)
    case lowAboveHigh(low: Int, high: Int)
    case tooLarge(flag: String)
    case tooSmall(flag: String)

    public var description: String {
        switch self {
        case .notPositive(let flag): return "\(flag) must be greater than zero"
        case .lowAboveHigh(let low, let high):
            return "--low-water (\(ByteSize(Int64(low)))) must not exceed --high-water (\(ByteSize(Int64(high))))"
        case .tooLarge(let flag): return "\(flag) must be at most 1G"
        case .tooSmall(let flag): return "\(flag) must be at least 4K"
        }
    }
}
