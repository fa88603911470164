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
    /// Another file that holds this one's bytes whole (a renamed or swapped file:
    /// ``Par2Verification/findMovedFiles(extras:)``); `badSlices` is then empty.
    public var foundIn: String? = nil
}

/// What verifying a recovery set found.
public struct Par2Verification: Sendable {
    public var set: Par2RecoverySet
    /// In the set's file order.
    public var files: [Par2FileStatus]
    /// What the search for files under other names has to say (``findMovedFiles(extras:)``):
    /// a file given to search that is not there, one that has a file's size and first 16 KiB but
    /// not its bytes.
    public var searchNotes: [String] = []

    /// Input slices to rebuild (none for a file found whole elsewhere).
    public var badSliceCount: Int { files.reduce(0) { $0 + $1.badSlices.count } }
    public var isComplete: Bool { files.allSatisfy { $0.state == .ok } }
    public var isRepairable: Bool { badSliceCount <= set.recoverySlices.count }
}

/// Checks each file of a set against its size and whole MD5 and each slice's CRC32; a file
/// that fails is read again to check each slice's MD5, naming the bad slices.
///
/// A file with its size and whole MD5 is the set's bytes (the test the repair applies before
/// publishing), so the slice MD5s, a second MD5 pass over the set, are computed only for
/// damaged files.
///
/// ## Implementation details
/// MD5 is the cost of a verify, and one stream of it runs at ~0.7 GB/s a core whatever the
/// code (each step needs the last). So files are hashed in groups of up to eight, one lane each
/// of the multi-buffer MD5 (``MD5Stream/update(_:with:)``): each round reads the next stretch
/// (``stretchBytes``) of every file of the group, checks its slices' CRC32s, and hashes the
/// stretches together. The groups run in parallel, `jobs` at once; memory is eight stretches a
/// worker, whatever the slice size.
///
/// With `copy`, every stretch hashed is also handed to it, so that a merge writes exactly the
/// bytes the check accepted: a part changed after its check (even through a shared mapping,
/// which leaves its mtime and ctime alone) cannot reach the output unhashed.
///
/// A slice is looked for only at its own offset: data moved within a file (bytes inserted or
/// deleted) makes every later slice bad, where par2cmdline's slide search would find them at
/// their new offsets.
public enum Par2Verifier {
    /// What each file of a group reads at a time.
    static let stretchBytes = 256 << 10
    /// Files hashed together: the multi-buffer MD5's lanes.
    static let lanes = 8

    /// Takes each stretch the check read: the set's file index, the stretch's offset in that
    /// file, and its bytes (zeros past the end of a short file). Called from several workers at
    /// once, never twice for the same bytes.
    public typealias StretchCopy = @Sendable (Int, Int64, UnsafeRawBufferPointer) throws -> Void

    public static func verify(
        _ set: Par2RecoverySet, jobs: Int, counter: TransferCounter? = nil, copy: StretchCopy? = nil
    ) throws -> Par2Verification {
        let groups = laneGroups(files: set.files.count, jobs: jobs)
        let statuses = try ParallelMap.run(
            count: groups.count, jobs: jobs,
            makeState: { UnsafeMutableRawBufferPointer.allocate(byteCount: lanes * stretchBytes, alignment: 64) },
            finish: { $0.deallocate() }
        ) { buffer, group in
            try checkGroup(groups[group], of: set, buffer: buffer, counter: counter, copy: copy)
        }
        return Par2Verification(set: set, files: statuses.flatMap { $0 })
    }

    /// Consecutive runs of the files, at most ``lanes`` each, and at least one per worker (so
    /// four files on two cores make two groups of two, not one of four).
    static func laneGroups(files: Int, jobs: Int) -> [Range<Int>] {
        guard files > 0 else { return [] }
        let wanted = max((files + lanes - 1) / lanes, min(max(jobs, 1), files))
        return (0..<wanted).map { files * $0 / wanted..<files * ($0 + 1) / wanted }
    }

    /// One file of a group being read.
    private final class Lane {
        let index: Int
        let file: Par2RecoverySet.File
        let path: String
        /// The file's descriptor, closed when the lane goes.
        let descriptor: OwnedDescriptor
        let size: Int64
        let md5 = MD5Stream()
        var crc = Checksum(.crc32)
        var crcMismatch: [Bool] = []
        /// Bytes of the file's length read (or zero-filled past its end on disk).
        var position: Int64 = 0
        /// Whether the file ended before its length: its MD5 cannot match.
        var short = false

