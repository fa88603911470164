/// The names of a streamed list that may be listed twice, found in fixed memory: a Bloom filter
/// of 2²³ bits (1 MiB) in which each name's hash (``NameKey/first``) sets 6 bits. A name whose
/// bits were all set already may repeat an earlier one, and is kept as a candidate; a second
/// pass checks only the candidates exactly (``ChecksumLineParser/DuplicateCheck/among(_:)``).
///
/// ## Implementation details
/// With n names, a name listed once is a candidate with a chance of about (1 − e^(−6n/2²³))⁶:
/// 10⁻⁷ for 100,000 names, 2·10⁻² for a million (about the most a 64 MiB list holds). So the
/// memory is the filter's 1 MiB however long the list, where a dictionary of every name took
/// 24 bytes per name and twice that while it grew (100,000 names: 6 MiB, 9 MiB at its peak).
struct NameSieve {
    private static let bits = 1 << 23
    private static let probes = 6
    private var words = [UInt64](repeating: 0, count: bits / 64)
    /// Hashes whose bits were all set when they came: each may repeat an earlier name.
    private(set) var candidates = Set<UInt64>()

    /// Sets `hash`'s bits, and keeps it as a candidate when they were all set already.
    mutating func insert(_ hash: UInt64) {
        var seen = true
        // Double hashing from the two halves; the step is odd, so the probes never repeat a bit.
        var probe = hash & 0xFFFF_FFFF
        let step = (hash >> 32) | 1
        for _ in 0..<Self.probes {
            let bit = Int(truncatingIfNeeded: probe) & (Self.bits - 1)
            let mask: UInt64 = 1 << UInt64(bit & 63)
            if words[bit >> 6] & mask == 0 {
                seen = false
                words[bit >> 6] |= mask
            }
            probe &+= step
        }
        if seen { candidates.insert(hash) }
    }
}
