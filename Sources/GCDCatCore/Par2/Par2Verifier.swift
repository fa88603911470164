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

/// Checks each file of a set slice by slice against the CRC32 and MD5 of its IFSC packet, and
/// a file of the right size against its whole MD5 too.
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
        var bad: [Int] = []
        for (index, expected) in file.slices.enumerated() {
            let offset = Int64(index) * Int64(sliceSize)
            let want = Int(min(Int64(sliceSize), file.length - offset))
            let got = try readSlice(fd, path: path, offset: offset, count: want, into: &buffer)
            counter?.add(bytes: Int64(got))
            if got == want { buffer.withUnsafeBytes { whole.update(UnsafeRawBufferPointer(rebasing: $0[0..<want])) } }
            if !matches(buffer, expected) { bad.append(index) }
        }
        let wholeMatches = whole.finalize() == file.md5
        let ok = bad.isEmpty && size == file.length && wholeMatches
        return Par2FileStatus(state: ok ? .ok : .damaged, badSlices: bad, sizeOnDisk: size)
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
        var crc = Checksum(.crc32)
        slice.withUnsafeBytes { crc.update($0) }
        guard crc.value == expected.crc32 else { return false }
        return Par2Hash.md5(slice) == expected.md5
    }
}
