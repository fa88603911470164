import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The benchmark's input: `parts` files cut from one seeded random stream, written once.
public struct BenchData: Sendable {
    public let directory: String
    public let partPaths: [String]
    public let totalBytes: Int64
    /// The crc32 of all parts joined: what every correct merge output must have.
    public let crc32: UInt32
    /// `data.sfv` beside the parts, listing each part's crc32: what a verified merge and
    /// `verify` check.
    public let manifestPath: String

    /// Part sizes: equal, the remainder spread over the first parts.
    public static func partSizes(total: Int64, parts: Int) -> [Int64] {
        let base = total / Int64(parts)
        let extra = total % Int64(parts)
        return (0..<parts).map { base + (Int64($0) < extra ? 1 : 0) }
    }

    /// Writes the parts into `directory` as `data.001`, … (reusing them when already there with
    /// the right sizes, since the stream is deterministic).
    public static func prepare(
        in directory: String, total: Int64, parts: Int, seed: UInt64 = 0x6763_6463_6174
    ) throws -> BenchData {
        var generator = SplitMix64(seed: seed)
        let bufferSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 4096)
        defer { buffer.deallocate() }
        var checksum = Checksum(.crc32)
        var paths: [String] = []
        var manifest = ""
        for (index, size) in partSizes(total: total, parts: parts).enumerated() {
            let path = "\(directory)/data.\(zeroPadded(index + 1, width: 3))"
            paths.append(path)
            let existing = try Syscall.statIfExists(path)
            let reuse = existing.map { Int64($0.st_size) == size } ?? false
            let partChecksum: Checksum
            if reuse {
                partChecksum = try generate(size, writingTo: nil, path: path, generator: &generator, buffer: buffer)
            } else {
                let file = try OwnedDescriptor(opening: path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
                partChecksum = try generate(
                    size, writingTo: file.raw, path: path, generator: &generator, buffer: buffer)
                try file.close(path: path)
            }
            checksum = checksum.combined(with: partChecksum)
            manifest += "data.\(zeroPadded(index + 1, width: 3)) \(partChecksum.hex.uppercased())\n"
        }
        let manifestPath = "\(directory)/data.sfv"
        unlink(manifestPath)
        let manifestFile = try OwnedDescriptor(opening: manifestPath, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        try Array(manifest.utf8).withUnsafeBytes {
            try Syscall.writeAll(manifestFile.raw, from: $0.baseAddress!, count: $0.count, path: manifestPath)
        }
        try manifestFile.close(path: manifestPath)
        return BenchData(
            directory: directory, partPaths: paths, totalBytes: total, crc32: checksum.value,
            manifestPath: manifestPath)
    }

    /// The crc32 of the next `size` bytes of `generator`'s stream, written to `fd` unless nil
    /// (a part already there is only checksummed, to keep the stream in step).
    private static func generate(
        _ size: Int64, writingTo fd: Int32?, path: String, generator: inout SplitMix64,
        buffer: UnsafeMutableRawBufferPointer
    ) throws(GCDCatError) -> Checksum {
        var partChecksum = Checksum(.crc32)
        var left = size
        while left > 0 {
            let count = Int(min(left, Int64(buffer.count)))
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            generator.fill(slice)
            partChecksum.update(UnsafeRawBufferPointer(slice))
            if let fd { try Syscall.writeAll(fd, from: slice.baseAddress!, count: count, path: path) }
            left -= Int64(count)
        }
        return partChecksum
    }
}
