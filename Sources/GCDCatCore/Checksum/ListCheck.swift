import GCDCatS3
import GCDCatSystem

/// `gcdcat verify`'s check of one checksum list, a file or an object: one entry each
/// (``local(_:options:report:known:notice:listed:)``, ``object(_:store:options:report:notice:listed:)``),
/// with one verdict (``ListVerdict``) and one report (``VerifyReport``). The CLI prints what
/// they hand over: the notices as they come, each listed outcome, then ``Found``.
public enum ListCheck {
    public struct Options: Sendable {
        /// --algorithm: every untagged line's algorithm.
        public var forced: HashAlgorithm?
        public var jobs: Int
        /// --ignore-missing: a missing file is counted apart, not listed.
        public var ignoreMissing: Bool
        public var followLinksOutside: Bool
        /// Compare an object's crc32 the server keeps instead of reading it.
        public var trustServer: Bool
        /// Keep every file's record in the report (--json); a local list keeps only counts without.
        public var keepsFiles: Bool
        /// Draw a progress bar on standard error (a terminal's, when not --quiet or --status).
        public var showsProgress: Bool

        public init(
            forced: HashAlgorithm?, jobs: Int, ignoreMissing: Bool, followLinksOutside: Bool, trustServer: Bool,
            keepsFiles: Bool, showsProgress: Bool
        ) {
            self.forced = forced
            self.jobs = jobs
            self.ignoreMissing = ignoreMissing
            self.followLinksOutside = followLinksOutside
            self.trustServer = trustServer
            self.keepsFiles = keepsFiles
            self.showsProgress = showsProgress
        }
    }

    /// What a list says before its files are checked.
    public enum Notice {
        /// A line that is no checksum line, skipped (the first ``ChecksumLineParser/keptMalformed``).
        case malformed(GCDCatError)
        /// How many more malformed lines there are.
        case moreMalformed(Int)
        /// An algorithm assumed from its values' length.
        case guess(String)
        /// Something done on the user's behalf: the names read from the current folder.
        case note(String)
    }

    /// What one list's check found, for the lines after its listing.
    public struct Found: Sendable {
        public var summary: VerifyReport.Summary
        /// The guesses no file confirmed, or that some values match under another algorithm, in
        /// the order first seen.
        public var unconfirmed: [HashAlgorithm]
        /// The guesses that some file confirmed.
        public var confirmed: Set<HashAlgorithm>
        /// The missing files' paths (the first ``lookAlikeChecks``), for look-alike notes.
        public var missing: [String]
        /// For a list object: the bytes read, and the values that were the server's crc32.
        public var objectReading: (bytesRead: UInt64, fromServer: Int)?
    }

    /// A list's check stopped after its listing began: the list could not be read again, or
    /// changed. Its counts so far are in the report.
    public struct Interrupted: Error {
        public var error: GCDCatError
    }

    /// How many missing files are looked at for a look-alike name beside them.
    public static let lookAlikeChecks = 1000

