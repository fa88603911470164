/// Verifies a checksum list as it reads it, a window of entries at a time, so that memory
/// stays flat however many files it names: `verify` of 100,000 files holds 4,096 entries.
///
/// A list is read in passes over its ``ChecksumListSource`` (a file is re-read from its start,
/// not held): ``scan()`` reads every line first, so a name listed twice refuses the whole list
/// before any file is read, as for a list read whole, and each malformed line is found (and
/// skipped in every pass, as `sha256sum -c` skips it, for the run to report); ``confirmedGuesses(_:)``
/// checks, where an algorithm was only assumed from a length, files of that guess until one
/// matches; ``verify(confirmed:counter:emit:)`` then checks every entry and hands each outcome
/// over in list order, with an unconfirmed guess's mismatch already `.unconfirmed`
/// (``ListVerdict/settled(_:confirmed:)``, as for a list object).
///
/// What the passes cost: the list is parsed three times at most (a list of 100,000 sha256
/// lines in milliseconds each); "listed twice" is found in the 1 MiB of a ``NameSieve``
/// however long the list, and one more pass, only when the sieve saw names that may repeat,
/// checks those exactly. A guess that no file confirms reads the files of that guess twice: the
/// list is then of another algorithm, and the run reports it.
public struct StreamingListVerifier {
    public let source: ChecksumListSource
    public let forced: HashAlgorithm?
    public let jobs: Int
    public let followLinksOutside: Bool
    /// Entries in flight at once.
    public var window = 4096
    /// The malformed lines ``scan()`` found: later passes skip as many, and no more (a list
    /// that changed meanwhile).
    private var malformedInScan = 0
    /// The path whose folder the listed names are relative to: the source's
    /// (``ChecksumListSource/namesRelativeTo``), or `-`, the current folder, once
    /// ``readsFromCurrentFolder()`` found the names there and not beside the list.
    public private(set) var namesRelativeTo: String

    public init(_ source: ChecksumListSource, forced: HashAlgorithm?, jobs: Int, followLinksOutside: Bool) {
        self.source = source
        namesRelativeTo = source.namesRelativeTo
        self.forced = forced
        self.jobs = jobs
        self.followLinksOutside = followLinksOutside
    }

    /// What reading the whole list found.
    public struct Scan: Sendable {
        /// Entries in the list.
        public var count: Int
        /// The algorithms assumed from a value's length, in the order first seen.
        public var guessed: [HashAlgorithm]
        /// Lines that are no checksum line, skipped.
        public var malformedCount = 0
        /// The errors of the first 100 of them, each naming its line.
        public var malformed: [GCDCatError] = []

        /// One line per guess, for standard error (``ChecksumList/guessNotes``).
        public var guessNotes: [String] { guessed.map(ChecksumList.guessNote) }
    }

    /// Reads every line of the list.
    ///
    /// ## Errors
    /// Those of ``ChecksumList/load(_:forced:)``, but for a malformed line in a list that has
    /// entries: that is counted in the scan.
    public mutating func scan() throws -> Scan {
        var parser = ChecksumLineParser(path: source.shown, forced: forced, duplicates: .sieve)
        parser.existing = ChecksumList.existsBeside(listPath: namesRelativeTo)
        parser.skipsMalformedLines = true
        var reached = 0
        do {
            try source.forEachLine { line, number in
                reached = number
                _ = try parser.entry(line, number: number)
            }
            try parser.finish()
        } catch {
            // A name listed twice before the line that failed is what one exact pass says first.
            try refuseListedTwice(among: parser.candidates, before: reached + 1)
            throw error
        }
        try refuseListedTwice(among: parser.candidates, before: .max)
        malformedInScan = parser.malformedCount
        return Scan(
            count: parser.count, guessed: parser.guessed, malformedCount: parser.malformedCount,
            malformed: parser.malformed)
    }

    /// Throws "listed twice" for the first line before line `limit` that repeats an earlier
    /// name among the sieve's `candidates`, reading the list again only when there are any.
    private func refuseListedTwice(among candidates: Set<UInt64>, before limit: Int) throws {
        guard !candidates.isEmpty else { return }
        var parser = ChecksumLineParser(path: source.shown, forced: forced, duplicates: .among(candidates))
        parser.existing = ChecksumList.existsBeside(listPath: namesRelativeTo)
        parser.skipsMalformedLines = true
        do {
            try source.forEachLine { line, number in
                guard number < limit else { throw Stop() }
                _ = try parser.entry(line, number: number)
            }
        } catch is Stop {}
    }

    /// The bytes checking will read: the sizes of the listed regular files (for a progress
    /// bar's total).
    public func totalBytes() throws -> Int64 {
        var total: Int64 = 0
        try forEachEntry { entry in
            guard entry.rejection == nil else { return true }
            let path = ChecksumListVerifier.resolve(entry.name, listPath: namesRelativeTo)
            total += ChecksumListVerifier.regularFileSize(path) ?? 0
            return true
        }
        return total
    }

