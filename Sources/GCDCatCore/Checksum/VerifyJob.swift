import GCDCatS3

/// What `gcdcat verify` runs: each checksum list in turn (``ListCheck``: a local one streamed,
/// the list objects on one store made for them all), then the `--unlisted` folder's files that no
/// list named; or, over `.par2` files, each PAR2 set (``par2(_:jobs:checked:failed:)``).
///
/// The CLI prints what it hands over: a list's notices and listed outcomes as they come, then
/// how the list ended (``ListEnd``), and at the end the ``VerifyReport``.
public struct VerifyJob {
    /// How one list's check ended.
    public enum ListEnd {
        /// Checked: what follows its listing.
        case checked(ListCheck.Found)
        /// Stopped after its listing began (``ListCheck/Interrupted``): the list could not be read
        /// again, or changed.
        case interrupted(GCDCatError)
        /// Unusable: nothing of it was checked.
        case unusable(GCDCatError)
    }

    /// The lists, as given (`-` is standard input, `s3://` ones are objects).
    public var lists: [String]
    public var options: ListCheck.Options
    /// --unlisted: the folder whose files no list names are reported.
    public var unlisted: String?

    public init(lists: [String], options: ListCheck.Options, unlisted: String?) {
        self.lists = lists
        self.options = options
        self.unlisted = unlisted
    }

    /// Checks every list, in order, then finds the unlisted files. `makeStore` is called once,
    /// for the first list object; `notice` and `listed` receive each list's notices and listed
    /// outcomes as they come, `ended` how it ended (an unusable or interrupted list is failed in
    /// the report; one that --ignore-missing left with no file verified too).
    ///
    /// ## Errors
    /// A folder --unlisted names that cannot be listed, before any list is read; and what the
    /// closures throw.
    public func run(
        makeStore: () throws -> CountingObjectStore, notice: (_ list: String, ListCheck.Notice) -> Void,
        listed: (ChecksumListVerifier.Outcome) throws -> Void, ended: (_ list: String, ListEnd) throws -> Void
    ) throws -> VerifyReport {
        // A folder that cannot be listed fails now, not after every file was read.
        if let unlisted { _ = try directoryEntries(unlisted) }
        var report = VerifyReport()
        var known: UnlistedFiles.Known? = unlisted == nil ? nil : UnlistedFiles.Known()
        var store: CountingObjectStore?
        for list in lists {
            let end = try check(
                list, store: &store, report: &report, known: &known, makeStore: makeStore,
                notice: { notice(list, $0) }, listed: listed)
            try ended(list, end)
        }
        if let store { report.noteObjectStore(store.counts) }
        if let unlisted {
            report.unlisted = try UnlistedFiles.find(
                in: unlisted, known: known ?? UnlistedFiles.Known(), lists: lists.filter { $0 != "-" })
        }
        return report
    }

    /// Checks one list (``ListCheck``) and says how it ended; the report fails an unusable or
    /// interrupted list, and one --ignore-missing left with no file verified.
    private func check(
        _ list: String, store: inout CountingObjectStore?, report: inout VerifyReport,
        known: inout UnlistedFiles.Known?, makeStore: () throws -> CountingObjectStore,
        notice: (ListCheck.Notice) -> Void, listed: (ChecksumListVerifier.Outcome) throws -> Void
    ) throws -> ListEnd {
        let found: ListCheck.Found
        do {
            if ObjectLocation.isObjectPath(list) {
                let objects = try store ?? makeStore()
                store = objects  // one client for every list object
                found = try ListCheck.object(
                    list, store: objects, options: options, report: &report, notice: notice, listed: listed)
            } else {
                found = try ListCheck.local(
                    list, options: options, report: &report, known: &known, notice: notice, listed: listed)
            }
        } catch let interrupted as ListCheck.Interrupted {
            report.failList(list, error: interrupted.error)
            return .interrupted(interrupted.error)
        } catch let error as GCDCatError {
            report.failList(list, error: error)
            return .unusable(error)
        }
        if options.ignoreMissing && found.summary.files == 0 {
            let shown = list == "-" ? "standard input" : list
            report.failList(list, error: GCDCatError(.missingPart, path: shown, message: "no file was verified"))
        }
        return .checked(found)
    }

    /// Loads and verifies each PAR2 set (`lists`, each its index or a volume) in order, with
    /// `jobs`: `checked` receives each set verified, `failed` the error of one that could not be
    /// loaded or read, `repeated` each list that is a file of a set verified before it (the
    /// volumes of `verify *.par2`: par2 verifies such a set once, gcdcat verified it per file).
    ///
    /// ## Errors
    /// What `checked` throws.
    public static func par2(
        _ lists: [String], extras: [String] = [], jobs: Int,
        checked: (_ list: String, Par2Verification) throws -> Void,
        failed: (_ list: String, GCDCatError) -> Void,
        repeated: (_ list: String, _ verifiedAs: String) -> Void = { _, _ in }
    ) throws {
        // A set's files are found in its .par2's folder: the same set id elsewhere is other files.
        var done: [(list: String, id: Par2Hash, folder: String, files: [String])] = []
        for list in lists {
            // A file read with a set already verified is not even loaded again.
            if let earlier = done.first(where: { $0.files.contains { samePath($0, list) } }) {
                repeated(list, earlier.list)
                continue
            }
            let verification: Par2Verification
            do {
                let set = try Par2RecoverySet.load(indexPath: list)
                if let earlier = done.firstIndex(where: { $0.id == set.setID && samePath($0.folder, set.directory) }) {
                    done[earlier].files += set.ownFiles
                    repeated(list, done[earlier].list)
                    continue
                }
                verification = try Par2Verification.checking(set, extras: extras, jobs: jobs)
            } catch let error as GCDCatError {
                failed(list, error)
                continue
            }
            done.append((list, verification.set.setID, verification.set.directory, verification.set.ownFiles))
            try checked(list, verification)
        }
    }
}
