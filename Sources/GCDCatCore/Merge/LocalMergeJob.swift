import GCDCatS3
import GCDCatSystem

extension MergeJob {
    /// Local parts: one set through ``MergeOperation``, its parts removed afterwards with
    /// `--remove-parts`, and its report.
    func mergeFiles(
        _ paths: [String], notice: (MergeOperation.Notice) -> Void, measure: Measure
    ) throws -> RunReport? {
        let store = try output.flatMap { ObjectLocation.isObjectPath($0) ? try makeStore() : nil }
        var operation = MergeOperation(
            arguments: paths, output: try output.map { try Self.target($0, store: store) },
            manifest: manifest, manifestPolicy: manifestPolicy, asGiven: asGiven, strategy: strategy,
            limits: limits, jobs: store != nil ? objectJobs : jobs,
            overwrite: overwrite, fsync: fsync || removeParts, allowDuplicates: allowDuplicates)
        operation.showsCheckProgress = showsProgress
        operation.requiresCRCManifest = removeParts
        operation.listAlgorithm = listAlgorithm
        var measurement: Measurement?
        // The times cover the manifest check too, which may read every part before the run.
        let clock = ProcessClock()
        let outcome = try operation.merge(notice: notice) { target, total, body in
            // `measure` runs `body` once, before it returns: nothing escapes.
            try withoutActuallyEscaping(body) { body in
                var result: MergeResult?
                measurement = try measure(target.displayName, total, clock) { result = try body($0) }
                return result!
            }
        }
        guard let measurement else { return nil }
        let removed = removeParts ? try removeMergedParts(outcome, first: paths[0], notice: notice) : []
        let summary = MergeSummary(
            strategy: strategy.rawValue, partCount: outcome.partCount ?? outcome.request.parts.count,
            inputs: outcome.request.parts.map(\.path), output: outcome.output.path,
            manifest: outcome.verification.manifestPath, result: outcome.result, limits: operation.limits,
            jobs: operation.jobs, objectStore: store.map { ObjectStoreFacts(counts: $0.counts) },
            removedParts: removed, rebuiltParts: outcome.rebuiltParts, notes: outcome.notes,
            verifiedByMarks: outcome.verification.verifiedByMarks)
        return summary.report(measurement)
    }

    /// `--remove-parts` after a merge: only now, the output is named, matched the verified
    /// parts' crc32, and is durable. Returns the parts removed.
    ///
    /// ## Errors
    /// `.invalidInput` when the manifest gave no crc32 (an md5/sha list); otherwise
    /// ``FailureAfterPublishing``, naming the part that could not be removed.
    private func removeMergedParts(
        _ outcome: MergeOperation.Outcome, first: String, notice: (MergeOperation.Notice) -> Void
    ) throws -> [String] {
        // An md5/sha list verifies the parts but leaves the output no crc32 to meet.
        guard outcome.verification.expectedCRC != nil else {
            throw GCDCatError(
                .invalidInput, path: outcome.verification.manifestPath ?? first,
                message:
                    "the merge is done, but the parts were kept: --remove-parts needs a manifest, whose "
                    + "check gives the crc32 the output is checked against")
        }
        do throws(PartRemoval.Failure) {
            let removal = try PartRemoval.remove(outcome.request.parts)
            removal.warnings.forEach { notice(.warning($0)) }
            return removal.removed
        } catch let failure {
            failure.outcome.warnings.forEach { notice(.warning($0)) }
            var published = ErrorReport.Published(
                output: outcome.output.path ?? outcome.output.displayName, verified: true,
                manifest: outcome.verification.manifestPath)
            published.removedParts = failure.outcome.removed
            throw FailureAfterPublishing(error: failure.error, published: published)
        }
    }
}
