#if canImport(Glibc)
    import Glibc
#endif

/// Rebuilds the bad input slices of a verified set from its recovery slices, and restores the
/// damaged and missing files.
///
/// ## Implementation details
/// With the k bad slices D_m and k recovery slices R_j (exponents e_j), R_j minus the sum of
/// c_i^e_j · D_i over the good slices is the sum over m of c_m^e_j · D_m: a k × k system A whose
/// inverse (Gauss-Jordan over GF(2^16)) gives D_m = Σ_j A⁻¹[m][j] · R_j + Σ_i (Σ_j A⁻¹[m][j] ·
/// c_i^e_j) · D_i. So every input, recovery or good slice, is read once and multiplied into all
/// k outputs (``Par2SliceAccumulator``). Memory: k slices plus a batch of inputs, and the k × k
/// inverse (2k² bytes). With k recovery slices of consecutive exponents, as a set whose volumes
/// are all there has, A⁻¹ has a closed form (k² field operations, ``Par2RepairCoefficients``);
/// otherwise Gauss-Jordan costs k³, shared among the cores.
public enum Par2Repairer {
    /// The rebuilt slices of a set, by global slice index; nothing is written.
    public final class Rebuilt: Sendable {
        public let slices: [Int]
        let accumulator: Par2SliceAccumulator
        /// Output position of each rebuilt global slice.
        private let positions: [Int: Int]

        init(slices: [Int], accumulator: Par2SliceAccumulator) {
            self.slices = slices
            self.accumulator = accumulator
            positions = Dictionary(uniqueKeysWithValues: slices.enumerated().map { ($1, $0) })
        }

        /// The rebuilt bytes of global slice `index` (padded to the slice size), if it was rebuilt.
        public func bytes(ofSlice index: Int) -> UnsafeRawBufferPointer? {
            positions[index].map { UnsafeRawBufferPointer(accumulator.slice($0)) }
        }
    }

    /// Rebuilds every bad slice of `verification`, each checked against its CRC32 and MD5.
    ///
    /// ## Errors
    /// `.missingPart` when there are fewer recovery slices than bad slices (nothing is
    /// allocated); `.checksumMismatch` when a rebuilt slice does not match its checksums (a
    /// damaged recovery slice that kept its packet hash is not possible, so this means a bug or
    /// a hostile set); `.inputChanged` naming a file that changed since it was verified (the
    /// usual cause of a wrong rebuild); `.io` naming the file and syscall.
    public static func rebuild(_ verification: Par2Verification, jobs: Int) throws -> Rebuilt {
        let set = verification.set
        var bad: [Int] = []
        for (file, status) in zip(set.files, verification.files) {
            bad += status.badSlices.map { file.firstSlice + $0 }
        }
        guard bad.count <= set.recoverySlices.count else { throw insufficient(verification) }
        try requireRoomForInverse(of: bad.count, path: set.directory)
        let constants = Par2SliceConstants.constants(count: set.sliceCount)
        let recovery: [Par2RecoverySliceLocation]
        let coefficients: Par2RepairCoefficients
        if let run = consecutiveRun(of: bad.count, in: set.recoverySlices.map(\.exponent)) {
            recovery = Array(set.recoverySlices[run])
            coefficients = .consecutive(lost: bad, firstExponent: recovery[0].exponent, constants: constants)
        } else {
            recovery = Array(set.recoverySlices.prefix(bad.count))
            coefficients = try solve(
                lost: bad, recovery: recovery.map(\.exponent), constants: constants, jobs: jobs, path: set.directory)
        }
        // Overlapped: the next batch is read while the last is multiplied in, so reading the
        // set (a third of a CPU second a GiB) is not a pause between the cores' multiplications.
        let accumulator = try Par2SliceAccumulator(
            count: bad.count, sliceSize: set.sliceSize, jobs: jobs, overlapped: true, path: set.directory)
        // A volume's slices come in exponent order: each volume is opened once, for its run.
        var column = 0
        while column < recovery.count {
            let path = recovery[column].path
            let volume = try OwnedDescriptor(opening: path, O_RDONLY)
            while column < recovery.count, recovery[column].path == path {
                if accumulator.isFull { accumulator.flushInBackground() }
                let slice = recovery[column]
                try accumulator.add(inputs: 1, coefficients: coefficients.recoveryRow(column)) {
                    try readRecovery(slice, from: volume, into: $0)
                }
                column += 1
            }
        }
        let badSet = Set(bad)
        // A file found whole under another name is read from there.
        for (index, file) in set.files.enumerated() {
            guard let path = verification.sourcePath(of: index) else { continue }
            try addGoodSlices(
                of: file, path: path, sliceSize: set.sliceSize, skipping: badSet, into: accumulator,
                coefficients: coefficients)
        }
        accumulator.flush()
        let rebuilt = Rebuilt(slices: bad, accumulator: accumulator)
        do {
            try check(rebuilt, of: set, jobs: jobs)
        } catch let error as GCDCatError where error.code == .checksumMismatch {
            // Most likely not the rebuild's fault, but a file it read that changed since its check.
            throw try changedInput(verification, skipping: badSet) ?? error
        }
        return rebuilt
    }

