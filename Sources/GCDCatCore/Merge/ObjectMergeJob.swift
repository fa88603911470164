import GCDCatS3
import GCDCatSystem

extension MergeJob {
    /// Parts that are objects: resolved from a listing (or HEADed as listed), checked against
    /// their manifest object, and merged on the server (`-o s3://…`, the default) or
    /// downloaded (`-o FILE`, `-o -`).
    func mergeObjects(
        _ names: [String], notice: (MergeOperation.Notice) -> Void, measure: Measure
    ) throws -> RunReport? {
        let store = try makeStore()
        let (parts, manifestObject, loaded, derived) = try objectSet(names, store: store, notice: notice)
        let target = try MergeOutputName.resolve(
            try output.map { try Self.target($0, store: store) },
            derived: derived.map { .object(ObjectTarget(location: $0, store: store)) }, first: names[0])
        var merge = ObjectSetMerge(
            store: store, parts: parts, manifest: manifestObject, output: target, jobs: objectJobs,
            overwrite: overwrite, fsync: fsync)
        merge.loadedManifest = loaded
        merge.allowDuplicates = allowDuplicates
        merge.trustStoredChecksums = trustStoredChecksums
        let total = Int64(parts.reduce(0) { $0 + $1.size })
        var result: ObjectSetMerge.Result?
        let measurement = try measure(target.displayName, total, ProcessClock()) { result = try merge.run(counter: $0) }
        guard let result else { return nil }
        for note in result.listNotes { notice(.note(note)) }
        if let manifestObject, !parts.isEmpty {
            notice(.verified(parts: result.verifiedParts, manifest: manifestObject.description))
        }
        let summary = MergeSummary(
            strategy: target.isObject ? "server-copy" : "ranged-get", partCount: parts.count,
            inputs: parts.map(\.location.description),
            output: target == .standardOutput ? nil : target.displayName, manifest: manifestObject?.description,
            result: MergeResult(
                bytes: result.bytes, chunks: Int64(store.counts.requests), crc32: result.crc32,
                notes: Self.notes(result)),
            limits: limits, jobs: objectJobs,
            objectStore: ObjectStoreFacts(
                counts: store.counts, copyParts: result.copyParts, copiedBytes: result.copiedBytes,
                downloadedSmallParts: result.downloadedSmallParts, checkBytesRead: result.checkBytesRead,
                serverChecksums: result.serverChecksums, recordedChecksums: result.recordedChecksums,
                readChecksums: result.readChecksums))
        return summary.report(measurement)
    }

    /// The parts (resolved and HEADed), the manifest object they are checked against, and the
    /// output's name beside them. An SFV object alone names its set, as a local one does: by
    /// the same rules, from its first part, checked against it (unless --manifest names another
    /// list); one that records an empty file and no parts (a split of an empty input) gives no
    /// parts, and the output is empty, as on disk.
    private func objectSet(
        _ names: [String], store: CountingObjectStore, notice: (MergeOperation.Notice) -> Void
    ) throws -> (parts: [ObjectInfo], manifest: ObjectLocation?, loaded: Manifest?, derived: ObjectLocation?) {
        let locations = try names.map { try ObjectLocation(parsing: $0)! }
        let listed = asGiven || locations.count > 1 ? nil : try Self.listedSet(locations[0], store: store)
        var given = locations
        switch listed {
        case .emptyWhole(let whole, let list, let loaded):
            notice(.note(MergeOperation.emptyWholeNote(list: list.description, whole: whole)))
            return ([], list, loaded, ObjectLocation(bucket: list.bucket, key: String(list.key.dropLast(4))))
        case .set(let first, _, _): given = [first]
        case nil: break
        }
        let set = try ObjectDiscovery.resolve(given, store: store, asGiven: asGiven, jobs: objectJobs)
        for note in set.resolved.notes { notice(.note(note)) }
        if manifest == nil, let note = set.unusedManifestNote { notice(.note(note)) }
        if manifest == nil, manifestPolicy != .disabled, case .set(_, let list, let loaded) = listed {
            try Self.requireListedStart(of: set, list: list, loaded: loaded, store: store)
            return (set.parts, list, loaded, set.defaultOutput)
        }
        let manifestObject = try manifestObject(beside: set, first: names[0], notice: notice)
        var loaded: Manifest?
        if let manifestObject, set.lateStart != nil {
            // Read here to say whether it vouches for the start, and not fetched again by the merge.
            loaded = try ObjectDiscovery.loadManifest(manifestObject, store: store)
            try Self.requireListedStart(of: set, list: manifestObject, loaded: loaded!, store: store)
        }
        return (set.parts, manifestObject, loaded, set.defaultOutput)
    }

    /// Refuses a set that starts late (``ObjectDiscovery/ObjectSet/lateStart``) checked by a list
    /// of its parts alone, as on disk (``ListedStart``): such a list, made while the first part
    /// was absent, says no more of the start than the parts' names do. One that records the
    /// whole file vouches for the start.
    ///
    /// ## Errors
    /// `.missingPart` naming the set's first part and the list.
    private static func requireListedStart(
        of set: ObjectDiscovery.ObjectSet, list: ObjectLocation, loaded: Manifest, store: any ObjectStore
    ) throws {
        guard set.lateStart != nil else { return }
        let listed = loaded.entries.map { list.sibling($0.name).description }
        let parts = Set(set.parts.map(\.location.description))
        guard let firstOfSet = listed.firstIndex(where: parts.contains), loaded.records(of: firstOfSet).whole == nil
        else { return }
        let beside = try store.list(
            bucket: list.bucket, prefix: ObjectDiscovery.listingPrefix(for: set.parts[0].location.key))
        if let refusal = ListedStart.refusal(
            listedParts: listed, list: list.description, resolved: set.resolved,
            parts: set.parts.map(\.location.description),
            names: ListedNames(beside.map(\.location.description) + Array(parts)))
        {
            throw refusal
        }
    }