    /// A local list (`-` is standard input), streamed (``StreamingListVerifier``): `listed` is
    /// called with each outcome as its window completes, in list order; only counts are kept
    /// (and, for ``Options/keepsFiles``, the file records; into `known`, each file's key).
    ///
    /// ## Errors
    /// A ``GCDCatError`` when the list is unusable (nothing was checked); ``Interrupted`` when
    /// it failed later; and `listed`'s.
    public static func local(
        _ list: String, options: Options, report: inout VerifyReport, known: inout UnlistedFiles.Known?,
        notice: (Notice) -> Void, listed: (ChecksumListVerifier.Outcome) throws -> Void
    ) throws -> Found {
        let shown = list == "-" ? "standard input" : list
        var verifier = StreamingListVerifier(
            try ChecksumListSource(list, readingPipes: true), forced: options.forced, jobs: options.jobs,
            followLinksOutside: options.followLinksOutside)
        let scan = try verifier.scan()
        for error in scan.malformed { notice(.malformed(error)) }
        if scan.malformedCount > scan.malformed.count {
            notice(.moreMalformed(scan.malformedCount - scan.malformed.count))
        }
        for note in scan.guessNotes { notice(.guess(note)) }
        if try verifier.readsFromCurrentFolder() {
            let folder = splitPath(list).directory
            notice(
                .note(
                    "none of the files \(list.displayPath) lists is in its folder, \(folder.displayPath), but some "
                        + "are in the current folder: they are read from there, as sha256sum -c reads them"))
        }
        // Progress over this list's bytes, naming the file being read. The total stats every
        // file: only for a bar that is drawn. Without a bar, no counter: each file would take
        // its lock for nothing.
        var counter: TransferCounter?
        var progress: ProgressMeter?
        if options.showsProgress {
            let drawn = TransferCounter()
            counter = drawn
            progress = ProgressMeter(
                label: shown.displayPath, total: (try? verifier.totalBytes()) ?? 0, counter: drawn)
        }
        defer { progress?.finish() }
        var tally = VerifyReport.Tally(list: list)
        tally.summary.malformedLines = scan.malformedCount
        tally.summary.malformed =
            options.keepsFiles && scan.malformedCount > 0 ? scan.malformed.map(\.message) : nil
        var missing: [String] = []
        var confirmed = Set<HashAlgorithm>()
        do {
            confirmed = try verifier.confirmedGuesses(scan.guessed)
            try verifier.verify(confirmed: confirmed, counter: counter) { outcome in
                guard count(outcome, into: &tally, missing: &missing, options: options, report: &report)
                else { return }
                known?.insert(outcome.path)
                try listed(outcome)
            }
        } catch let error as GCDCatError {
            report.finish(tally)
            throw Interrupted(error: error)
        }
        return Found(
            summary: report.finish(tally), unconfirmed: tally.unconfirmed, confirmed: confirmed, missing: missing)
    }

    /// A list object (`s3://b/set/LIST`): its objects HEAD-ed, then read with ranged GETs
    /// (``ObjectListVerifier``), `listed` called with each outcome once all are known.
    ///
    /// ## Errors
    /// A ``GCDCatError`` when the list cannot be fetched or parsed; and `listed`'s.
    public static func object(
        _ list: String, store: CountingObjectStore, options: Options, report: inout VerifyReport,
        notice: (Notice) -> Void, listed: (ChecksumListVerifier.Outcome) throws -> Void
    ) throws -> Found {
        guard let location = try ObjectLocation(parsing: list) else {
            throw GCDCatError(.invalidInput, path: list, message: "not an s3:// object")
        }
        let entries = try ObjectDiscovery.loadList(location, store: store, forced: options.forced)
        for note in entries.guessNotes { notice(.guess(note)) }
        let located = ObjectListVerifier.locate(
            entries.entries, listObject: location, store: store, jobs: options.jobs)
        let counter = TransferCounter()
        let progress =
            options.showsProgress
            ? ProgressMeter(
                label: list.displayPath,
                total: ObjectListVerifier.bytesToRead(located, trustServer: options.trustServer), counter: counter)
            : nil
        let verification = ObjectListVerifier.verify(
            located, reader: ObjectReader(store: store, jobs: options.jobs, counter: counter),
            trustServer: options.trustServer)
        progress?.finish()
        var tally = VerifyReport.Tally(list: list)
        var missing: [String] = []
        var kept = options
        kept.keepsFiles = true  // a list object's records are few, and all kept
        for (outcome, source) in zip(verification.outcomes, verification.sources) {
            guard count(outcome, into: &tally, missing: &missing, options: kept, source: source, report: &report)
            else { continue }
            try listed(outcome)
        }
        report.bytesRead += verification.bytesRead
        return Found(
            summary: report.finish(tally), unconfirmed: tally.unconfirmed,
            confirmed: ListVerdict.confirmed(verification.outcomes), missing: missing,
            objectReading: (verification.bytesRead, verification.trustedFromServer))
    }

    /// Counts `outcome` in `tally` and returns true, or false for a missing file that
    /// --ignore-missing sets aside (counted apart, not listed).
    private static func count(
        _ outcome: ChecksumListVerifier.Outcome, into tally: inout VerifyReport.Tally, missing: inout [String],
        options: Options, source: ObjectReader.Source? = nil, report: inout VerifyReport
    ) -> Bool {
        let isMissing = outcome.status == .missing
        if options.ignoreMissing && isMissing {
            tally.summary.ignoredMissing += 1
            return false
        }
        report.record(outcome, into: &tally, keepingFile: options.keepsFiles, source: source)
        if isMissing && missing.count < lookAlikeChecks { missing.append(outcome.path) }
        return true
    }
}