        init(index: Int, file: Par2RecoverySet.File, path: String, opened: consuming OwnedDescriptor, size: Int64) {
            self.index = index
            self.file = file
            self.path = path
            self.descriptor = opened
            self.size = size
        }

        var fd: Int32 { descriptor.raw }

        /// Past the end of the file on disk every byte reads as zero, so every slice left is the
        /// all-zero slice (`zeroCRC`): judged without reading (a hostile `.par2` declaring a
        /// 32 TiB file kept verify reading past the end of a 10-byte one for hours). False
        /// until the file has ended and a slice boundary is reached.
        func skipZeroSlices(sliceSize: Int64, zeroCRC: () -> UInt32) -> Bool {
            guard short, position % sliceSize == 0, position < file.length else { return false }
            let crc = zeroCRC()
            while position < file.length {
                crcMismatch.append(crc != file.slices[crcMismatch.count].crc32)
                position = min(position + sliceSize, file.length)
            }
            return true
        }
    }

    /// The crc32 of `sliceSize` zero bytes: a slice past the end of a file on disk.
    static func zeroSliceCRC(_ sliceSize: Int) -> UInt32 {
        var crc = Checksum(.crc32)
        var left = sliceSize
        while left > 0 {
            let take = min(left, Par2Padding.zeros.count)
            Par2Padding.zeros.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[0..<take])) }
            left -= take
        }
        return crc.value
    }

    /// The statuses of the files `group`, read together through `buffer` (``lanes`` stretches),
    /// each stretch handed to `copy` too.
    static func checkGroup(
        _ group: Range<Int>, of set: Par2RecoverySet, buffer: UnsafeMutableRawBufferPointer, counter: TransferCounter?,
        copy: StretchCopy? = nil
    ) throws -> [Par2FileStatus] {
        var statuses = [Par2FileStatus?](repeating: nil, count: group.count)
        var lanes: [Lane] = []
        for index in group {
            let file = set.files[index]
            let path = set.path(of: file)
            guard try exists(path) else {
                statuses[index - group.lowerBound] = Par2FileStatus(
                    state: .missing, badSlices: Array(file.slices.indices), sizeOnDisk: nil)
                continue
            }
            let opened = try Syscall.openRegularFile(path)
            let size = opened.size
            lanes.append(Lane(index: index, file: file, path: path, opened: opened.takeDescriptor(), size: size))
        }
        let sliceSize = Int64(set.sliceSize)
        var zeroCRC: UInt32?
        while true {
            let active = lanes.filter { $0.position < $0.file.length }
            if active.isEmpty { break }
            var stretches: [UnsafeRawBufferPointer] = []
            for (slot, lane) in active.enumerated() {
                // A merge copies every stretch (zeros past the end too); verify and repair skip them.
                if copy == nil,
                    lane.skipZeroSlices(
                        sliceSize: sliceSize,
                        zeroCRC: {
                            if zeroCRC == nil { zeroCRC = zeroSliceCRC(set.sliceSize) }
                            return zeroCRC!
                        })
                {
                    continue
                }
                let room = UnsafeMutableRawBufferPointer(
                    rebasing: buffer[(slot * stretchBytes)..<((slot + 1) * stretchBytes)])
                let offset = lane.position
                let stretch = try read(lane, into: room, sliceSize: sliceSize, counter: counter)
                try copy?(lane.index, offset, stretch)
                if !lane.short { stretches.append(stretch) }
            }
            MD5Stream.update(active.filter { !$0.short }.map(\.md5), with: stretches)
        }
        for lane in lanes {
            statuses[lane.index - group.lowerBound] = try status(of: lane, sliceSize: set.sliceSize)
        }
        return statuses.map { $0! }
    }

    /// Whether something is at `path`: a file where the set names a folder (`sub` of `sub/x`)
    /// leaves the file missing, as par2 calls it (repair then names the file in the way).
    ///
    /// ## Errors
    /// `.io` naming the path and `lstat` for any other failure.
    static func exists(_ path: String) throws(GCDCatError) -> Bool {
        do {
            guard let info = try Syscall.statIfExists(path, followLinks: false) else { return false }
            // A dangling symlink at the file's name holds no file: missing, as par2 says.
            guard info.st_mode & S_IFMT == S_IFLNK else { return true }
            return try Syscall.statIfExists(path) != nil
        } catch {
            if error.errno == ENOTDIR { return false }
            throw error
        }
    }

    /// Reads `lane`'s next stretch into `room` (zeros past the end of the file on disk), checks
    /// the CRC32 of every slice it completes, and returns the stretch.
    private static func read(
        _ lane: Lane, into room: UnsafeMutableRawBufferPointer, sliceSize: Int64, counter: TransferCounter?
    ) throws -> UnsafeRawBufferPointer {
        let want = Int(min(Int64(room.count), lane.file.length - lane.position))
        let got = try Syscall.pread(
            lane.fd, into: room.baseAddress!, count: want, offset: lane.position, path: lane.path)
        counter?.add(bytes: Int64(got))
        if got < want {
            lane.short = true
            _ = memset(room.baseAddress! + got, 0, want - got)
        }
        // CRC32 slice by slice; the last slice is padded with zeros to the slice size, as PAR2 hashes it.
        var offset = 0
        while offset < want {
            let sliceEnd = (lane.position + Int64(offset)) / sliceSize * sliceSize + sliceSize
            let take = Int(min(Int64(want - offset), sliceEnd - lane.position - Int64(offset)))
            lane.crc.update(UnsafeRawBufferPointer(rebasing: room[offset..<(offset + take)]))
            offset += take
            let reached = lane.position + Int64(offset)
            if reached == sliceEnd || reached == lane.file.length {
                var padding = Int(sliceEnd - reached)
                while padding > 0 {
                    let zeros = min(padding, Par2Padding.zeros.count)
                    Par2Padding.zeros.withUnsafeBytes {
                        lane.crc.update(UnsafeRawBufferPointer(rebasing: $0[0..<zeros]))
                    }
                    padding -= zeros
                }
                let slice = lane.crcMismatch.count
                lane.crcMismatch.append(lane.crc.value != lane.file.slices[slice].crc32)
                lane.crc = Checksum(.crc32)
            }
        }
        lane.position += Int64(want)
        return UnsafeRawBufferPointer(rebasing: room[0..<want])
    }

    /// OK when the size, every CRC32 and the whole MD5 match; else damaged, naming each slice
    /// whose CRC32 differs or (read again) whose MD5 does.
    private static func status(of lane: Lane, sliceSize: Int) throws -> Par2FileStatus {
        let file = lane.file
        if lane.size == file.length && !lane.short && !lane.crcMismatch.contains(true)
            && lane.md5.finalize() == file.md5
        {
            return Par2FileStatus(state: .ok, badSlices: [], sizeOnDisk: lane.size)
        }
        var buffer: [UInt8] = []
        var bad: [Int] = []
        for (index, expected) in file.slices.enumerated() {
            if !lane.crcMismatch[index] {
                if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: sliceSize) }
                let offset = Int64(index) * Int64(sliceSize)
                let want = Int(min(Int64(sliceSize), file.length - offset))
                _ = try readSlice(lane.fd, path: lane.path, offset: offset, count: want, into: &buffer)
                if Par2Hash.md5(buffer) == expected.md5 { continue }
            }
            bad.append(index)
        }
        return Par2FileStatus(state: .damaged, badSlices: bad, sizeOnDisk: lane.size)
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
    static func matches(_ slice: UnsafeRawBufferPointer, _ expected: Par2RecoverySet.SliceChecksum) -> Bool {
        crcMatches(slice, expected) && Par2Hash.md5(slice) == expected.md5
    }

    static func crcMatches(_ slice: [UInt8], _ expected: Par2RecoverySet.SliceChecksum) -> Bool {
        slice.withUnsafeBytes { crcMatches($0, expected) }
    }

    static func crcMatches(_ slice: UnsafeRawBufferPointer, _ expected: Par2RecoverySet.SliceChecksum) -> Bool {
        var crc = Checksum(.crc32)
        crc.update(slice)
        return crc.value == expected.crc32
    }
}

/// Zeros to pad a last slice with, as PAR2 hashes it.
enum Par2Padding {
    static let zeros = [UInt8](repeating: 0, count: 64 << 10)
}
