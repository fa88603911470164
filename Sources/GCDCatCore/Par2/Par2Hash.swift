import CMD5

/// A 16-byte MD5 value as PAR2 stores it: packet hashes, the recovery set id, file ids and
/// file and slice hashes.
///
/// Ordered as par2cmdline orders file ids in the main packet (and so the input slices): as a
/// little-endian 128-bit number, byte 15 first.
public struct Par2Hash: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16)
        self.bytes = Array(bytes)
    }

    public static func < (a: Par2Hash, b: Par2Hash) -> Bool {
        for index in stride(from: 15, through: 0, by: -1) where a.bytes[index] != b.bytes[index] {
            return a.bytes[index] < b.bytes[index]
        }
        return false
    }

    public var description: String { bytes.map { hexByte($0) }.joined() }

    /// The MD5 of `bytes`.
    public static func md5(_ bytes: UnsafeRawBufferPointer) -> Par2Hash {
        let stream = MD5Stream()
        stream.update(bytes)
        return stream.finalize()
    }

    public static func md5(_ bytes: [UInt8]) -> Par2Hash {
        bytes.withUnsafeBytes { md5($0) }
    }
}

private func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

/// A running MD5, giving the 16 raw bytes PAR2 compares.
///
/// CMD5's, not OpenSSL's: its state is a fixed-size value, so a stream cannot fail to start
/// (an OpenSSL context is allocated, and can fail under a tight `ulimit -v`), and PAR2 starts
/// one per packet, file and block. It runs as fast as OpenSSL's (both ~5 cycles a byte: MD5's
/// steps depend on each other).
public final class MD5Stream {
    /// On the heap, so that ``update(_:with:)`` can hand several streams' states to C at once.
    private let state = UnsafeMutablePointer<gcdcat_md5_state>.allocate(capacity: 1)

    public init() { gcdcat_md5_init(state) }

    deinit { state.deallocate() }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        gcdcat_md5_update(state, base, bytes.count)
    }

    /// Updates `streams[i]` with `bytes[i]` for every i: the same as one ``update(_:)`` each, but
    /// up to eight streams' blocks are hashed together (a multi-buffer MD5 on AVX2, CMD5's
    /// `gcdcat_md5_update_lanes`), which one stream alone cannot be.
    public static func update(_ streams: [MD5Stream], with bytes: [UnsafeRawBufferPointer]) {
        precondition(streams.count == bytes.count)
        let given = bytes.indices.filter { bytes[$0].count > 0 }
        let states: [UnsafeMutablePointer<gcdcat_md5_state>?] = given.map { streams[$0].state }
        let data: [UnsafeRawPointer?] = given.map { bytes[$0].baseAddress }
        let lengths = given.map { bytes[$0].count }
        gcdcat_md5_update_lanes(states, data, lengths, given.count)
    }

    /// The kernel ``update(_:with:)`` runs ("avx2" or "scalar"), for reports.
    public static var kernelName: String { String(cString: gcdcat_md5_kernel_name()) }

    /// The digest of every byte given so far; the stream must not be used afterwards.
    public func finalize() -> Par2Hash {
        var digest = [UInt8](repeating: 0, count: 16)
        gcdcat_md5_final(state, &digest)
        return Par2Hash(digest)
    }
}