    /// Throws `.io` (ENOMEM) naming `path` when the k × k inverse for `size` rebuilt slices
    /// would take more than half of this machine's memory.
    private static func requireRoomForInverse(of size: Int, path: String) throws {
        let bytes = Int64(size) * Int64(size) * 2
        guard bytes > Par2RecoveryBounds.memoryLimit else { return }
        throw GCDCatError(
            .io, path: path, syscall: "malloc", errno: ENOMEM,
            message: "rebuilding \(size) blocks takes a system of \(bytes) bytes, more than half of this machine's "
                + "memory (\(Par2RecoveryBounds.memoryLimit) bytes); a set with larger blocks needs fewer")
    }

    /// Where `exponents` (ascending, distinct) hold `count` consecutive ones, the first such
    /// run: its recovery slices make a system with a closed-form inverse.
    static func consecutiveRun(of count: Int, in exponents: [Int]) -> Range<Int>? {
        guard count > 0 else { return nil }
        return (0..<max(0, exponents.count - count + 1)).first {
            exponents[$0 + count - 1] - exponents[$0] == count - 1
        }
        .map { $0..<($0 + count) }
    }

    /// The coefficients, by Gauss-Jordan, that rebuild the slices `lost` (global indices) from
    /// the recovery slices of `recovery` (their exponents) and the good slices.
    ///
    /// The system is built transposed, Aᵀ with a row per lost slice, because the inverse of Aᵀ
    /// is A⁻¹ transposed: the layout the coefficients are read in, with no second copy.
    ///
    /// ## Errors
    /// `.checksumMismatch` when the system is singular.
    static func solve(
        lost: [Int], recovery: [Int], constants: [UInt16], jobs: Int, path: String
    ) throws -> Par2RepairCoefficients {
        let size = lost.count
        var system = [UInt16](repeating: 0, count: size * size)
        for (m, slice) in lost.enumerated() {
            for (j, exponent) in recovery.enumerated() {
                system[m * size + j] = GaloisField16.power(constants[slice], exponent)
            }
        }
        guard Par2Matrix.invert(&system, size: size, jobs: jobs) else {
            throw GCDCatError(
                .checksumMismatch, path: path,
                message: "the recovery blocks' equations are singular for these missing blocks; par2 may use others")
        }
        return Par2RepairCoefficients(inverseByColumn: system, exponents: recovery, constants: constants)
    }

    /// The error for the first file of `verification` that changed after it was verified: one
    /// of its good slices (those not in `skipping`, global indices) no longer has its CRC32 and
    /// MD5, so whatever was rebuilt or written from it is wrong. Nil when every good slice still
    /// matches. Reads every good slice again: only for a rebuild or merge that already failed.
    ///
    /// ## Errors
    /// `.io` naming the file and syscall.
    static func changedInput(_ verification: Par2Verification, skipping: Set<Int>) throws -> GCDCatError? {
        let set = verification.set
        var buffer = [UInt8](repeating: 0, count: set.sliceSize)
        for (index, file) in set.files.enumerated() {
            guard let path = verification.sourcePath(of: index) else { continue }
            guard let opened = try? Syscall.openRegularFile(path) else {
                return GCDCatError(.inputChanged, path: path, message: "was removed after it was verified")
            }
            let fd = opened.raw  // lent to the reads below, all done while `opened` lives
            for (local, checksum) in file.slices.enumerated() where !skipping.contains(file.firstSlice + local) {
                let offset = Int64(local) * Int64(set.sliceSize)
                let want = Int(min(Int64(set.sliceSize), file.length - offset))
                _ = try Par2Verifier.readSlice(fd, path: path, offset: offset, count: want, into: &buffer)
                if buffer.withUnsafeBytes({ Par2Verifier.matches($0, checksum) }) { continue }
                return GCDCatError(
                    .inputChanged, path: path,
                    message: "changed after it was verified (block \(local + 1) no longer has its checksums), so "
                        + "the bytes rebuilt or merged from it would be wrong; nothing was written. Do not modify "
                        + "files while they are merged or repaired")
            }
        }
        return nil
    }

