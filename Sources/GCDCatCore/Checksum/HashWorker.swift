import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What one thread checking many files owns for its whole run: a read buffer and a digest
/// context, set up once rather than per file.
///
/// ## Implementation details
/// A file smaller than the buffer is read with one `pread` of its size plus one byte: a short
/// read says it shrank and a long one that it grew, so neither a second `pread` to find the
/// end nor a second `fstat` is needed. Each file
/// costs one `open` (`O_NOATIME` where allowed), `fstat`, `pread` and `close`; `fstatfs`
/// (``requireRealFile(_:path:)``) only for a device not seen before. Larger files are read in
/// buffer-sized `pread`s, and a large crc32/adler32 file is split across `jobs` threads by
/// ``ParallelChecksum``, as ``FileHash`` does.
final class HashWorker {
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int
    /// The digest context of the algorithm last used, kept for the next file.
    private var digester: DigesterBox?
    /// The device of the last file found on a real filesystem: a pseudo-filesystem (/proc) has
    /// a device of its own, so the next file on it needs no `fstatfs`.
    private var realDevice: UInt64?

    /// ## Errors
    /// `.io` naming `malloc` when the buffer cannot be had.
    init(capacity: Int = FileHash.bufferSize) throws(GCDCatError) {
        self.capacity = capacity
        buffer = try Syscall.allocate(byteCount: capacity, alignment: 4096, path: "read buffer")
    }

    deinit { free(buffer) }

    /// The hash of the regular file at `path`, as ``FileHash/of(_:algorithm:jobs:counter:)``
    /// computes it, with the same errors.
    func hash(_ path: String, algorithm: HashAlgorithm, jobs: Int, counter: TransferCounter?) throws -> String {
        let descriptor = try PartFile.openForReading(path, noAccessTime: true)
        return try hash(descriptor, path: path, algorithm: algorithm, jobs: jobs, counter: counter)
    }

    /// The hash of the file open at `descriptor` (opened for `path`), after the checks of
    /// ``PartFile/openValidated(_:noAccessTime:)``: a regular file, not a pseudo-file.
    func hash(
        _ descriptor: borrowing OwnedDescriptor, path: String, algorithm: HashAlgorithm, jobs: Int,
        counter: TransferCounter?
    ) throws -> String {
        let fd = descriptor.raw
        let info = try Syscall.fstat(fd, path: path)
        try requireRegularFile(info, path: path)
        if UInt64(info.st_dev) != realDevice {
            try requireRealFile(fd, path: path)
            realDevice = UInt64(info.st_dev)
        }
        let part = PartFile(path: path, info: info)
        if part.size < Int64(capacity) {
            let bytes = try readSmall(part, fd: fd)
            counter?.add(bytes: Int64(bytes.count))
            if let checksum = algorithm.checksum {
                var value = Checksum(checksum)
                value.update(bytes)
                return value.hex
            }
            return try digest(algorithm.digest!) { $0.update(bytes) }
        }
        if let checksum = algorithm.checksum {
            let value = try ParallelChecksum.compute(
                checksum, fd: fd, path: path, length: part.size, jobs: jobs, counter: counter)
            try part.requireUnchanged(fd: fd)
            return value.hex
        }
        let hex = try digest(algorithm.digest!) { digester in
            var position: Int64 = 0
            while position < part.size {
                let want = Int(min(Int64(capacity), part.size - position))
                let got = try Syscall.pread(fd, into: buffer, count: want, offset: position, path: path)
                guard got > 0 else { throw Self.ended(part, at: position) }
                digester.update(UnsafeRawBufferPointer(start: buffer, count: got))
                counter?.add(bytes: Int64(got))
                position += Int64(got)
            }
        }
        try part.requireUnchanged(fd: fd)
        return hex
    }

    /// The whole of a file smaller than the buffer, from one `pread` of one byte more than its
    /// size; `.inputChanged` when it is shorter or longer than its `fstat` said.
    private func readSmall(_ part: PartFile, fd: Int32) throws -> UnsafeRawBufferPointer {
        let size = Int(part.size)
        // Usually one call: a regular file returns all it has up to its end.
        var got = try Syscall.preadOnce(fd, into: buffer, count: size + 1, offset: 0, path: part.path)
        if got < size {
            got += try Syscall.pread(fd, into: buffer + got, count: size + 1 - got, offset: Int64(got), path: part.path)
        }
        if got < size { throw Self.ended(part, at: Int64(got)) }
        if got > size {  // grew: name its new size (or the byte past the old one, if it shrank back)
            try part.requireUnchanged(fd: fd)
            try part.requireUnchangedSize(Int64(got))
        }
        return UnsafeRawBufferPointer(start: buffer, count: size)
    }

    /// Runs `feed` on this thread's digester for `algorithm` (made on first use, or when the
    /// list changes algorithm) and returns the digest, leaving the digester ready again.
    private func digest(_ algorithm: DigestAlgorithm, _ feed: (inout Digester) throws -> Void) throws -> String {
        let box: DigesterBox
        if let kept = digester, kept.digester.algorithm == algorithm {
            box = kept
        } else {
            box = DigesterBox(try Digester(algorithm))
            digester = box
        }
        do {
            try feed(&box.digester)
        } catch {
            digester = nil  // a read failed mid-file: its bytes stay in the context
            throw error
        }
        return box.digester.finalizeAndRestart()
    }

    private static func ended(_ part: PartFile, at position: Int64) -> GCDCatError {
        GCDCatError(
            .inputChanged, path: part.path, message: "ended at byte \(position), before the expected \(part.size)")
    }
}

/// A ``Digester`` that a worker keeps from one file to the next.
private final class DigesterBox {
    var digester: Digester
    init(_ digester: consuming Digester) { self.digester = digester }
}
