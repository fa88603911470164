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
/// k outputs (``Par2SliceAccumulator``). Memory: k slices plus a batch of inputs; the inversion
/// costs k³ field operations.
public enum Par2Repairer {
    /// The rebuilt slices of a set, by global slice index; nothing is written.
    public final class Rebuilt {
        public let slices: [Int]
        let accumulator: Par2SliceAccumulator

        init(slices: [Int], accumulator: Par2SliceAccumulator) {
            self.slices = slices
            self.accumulator = accumulator
        }

        /// The rebuilt bytes of global slice `index` (padded to the slice size), if it was rebuilt.
        public func bytes(ofSlice index: Int) -> UnsafeRawBufferPointer? {
            slices.firstIndex(of: index).map { UnsafeRawBufferPointer(accumulator.slice($0)) }
        }
    }

    /// Rebuilds every bad slice of `verification`, each checked against its CRC32 and MD5.
    ///
    /// ## Errors
    /// `.missingPart` when there are fewer recovery slices than bad slices (nothing is
    /// allocated); `.checksumMismatch` when a rebuilt slice does not match its checksums (a
    /// damaged recovery slice that kept its packet hash is not possible, so this means a bug or
    /// a hostile set); `.io` naming the file and syscall.
    public static func rebuild(_ verification: Par2Verification, jobs: Int) throws -> Rebuilt {
        let set = verification.set
        var bad: [Int] = []
        for (file, status) in zip(set.files, verification.files) {
            bad += status.badSlices.map { file.firstSlice + $0 }
        }
        guard bad.count <= set.recoverySlices.count else { throw insufficient(verification) }
        let recovery = Array(set.recoverySlices.prefix(bad.count))
        let constants = Par2SliceConstants.constants(count: set.sliceCount)
        let matrix = recovery.map { slice in bad.map { GaloisField16.power(constants[$0], slice.exponent) } }
        guard let inverse = Par2Matrix.inverse(matrix) else {
            throw GCDCatError(
                .checksumMismatch, path: set.directory,
                message: "the recovery blocks' equations are singular for these missing blocks; par2 may use others")
        }
        let accumulator = try Par2SliceAccumulator(
            count: bad.count, sliceSize: set.sliceSize, jobs: jobs, path: set.directory)
        var buffer = [UInt8](repeating: 0, count: set.sliceSize)
        for (column, slice) in recovery.enumerated() {
            try readRecovery(slice, into: &buffer)
            let coefficients = inverse.map { $0[column] }
            buffer.withUnsafeBytes { _ = accumulator.add($0, coefficients: coefficients) }
            if accumulator.isFull { accumulator.flush() }
        }
        let badSet = Set(bad)
        for (file, status) in zip(set.files, verification.files) where status.state != .missing {
            try addGoodSlices(of: file, path: set.path(of: file), sliceSize: set.sliceSize, skipping: badSet) {
                index, source in
                let powers = recovery.map { GaloisField16.power(constants[index], $0.exponent) }
                let coefficients = inverse.map { row in
                    zip(row, powers).reduce(UInt16(0)) { $0 ^ GaloisField16.multiply($1.0, $1.1) }
                }
                accumulator.add(source, coefficients: coefficients)
                if accumulator.isFull { accumulator.flush() }
            }
        }
        accumulator.flush()
        let rebuilt = Rebuilt(slices: bad, accumulator: accumulator)
        for file in set.files {
            for (local, expected) in file.slices.enumerated() {
                guard let bytes = rebuilt.bytes(ofSlice: file.firstSlice + local) else { continue }
                guard Par2Verifier.matches(Array(bytes), expected) else {
                    throw GCDCatError(
                        .checksumMismatch, path: set.path(of: file),
                        message: "block \(local + 1) rebuilt from the recovery blocks does not match its checksums")
                }
            }
        }
        return rebuilt
    }

    static func insufficient(_ verification: Par2Verification) -> GCDCatError {
        GCDCatError(
            .missingPart, path: verification.set.origin,
            message: "not repairable: \(verification.badSliceCount) blocks missing, "
                + "\(verification.set.recoverySlices.count) recovery blocks available")
    }

    private static func readRecovery(_ slice: Par2RecoverySliceLocation, into buffer: inout [UInt8]) throws {
        let fd = try Syscall.open(slice.path, O_RDONLY)
        defer { Glibc.close(fd) }
        let got = try Par2Verifier.readSlice(
            fd, path: slice.path, offset: slice.dataOffset, count: slice.length, into: &buffer)
        guard got == slice.length else {
            throw GCDCatError(.inputChanged, path: slice.path, message: "shrank while it was read")
        }
    }

    /// Calls `body` with each slice of `file` not in `skipping` (by global index), read padded.
    private static func addGoodSlices(
        of file: Par2RecoverySet.File, path: String, sliceSize: Int, skipping: Set<Int>,
        _ body: (Int, UnsafeRawBufferPointer) -> Void
    ) throws {
        let fd = try Syscall.open(path, O_RDONLY)
        defer { Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: sliceSize)
        for local in file.slices.indices where !skipping.contains(file.firstSlice + local) {
            let offset = Int64(local) * Int64(sliceSize)
            let want = Int(min(Int64(buffer.count), file.length - offset))
            _ = try Par2Verifier.readSlice(fd, path: path, offset: offset, count: want, into: &buffer)
            // The slice was verified at this offset; reread bytes that no longer match would
            // make wrong output, which the per-slice and whole-file MD5 checks then refuse.
            buffer.withUnsafeBytes { body(file.firstSlice + local, $0) }
        }
    }
}
