import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Reserves the output's blocks: all `bytes` of it, or, with `ranges`, only those ranges of an
/// output first sized to `bytes` (the rest stays a hole for clones to fill). Filesystems
/// without `fallocate` are simply written.
///
/// ## Errors
/// `.io` naming the output and `fallocate`; a full disk says how much was needed and how much
/// is free (``spaceError(_:syscall:output:needed:)``).
func preallocate(_ output: OutputSink, bytes: Int64, ranges: [Range<Int64>]? = nil) throws {
    guard let ranges else {
        try reserve(output, 0..<bytes, needed: bytes)
        return
    }
    try Syscall.ftruncate(output.fd, length: bytes, path: output.path)
    let needed = ranges.reduce(0) { $0 + Int64($1.count) }
    for range in ranges where !range.isEmpty {
        guard try reserve(output, range, needed: needed) else { return }
    }
}

/// `fallocate` over `range`; false when the filesystem has no `fallocate`.
@discardableResult
private func reserve(_ output: OutputSink, _ range: Range<Int64>, needed: Int64) throws -> Bool {
    let fd = try output.fd
    while Syscall.fallocate(fd, offset: range.lowerBound, length: Int64(range.count), path: output.path) != 0 {
        let code = gcdcat_errno()
        if code == EINTR { continue }
        if code == EOPNOTSUPP || code == ENOSYS || code == EINVAL { return false }
        if code == ENOSPC || code == EDQUOT {
            throw spaceError(code, syscall: "fallocate", output: output, needed: needed)
        }
        throw GCDCatError.syscall("fallocate", path: output.path, errno: code)
    }
    return true
}

/// The error for a full disk (or quota) while making `output`: how many bytes it needs to
/// write and how many its filesystem had free for it (`fstatvfs`'s available blocks plus what
/// the unfinished output holds already, which its discarding gives back).
func spaceError(_ code: Int32, syscall: String, output: OutputSink, needed: Int64) -> GCDCatError {
    var error = GCDCatError.syscall(syscall, path: output.path, errno: code)
    guard output.isRegularFile, let fd = try? output.fd else { return error }
    var info = statvfs()
    guard fstatvfs(fd, &info) == 0 else { return error }
    let held = (try? Syscall.fstat(fd, path: output.path)).map { Int64($0.st_blocks) * 512 } ?? 0
    let free = Int64(info.f_bavail) * Int64(info.f_frsize) + (output.allowsPositionalWrites ? held : 0)
    error.message +=
        ": \(ByteSize.humanReadable(needed)) (\(needed) bytes) needed, \(ByteSize.humanReadable(free)) "
        + "(\(free) bytes) available on its filesystem"
    return error
}

/// The ranges of a merge's output that `auto` will copy rather than clone: all of them unless
/// the output is on a filesystem that shares blocks (XFS, btrfs), where a part on the same
/// device, at a block-aligned offset and of whole blocks (or ending the output), is cloned and
/// needs no space of its own. Reserving its bytes would fail a merge larger than the free
/// space although its clones need none.
///
/// A clone that fails after all is copied into the unreserved hole: the space is then taken as
/// it is written, and a full disk is reported by the write.
func copiedRanges(_ request: MergeRequest, into output: OutputSink) -> [Range<Int64>]? {
    let sharingFilesystems: Set<Int> = [0x5846_5342 /* XFS */, 0x9123_683E /* btrfs */]
    guard output.allowsPositionalWrites, !request.computeCRC, let fd = try? output.fd,
        sharingFilesystems.contains(gcdcat_fd_filesystem_type(fd)),
        let info = try? Syscall.fstat(fd, path: output.path)
    else { return nil }
    let block = max(Int64(info.st_blksize), 512)
    let total = request.totalBytes
    var ranges: [Range<Int64>] = []
    for (source, offset) in zip(request.sources, request.outputOffsets) where source.length > 0 {
        let wholeBlocks = source.length % block == 0 || (source.reachesEnd && offset + source.length == total)
        let clonable =
            source.file.device == UInt64(info.st_dev) && source.offset % block == 0 && offset % block == 0
            && wholeBlocks
        guard !clonable else { continue }
        let range = offset..<(offset + source.length)
        if let last = ranges.last, last.upperBound == range.lowerBound {
            ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
        } else {
            ranges.append(range)
        }
    }
    return ranges
}
