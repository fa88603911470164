import ArgumentParser
import FoundationEssentials
import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

extension GCDCat {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the files that checksum lists (SFV, sha256sum, md5sum, BSD) name.",
            usage: "gcdcat verify [<options>] <lists> ...",
            discussion: """
                Each line's format is detected: SFV (NAME CRC32), GNU (HEX  NAME or HEX *NAME, \
                as sha256sum, md5sum, b2sum and rhash write), and BSD (SHA256 (NAME) = HEX, \
                as 'sha256sum --tag', 'b2sum --tag' and 'rhash --bsd' write); one list may mix \
                them. Each line's algorithm comes from its tag (SHA256, BLAKE2b, BLAKE2b-256, \
                SHA3-256, …); else from the list's name (B2SUMS, *.b2 and *.blake2b are BLAKE2b, \
                of each value's length as 'b2sum -c' reads them: 64 hex digits are BLAKE2b-256; SHA384SUMS, \
                *.sha384, *.sha3-256, MD5SUMS, …); else it is assumed from the digest's length \
                (8 hex digits crc32, 32 md5, 40 sha1, 56 sha224, 64 sha256, 96 sha384, 128 \
                sha512), and the assumption is said on standard error ("128 hex digits, sha512 \
                assumed; use --algorithm blake2b or --algorithm sha3-512 if it is another"). \
                --algorithm forces it (adler32 needs it). An assumed algorithm that no file of \
                the list matches is not reported as corruption: those files are UNCONFIRMED and \
                the exit status is 1, with the --algorithm to try.

                Names are relative to the list's folder ('-' reads a list from standard input, \
                and a pipe such as <(cmd) is read as one; their names are relative to the current \
                folder). Comments (;), CRLF, tabs, \
                lowercase hex, a UTF-8 BOM, non-UTF-8 (Latin-1) names, # comments and a PGP \
                clear-signature's armor (Fedora's CHECKSUM) are accepted; a line \
                starting with \\ has an escaped name (\\\\, \\n, \\r), as sha256sum writes. \
                A name that is absolute or contains '..', or that a symlink leads outside the \
                list's folder (unless --follow-links-outside), is reported as REJECTED and \
                never opened. Names are compared as bytes: café in NFC and café in NFD are two \
                files. A name listed twice (a.txt and ./a.txt too) is an error. A \
                malformed line is said with its line number and why, and skipped: the other \
                lines are checked, and the exit status is 1.

                Prints one line per file (OK, FAILED, MISSING, UNREADABLE, REJECTED) and a \
                summary per list on standard error. Exit status: 0 all OK; 2 a checksum \
                differs; 1 a file is missing, unreadable, rejected or unconfirmed, or a line is \
                malformed (this wins over 2: the check is incomplete), a list is unusable, or \
                --ignore-missing left nothing verified. UNLISTED files do not change it.

                A PAR2 file (NAME.par2, or any file starting with PAR2's magic) is read with \
                its NAME.volNN+MM.par2 volumes: each file it names is checked block by block \
                (CRC32 and MD5) and printed as OK, DAMAGED (N of M blocks bad) or MISSING, then \
                whether the set is repairable ("needs N of the M recovery blocks present") or \
                not. Exit status for .par2: 0 all OK; 2 damaged or missing files that \
                'gcdcat repair' can rebuild; 1 not repairable, or the .par2 is unusable.

                A list that is an object (s3://BUCKET/KEY) names objects, relative to its \
                key's folder: s3://b/movie/movie.zip.sfv's 'movie.zip.001' is \
                s3://b/movie/movie.zip.001. Each is HEAD-ed (a missing one is MISSING), then \
                read with ranged GETs, --jobs at once; where the server keeps an object's \
                crc32 (x-amz-checksum-crc32), it is compared without reading the object, and \
                the summary says so (--no-stored-checksums reads it anyway). The summary gives \
                the bytes read. A local list checks local files.

                Examples:
                  gcdcat verify movie.zip.sfv
                  gcdcat verify SHA256SUMS --ignore-missing
                  gcdcat verify parts/*.sfv --jobs 4
                  gcdcat verify s3://bkt/movie.zip.sfv --jobs 8
                """)

        @Argument(
            help: "Checksum lists (files or s3:// objects); - reads one from standard input.",
            completion: listsFirstCompletion)
        var lists: [String]

        @Option(help: "Read every untagged line as this algorithm.")
        var algorithm: HashAlgorithm?

        @Flag(help: "Skip listed files that do not exist; a list with no file left is an error.")
        var ignoreMissing = false

        @Flag(help: "Print nothing; the exit status tells.")
        var status = false

        @Option(help: ArgumentHelp("Also list the files in this folder that no list names.", valueName: "dir"))
        var unlisted: String?

        @OptionGroup var output: OutputOptions
        @OptionGroup var parallelism: JobsOption

        @Flag(help: "Read s3:// objects even where the server keeps their crc32 (x-amz-checksum-crc32).")
        var noStoredChecksums = false

        @OptionGroup var objectStore: ObjectStoreOptions

        var json: Bool { output.json }
        var quiet: Bool { output.quiet }
        var jobs: Int { parallelism.jobs(objects: lists.contains(where: ObjectLocation.isObjectPath)) }

        @Flag(help: "Check a listed file even when a symlink leads outside the list's folder.")
        var followLinksOutside = false

        func validate() throws {
            guard lists.filter({ $0 == "-" }).count <= 1 else {
                throw ValidationError("standard input (-) can be read only once")
            }
            if status && (json || quiet) { throw ValidationError("--status prints nothing; drop --json and --quiet") }
            try validateObjectNames(lists)
            try objectStore.check(namesObjects: lists.contains(where: ObjectLocation.isObjectPath))
            try validatePar2Lists()
            if unlisted != nil, let object = lists.first(where: ObjectLocation.isObjectPath) {
                throw ValidationError(
                    "--unlisted lists a local folder; \(object.displayPath) names objects, not files in it.")
            }
        }

        /// One list's outcomes, and for a list object where each value came from and the bytes read.
        struct Checked {
            var outcomes: [ChecksumListVerifier.Outcome]
            var sources: [ObjectReader.Source?]?
            var bytesRead: UInt64 = 0
        }

        /// The list object's entries, HEAD-ed and read with ranged GETs; nil (reported) when the
        /// list cannot be fetched or parsed.
        private func checkObjectList(_ manifest: String, store: CountingObjectStore, report: inout VerifyReport)
            throws -> Checked?
        {
            let location: ObjectLocation
            let list: ChecksumList
            do {
                location = try ObjectLocation(parsing: manifest)!
                list = try ObjectDiscovery.loadList(location, store: store, forced: algorithm)
            } catch let error as GCDCatError {
                writeToStandardError("gcdcat: \(error)\n")
                report.failList(manifest, error: error)
                return nil
            }
            sayGuesses(list.guessNotes, shown: manifest)
            let located = ObjectListVerifier.locate(list.entries, listObject: location, store: store, jobs: jobs)
            let counter = TransferCounter()
            let progress =
                quiet || status
                ? nil
                : ProgressMeter(
                    label: manifest.displayPath,
                    total: ObjectListVerifier.bytesToRead(located, trustServer: !noStoredChecksums), counter: counter)
            let verification = ObjectListVerifier.verify(
                located, reader: ObjectReader(store: store, jobs: jobs, counter: counter),
                trustServer: !noStoredChecksums)
            progress?.finish()
            return Checked(
                outcomes: verification.outcomes, sources: verification.sources, bytesRead: verification.bytesRead)
        }

        /// Says on standard error which algorithms were only assumed from their values' length
        /// (--quiet leaves it to the note on a guess that no file confirmed; --json to `guessed`).
        private func sayGuesses(_ notes: [String], shown: String) {
            guard !status && !quiet && !json else { return }
            for note in notes { writeToStandardError("gcdcat: \(shown.displayPath): \(note)\n") }
        }

        /// Says each malformed line the list skipped, naming its line and why (the first
        /// ``ChecksumLineParser/keptMalformed``, then how many more): they fail the run, so
        /// --quiet says them too.
        private func sayMalformed(_ scan: StreamingListVerifier.Scan, shown: String) {
            guard !status && !json else { return }
            for error in scan.malformed { writeToStandardError("gcdcat: \(error)\n") }
            let more = scan.malformedCount - scan.malformed.count
            if more > 0 {
                writeToStandardError(
                    "gcdcat: \(shown.displayPath): \(counted(more, "more malformed line")) not shown\n")
            }
        }

        /// A local list, streamed (``StreamingListVerifier``): each window's outcomes printed as
        /// it completes, only counts kept (and, for --json, the file records; for --unlisted, a
        /// 16-byte key per file). An unusable list is reported, and verifies nothing.
        private func verifyLocalList(
            _ manifest: String, report: inout VerifyReport, known: inout UnlistedFiles.Known?
        ) throws {
            let shown = manifest == "-" ? "standard input" : manifest
            var verifier: StreamingListVerifier
            let scan: StreamingListVerifier.Scan
            do {
                verifier = StreamingListVerifier(
                    try ChecksumListSource(manifest, readingPipes: true), forced: algorithm, jobs: jobs,
                    followLinksOutside: followLinksOutside)
                scan = try verifier.scan()
            } catch let error as GCDCatError {
                writeToStandardError("gcdcat: \(error)\n")
                if !status, let hint = NotAListHint.hint(for: manifest, error: error) {
                    writeToStandardError("gcdcat: \(hint)\n")
                }
                report.failList(manifest, error: error)
                return
            }
            sayMalformed(scan, shown: shown)
            sayGuesses(scan.guessNotes, shown: shown)
            // Progress over this list's bytes, naming the file being read (on standard error,
            // so --json shows it too). The total stats every file: only for a bar that is drawn.
            // Without a bar, no counter: each file would take its lock for nothing.
            var counter: TransferCounter?
            var progress: ProgressMeter?
            if !quiet && !status && isatty(STDERR_FILENO) == 1 {
                let drawn = TransferCounter()
                counter = drawn
                progress = ProgressMeter(
                    label: shown.displayPath, total: (try? verifier.totalBytes()) ?? 0, counter: drawn)
            }
            var tally = VerifyReport.Tally(list: manifest)
            tally.summary.malformedLines = scan.malformedCount
            tally.summary.malformed = json && scan.malformedCount > 0 ? scan.malformed.map(\.message) : nil
            // The missing files' paths, for the look-alike note: few in any real list, and bounded.
            var missing: [String] = []
            var listing = ListingWriter(clearsProgressLine: progress != nil)
            // Read once: each option is a property wrapper, whose getter cost more per file than
            // the rest of this closure.
            let (ignoreMissing, json, lists, listsOK) = (ignoreMissing, json, !status && !json, !quiet)
            var confirmed = Set<HashAlgorithm>()
            do {
                confirmed = try verifier.confirmedGuesses(scan.guessed)
                try verifier.verify(confirmed: confirmed, counter: counter) { outcome in
                    let isMissing = outcome.status == .missing
                    if ignoreMissing && isMissing {
                        tally.summary.ignoredMissing += 1
                        return
                    }
                    report.record(outcome, into: &tally, keepingFile: json)
                    known?.insert(outcome.path)
                    if isMissing && missing.count < Self.lookAlikeChecks {
                        missing.append(outcome.path)
                    }
                    if lists && (listsOK || outcome.status != .ok) { try listing.append(outcome.line) }
                }
            } catch let error as GCDCatError {  // the list could not be read again, or changed
                progress?.finish()
                try listing.flush()
                writeToStandardError("gcdcat: \(error)\n")
                report.finish(tally)
                report.failList(manifest, error: error)
                return
            }
            progress?.finish()
            try listing.flush()
            let summary = report.finish(tally)
            sayAfterList(
                shown, list: manifest, summary: summary, unconfirmed: tally.unconfirmed, confirmed: confirmed,
                missing: missing, report: &report)
        }

        /// How many missing files are looked at for a look-alike name beside them.
        private static let lookAlikeChecks = 1000

        /// What follows a list's listing on standard error: its summary, the unconfirmed guesses,
        /// a note for each `missing` file whose look-alike name (NFC for NFD) lies beside it, the
        /// --ignore-missing hint; a list that --ignore-missing left empty fails.
        private func sayAfterList(
            _ shown: String, list: String, summary: VerifyReport.Summary, unconfirmed: [HashAlgorithm],
            confirmed: Set<HashAlgorithm> = [], missing: [String], objectNote: String = "",
            report: inout VerifyReport
        ) {
            if ignoreMissing && summary.files == 0 {
                if !json { writeToStandardError("gcdcat: \(shown.displayPath): no file was verified\n") }
                report.failList(
                    list, error: GCDCatError(.missingPart, path: shown, message: "no file was verified"))
            } else if !status && !json && (!quiet || summary.exitStatus != 0) {
                writeToStandardError("gcdcat: \(shown.displayPath): \(summary.text)\(objectNote)\n")
            }
            guard !status && !json else { return }
            for note in unconfirmed.map({
                ChecksumListVerifier.unconfirmedNote($0, confirmed: confirmed.contains($0))
            }) {
                writeToStandardError("gcdcat: \(shown.displayPath): \(note)\n")
            }
            for found in LookAlikeNames.find(for: missing) {
                let note = LookAlikeNames.note(missing: found.missing, lookAlike: found.lookAlike)
                writeToStandardError("gcdcat: \(shown.displayPath): note: \(note)\n")
            }
            if !ignoreMissing && summary.missing > 0 && summary.missing < summary.files {
                writeToStandardError(
                    "gcdcat: \(shown.displayPath): \(summary.missing) listed "
                        + "file\(summary.missing == 1 ? " is" : "s are") not here; "
                        + "--ignore-missing checks only the files present\n")
            }
        }

        func run() throws {
            if lists.contains(where: isPar2File) { return try runPar2() }
            // A folder that cannot be listed fails now, not after every file was read.
            if let unlisted { _ = try reportingFailures { try directoryEntries(unlisted) } }
            let clock = ProcessClock()
            var report = VerifyReport()
            var known: UnlistedFiles.Known? = unlisted == nil ? nil : UnlistedFiles.Known()
            var store: CountingObjectStore?
            for manifest in lists {
                guard ObjectLocation.isObjectPath(manifest) else {
                    try verifyLocalList(manifest, report: &report, known: &known)
                    continue
                }
                let objects = try store ?? reportingFailures { try objectStore.makeStore() }
                store = objects  // one client for every list object
                guard var checked = try checkObjectList(manifest, store: objects, report: &report) else { continue }
                checked.outcomes = ChecksumListVerifier.confirmingGuesses(checked.outcomes)
                var ignored = 0
                if ignoreMissing {
                    let kept = checked.outcomes.indices.filter { checked.outcomes[$0].status != .missing }
                    ignored = checked.outcomes.count - kept.count
                    checked.sources = checked.sources.map { sources in kept.map { sources[$0] } }
                    checked.outcomes = kept.map { checked.outcomes[$0] }
                }
                let outcomes = checked.outcomes
                try printListing(outcomes)
                let summary = report.add(
                    list: manifest, outcomes: outcomes, ignoredMissing: ignored, sources: checked.sources)
                report.bytesRead += checked.bytesRead
                let fromServer = checked.sources?.filter { $0 == .server }.count ?? 0
                let objectNote =
                    "; \(ByteSize.humanReadable(Int64(checked.bytesRead))) read"
                    + (fromServer > 0 ? ", \(fromServer) crc32s the server's (x-amz-checksum-crc32), not read" : "")
                var unconfirmed: [HashAlgorithm] = []
                for outcome in outcomes {
                    if case .unconfirmed = outcome.status, !unconfirmed.contains(outcome.entry.algorithm) {
                        unconfirmed.append(outcome.entry.algorithm)
                    }
                }
                sayAfterList(
                    manifest, list: manifest, summary: summary, unconfirmed: unconfirmed,
                    missing: outcomes.filter { $0.status == .missing }.map(\.path), objectNote: objectNote,
                    report: &report)
            }
            if let store {
                report.objectStore = ObjectStoreFacts(
                    counts: store.counts, checkBytesRead: report.bytesRead,
                    serverChecksums: report.files.filter { $0.source == .server }.count,
                    recordedChecksums: report.files.filter { $0.source == .recorded }.count,
                    readChecksums: report.files.filter { $0.source == .read }.count)
            }
            if let unlisted {
                let found = try reportingFailures {
                    try UnlistedFiles.find(
                        in: unlisted, known: known ?? UnlistedFiles.Known(), lists: lists.filter { $0 != "-" })
                }
                report.unlisted = found
                if !status && !json {
                    for path in found { try write("\(path.displayPath): UNLISTED\n") }
                }
            }
            if json {
                report.inputs = lists
                report.wallSeconds = roundedToMicroseconds(clock.elapsed().wall)
                try reportingFailures { try StandardStreams.writeOutput(JSONDocument.encode(report)) }
            }
            if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
        }

        private func printListing(_ outcomes: [ChecksumListVerifier.Outcome]) throws {
            guard !status && !json else { return }
            var text = ""
            for outcome in outcomes where !quiet || outcome.status != .ok { text += outcome.line + "\n" }
            try write(text)
        }

        private func write(_ text: String) throws {
            try reportingFailures { try StandardStreams.writeOutput(PathName.bytes(of: text)) }
        }
    }
}

