#if canImport(Glibc)
    import Glibc
#endif

/// Writes `NAME.par2` and its `NAME.volNN+MM.par2` volumes for files that already exist.
public enum Par2Creator {
    public struct Request: Sendable {
        /// The files on disk, each with its name in the set (relative to the index's folder).
        public var inputs: [(path: String, name: String)]
        public var indexPath: String
        public var sliceSize: Int
        public var recoverySlices: Int
        public var layout: Par2VolumeLayout
        public var overwrite: Bool
        public var fsync: Bool
        public var jobs: Int
        /// Empty files of the set, by their names in it: PAR2 gives them no block, so gcdcat's
        /// record (``Par2SetRecord``) lists them, and a lost one is reported and recreated.
        public var emptyFiles: [String]

        public init(
            inputs: [(path: String, name: String)], indexPath: String, sliceSize: Int, recoverySlices: Int,
            layout: Par2VolumeLayout, overwrite: Bool, fsync: Bool, jobs: Int, emptyFiles: [String] = []
        ) {
            self.emptyFiles = emptyFiles
            self.inputs = inputs
            self.indexPath = indexPath
            self.sliceSize = sliceSize
            self.recoverySlices = recoverySlices
            self.layout = layout
            self.overwrite = overwrite
            self.fsync = fsync
            self.jobs = jobs
        }
    }

    public struct Result: Sendable, Codable, Equatable {
        public var index: String
        public var volumes: [String]
        public var sourceBlocks: Int
        public var recoveryBlocks: Int
        public var blockSize: Int
        public var bytesRead: Int64
    }

    public static let creator = "Created by gcdcat version 0.1.0."

    /// The size of `path`, a regular file.
    public static func fileSize(_ path: String) throws -> Int64 {
        try Syscall.openRegularFile(path).size  // opened only to check it; closed here
    }

    /// par2's default: the smallest multiple of 4 that gives at most 2000 blocks in all (at
    /// least 4 bytes).
    public static func defaultBlockSize(fileSizes: [Int64]) -> Int {
        var size = Int64(4)
        let total = fileSizes.reduce(0, +)
        size = max(size, (total / 2000 + 3) / 4 * 4)
        func blocks(_ size: Int64) -> Int64 { fileSizes.reduce(0) { $0 + ($1 + size - 1) / size } }
        while blocks(size) > 2000 && size < Int64(Par2RecoverySet.maximumSliceSize) {
            size += max(4, size / 64 / 4 * 4)
        }
        return Int(min(size, Int64(Par2RecoverySet.maximumSliceSize)))
    }

    /// The number of recovery blocks for `percent` of `sourceBlocks`, rounded as par2's `-r`.
    public static func recoveryCount(percent: Int, sourceBlocks: Int) -> Int {
        (sourceBlocks * percent + 50) / 100
    }

