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
}
