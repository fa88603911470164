import CDeflate
import CIsal
import CZlib

/// The library that computes crc32 and adler32 over a buffer.
///
/// All three give zlib's values; they differ in speed. Measured inside gcdcat on this machine
/// (`scripts/bench-checksum.sh`, 1 GiB hot, one thread): see the README's "Checksum speed".
/// gcdcat uses ISA-L for crc32 and libdeflate for adler32 (ISA-L's adler32 is slower than
/// libdeflate's), and zlib for `crc32_combine`/`adler32_combine`, which the others lack.
///
/// `GCDCAT_CHECKSUM_BACKEND=zlib|isal|libdeflate` forces one library for both algorithms, so
/// the benchmark can compare them in one binary.
public enum ChecksumBackend: String, CaseIterable, Sendable {
    case zlib
    case isal
    case libdeflate

    /// The backend for `algorithm` in this process: the environment's choice, else the fastest.
    public static func selected(for algorithm: ChecksumAlgorithm) -> ChecksumBackend {
        if let forced = forced { return forced }
        return algorithm == .crc32 ? .isal : .libdeflate
    }

    private static let forced: ChecksumBackend? = {
        guard let value = getenv("GCDCAT_CHECKSUM_BACKEND") else { return nil }
        return ChecksumBackend(rawValue: String(cString: value))
    }()

    /// Continues `value`, a checksum of earlier bytes (0 for crc32, 1 for adler32, at the start),
    /// over `count` bytes at `bytes`.
    public func update(
        _ algorithm: ChecksumAlgorithm, _ value: UInt32, _ bytes: UnsafeRawPointer, _ count: Int
    ) -> UInt32 {
        let pointer = bytes.assumingMemoryBound(to: UInt8.self)
        switch (self, algorithm) {
        case (.zlib, .crc32): return UInt32(crc32_z(uLong(value), pointer, count))
        case (.zlib, .adler32): return UInt32(adler32_z(uLong(value), pointer, count))
        case (.isal, .crc32): return crc32_gzip_refl(value, pointer, UInt64(count))
        case (.isal, .adler32): return isal_adler32(value, pointer, UInt64(count))
        case (.libdeflate, .crc32): return libdeflate_crc32(value, bytes, count)
        case (.libdeflate, .adler32): return libdeflate_adler32(value, bytes, count)
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif
