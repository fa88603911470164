@_exported import GCDCatSystem

/// The tests' name for SplitMix64: reproducible random data, so a failing test names a seed
/// that replays it.
public typealias SeededGenerator = SplitMix64

/// `count` bytes of ``SeededGenerator``'s stream from `seed`, little-endian words in order.
public func seededBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    guard count > 0 else { return [] }
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { generator.fill($0) }
    return bytes
}
