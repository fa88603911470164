import CGF16
import CGFComplete
// Module-wide: every test file of this target gets SeededGenerator.
@_exported import GCDCatTestSupport
import Testing

/// GF-Complete's w=16 field (PAR2's polynomial), the oracle. One per test: its scratch state
/// is not documented as safe to share across threads.
final class Oracle {
    let field: UnsafeMutablePointer<gf_t>

    init() throws {
        field = try #require(gcdcat_oracle_create(), "gf_init_easy(w=16) failed")
    }

    deinit { gcdcat_oracle_destroy(field) }

    func mul(_ a: UInt16, _ b: UInt16) -> UInt16 { gcdcat_oracle_mul(field, a, b) }

    /// dst ^= c·src over the even part of len bytes.
    func muladd(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>, _ len: Int, _ c: UInt16) throws {
        guard gcdcat_oracle_muladd(field, dst, src, len & ~1, c) == 0 else { throw OracleOutOfMemory() }
    }
}

struct OracleOutOfMemory: Error {}

/// A 64-byte aligned buffer of random bytes; kernels work at `offset` so that unaligned
/// starts are covered, and the bytes around the region act as guards.
final class Region {
    let bytes: UnsafeMutableRawBufferPointer

    init(count: Int, using generator: inout SeededGenerator) {
        bytes = .allocate(byteCount: max(count, 1), alignment: 64)
        for i in 0..<bytes.count { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
    }

    init(copying other: Region) {
        bytes = .allocate(byteCount: other.bytes.count, alignment: 64)
        bytes.copyMemory(from: UnsafeRawBufferPointer(other.bytes))
    }

    deinit { bytes.deallocate() }

    func at(_ offset: Int) -> UnsafeMutablePointer<UInt8> {
        bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset
    }

    func equals(_ other: Region) -> Bool { bytes.elementsEqual(other.bytes) }

    /// The first differing byte, for failure messages.
    func firstDifference(from other: Region) -> Int? {
        zip(bytes, other.bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    }
}

/// The kernels by name, for arguments and messages.
let allKernels: [gf16_kernel] = [
    GF16_KERNEL_SCALAR, GF16_KERNEL_AVX2, GF16_KERNEL_AVX512, GF16_KERNEL_GFNI, GF16_KERNEL_GFNI512,
]

func kernelName(_ kernel: gf16_kernel) -> String { String(cString: gf16_kernel_name_of(kernel)) }

func cpuRuns(_ kernel: gf16_kernel) -> Bool { gf16_kernel_supported(kernel) != 0 }

extension gf16_kernel: @retroactive CustomTestStringConvertible {
    public var testDescription: String { kernelName(self) }
}