    /// The SFV manifest object the parts are checked against: `--manifest`, else the set's own
    /// (unless `--no-verify`); a list beside the set that is not an SFV is passed over with a
    /// warning. Without a manifest, a discovered set whose last part is as large as the others
    /// draws the truncation warning.
    ///
    /// ## Errors
    /// `.missingPart` naming `first` when a manifest is required and there is none.
    private func manifestObject(
        beside set: ObjectDiscovery.ObjectSet, first: String, notice: (MergeOperation.Notice) -> Void
    ) throws -> ObjectLocation? {
        var manifestObject = try manifest.flatMap { try ObjectLocation(parsing: $0) }
        // The set's own list, found by the local rule (``MergeVerification/ownList(_:names:)``,
        // in ``ObjectDiscovery``). A `.sha256` or `.md5` is passed over with a warning, as it
        // always was: a server-side merge checks each part by a crc32 it need not read (S3's
        // `x-amz-checksum-crc32`, or gcdcat's record), where a digest would mean downloading
        // every part; `gcdcat verify` reads them for such a list. The other lists a local merge
        // looks through beside the set (``ListsBesideSet``) would each cost a GET, and none of
        // them is read here.
        if manifestObject == nil && manifestPolicy != .disabled, let found = set.manifest?.location {
            if found.key.hasSuffix(".sfv") {
                manifestObject = found
            } else {
                notice(.warning("\(found) is not an SFV manifest; object parts are checked against an SFV only"))
            }
        }
        if case .required(let option) = manifestPolicy, manifestObject == nil {
            throw GCDCatError(
                .missingPart, path: first,
                message: "no SFV manifest object beside the set: \(option) needs one (name it with --manifest)")
        }
        // Without a manifest to say where the set starts, a late start is refused as on disk.
        if manifestObject == nil, let refusal = set.lateStart { throw refusal }
        if manifestObject == nil, !asGiven, manifestPolicy != .disabled, !set.resolved.markedWhole,
            let naming = set.resolved.firstReading,
            let refusal = PartSizes.refusal(set.parts, naming: naming, discovered: set.resolved.discovered)
        {
            throw refusal
        }
        if manifestObject == nil && set.resolved.discovered {
            for warning in MergeVerification.truncationWarning(set.parts) { notice(.warning(warning)) }
        }
        return manifestObject
    }

    /// An SFV object given alone, as read (the merge checks the parts against it, not a second
    /// GET of it).
    private enum ListedSet {
        /// It names a set: its first part, by ``SetFromList``'s rules over the keys beside it.
        case set(first: ObjectLocation, list: ObjectLocation, loaded: Manifest)
        /// It records an empty file, `whole`, and lists no parts (a split of an empty input).
        case emptyWhole(whole: String, list: ObjectLocation, loaded: Manifest)
    }

    /// What `list` names when it is an SFV object; nil for a part. A checksum list of another
    /// kind cannot check object parts: refused by name.
    ///
    /// ## Errors
    /// The list's load errors; `.invalidInput` for a list that is not an SFV, or that names no
    /// set or several (as a local list's).
    private static func listedSet(_ list: ObjectLocation, store: any ObjectStore) throws -> ListedSet? {
        guard let kind = ChecksumListDetector.kind(ofName: list.key) else { return nil }
        guard kind == "sfv" else {
            throw GCDCatError(
                .invalidInput, path: list.description,
                message: "a checksum list (\(kind)), not a part; object parts are checked against an SFV only: "
                    + "give the set's first part, or its parts, with --manifest naming an SFV")
        }
        let loaded = try ObjectDiscovery.loadManifest(list, store: store)
        if let whole = loaded.emptyWholeOnly { return .emptyWhole(whole: whole.name, list: list, loaded: loaded) }
        let keys = loaded.entries.map { list.sibling($0.name).description }
        let first = try SetFromList.firstPart(
            listing: keys, of: list.description, names: ObjectStoreNames(store: store))
        return .set(first: try ObjectLocation(parsing: first)!, list: list, loaded: loaded)
    }

    /// What the report says about where the parts' crc32s and bytes came from.
    private static func notes(_ result: ObjectSetMerge.Result) -> [String] {
        var notes: [String] = []
        if result.serverChecksums > 0 {
            notes.append(
                "\(result.serverChecksums) part crc32s taken from the server (x-amz-checksum-crc32), not read")
        }
        if result.recordedChecksums > 0 {
            notes.append(
                "\(result.recordedChecksums) part crc32s taken from gcdcat's record (x-amz-meta-gcdcat-crc32), "
                    + "not read")
        }
        let percent = result.downloadedSmallParts.filter { $0.contains("%") }
        if !percent.isEmpty {
            notes.append(
                "\(percent.count) parts whose keys contain '%' passed through the client: Ceph RGW decodes a "
                    + "copy source twice, so copying them on the server could copy another object")
        }
        if result.downloadedSmallParts.count > percent.count {
            notes.append(
                "\(result.downloadedSmallParts.count - percent.count) parts were downloaded, whole or in part, "
                    + "and uploaded joined: S3 copies no part under 5 MiB")
        }
        return notes
    }
}
