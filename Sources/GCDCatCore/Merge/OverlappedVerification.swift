import Dispatch
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A verified `auto` merge whose part check runs beside the kernel copy instead of before it.
///
/// The parts were matched to the manifest by name, identity and size before this runs (a
/// missing, extra or wrongly sized part never gets here). Then one queue reads the parts for
/// their crc32s while the caller's thread clones or copies them (``KernelCopyMerge``) into the
/// unnamed output. Nothing is published until both are done and every check passed; a failed
/// check discards the output, as a check before the copy did. Instead of checksumming the
/// output a second time, every part must then be unchanged since validation (device, inode,
/// size, mtime, ctime): the bytes the check read are the bytes the copy moved. The argument and
/// the measurements are in docs/notes/cow.md.
extension MergeOperation {
    /// Runs `check` and the copy of `request` together and commits the output.
    ///
    /// ## Errors
    /// `.checksumMismatch` from the check first (exit 2, the part named), then the copy's error,
    /// then the check's other errors, then `.inputChanged` for a part that changed meanwhile.
    func runOverlapped(
        _ request: MergeRequest, check: any OverlappableCheck, counter: TransferCounter, otherInputs: [PartFile]
    ) throws -> (MergeResult, MergeVerification) {
        guard let output else {
            throw GCDCatError(.invalidInput, message: "no output named")
        }
        return try OutputSet.single(
            output, inputs: request.parts + otherInputs, overwrite: overwrite, fsync: fsync, bytes: request.totalBytes,
            reserving: strategy == .auto ? { copiedRanges(request, into: $0) } : nil
        ) { sink -> (MergeResult, MergeVerification) in
            guard sink.allowsPositionalWrites else {
                // A pipe or device shows each byte at once: check everything before the first,
                // as a step of its own on the progress line.
                counter.beginPhase(check.label, total: request.totalBytes)
                let verification = try check.run(jobs: request.jobs, counter: counter)
                counter.endPhase()
                var checked = request
                checked.computeCRC = true
                let result = try strategy.strategy.merge(checked, into: sink, counter: counter)
                try Self.requireCRC(result.crc32, expected: verification.expectedCRC, output: sink.path)
                return (result, verification)
            }
            let checking = BackgroundWork { try check.run(jobs: request.jobs, counter: nil) }
            let copied = Result { try KernelCopyMerge().merge(request, into: sink, counter: counter) }
            let verified = checking.outcome()
            if case .failure(let error as GCDCatError) = verified, error.code == .checksumMismatch { throw error }
            var result = try copied.get()
            let verification = try verified.get()
            for part in request.parts { try part.requireUnchangedSinceValidation() }
            result.crc32 = verification.expectedCRC
            return (result, verification)
        }
    }

    /// Throws `.checksumMismatch` when the bytes that passed do not have the verified crc32.
    static func requireCRC(_ actual: UInt32?, expected: UInt32?, output: String) throws {
        if let expected, let actual, actual != expected {
            throw GCDCatError(
                .checksumMismatch, path: output,
                message:
                    "the merged bytes have crc32 \(hex8(actual)), but the verified parts combine to \(hex8(expected)): a part changed during the merge"
            )
        }
    }

    /// Whether one more thread (the check's, or a split's reader) fits the address space. Under a
    /// tight `ulimit -v`, libdispatch retries a thread it cannot create for ever; then the work
    /// is not overlapped but done in order, as ``ParallelMap`` does with its workers.
    static var canAffordCheckThread: Bool { ParallelMap.affordable(2) == 2 }

    /// The parts again, stat'ed once the clock has passed each one's ctime.
    ///
    /// Where timestamps are coarse (before Linux 6.13's multigrain timestamps, or on a
    /// filesystem without them), a write in the same clock tick as the last change before
    /// validation keeps the same ctime, and ``PartFile/requireUnchangedSinceValidation()``
    /// could not see it. Once the coarse clock is past a part's ctime, any later write gets a
    /// later ctime. Waiting costs at most a tick or two, and only for parts written just now.
    ///
    /// Nil when a ctime stays ahead of the clock (a clock set back): then the output is
    /// checksummed as it passes instead.
    ///
    /// ## Errors
    /// `.inputChanged` for a part that is no longer the file, or the size, validated.
    static func settledParts(_ parts: [PartFile]) throws -> [PartFile]? {
        let latest = parts.map(\.changedNanoseconds).max() ?? 0
        var waited = 0
        while coarseNow() <= latest {
            guard waited < 200 else { return nil }
            usleep(1000)
            waited += 1
        }
        if waited == 0 { return parts }
        return try parts.map { part in
            let again = try PartFile.validate(part.path)
            guard again.device == part.device, again.inode == part.inode else {
                throw GCDCatError(
                    .inputChanged, path: part.path, message: "replaced by another file since it was checked")
            }
            try part.requireUnchangedSize(again.size)
            return again
        }
    }

    /// The kernel's coarse wall clock, which stamps files where timestamps are coarse.
    private static func coarseNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        return nanoseconds(now)
    }
}