/// What `verify` found, over every list: the JSON document (docs/json-schema/verify.json,
/// paths in ``PathName``'s lossless form), and the exit status.
struct VerifyReport: Encodable {
    struct File: Encodable {
        var list: String?
        var line: Int
        var name: String
        var path: String
        var algorithm: HashAlgorithm
        var format: ChecksumLineFormat
        var expected: String
        var actual: String?
        var status: String
        var error: String?
        /// For an object: "read", or "server" when the server's own crc32 was compared.
        var source: ObjectReader.Source?
        /// True (else absent) when the algorithm was assumed from the value's length.
        var guessed: Bool?
    }

    /// One list's counts.
    struct Summary: Encodable {
        var list: String?
        var files = 0
        var ok = 0
        var failed = 0
        var missing = 0
        var unreadable = 0
        var rejected = 0
        var unconfirmed = 0
        var ignoredMissing = 0
        /// Lines that are no checksum line, skipped (each said on standard error).
        var malformedLines = 0
        /// Their errors, the first 100 ("line N: why"), in the JSON only.
        var malformed: [String]?
        /// Why the list could not be used, as error.json's `error` object.
        var error: ErrorReport.Details?
        var exitStatus: Int32 = 0

        var text: String {
            "\(counted(files, "file")): \(ok) OK, \(failed) FAILED, \(missing) MISSING"
                + (unreadable + rejected > 0 ? ", \(unreadable + rejected) UNREADABLE or REJECTED" : "")
                + (unconfirmed > 0 ? ", \(unconfirmed) UNCONFIRMED" : "")
                + (malformedLines > 0 ? "; \(counted(malformedLines, "malformed line")) not checked" : "")
                + (ignoredMissing > 0 ? " (\(ignoredMissing) missing ignored)" : "")
        }
    }

