import Dispatch
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Checks every file a ``ChecksumList`` names against its expected value.
public enum ChecksumListVerifier {
    public enum Status: Sendable, Equatable {
        case ok
        case failed(actual: String)
        case missing
        case unreadable(GCDCatError)
        case rejected(String)
        /// The value differs, but its algorithm was only guessed from its length and no file of
        /// that guess matched: the guess, not the file, is probably wrong
        /// (see ``confirmingGuesses(_:)``).
        case unconfirmed(actual: String)

        /// `OK`, `FAILED`, … as the listing and JSON name it.
        public var word: String {
            switch self {
            case .ok: return "OK"
            case .failed: return "FAILED"
            case .missing: return "MISSING"
            case .unreadable: return "UNREADABLE"
            case .rejected: return "REJECTED"
            case .unconfirmed: return "UNCONFIRMED"
            }
        }
    }

    public struct Outcome: Sendable, Equatable {
        public var entry: ChecksumList.Entry
        /// The path that was (or would have been) opened.
        public var path: String
        public var status: Status

        public init(entry: ChecksumList.Entry, path: String, status: Status) {
            self.entry = entry
            self.path = path
            self.status = status
        }

        /// `name: OK`, `name: FAILED (expected …, got …)`, …, for the verify listing.
        public var line: String {
            let name = PathName.listing(entry.name)
            switch status {
            case .ok: return "\(name): OK"
            case .failed(let actual):
                let algorithm = entry.algorithm == .crc32 ? "" : "\(entry.algorithm.rawValue) "
                return "\(name): FAILED (expected \(algorithm)\(entry.expected), got \(actual))"
            case .missing: return "\(name): MISSING"
            case .unreadable(let error): return "\(name): UNREADABLE (\(error))"
            case .rejected(let why): return "\(name): REJECTED (\(why); not opened)"
            case .unconfirmed(let actual):
                let algorithm = entry.algorithm
                return "\(name): UNCONFIRMED (not \(algorithm.rawValue)? assumed from \(algorithm.hexLength) hex "
                    + "digits; expected \(entry.expected), got \(actual))"
            }
        }
    }

    /// The path `name` in the list at `listPath` stands for: relative to the list's folder;
    /// a list read from standard input (`-`) names paths relative to the current folder.
    public static func resolve(_ name: String, listPath: String) -> String {
        if listPath == "-" { return name }
        let folder = splitPath(listPath).directory
        return folder == "." && !listPath.hasPrefix("./") ? name : "\(folder)/\(name)"
    }

    /// The bytes verifying `list` will read: the sizes of the listed files that exist (for a
    /// progress bar's total; a file that changes meanwhile only makes the bar less exact).
    public static func totalBytes(_ list: ChecksumList, listPath: String) -> Int64 {
        list.entries.reduce(0) { total, entry in
            guard entry.rejection == nil else { return total }
            return total + (regularFileSize(resolve(entry.name, listPath: listPath)) ?? 0)
        }
    }

    /// Checks every entry; at most `jobs` files are read at once, each worker thread with its
    /// own buffer and digest context (``HashWorker``). A crc32/adler32 file is split across the
    /// threads that no other file holds when it starts: one large file among small ones still
    /// gets them.
    ///
    /// A name that resolves outside the list's folder through a symlink (`root -> /`, then
    /// `root/etc/shadow`) is REJECTED and not opened, unless `followLinksOutside`.
    public static func verify(
        _ list: ChecksumList, listPath: String, jobs: Int, followLinksOutside: Bool = false,
        counter: TransferCounter? = nil
    ) -> [Outcome] {
        let folder = ListFolder(listPath: listPath, followLinksOutside: followLinksOutside)
        return check(list.entries, folder: folder, jobs: jobs, counter: counter)
    }

    /// `entries`' outcomes, in their order, from one pass of the workers: per file an `openat2`
    /// that refuses a symlink out of `folder` (``ListFolder``), an `fstat`, the reads and a
    /// `close`. ``StreamingListVerifier`` calls this a window at a time.
    static func check(
        _ entries: [ChecksumList.Entry], folder: ListFolder, jobs: Int, counter: TransferCounter?
    ) -> [Outcome] {
        let jobs = max(1, jobs)
        let active = Atomic<Int>(0)
        return ParallelMap.collect(
            count: entries.count, jobs: jobs, pool: .threads,
            makeState: { Result { () throws(GCDCatError) in try HashWorker() } }
        ) { worker, index in
            let entry = entries[index]
            let path = folder.path(of: entry.name)
            if let rejection = entry.rejection {
                return Outcome(entry: entry, path: path, status: .rejected(rejection))
            }
            let running = active.wrappingAdd(1, ordering: .relaxed).newValue
            defer { active.wrappingSubtract(1, ordering: .relaxed) }
            let status = status(
                of: path, entry: entry, folder: folder, worker: worker, jobs: max(1, jobs - (running - 1)),
                counter: counter)
            return Outcome(entry: entry, path: path, status: status)
        }
    }

