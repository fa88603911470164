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
                'gcdcat repair' can rebuild; 1 not repairable, or the .par2 is unusable. \
                A damaged or missing file whose bytes lie whole under another name (swapped \
                or renamed files) is found among the set's other files and any files given \
                after the .par2 (as 'par2 v NAME.par2 FILE...'): same size, the MD5 of the \
                first 16 KiB the set gives, then the whole file's MD5. It is printed as \
                DAMAGED (or MISSING), found whole in FILE, and needs no recovery block.

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
                  gcdcat verify movie.mkv.par2 'movie.mkv.002 (1)'
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

        @OptionGroup var objectStore: ObjectReadOptionGroup

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

        /// What ``ListCheck`` checks each list with.
        private var checkOptions: ListCheck.Options {
            ListCheck.Options(
                forced: algorithm, jobs: jobs, ignoreMissing: ignoreMissing, followLinksOutside: followLinksOutside,
                trustServer: objectStore.trustsStoredChecksums, keepsFiles: json,
                showsProgress: !quiet && !status && isatty(STDERR_FILENO) == 1)
        }

        /// Says a list's notice on standard error: a malformed line (it fails the run, so
        /// --quiet says it too), or an algorithm only assumed from its values' length (--quiet
        /// leaves it to the note on a guess that no file confirmed; --json to `guessed`).
        private func say(_ notice: ListCheck.Notice, shown: String) {
            guard !status && !json else { return }
            switch notice {
            case .malformed(let error): writeToStandardError("gcdcat: \(error)\n")
            case .moreMalformed(let more):
                writeToStandardError(
                    "gcdcat: \(shown.displayPath): \(counted(more, "more malformed line")) not shown\n")
            case .guess(let note):
                if !quiet { writeToStandardError("gcdcat: \(shown.displayPath): \(note)\n") }
            case .note(let note):
                if !quiet { writeToStandardError("gcdcat: note: \(note)\n") }
            }
        }

        /// Prints how one list's check ended: after an unusable list, its error (and a hint);
        /// after an interrupted one, its listing so far and the error; after a checked one, its
        /// listing and what follows it (``sayAfterList(_:list:found:)``).
        private func sayEnd(_ end: VerifyJob.ListEnd, of list: String, listing: inout ListingWriter) throws {
            switch end {
            case .unusable(let error):
                listing = ListingWriter(clearsProgressLine: listing.clearsProgressLine)  // nothing of it is shown
                writeToStandardError("gcdcat: \(error)\n")
                if !status, let hint = NotAListHint.hint(for: list, error: error) {
                    writeToStandardError("gcdcat: \(hint)\n")
                }
            case .interrupted(let error):  // the list could not be read again, or changed
                try listing.flush()
                writeToStandardError("gcdcat: \(error)\n")
            case .checked(let found):
                try listing.flush()
                sayAfterList(list == "-" ? "standard input" : list, list: list, found: found)
            }
        }

        /// What follows a list's listing on standard error: its summary, the unconfirmed guesses,
        /// a note for each `missing` file whose look-alike name (NFC for NFD) lies beside it, the
        /// --ignore-missing hint, or that --ignore-missing left the list with no file verified.
        private func sayAfterList(_ shown: String, list: String, found: ListCheck.Found) {
            let summary = found.summary
            var objectNote = ""
            if let reading = found.objectReading {
                objectNote =
                    "; \(ByteSize.humanReadable(Int64(reading.bytesRead))) read"
                    + (reading.fromServer > 0
                        ? ", \(reading.fromServer) crc32s the server's (x-amz-checksum-crc32), not read" : "")
            }
            if ignoreMissing && summary.files == 0 {
                if !json { writeToStandardError("gcdcat: \(shown.displayPath): no file was verified\n") }
            } else if !status && !json && (!quiet || summary.exitStatus != 0) {
                writeToStandardError("gcdcat: \(shown.displayPath): \(summary.text)\(objectNote)\n")
            }
            guard !status && !json else { return }
            for note in found.unconfirmed.map({
                ChecksumListVerifier.unconfirmedNote($0, confirmed: found.confirmed.contains($0))
            }) {
                writeToStandardError("gcdcat: \(shown.displayPath): \(note)\n")
            }
            for pair in LookAlikeNames.find(for: found.missing) {
                let note = LookAlikeNames.note(missing: pair.missing, lookAlike: pair.lookAlike)
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
            let clock = ProcessClock()
            let options = checkOptions
            let job = VerifyJob(lists: lists, options: options, unlisted: unlisted)
            var listing = ListingWriter(clearsProgressLine: options.showsProgress)
            let (printsListing, printsOK) = (!status && !json, !quiet)
            var report = try reportingFailures {
                try job.run(
                    makeStore: { try reportingFailures { try objectStore.makeStore() } },
                    notice: { say($1, shown: $0 == "-" ? "standard input" : $0) },
                    listed: { outcome in
                        if printsListing && (printsOK || outcome.status != .ok) { try listing.append(outcome.line) }
                    },
                    ended: { try sayEnd($1, of: $0, listing: &listing) })
            }
            if let found = report.unlisted, !status && !json {
                for path in found { try write("\(path.displayPath): UNLISTED\n") }
            }
            if json {
                report.inputs = lists
                report.wallSeconds = roundedToMicroseconds(clock.elapsed().wall)
                try reportingFailures { try StandardStreams.writeOutput(JSONDocument.encode(report)) }
            }
            if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
        }

        private func write(_ text: String) throws {
            try reportingFailures { try StandardStreams.writeOutput(PathName.bytes(of: text)) }
        }
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