    /// Reads every input once and writes the set through one ``OutputSet``: every output is
    /// written unnamed and named only when all are complete (the index last), so a failure or a
    /// signal leaves none of them.
    ///
    /// ## Errors
    /// `.io` naming the file and syscall; `.inputChanged` when an input changed size while it
    /// was read; `.outputExists` when an output exists and `overwrite` is false.
    public static func create(_ request: Request) throws -> Result {
        let base = String(request.indexPath.dropLast(5))
        let volumes = request.layout.names(
            base: splitPath(base).name, recoverySlices: request.recoverySlices)
        // Spelt as the index is (`f.vol0+1.par2` beside `f.par2`, not `./f.vol0+1.par2`).
        let folder = Par2PartList.folderPrefix(of: request.indexPath)
        if !request.overwrite {
            for path in [request.indexPath] + volumes.map({ folder + $0.name }) {
                if try Syscall.statIfExists(path, followLinks: false) != nil {
                    throw GCDCatError(.outputExists, path: path, message: "exists; --force replaces it")
                }
            }
        }
        let outputs = [request.indexPath] + volumes.map { folder + $0.name }
        // From here an interruption says that these outputs were not created, as a merge's and
        // a split's do (the set's own outputs take over their names once they are begun).
        let pending = outputs.map { CleanupRegistry.shared.beginOutput($0) }
        defer { pending.forEach(CleanupRegistry.shared.endOutput) }
        for input in request.inputs {
            if let refusal = Par2Backslash.refusal(
                path: input.path, name: input.name, fix: "nothing was written. Rename it, then protect it")
            {
                throw GCDCatError(.invalidInput, message: refusal)
            }
        }
        for name in request.emptyFiles {
            if let refusal = Par2Backslash.refusal(
                path: name, name: name, fix: "nothing was written. Rename it, then protect it")
            {
                throw GCDCatError(.invalidInput, message: refusal)
            }
        }
        var descriptions: [Par2Encoder.Description] = []
        var states: [stat] = []
        for input in request.inputs {
            let (description, state) = try describe(input)
            descriptions.append(description)
            states.append(state)
        }
        let encoder = try Par2Encoder(
            descriptions: descriptions, sliceSize: request.sliceSize, recoverySlices: request.recoverySlices,
            jobs: request.jobs, overlapped: true, path: request.indexPath)
        var buffer = [UInt8](repeating: 0, count: request.sliceSize)
        var bytesRead: Int64 = 0
        for first in stride(from: 0, to: request.inputs.count, by: Par2Encoder.hashLanes) {
            let group = first..<min(first + Par2Encoder.hashLanes, request.inputs.count)
            bytesRead += try feed(group.map { (request.inputs[$0].path, states[$0], $0) }, encoder, &buffer)
        }
        let packets = encoder.finish(creator: creator, record: Par2SetRecord(emptyFiles: request.emptyFiles))
        // An older set's index and volumes (`vol00+01` beside a new `vol000+01`, or at the names
        // the new set writes) would mend the files back into their old contents: removed, as
        // `split --force` removes them, inside the publishing window before any new one is named.
        let stale = request.overwrite ? try Par2RecoverySet.staleFiles(index: request.indexPath, keeping: []) : []
        try OutputSet.transaction(inputs: [], overwrite: request.overwrite, fsync: request.fsync) { set in
            try addOutputs(
                packets, volumes: volumes.map { (folder + $0.name, $0.firstExponent, $0.count) },
                indexPath: request.indexPath, to: set, target: { .path($0) })
            try set.publish {
                for path in stale { try OutputTarget.path(path).removeOlderOutput() }
            }
        }
        return Result(
            index: request.indexPath, volumes: volumes.map { folder + $0.name },
            sourceBlocks: encoder.constants.count, recoveryBlocks: request.recoverySlices,
            blockSize: request.sliceSize, bytesRead: bytesRead)
    }

    /// Adds the volumes (`volumes`: each one's path, first recovery slice and count) and the
    /// index at `indexPath` to `set`, which names them in that order (``OutputSet/Role``): a
    /// protect's whole set, or a split's recovery volumes beside its parts.
    static func addOutputs(
        _ packets: Par2Encoder.Packets, volumes: [(path: String, firstExponent: Int, count: Int)], indexPath: String,
        to set: OutputSet, target: (String) throws -> OutputTarget
    ) throws {
        for (index, volume) in volumes.enumerated() {
            let size = volumeSize(packets, first: volume.firstExponent, count: volume.count)
            try set.produce(.recoveryVolume(index), try target(volume.path), bytes: size) { sink in
                let fd = try sink.fd
                try emitVolume(packets, first: volume.firstExponent, count: volume.count) { bytes in
                    try Syscall.writeAll(fd, from: bytes.baseAddress!, count: bytes.count, path: volume.path)
                }
            }
        }
        try set.write(.recoveryIndex, try target(indexPath), Array(packets.critical.joined()) + packets.creator)
    }

    /// The bytes of the volume holding recovery slices `first..<first + count`, handed to `emit`
    /// in order (a recovery slice's data is never copied): each slice's packet, copies of the
    /// critical packets spread among them (as many as the count has bits, as par2cmdline
    /// writes), the creator's packet last.
    static func emitVolume(
        _ packets: Par2Encoder.Packets, first: Int, count: Int, _ emit: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let critical = Array(packets.critical.joined())
        let copies = Int.bitWidth - count.leadingZeroBitCount
        for slice in 0..<count {
            let recovery = packets.recovery[first + slice]
            try recovery.header.withUnsafeBytes(emit)
            try emit(recovery.data)
            if (slice + 1) * copies / count > slice * copies / count {
                try critical.withUnsafeBytes(emit)
            }
        }
        try packets.creator.withUnsafeBytes(emit)
    }

