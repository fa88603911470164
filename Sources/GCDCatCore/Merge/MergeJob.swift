import GCDCatS3
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One merge as the user asked for it, local or object, parts and output: the single entry the
/// `merge` command calls. It resolves the parts from their ``PartSource``, derives and checks
/// the output, verifies against the manifest, runs, and returns the report; the command only
/// parses its options into one and prints what comes back.
///
/// Local parts go through ``MergeOperation`` (into a file, standard output or an object);
/// object parts through ``ObjectDiscovery`` and ``ObjectSetMerge`` (on the server, or
/// downloaded). Several local sets (`gcdcat *.001`) are merged one by one (``mergeSets(each:measure:notice:)``).
public struct MergeJob {
    public var parts: PartSource
    /// `-o` as given: a file, a folder (`DIR/`), `-`, or an `s3://` object or prefix.
    public var output: String?
    public var manifest: String?
    /// `.required` with `--verify` or `--remove-parts`, `.disabled` with `--no-verify`.
    public var manifestPolicy: ManifestPolicy
    public var asGiven = false
    public var strategy: MergeStrategyKind = .auto
    public var limits: ChunkLimits = .default
    /// Workers for local work, and for work whose parts or output are objects.
    public var jobs = 2
    public var objectJobs = 8
    public var overwrite = false
    public var fsync = false
    public var allowDuplicates = false
    /// Delete the parts after a verified, fsynced merge (local parts and an SFV manifest only).
    public var removeParts = false
    /// Take an object part's crc32 from the server or gcdcat's record instead of reading it.
    public var trustStoredChecksums = true
    /// What a md5/sha list's untagged lines are (`--algorithm`).
    public var listAlgorithm: HashAlgorithm?
    /// Show progress lines (on a terminal); off with `--quiet`.
    public var showsProgress = true
    /// The store every `s3://` name goes through; called only when one is needed.
    public var makeStore: () throws -> CountingObjectStore

    public init(
        parts: PartSource, output: String?, manifest: String?, manifestPolicy: ManifestPolicy,
        makeStore: @escaping () throws -> CountingObjectStore
    ) {
        self.parts = parts
        self.output = output
        self.manifest = manifest
        self.manifestPolicy = manifestPolicy
        self.makeStore = makeStore
    }

    /// Time and memory of a measured run.
    public typealias Measurement = (time: (wall: Double, user: Double, system: Double), memory: MemorySample)

    /// Wraps a run: shows progress over `total` bytes under `label`, hands `body` the byte
    /// counter, and measures it from `since`.
    public typealias Measure = (
        _ label: String, _ total: Int64, _ since: ProcessClock, _ body: (TransferCounter) throws -> Void
    ) throws -> Measurement

    /// Merges one set (the parts as given, a first part, or a checksum list) and returns its
    /// report; nil when there was nothing to measure.
    ///
    /// ## Errors
    /// Those of ``MergeOperation/merge(notice:measure:)`` or ``ObjectSetMerge/run(counter:)``;
    /// ``FailureAfterPublishing`` when `--remove-parts` could not remove a part of a published merge.
    public func run(notice: (MergeOperation.Notice) -> Void, measure: Measure) throws -> RunReport? {
        switch parts {
        case .files(let paths): try mergeFiles(paths, notice: notice, measure: measure)
        case .objects(let names): try mergeObjects(names, notice: notice, measure: measure)
        }
    }

    /// The local sets among the parts: one unless several sets were given (`gcdcat *.001`);
    /// object parts are always one.
    public func sets() throws -> [SetGrouping.Group] {
        guard case .files(let paths) = parts else { return [] }
        return try Self.sets(paths, asGiven: asGiven, manifest: manifest, listAlgorithm: listAlgorithm)
    }

    /// The local sets `paths` give: each set's parts, or, for one list given alone that names
    /// several sets (`gcdcat all.sfv`), each set's first part checked against it.
    public static func sets(
        _ typed: [String], asGiven: Bool, manifest: String?, listAlgorithm: HashAlgorithm? = nil
    ) throws -> [SetGrouping.Group] {
        let paths = PartArguments.oneSpelling(typed)
        // Only a small regular file is read for the sets it names, even one named as a list.
        if manifest == nil,
            let list = try SetFromList.loneList(
                paths, asGiven: asGiven,
                isNumberedPart: { NumberedName.readings(of: $0).contains(where: { $0.alphabet == .digits }) }),
            try SetFromList.readsAsList(list),
            let sets = try? SetFromList.sets(of: list, algorithm: listAlgorithm)
        {
            return sets
        }
        let groups = try SetGrouping.group(paths, asGiven: asGiven)
        // Only lists stand for sets; parts given twice are refused as such by the caller.
        guard groups.count > 1, !asGiven, manifest == nil,
            groups.contains(where: { $0.arguments.count == 1 && SetFromList.isNamedAsList($0.arguments[0]) })
        else { return groups }
        return distinctSets(groups, listAlgorithm: listAlgorithm)
    }

    /// `groups` with a checksum list that names several sets (`all.sfv` among `gcdcat *.sfv`)
    /// standing for those sets, and each set once: the same set named by two lists (its own
    /// `a.bin.sfv` and `all.sfv`), or by a list and its first part, is merged once, by the
    /// first that names it.
    static func distinctSets(_ groups: [SetGrouping.Group], listAlgorithm: HashAlgorithm?) -> [SetGrouping.Group] {
        var distinct: [SetGrouping.Group] = []
        var seen = Set<String>()
        for group in groups {
            let given = group.arguments.count == 1 ? group.arguments[0] : nil
            let isList = given.map(SetFromList.isNamedAsList) ?? false
            var members = [(group: group, first: group.arguments.first)]
            if isList, let list = given {
                if let sets = try? SetFromList.sets(of: list, algorithm: listAlgorithm), sets.count > 1 {
                    members = sets.map { ($0, $0.arguments.first) }
                } else if let first = try? SetFromList.firstPart(of: list, algorithm: listAlgorithm) {
                    members = [(group, first)]
                }
            }
            for member in members {
                // A set is known by its first part's real path.
                if let first = member.first, !seen.insert(Syscall.realPath(first) ?? first).inserted { continue }
                distinct.append(member.group)
            }
        }
        return distinct
    }

    /// `-o`'s value as an output: `-`, a file, or an `s3://` object reached through `store`.
    static func target(_ value: String, store: CountingObjectStore?) throws -> OutputTarget {
        if value == "-" { return .standardOutput }
        // A folder (`s3://b/folder/`) is parsed with a stand-in last character, removed below;
        // not `.`, which names a segment no URL path can carry and is refused.
        guard let location = try ObjectLocation(parsing: value.hasSuffix("/") ? value + "_" : value) else {
            return .path(value)
        }
        guard let store else { throw GCDCatError(.invalidInput, path: value, message: "no object store") }
        // `s3://b/folder/` keeps its slash: the set's name goes under it.
        var folderAware = location
        if value.hasSuffix("/") { folderAware.key.removeLast() }
        return .object(ObjectTarget(location: folderAware, store: store))
    }

    /// Whether `path` is an existing folder (following a symlink).
    public static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