    /// The size of the regular file at `path`, or nil.
    static func regularFileSize(_ path: String) -> Int64? {
        guard let info = try? Syscall.statIfExists(path), (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// What checking `path` (`entry`'s name in `folder`) finds, on a worker's thread.
    static func status(
        of path: String, entry: ChecksumList.Entry, folder: ListFolder, worker: Result<HashWorker, GCDCatError>,
        jobs: Int, counter: TransferCounter?
    ) -> Status {
        counter?.setCurrent(path)
        do {
            let worker = try worker.get()
            switch try folder.open(entry.name, path: path) {
            case .rejected(let why): return .rejected(why)
            case .file(let descriptor):
                let actual = try worker.hash(
                    descriptor, path: path, algorithm: entry.algorithm, jobs: jobs, counter: counter)
                return try ListVerdict.status(of: entry, actual: actual) {
                    try worker.hash(descriptor, path: path, algorithm: $0, jobs: jobs, counter: nil)
                }
            }
        } catch let error as GCDCatError where error.code == .missingPart {
            return .missing
        } catch let error as GCDCatError {
            return .unreadable(error)
        } catch {
            return .unreadable(GCDCatError(.io, path: path, message: "\(error)"))
        }
    }

    /// `outcomes` with a guess that nothing confirmed said as such: for each algorithm that was
    /// guessed from a length (``ChecksumList/Entry/guessed``), when not one file checked with it
    /// matched and at least one differed, every differing one becomes `.unconfirmed`, not
    /// `.failed`. A list from one tool holds one algorithm, so one match confirms the guess and
    /// the others' differences are then real (`FAILED`, exit 2); with no match, a wrong guess
    /// (a `b2sum` list read as sha512) cannot be told from corruption, and is never reported as
    /// corruption. Missing, unreadable and rejected files confirm nothing either way.
    public static func confirmingGuesses(_ outcomes: [Outcome]) -> [Outcome] {
        let confirmed = ListVerdict.confirmed(outcomes)
        return outcomes.map { ListVerdict.settled($0, confirmed: confirmed) }
    }

    /// The note for a guess of `algorithm` that no file confirmed, naming the fix.
    public static func unconfirmedNote(_ algorithm: HashAlgorithm, confirmed: Bool = false) -> String {
        let others = algorithm.alternatives.map { "--algorithm \($0.rawValue)" }
        if confirmed {
            // Other lines matched the guess: these match another algorithm of that length.
            return "some \(algorithm.hexLength)-digit values match as \(algorithm.rawValue) and others as another "
                + "algorithm of that length: the list mixes algorithms (joined from two tools' lists?), so those "
                + "files are UNCONFIRMED, not corrupt; check them with \(others.joined(separator: " or "))"
        }
        return "no file matched its \(algorithm.hexLength)-digit value as \(algorithm.rawValue), which was only "
            + "assumed from the length: the list is probably of another algorithm, not the files corrupt; "
            + (others.isEmpty
                ? "give the list's algorithm with --algorithm"
                : "try \(others.joined(separator: " or "))")
    }

    /// 0 when every file is OK; 1 when any is missing, unreadable, rejected or unconfirmed (the
    /// check could not be completed); otherwise 2 when any failed its checksum.
    public static func exitStatus(_ outcomes: [Outcome]) -> Int32 {
        exitStatus(outcomes.map(\.status))
    }

    /// The same rule over bare statuses.
    static func exitStatus(_ statuses: [Status]) -> Int32 {
        let incomplete = statuses.contains {
            switch $0 {
            case .missing, .unreadable, .rejected, .unconfirmed: return true
            case .ok, .failed: return false
            }
        }
        if incomplete { return 1 }
        return statuses.allSatisfy { $0 == .ok } ? 0 : 2
    }
}
