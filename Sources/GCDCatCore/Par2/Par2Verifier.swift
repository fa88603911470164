#if canImport(Glibc)
    import Glibc
#endif

/// One file of a recovery set as found on disk.
public struct Par2FileStatus: Sendable {
    public enum State: String, Sendable, Codable {
        case ok
        case damaged
        case missing
    }

    public var state: State
    /// The file's slices (0-based, within the file) whose CRC32 or MD5 differ, or that lie past
    /// its end: all of them for a missing file.
    public var badSlices: [Int]
    /// The size on disk; nil when missing.
    public var sizeOnDisk: Int64?
}

/// What verifying a recovery set found.
public struct Par2Verification: Sendable {
    public var set: Par2RecoverySet
    /// In the set's file order.
    public var files: [Par2FileStatus]

    /// Input slices to rebuild.
    public var badSliceCount: Int { files.reduce(0) { $0 + $1.badSlices.count } }
    public var isComplete: Bool { files.allSatisfy { $0.state == .ok } }
    public var isRepairable: Bool { badSliceCount <= set.recoverySlices.count }
}

/// Checks each file of a set against its size and whole MD5 and each slice's CRC32; a file
/// that fails is read again to check each slice's MD5, naming the bad slices.
///
/// A file with its size and whole MD5 is the set's bytes (the test the repair applies before
/// publishing), so the slice MD5s, a second MD5 pass over the set and so the cost of a verify
/// (MD5 runs at ~0.7 GB/s a core), are computed only for damaged files.
///
/// ## Implementation details
/// A slice is looked for only at its own offset: data moved within a file (bytes inserted or
/// deleted) makes every later slice bad, where par2cmdline's slide search would find them at
/// their new offsets. Files are checked in parallel, `jobs` at once, one slice buffer each.
public enum Par2Verifier {
    public static func verify(_ set: Par2RecoverySet, jobs: Int, counter: TransferCounter? = nil) throws
        -> Par2Verification
    {
        let statuses = try ParallelMap.run(
            count: set.files.count, jobs: jobs,
            makeState: { [UInt8](repeating: 0, count: set.sliceSize) }
        ) { buffer, index in
            try check(
                set.files[index], path: set.path(of: set.files[index]), sliceSize: set.sliceSize, buffer: &buffer,
                counter: counter)
        }
        return Par2Verification(set: set, files: statuses)
    }

    static func check(
        _ file: Par2RecoverySet.File, path: String, sliceSize: Int, buffer: inout [UInt8], counter: TransferCounter?
    ) throws -> Par2FileStatus {
        guard try Syscall.statIfExists(path, followLinks: false) != nil else {
            return Par2FileStatus(state: .missing, badSlices: Array(file.slices.indices), sizeOnDisk: nil)
        }
        let (fd, size) = try Syscall.openRegularFile(path)
        defer { Glibc.close(fd) }
        let whole = MD5Stream()
        var crcMismatch: [Bool] = []
        for (index, expected) in file.slices.enumerated() {
            let offset = Int64(index) * Int64(sliceSize)
            let want = Int(min(Int64(sliceSize), file.length - offset))
            let got = try readSlice(fd, path: path, offset: offset, count: want, into: &buffer)
            counter?.add(bytes: Int64(got))
            if got == want { buffer.withUnsafeBytes { whole.update(UnsafeRawBufferPointer(rebasing: $0[0..<want])) } }
            crcMismatch.append(!crcMatches(buffer, expected))
        }
        if size == file.length && !crcMismatch.contains(true) && whole.finalize() == file.md5 {
            return Par2FileStatus(state: .ok, badSlices: [], sizeOnDisk: size)
        }
        // Damaged: a slice is bad when its CRC32 differs, or (read again) its MD5 does.
        var bad: [Int] = []
        for (index, expected) in file.slices.enumerated() {
            if !crcMismatch[index] {
                let offset = Int64(index) * Int64(sliceSize)
                let want = Int(min(Int64(sliceSize), file.length - offset))
                _ = try readSlice(fd, path: path, offset: offset, count: want, into: &buffer)
                if Par2Hash.md5(buffer) == expected.md5 { continue }
            }
            bad.append(index)
        }
        return Par2FileStatus(state: .damaged, badSlices: bad, sizeOnDisk: size)
    }

    /// Reads up to `count` bytes at `offset` into `buffer`, zero-filling the rest of the slice
    /// (PAR2 pads the last slice); returns the bytes read.
    static func readSlice(_ fd: Int32, path: String, offset: Int64, count: Int, into buffer: inout [UInt8])
        throws -> Int
    {
        let got = try buffer.withUnsafeMutableBytes { (raw) throws -> Int in
            try Syscall.pread(fd, into: raw.baseAddress!, count: count, offset: offset, path: path)
        }
        if got < buffer.count {
            buffer.withUnsafeMutableBytes { raw in
                _ = memset(raw.baseAddress! + got, 0, raw.count - got)
            }
        }
        return got
    }

    /// Whether a (padded) slice has its listed CRC32 and MD5.
    static func matches(_ slice: [UInt8], _ expected: Par2RecoverySet.SliceChecksum) -> Bool {
        crcMatches(slice, expected) && Par2Hash.md5(slice) == expected.md5
    }

    static func crcMatches(_ slice: [UInt8], _ expected: Par2RecoverySet.SliceChecksum) -> Bool {
        var crc = Checksum(.crc32)
        slice.withUnsafeBytes { crc.update($0) }
        return crc.value == expected.crc32
    }
}
