/// What a finished merge tells its report, local or object parts alike: ``report(_:)`` builds
/// the ``RunReport`` in the one place both merges share.
struct MergeSummary {
    /// The strategy for local parts; `server-copy` or `ranged-get` for object parts.
    var strategy: String
    /// The set's parts, those rebuilt from recovery blocks included.
    var partCount: Int
    var inputs: [String]
    var output: String?
    /// The manifest the parts passed, nil when none was checked.
    var manifest: String?
    var result: MergeResult
    var limits: ChunkLimits
    var jobs: Int
    var objectStore: ObjectStoreFacts?
    var removedParts: [String] = []
    var rebuiltParts: [RebuiltPart] = []
    /// Notes said on the way (``MergeOperation/Outcome/notes``), before the engine's own.
    var notes: [String] = []
    /// No list was in use, and the parts passed the crc32s their marks record.
    var verifiedByMarks = false

    /// The report of the run `measurement` timed.
    func report(_ measurement: MergeJob.Measurement) -> RunReport {
        var report = RunReport(
            operation: "merge", strategy: strategy, parts: partCount, bytes: result.bytes, limits: limits,
            chunks: result.chunks, jobs: jobs, time: measurement.time, memory: measurement.memory,
            copyMethod: result.method, crc32: result.crc32, inputs: inputs, output: output, manifest: manifest,
            clonedBytes: result.clonedBytes, copiedBytes: result.copiedBytes, notes: notes + result.notes)
        report.objectStore = objectStore
        report.verified = manifest != nil || verifiedByMarks
        report.removedParts = removedParts
        report.rebuiltParts = rebuiltParts
        return report
    }
}