    /// The size of the volume ``emitVolume(_:first:count:_:)`` emits.
    static func volumeSize(_ packets: Par2Encoder.Packets, first: Int, count: Int) -> Int64 {
        var size: Int64 = 0
        // Counting only: the emitter hands over buffers it already holds.
        try? emitVolume(packets, first: first, count: count) { size += Int64($0.count) }
        return size
    }

    /// The input's name, length and first-16-KiB MD5, and its `fstat` then, which the whole
    /// read must find unchanged.
    static func describe(_ input: (path: String, name: String)) throws -> (Par2Encoder.Description, stat) {
        let file = try Syscall.openRegularFile(input.path)
        let state = try Syscall.fstat(file.raw, path: input.path)
        var head = [UInt8](repeating: 0, count: 16384)
        let got = try head.withUnsafeMutableBytes { (raw) throws -> Int in
            try Syscall.pread(file.raw, into: raw.baseAddress!, count: raw.count, offset: 0, path: input.path)
        }
        let description = Par2Encoder.Description(
            name: input.name, length: file.size, md5First16K: Par2Hash.md5(Array(head.prefix(got))))
        return (description, state)
    }

    /// Feeds every slice of the file to the encoder; returns the bytes read.
    /// Feeds a group of files a slice of each in turn, so that a batch holds slices of all of
    /// them and the encoder hashes their whole-file MD5s together in lanes (one stream at a time
    /// cost 2.3 of 11.6 CPU seconds of a 1 GiB `protect`); a group is at most eight files, so
    /// as many descriptors are open.
    ///
    /// Each file must end the read as `described` it (device, inode, size, mtime, ctime): a
    /// same-size rewrite meanwhile would give a set whose MD5s match none of its bytes.
    private static func feed(
        _ files: [(path: String, described: stat, index: Int)], _ encoder: Par2Encoder, _ buffer: inout [UInt8]
    ) throws -> Int64 {
        // Shared only to hold several non-copyable descriptors; each closes with the array.
        let inputs = try files.map {
            SharedDescriptor(try Syscall.openRegularFile($0.path).takeDescriptor())
        }
        let files = files.map {
            (path: $0.path, length: Int64($0.described.st_size), described: $0.described, index: $0.index)
        }
        let sliceSize = Int64(encoder.sliceSize)
        var chunk = [UInt8](repeating: 0, count: encoder.sliceSize)
        let slices = files.map { Int(($0.length + sliceSize - 1) / sliceSize) }
        for slice in 0..<(slices.max() ?? 0) {
            for (member, file) in files.enumerated() where slice < slices[member] {
                let offset = Int64(slice) * sliceSize
                let want = Int(min(sliceSize, file.length - offset))
                let got = try chunk.withUnsafeMutableBytes { (raw) throws -> Int in
                    try Syscall.pread(
                        inputs[member].raw, into: raw.baseAddress!, count: want, offset: offset, path: file.path)
                }
                guard got == want else { throw changed(file.path) }
                chunk.withUnsafeBytes {
                    encoder.add(
                        file: file.index, slice: slice, bytes: UnsafeRawBufferPointer(rebasing: $0[0..<want]),
                        padding: &buffer)
                }
            }
        }
        for (member, file) in files.enumerated() {
            let now = try Syscall.fstat(inputs[member].raw, path: file.path)
            guard now.st_size == file.length else { throw changed(file.path) }
            guard sameState(now, file.described) else {
                throw GCDCatError(
                    .inputChanged, path: file.path, syscall: "fstat",
                    message: "changed while it was read (its inode, mtime or ctime differ); nothing was written")
            }
        }
        return files.reduce(0) { $0 + $1.length }
    }

    /// The same file, not written since: device, inode, size, mtime and ctime.
    private static func sameState(_ a: stat, _ b: stat) -> Bool {
        a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size
            && a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec
            && a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec
    }

    private static func changed(_ path: String) -> GCDCatError {
        GCDCatError(.inputChanged, path: path, message: "changed size while it was read; nothing was written")
    }
}