    var files: [File] = []
    var lists: [Summary] = []
    var unlisted: [String]?
    var exitStatus: Int32 = 0
    /// The lists, as given.
    var inputs: [String] = []
    var wallSeconds: Double = 0
    /// Bytes of objects read with ranged GETs.
    var bytesRead: UInt64 = 0
    /// Present when a list was an object (key `s3`).
    var objectStore: ObjectStoreFacts?

    /// One list's counts while its outcomes arrive, and the guesses no file confirmed.
    struct Tally {
        var summary: Summary
        var unconfirmed: [HashAlgorithm] = []

        init(list: String) { summary = Summary(list: list) }
    }

    /// Records a list's outcomes and returns its summary.
    mutating func add(
        list: String, outcomes: [ChecksumListVerifier.Outcome], ignoredMissing: Int,
        sources: [ObjectReader.Source?]? = nil
    ) -> Summary {
        var tally = Tally(list: list)
        tally.summary.ignoredMissing = ignoredMissing
        for (index, outcome) in outcomes.enumerated() {
            record(outcome, into: &tally, keepingFile: true, source: sources?[index])
        }
        return finish(tally)
    }

    /// Counts `outcome` in `tally`, and keeps its file record when `keepingFile` (for the JSON
    /// document; a streamed list keeps only counts otherwise).
    mutating func record(
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
    mutating func finish(_ tally: Tally) -> Summary {
        var summary = tally.summary
        let incomplete =
            summary.missing + summary.unreadable + summary.rejected + summary.unconfirmed + summary.malformedLines > 0
        summary.exitStatus = incomplete ? 1 : summary.failed > 0 ? 2 : 0
        lists.append(summary)
        exitStatus = Self.worse(exitStatus, summary.exitStatus)
        return summary
    }

    /// Records a list that could not be used (or verified nothing): exit status 1.
    mutating func failList(_ list: String, error: GCDCatError) {
        let error = ErrorReport(command: "verify", error: error).error
        if let index = lists.lastIndex(where: { $0.list == list }), lists[index].files == 0 {
            lists[index].error = error
            lists[index].exitStatus = 1
        } else {
            lists.append(Summary(list: list, error: error, exitStatus: 1))
        }
        exitStatus = Self.worse(exitStatus, 1)
    }

    /// 1 (incomplete) beats 2 (mismatch) beats 0.
    static func worse(_ a: Int32, _ b: Int32) -> Int32 {
        a == 1 || b == 1 ? 1 : max(a, b)
    }

    /// Every list's counts added up.
    var summary: Summary {
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

    func encode(to encoder: any Encoder) throws {
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

/// The verify listing on standard output, written 64 KiB at a time (not a write per file).
struct ListingWriter {
    /// A progress line is drawn on standard error: clear it before the listing goes on.
    let clearsProgressLine: Bool
    private var pending: [UInt8] = []

    init(clearsProgressLine: Bool) { self.clearsProgressLine = clearsProgressLine }

    mutating func append(_ line: String) throws {
        pending += PathName.bytes(of: line)
        pending.append(0x0A)
        if pending.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        guard !pending.isEmpty else { return }
        if clearsProgressLine { writeToStandardError("\r\u{1B}[K") }
        try reportingFailures { try StandardStreams.writeOutput(pending) }
        pending.removeAll(keepingCapacity: true)
    }
}