    /// Reads the names from the current folder when none of them is beside the list but some
    /// are there: a list kept in another folder (`cd parts; gcdcat verify ../sums/SHA256SUMS`),
    /// read as `sha256sum -c` reads every list. Names are never read from both folders. Returns
    /// whether it did.
    ///
    /// ## Errors
    /// `.io` when the list cannot be read again.
    public mutating func readsFromCurrentFolder() throws -> Bool {
        guard namesRelativeTo != "-", !Self.isCurrentFolder(splitPath(namesRelativeTo).directory) else { return false }
        let beside = ChecksumList.existsBeside(listPath: namesRelativeTo)
        let here = ChecksumList.existsBeside(listPath: "-")
        var anyBeside = false
        var anyHere = false
        try forEachEntry { entry in
            if beside(entry.name) {
                anyBeside = true
                return false
            }
            if !anyHere { anyHere = here(entry.name) }
            return true
        }
        guard !anyBeside, anyHere else { return false }
        namesRelativeTo = "-"
        return true
    }

    /// Whether `folder` is the current folder (by device and inode: `./`, or its absolute path).
    private static func isCurrentFolder(_ folder: String) -> Bool {
        guard let here = try? Syscall.statIfExists("."), let there = try? Syscall.statIfExists(folder) else {
            return false
        }
        return here.st_dev == there.st_dev && here.st_ino == there.st_ino
    }

    /// The algorithms among `guessed` that at least one file matches: files of each guess are
    /// checked, a few at a time, until one matches.
    public func confirmedGuesses(_ guessed: [HashAlgorithm]) throws -> Set<HashAlgorithm> {
        var unconfirmed = Set(guessed)
        guard !unconfirmed.isEmpty else { return [] }
        var probe = self
        probe.window = max(16, jobs)  // the first few files usually settle it
        try probe.forEachWindow(where: { $0.guessed && unconfirmed.contains($0.algorithm) }, counter: nil) {
            for outcome in $0 where outcome.status == .ok { unconfirmed.remove(outcome.entry.algorithm) }
            return !unconfirmed.isEmpty
        }
        return Set(guessed).subtracting(unconfirmed)
    }

    /// Checks every entry, a window at a time, and calls `emit` with each outcome in list order.
    /// A mismatch under a guessed algorithm outside `confirmed` is `.unconfirmed`.
    ///
    /// ## Errors
    /// `.io` when the list cannot be read again; `.malformedManifest` when it changed since
    /// ``scan()`` and now holds a malformed line; and `emit`'s.
    public func verify(
        confirmed: Set<HashAlgorithm>, counter: TransferCounter?,
        emit: (ChecksumListVerifier.Outcome) throws -> Void
    ) throws {
        try forEachWindow(where: { _ in true }, counter: counter) { outcomes in
            for outcome in outcomes { try emit(ListVerdict.settled(outcome, confirmed: confirmed)) }
            return true
        }
    }

    /// Calls `body` with the outcomes of each window of the entries `included` selects, until
    /// it returns false.
    ///
    /// A window is checked on the workers while this thread parses the next one and hands over
    /// the previous one's outcomes: parsing, checking and printing one after another left the
    /// workers idle while the list was read and the results printed. Two windows are in flight
    /// at most, so memory stays flat.
    private func forEachWindow(
        where included: (ChecksumList.Entry) -> Bool, counter: TransferCounter?,
        _ body: ([ChecksumListVerifier.Outcome]) throws -> Bool
    ) throws {
        let folder = ListFolder(listPath: namesRelativeTo, followLinksOutside: followLinksOutside)
        let jobs = self.jobs
        var checking: BackgroundWork<[ChecksumListVerifier.Outcome]>?
        // Whatever ends the pass, no check outlives it.
        defer { _ = checking?.outcome() }
        var going = true
        func start(_ next: [ChecksumList.Entry]?) throws {
            let previous = checking
            checking = next.map { entries in
                BackgroundWork(ownThread: true) {
                    ChecksumListVerifier.check(entries, folder: folder, jobs: jobs, counter: counter)
                }
            }
            guard let previous else { return }
            let outcomes = try previous.wait()
            if going { going = try body(outcomes) }
        }
        var pending: [ChecksumList.Entry] = []
        pending.reserveCapacity(window)
        try forEachEntry { entry in
            guard included(entry) else { return true }
            pending.append(entry)
            if pending.count == window {
                try start(pending)
                pending = []
                pending.reserveCapacity(window)
            }
            return going
        }
        if going && !pending.isEmpty { try start(pending) }
        try start(nil)
    }

    /// Calls `body` with each entry in list order until it returns false. Names listed twice
    /// were refused by ``scan()``; later passes do not keep names again.
    private func forEachEntry(_ body: (ChecksumList.Entry) throws -> Bool) throws {
        var parser = ChecksumLineParser(path: source.shown, forced: forced, duplicates: .none)
        parser.existing = ChecksumList.existsBeside(listPath: namesRelativeTo)
        parser.skipsMalformedLines = true
        let tolerated = malformedInScan
        do {
            try source.forEachLine { line, number in
                let entry = try parser.entry(line, number: number)
                if parser.malformedCount > tolerated, let changed = parser.lastMalformed { throw changed }
                guard let entry else { return }
                if try !body(entry) { throw Stop() }
            }
        } catch is Stop {}
    }

    /// Ends a pass early.
    private struct Stop: Error {}
}
