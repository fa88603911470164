/// SplitMix64: a tiny, fast, seedable generator, so benchmark data is the same on every run
/// (and test data, which replays from its seed).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Fills `buffer` with the next bytes of the stream.
    public mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let words = buffer.count / 8
        let wordPointer = buffer.baseAddress!.bindMemory(to: UInt64.self, capacity: words)
        for index in 0..<words { wordPointer[index] = next().littleEndian }
        var tail = next()
        for index in words * 8..<buffer.count {
            buffer[index] = UInt8(truncatingIfNeeded: tail)
            tail >>= 8
        }
    }
}
