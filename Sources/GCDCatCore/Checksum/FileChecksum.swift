import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Checksums of whole files and of standard input.
public enum FileChecksum {
    /// The checksum of the regular file at `path`, in parallel over `jobs` threads.
    ///
    /// ## Errors
    /// `.missingPart` when it does not exist, `.invalidInput` when it is not a regular file,
    /// `.io` for read errors.
    public static func of(
        _ path: String, algorithm: ChecksumAlgorithm, jobs: Int, counter: TransferCounter? = nil
    ) throws -> Checksum {
        let part = try PartFile.validate(path)
        let input = try part.open()
        let fd = input.raw
        let checksum = try ParallelChecksum.compute(
            algorithm, fd: fd, path: path, length: part.size, jobs: jobs, counter: counter)
        try part.requireUnchanged(fd: fd)
        return checksum
    }

    /// The checksum of the whole open file `fd`, named `path` in errors.
    public static func of(fd: Int32, path: String, algorithm: ChecksumAlgorithm, jobs: Int) throws -> Checksum {
        let size = Int64(try Syscall.fstat(fd, path: path).st_size)
        return try ParallelChecksum.compute(algorithm, fd: fd, path: path, length: size, jobs: jobs)
    }

    /// The checksums of the parts, in order, each computed in parallel.
    public static func of(_ parts: [PartFile], jobs: Int, counter: TransferCounter? = nil) throws -> [Checksum] {
        try parts.map { part in
            let input = try part.open()
            return try ParallelChecksum.compute(
                .crc32, fd: input.raw, path: part.path, length: part.size, jobs: jobs, counter: counter)
        }
    }

    /// The checksum of everything readable from `fd` (a pipe or terminal), read in order.
    public static func ofStream(_ fd: Int32, path: String, algorithm: ChecksumAlgorithm) throws -> Checksum {
        let size = 1 << 20
        let buffer = try Syscall.allocate(byteCount: size, alignment: 4096, path: path)
        defer { free(buffer) }
        var checksum = Checksum(algorithm)
        while true {
            let count = try Syscall.read(fd, into: buffer, count: size, path: path)
            if count == 0 { return checksum }
            checksum.update(UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }
}
