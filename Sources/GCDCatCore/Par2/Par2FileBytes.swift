import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes of one file of a PAR2 set, in order: its rebuilt slices from memory, and each run
/// of its other slices read from disk with one `pread` into a reused buffer (a merge or repair
/// that read slice by slice made a syscall, and a copy, per block: thousands for small blocks).
struct Par2FileBytes: ~Copyable {
    /// What one read may take: large enough to amortise the syscall, small enough to stay bounded.
    static let runBytes = 16 << 20

    let sliceSize: Int
    private let buffer: UnsafeMutableRawBufferPointer

    /// A buffer of ``runBytes`` rounded down to whole slices (at least one).
    ///
    /// ## Errors
    /// `.io` (ENOMEM) naming `path` when the buffer cannot be had.
    init(sliceSize: Int, path: String) throws {
        self.sliceSize = sliceSize
        let bytes = max(1, Self.runBytes / max(sliceSize, 1)) * sliceSize
        guard let base = malloc(max(bytes, 1)) else {
            throw GCDCatError(.io, path: path, syscall: "malloc", errno: ENOMEM, message: describeErrno(ENOMEM))
        }
        buffer = UnsafeMutableRawBufferPointer(start: base, count: bytes)
    }

    deinit { free(buffer.baseAddress) }

    /// Calls `body` with consecutive stretches of `file`'s bytes and their offsets in the file,
    /// from `rebuilt` where it holds a slice, else from `source` (nil for a missing file, all of
    /// whose slices must be rebuilt).
    ///
    /// ## Errors
    /// `.io` naming `path` and the syscall; `body`'s errors.
    func forEachStretch(
        of file: Par2RecoverySet.File, source: Int32?, path: String, rebuilt: Par2Repairer.Rebuilt?,
        _ body: (Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let count = file.slices.count
        let isRebuilt = { (local: Int) in rebuilt?.bytes(ofSlice: file.firstSlice + local) != nil }
        var local = 0
        while local < count {
            let offset = Int64(local) * Int64(sliceSize)
            if let bytes = rebuilt?.bytes(ofSlice: file.firstSlice + local) {
                let want = Int(min(Int64(sliceSize), file.length - offset))
                try body(offset, UnsafeRawBufferPointer(rebasing: bytes[0..<want]))
                local += 1
                continue
            }
            guard let source else {
                throw GCDCatError(.missingPart, path: path, message: "block \(local + 1) was not rebuilt")
            }
            var end = local + 1
            while end < count, (end - local + 1) * sliceSize <= buffer.count, !isRebuilt(end) { end += 1 }
            let want = Int(min(Int64(end - local) * Int64(sliceSize), file.length - offset))
            let got = try Syscall.pread(source, into: buffer.baseAddress!, count: want, offset: offset, path: path)
            // Short: zeros, as PAR2 pads (a file one zero byte short can verify). The callers
            // check each file's MD5 before anything is published, so a file that shrank after
            // its check fails there.
            if got < want { _ = memset(buffer.baseAddress! + got, 0, want - got) }
            try body(offset, UnsafeRawBufferPointer(rebasing: buffer[0..<want]))
            local = end
        }
    }
}