    /// Throws `.checksumMismatch` naming the first file with a rebuilt slice that does not have
    /// its CRC32 and MD5 (the slices are hashed on `jobs` cores).
    private static func check(_ rebuilt: Rebuilt, of set: Par2RecoverySet, jobs: Int) throws {
        var wanted: [(file: Int, local: Int, checksum: Par2RecoverySet.SliceChecksum)] = []
        for (position, file) in set.files.enumerated() {
            for (local, checksum) in file.slices.enumerated()
            where rebuilt.bytes(ofSlice: file.firstSlice + local) != nil {
                wanted.append((position, local, checksum))
            }
        }
        let expected = wanted
        let matches = try ParallelMap.run(count: expected.count, jobs: jobs, makeState: {}) { _, index in
            let (file, local, checksum) = expected[index]
            let bytes = rebuilt.bytes(ofSlice: set.files[file].firstSlice + local)!
            return Par2Verifier.matches(bytes, checksum)
        }
        if let failed = matches.firstIndex(of: false) {
            let (file, local, _) = expected[failed]
            throw GCDCatError(
                .checksumMismatch, path: set.path(of: set.files[file]),
                message: "block \(local + 1) rebuilt from the recovery blocks does not match its checksums")
        }
    }

    static func insufficient(_ verification: Par2Verification) -> GCDCatError {
        GCDCatError(
            .missingPart, path: verification.set.origin,
            message: "not repairable: \(counted(verification.badSliceCount, "block")) missing, "
                + "\(counted(verification.set.recoverySlices.count, "recovery block")) available")
    }

    /// Reads recovery slice `slice` from `volume`, its open volume, into `buffer` (a slice's
    /// room); returns the bytes read.
    private static func readRecovery(
        _ slice: Par2RecoverySliceLocation, from volume: borrowing OwnedDescriptor,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws -> Int {
        let got = try Syscall.pread(
            volume.raw, into: buffer.baseAddress!, count: slice.length, offset: slice.dataOffset, path: slice.path)
        guard got == slice.length else {
            throw GCDCatError(.inputChanged, path: slice.path, message: "shrank while it was read")
        }
        return got
    }

    /// Adds each slice of `file` not in `skipping` (by global index) to `accumulator`: runs of
    /// consecutive good slices are read with one `pread` each, straight into the batch.
    private static func addGoodSlices(
        of file: Par2RecoverySet.File, path: String, sliceSize: Int, skipping: Set<Int>,
        into accumulator: Par2SliceAccumulator, coefficients: Par2RepairCoefficients
    ) throws {
        let opened = try Syscall.openRegularFile(path)
        let fd = opened.raw  // lent to the reads below, all done while `opened` lives
        var local = 0
        while local < file.slices.count {
            guard !skipping.contains(file.firstSlice + local) else {
                local += 1
                continue
            }
            if accumulator.isFull { accumulator.flushInBackground() }
            var end = local + 1
            while end < file.slices.count, end - local < accumulator.freeSlots,
                !skipping.contains(file.firstSlice + end)
            {
                end += 1
            }
            let offset = Int64(local) * Int64(sliceSize)
            let want = Int(min(Int64(end - local) * Int64(sliceSize), file.length - offset))
            try accumulator.add(
                inputs: end - local,
                coefficients: coefficients.rows(forSlices: (file.firstSlice + local)..<(file.firstSlice + end))
            ) { room in
                // Short: zeros, as PAR2 pads; a file that shrank since it was verified makes
                // rebuilt slices that fail their checksums.
                try Syscall.pread(fd, into: room.baseAddress!, count: want, offset: offset, path: path)
            }
            local = end
        }
    }
}
