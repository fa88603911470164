import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Any ``HashAlgorithm`` of a whole file or of a stream, as lowercase hex.
///
/// ## Implementation details
/// crc32 and adler32 go through ``ParallelChecksum``, which splits one large file across
/// threads; md5/sha cannot be split, so they read the file once, in order, with a `pread` loop
/// into one 1 MiB buffer.
public enum FileHash {
    static let bufferSize = 1 << 20

    /// The hash of the regular file at `path`; `jobs` threads for crc32/adler32.
    ///
    /// ## Errors
    /// `.missingPart` when it does not exist, `.invalidInput` when it is not a regular file,
    /// `.io` for read errors, `.inputChanged` when it changes while being read.
    public static func of(
        _ path: String, algorithm: HashAlgorithm, jobs: Int, counter: TransferCounter? = nil
    ) throws -> String {
        if let checksum = algorithm.checksum {
            return try FileChecksum.of(path, algorithm: checksum, jobs: jobs, counter: counter).hex
        }
        var digester = try Digester(algorithm.digest!)
        var noCRC: Checksum?
        // One open for the checks and the read: validate-then-open cost a second open, fstat,
        // two fcntl and close per file, most of verifying 100,000 small files.
        let opened = try PartFile.openValidated(path)
        let part = opened.part
        let fd = opened.descriptor.raw  // closed with `opened`, at the end of this scope
        try digest(fd: fd, path: path, length: part.size, into: &digester, crc32: &noCRC, counter: counter)
        try part.requireUnchanged(fd: fd)
        return digester.finalize()
    }

    /// The hash of `path`: a regular file as ``of(_:algorithm:jobs:counter:)`` reads it; a pipe
    /// (`<(command)`, or `/dev/stdin` fed by one) read once, in order, as `sha256sum` reads it.
    /// Character devices stay refused: a terminal or `/dev/zero` would never end.
    ///
    /// ## Errors
    /// Those of ``of(_:algorithm:jobs:counter:)``; `.io` naming the pipe for a failed read.
    public static func ofFileOrPipe(
        _ path: String, algorithm: HashAlgorithm, jobs: Int, counter: TransferCounter? = nil
    ) throws -> String {
        guard let info = try Syscall.statIfExists(path), info.st_mode & S_IFMT == S_IFIFO else {
            return try of(path, algorithm: algorithm, jobs: jobs, counter: counter)
        }
        let pipe = OwnedDescriptor(adopting: try Syscall.open(path, O_RDONLY))
        return try ofStream(pipe.raw, path: path, algorithm: algorithm)
    }

    /// The md5/sha digest of `parts` joined in order, as the file they rejoin to would have it,
    /// and the crc32 of the same bytes from the same read (what a merge's output must then have).
    public static func ofJoined(_ parts: [PartFile], algorithm: DigestAlgorithm) throws -> (
        digest: String, crc32: Checksum
    ) {
        var digester = try Digester(algorithm)
        var crc32: Checksum? = Checksum(.crc32)
        for part in parts { try digest(part, into: &digester, crc32: &crc32, counter: nil) }
        return (digester.finalize(), crc32!)
    }

    /// The md5/sha digest of `part` and the crc32 of the same bytes, from one read.
    public static func digestAndCRC(of part: PartFile, algorithm: DigestAlgorithm) throws -> (
        digest: String, crc32: Checksum
    ) {
        var digester = try Digester(algorithm)
        var crc32: Checksum? = Checksum(.crc32)
        try digest(part, into: &digester, crc32: &crc32, counter: nil)
        return (digester.finalize(), crc32!)
    }

    /// Feeds every byte of `part` to `digester` (and to `crc32` when there is one), reading it
    /// once with `pread`.
    static func digest(
        _ part: PartFile, into digester: inout Digester, crc32: inout Checksum?, counter: TransferCounter?
    ) throws {
        let input = try part.open()
        let fd = input.raw
        try digest(fd: fd, path: part.path, length: part.size, into: &digester, crc32: &crc32, counter: counter)
        try part.requireUnchanged(fd: fd)
    }

    /// The md5/sha digest of the whole open regular file `fd`, named `path` in errors.
    public static func of(fd: Int32, path: String, algorithm: DigestAlgorithm) throws -> String {
        var digester = try Digester(algorithm)
        var noCRC: Checksum?
        let size = Int64(try Syscall.fstat(fd, path: path).st_size)
        try digest(fd: fd, path: path, length: size, into: &digester, crc32: &noCRC, counter: nil)
        return digester.finalize()
    }

    /// The md5/sha digest of `ranges` joined in order: the bytes a split part was cut from,
    /// read from its input (a part uploaded to S3 cannot be read back locally).
    ///
    /// ## Errors
    /// `.io` for read errors; `.inputChanged` when an input is shorter than its range or changed.
    public static func of(ranges: [SourceRange], algorithm: DigestAlgorithm) throws -> String {
        var digester = try Digester(algorithm)
        var noCRC: Checksum?
        for range in ranges {
            let input = try range.file.open()
            let fd = input.raw
            try digest(
                fd: fd, path: range.file.path, from: range.offset, length: range.length, into: &digester,
                crc32: &noCRC, counter: nil)
            try range.file.requireUnchanged(fd: fd)
        }
        return digester.finalize()
    }

    /// Feeds bytes `start..<start + length` of `fd` to `digester` (and to `crc32` when there is
    /// one) with `pread`.
    private static func digest(
        fd: Int32, path: String, from start: Int64 = 0, length: Int64, into digester: inout Digester,
        crc32: inout Checksum?, counter: TransferCounter?
    ) throws {
        // No more than the file needs (in whole pages): 1 MiB for each small file is an mmap and
        // an munmap each.
        let capacity = Int(min(Int64(bufferSize), (max(length, 1) + 4095) / 4096 * 4096))
        let buffer = try Syscall.allocate(byteCount: capacity, alignment: 4096, path: path)
        defer { free(buffer) }
        var position: Int64 = 0
        while position < length {
            let want = Int(min(Int64(capacity), length - position))
            let got = try Syscall.pread(fd, into: buffer, count: want, offset: start + position, path: path)
            guard got > 0 else {
                throw GCDCatError(
                    .inputChanged, path: path,
                    message: "ended at byte \(start + position), before the expected \(start + length)")
            }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: got)
            digester.update(bytes)
            crc32?.update(bytes)
            counter?.add(bytes: Int64(got))
            position += Int64(got)
        }
    }

    /// The hash of everything readable from `fd` (a pipe or terminal), read in order.
    public static func ofStream(_ fd: Int32, path: String, algorithm: HashAlgorithm) throws -> String {
        if let checksum = algorithm.checksum {
            return try FileChecksum.ofStream(fd, path: path, algorithm: checksum).hex
        }
        let buffer = try Syscall.allocate(byteCount: bufferSize, alignment: 4096, path: path)
        defer { free(buffer) }
        var digester = try Digester(algorithm.digest!)
        while true {
            let count = try Syscall.read(fd, into: buffer, count: bufferSize, path: path)
            if count == 0 { return digester.finalize() }
            digester.update(UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }
}
