/// What `merge --json` prints when the arguments are several sets (`gcdcat *.001 --json`):
/// one document whose `sets` hold, in order, each set's own document (the report a merge of
/// that set alone prints, or its error object), and the `exitStatus` the process exits with,
/// the worst of the sets' (docs/json-schema/merge-sets.json).
public struct SetsReport: Encodable, Sendable {
    /// One set's document.
    public enum Entry: Encodable, Sendable {
        case report(RunReport)
        case error(ErrorReport)

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .report(let report): try report.encode(to: encoder)
            case .error(let error): try error.encode(to: encoder)
            }
        }
    }

    public var schemaVersion = JSONDocument.schemaVersion
    public var command = "merge"
    public var sets: [Entry]
    public var exitStatus: Int32

    public init(sets: [Entry], exitStatus: Int32) {
        self.sets = sets
        self.exitStatus = exitStatus
    }

    /// The document a signal leaves when it ends a run over several sets: the sets that ended
    /// before it, as they ended (a published set's report among them), then each set `pending`
    /// names as an `interrupted` error object: the one under way (standard error names its
    /// output, not created), and those not begun; the exit status is the signal's, 128 + `signal`.
    /// `published` are the outputs the run published (``CleanupRegistry/publishedOutputs``): one
    /// that no ended set's report names is the set under way's, published as the signal came,
    /// and its object names it (`published`) and says it stays.
    public static func interrupted(
        done: [Entry], pending: [String], published: [ErrorReport.Published] = [], signal: Int32, name: String
    ) -> SetsReport {
        let reported = Set(
            done.compactMap { entry -> String? in
                if case .report(let report) = entry { report.output } else { nil }
            })
        let underWay = published.last { !reported.contains($0.output) }
        let stopped = pending.enumerated().map { index, set in
            if index == 0, let underWay {
                let error = GCDCatError(
                    .interrupted, path: set, errno: signal,
                    message: "interrupted by \(name) after it was merged; \(underWay.output.displayPath) was "
                        + "published and stays")
                var document = ErrorReport(command: "merge", error: error)
                document.published = underWay
                return Entry.error(document)
            }
            let error = GCDCatError(
                .interrupted, path: set, errno: signal,
                message: index == 0
                    ? "interrupted by \(name) while it was merged"
                    : "interrupted by \(name) before it was merged")
            return Entry.error(ErrorReport(command: "merge", error: error))
        }
        return SetsReport(sets: done + stopped, exitStatus: 128 + signal)
    }
}
