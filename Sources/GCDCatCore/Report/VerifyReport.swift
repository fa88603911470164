import GCDCatSystem

/// What `verify` found, over every list: the JSON document (docs/json-schema/verify.json,
/// paths in ``PathName``'s lossless form), and the exit status.
public struct VerifyReport: Encodable, Sendable {
    public struct File: Encodable, Sendable {
        public var list: String?
        public var line: Int
        public var name: String
        public var path: String
        public var algorithm: HashAlgorithm
        public var format: ChecksumLineFormat
        public var expected: String
        public var actual: String?
        public var status: String
        public var error: String?
        /// For an object: "read", or "server" when the server's own crc32 was compared.
        public var source: ObjectReader.Source?
        /// True (else absent) when the algorithm was assumed from the value's length.
        public var guessed: Bool?
    }

    /// One list's counts.
    public struct Summary: Encodable, Sendable {
        public var list: String?
        public var files = 0
        public var ok = 0
        public var failed = 0
        public var missing = 0
        public var unreadable = 0
        public var rejected = 0
        public var unconfirmed = 0
        public var ignoredMissing = 0
        /// Lines that are no checksum line, skipped (each said on standard error).
        public var malformedLines = 0
        /// Their errors, the first 100 ("line N: why"), in the JSON only.
        public var malformed: [String]?
        /// Why the list could not be used, as error.json's `error` object.
        public var error: ErrorReport.Details?
        public var exitStatus: Int32 = 0

        public var text: String {
            "\(counted(files, "file")): \(ok) OK, \(failed) FAILED, \(missing) MISSING"
                + (unreadable + rejected > 0 ? ", \(unreadable + rejected) UNREADABLE or REJECTED" : "")
                + (unconfirmed > 0 ? ", \(unconfirmed) UNCONFIRMED" : "")
                + (malformedLines > 0 ? "; \(counted(malformedLines, "malformed line")) not checked" : "")
                + (ignoredMissing > 0 ? " (\(ignoredMissing) missing ignored)" : "")
        }
    }

    public var files: [File] = []
    public var lists: [Summary] = []
    public var unlisted: [String]?
    public var exitStatus: Int32 = 0
    /// The lists, as given.
    public var inputs: [String] = []
    public var wallSeconds: Double = 0
    /// Bytes of objects read with ranged GETs.
    public var bytesRead: UInt64 = 0
    /// Present when a list was an object (key `s3`).
    public var objectStore: ObjectStoreFacts?

    public init() {}

    /// One list's counts while its outcomes arrive, and the guesses no file confirmed.
    public struct Tally: Sendable {
        public var summary: Summary
        public var unconfirmed: [HashAlgorithm] = []

        public init(list: String) { summary = Summary(list: list) }
    }

    /// Counts `outcome` in `tally`, and keeps its file record when `keepingFile` (for the JSON
    /// document; a streamed list keeps only counts otherwise).
    public mutating func record(
        _ outcome: ChecksumListVerifier.Outcome, into tally: inout Tally, keepingFile: Bool,
        source: ObjectReader.Source? = nil
    ) {
        tally.summary.files += 1
        var actual: String?
        var error: String?
        switch outcome.status {
        case .ok: tally.summary.ok += 1
        case .failed(let value):
            tally.summary.failed += 1
            actual = value
        case .missing: tally.summary.missing += 1
        case .unreadable(let failure):
            tally.summary.unreadable += 1
            error = failure.description
        case .rejected(let why):
            tally.summary.rejected += 1
            error = why
        case .unconfirmed(let value):
            tally.summary.unconfirmed += 1
            actual = value
            if !tally.unconfirmed.contains(outcome.entry.algorithm) {
                tally.unconfirmed.append(outcome.entry.algorithm)
            }
        }
        // Only --json keeps records: a streamed list's memory stays flat without.
        guard keepingFile else { return }
        files.append(
            File(
                list: tally.summary.list, line: outcome.entry.line, name: outcome.entry.name, path: outcome.path,
                algorithm: outcome.entry.algorithm, format: outcome.entry.format,
                expected: outcome.entry.expected, actual: actual, status: outcome.status.word, error: error,
                source: source, guessed: outcome.entry.guessed ? true : nil))
    }

    /// Closes a list's tally: its exit status (``ChecksumListVerifier/exitStatus(_:)``'s rule,
    /// on the counts), added to the run's; returns its summary.
    @discardableResult
    public mutating func finish(_ tally: Tally) -> Summary {
        var summary = tally.summary
        let incomplete =
            summary.missing + summary.unreadable + summary.rejected + summary.unconfirmed + summary.malformedLines > 0
        summary.exitStatus = incomplete ? 1 : summary.failed > 0 ? 2 : 0
        lists.append(summary)
        exitStatus = Self.worse(exitStatus, summary.exitStatus)
        return summary
    }

    /// Records a list that could not be used (or verified nothing): exit status 1.
    public mutating func failList(_ list: String, error: GCDCatError) {
        let error = ErrorReport(command: "verify", error: error).error
        if let index = lists.lastIndex(where: { $0.list == list }), lists[index].files == 0 {
            lists[index].error = error
            lists[index].exitStatus = 1
        } else {
            lists.append(Summary(list: list, error: error, exitStatus: 1))
        }
        exitStatus = Self.worse(exitStatus, 1)
    }

    /// Notes what the list objects cost (key `s3`): the store's requests, and where each value came from.
    public mutating func noteObjectStore(_ counts: CountingObjectStore.Counts) {
        objectStore = ObjectStoreFacts(
            counts: counts, checkBytesRead: bytesRead,
            serverChecksums: files.filter { $0.source == .server }.count,
            recordedChecksums: files.filter { $0.source == .recorded }.count,
            readChecksums: files.filter { $0.source == .read }.count)
    }

    /// 1 (incomplete) beats 2 (mismatch) beats 0.
    public static func worse(_ a: Int32, _ b: Int32) -> Int32 {
        a == 1 || b == 1 ? 1 : max(a, b)
    }

    /// Every list's counts added up.
    public var summary: Summary {
        lists.reduce(into: Summary(list: nil)) { total, list in
            total.files += list.files
            total.ok += list.ok
            total.failed += list.failed
            total.missing += list.missing
            total.unreadable += list.unreadable
            total.rejected += list.rejected
            total.unconfirmed += list.unconfirmed
            total.ignoredMissing += list.ignoredMissing
            total.malformedLines += list.malformedLines
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONDocument.schemaVersion, forKey: .schemaVersion)
        try container.encode("verify", forKey: .command)
        try container.encode(inputs, forKey: .inputs)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        try container.encode(files, forKey: .files)
        try container.encode(lists, forKey: .lists)
        try container.encodeIfPresent(unlisted, forKey: .unlisted)
        try container.encode(exitStatus, forKey: .exitStatus)
        try container.encodeIfPresent(objectStore, forKey: .objectStore)
        var total = summary
        total.exitStatus = exitStatus
        try container.encode(total, forKey: .summary)
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, command, inputs, wallSeconds, files, lists, unlisted, exitStatus, summary
        case objectStore = "s3"
    }
}
