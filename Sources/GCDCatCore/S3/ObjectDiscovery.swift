import GCDCatS3
import GCDCatSystem

/// Finds a set of part objects, and its manifest, with the local rules (``PartArguments``,
/// ``PartDiscovery``) applied to a bucket's listing.
///
/// - One object (`s3://b/movie.zip.001`): one `ListObjectsV2` under the longest prefix every
///   name of its set and every manifest candidate shares (`movie.zip.`), then the local rules
///   over the listed keys: `.002`, `.003`, … in numeric order, `.000` and `xaa` starts,
///   widening past `.999`; a part that is not the first, a clash, a gap (naming the missing
///   object) are refused as on disk. A lone object is a set of one.
/// - Several objects: an explicit list, checked for order and gaps like a local one; each is
///   HEAD-ed (in parallel) for its size.
///
/// Names inside a manifest object are relative to its "folder": the key up to its last `/`
/// (``ObjectLocation/sibling(_:)``).
///
/// ## Errors
/// Those of ``PartArguments/resolve(_:asGiven:names:)``, with `s3://` names; `.missingPart`
/// for an object that does not exist; `.invalidInput` for a checksum list given as a part
/// or parts in more than one bucket; the store's errors (`ListObjectsV2`, `HeadObject`).
public enum ObjectDiscovery {
    /// A set of part objects, resolved.
    public struct ObjectSet: Sendable, Equatable {
        /// The parts in order, with their sizes (and crc32s where a HEAD reported them).
        public var parts: [ObjectInfo]
        /// What the local rules made of the names (spelled `s3://BUCKET/KEY`): the default
        /// output, notes, `startsLate`.
        public var resolved: PartArguments.Resolved
        /// The set's manifest object (`movie.zip.sfv`, `.sha256`, `.md5`), when one is listed
        /// beside a discovered set or a listed set's parts.
        public var manifest: ObjectInfo?
        /// Parts named at versions: the note that the manifest beside them, at its latest
        /// version, is not used; moot when `--manifest` names one.
        public var unusedManifestNote: String?
        /// Why the set may not be merged without a manifest to vouch for its start, when it
        /// starts late (``PartArguments/Resolved/lateStartRefusal(names:)``, over the listing).
        public var lateStart: GCDCatError? = nil

        /// The whole object's location by the set's name (`s3://b/movie.zip`), if it has one.
        public var defaultOutput: ObjectLocation? {
            resolved.defaultOutput.flatMap { try? ObjectLocation(parsing: $0) }
        }
    }

    /// Resolves merge-style part arguments that are objects.
    public static func resolve(
        _ arguments: [ObjectLocation], store: any ObjectStore, asGiven: Bool = false, jobs: Int = 8
    ) throws -> ObjectSet {
        precondition(!arguments.isEmpty, "no parts to resolve")
        guard Set(arguments.map(\.bucket)).count == 1 else {
            throw GCDCatError(
                .invalidInput, path: arguments.first { $0.bucket != arguments[0].bucket }!.description,
                message: "in another bucket than \(arguments[0].description); a set's parts share one bucket")
        }
        let bucket = arguments[0].bucket
        // A checksum list among listed parts is refused by name (one alone names its set: ``MergeJob``).
        for argument in arguments {
            if let kind = ChecksumListDetector.kind(ofName: argument.key) {
                throw GCDCatError(
                    .invalidInput, path: argument.description,
                    message: "a checksum list (\(kind)), not a part; give the first part alone and the list "
                        + "beside it is used to verify the set")
            }
        }
        if arguments.count == 1 {
            return try arguments[0].versionID == nil
                ? discover(arguments[0], store: store) : lonePartAtItsVersion(arguments[0], store: store)
        }
        try refuseTwoVersionsOfOneKey(arguments)
        let infos = try heads(arguments, store: store, jobs: jobs)
        // The set's rules read keys; a part's version rides along with its key.
        let keys = arguments.map(\.latest.description)
        // The set's listing too, as a folder is seen beside local parts: a list that stops
        // before objects lying beside it is refused by the same rule.
        let listing = asGiven ? [] : try store.list(bucket: bucket, prefix: listingPrefix(for: arguments[0].key))
        let beside = listing.map(\.location.description)
        let names = ListedNames(keys + beside)
        let resolved = try PartArguments.resolve(keys, asGiven: asGiven, names: names)
        // A list of parts from above the usual first is refused as on disk, unless a list vouches.
        let lateStart = resolved.lateStartRefusal(names: names)
        // A list at versions that stops before a part only an older version holds is as short.
        if !asGiven, arguments.contains(where: { $0.versionID != nil }) {
            _ = try refuseUnnamedVersionedParts(arguments, listing: listing, store: store)
        }
        // By location, not by name: `String` keys would make an NFC and an NFD key one entry.
        let byLocation = Dictionary(infos.map { ($0.location.latest, $0) }, uniquingKeysWith: { first, _ in first })
        let parts = try resolved.parts.map { byLocation[try ObjectLocation(parsing: $0)!]! }
        if arguments.contains(where: { $0.versionID != nil }) {
            var set = ObjectSet(parts: parts, resolved: resolved, manifest: nil, lateStart: lateStart)
            set.unusedManifestNote = try manifestBesideVersionsNote(
                resolved.manifestCandidates, bucket: bucket, store: store)
            return set
        }
        // A listed set's manifest is looked for beside it, by the rule a local one is, with a
        // HEAD of each name (the listing may stop short of them: --as-given lists nothing); a
        // failed HEAD is an error, not a list that is not there.
        let candidates = try resolved.manifestCandidates.filter { try ObjectLocation(parsing: $0)?.bucket == bucket }
        var manifest: ObjectInfo?
        _ = try MergeVerification.ownList(candidates, names: ListedNames(candidates)) { name in
            manifest = try store.head(ObjectLocation(parsing: name)!)
            return manifest == nil ? .absent : .list
        }
        return ObjectSet(parts: parts, resolved: resolved, manifest: manifest, lateStart: lateStart)
    }

    /// The set `first` starts, from one listing.
    static func discover(_ first: ObjectLocation, store: any ObjectStore) throws -> ObjectSet {
        let listing = try store.list(bucket: first.bucket, prefix: listingPrefix(for: first.key))
        let byName = Dictionary(
            listing.map { ($0.location.description, $0) }, uniquingKeysWith: { first, _ in first })
        guard byName[first.description] != nil else { throw missing(first, store: store) }
        let names = ListedNames(byName.keys)
        let resolved = try PartArguments.resolve([first.description], names: names)
        let manifest = MergeVerification.ownList(resolved.manifestCandidates, names: names).flatMap { byName[$0] }
        return ObjectSet(
            parts: resolved.parts.map { byName[$0]! }, resolved: resolved, manifest: manifest,
            lateStart: resolved.lateStartRefusal(names: names))
    }

    /// The longest prefix of `key` that every name of its set and every manifest candidate
    /// share: the shortest stem among its readings, cut back to what the manifest names keep.
    /// A letters reading that takes the whole name as its number (`xaa` as part `xaa` of
    /// nothing) is left out (digits are not: `split --prefix dir/` writes `dir/001`), or every lone name would list its whole folder; such sets are
    /// found on disk but not in a bucket.
    public static func listingPrefix(for key: String) -> String {
        // Letters before a tail (`report.txt` as `r` + `eport` + `.txt`) would widen every
        // listing; only digits are read before one (`out_00.txt`).
        let readings = NumberedName.readings(of: key).filter {
            ($0.alphabet == .digits || !($0.stem.isEmpty || $0.stem.hasSuffix("/")))
                && ($0.tail.isEmpty || $0.alphabet == .digits)
        }
        guard !readings.isEmpty else { return key }
        var names = readings.map(\.stem)
        for reading in readings { names += reading.manifestCandidates }
        return names.dropFirst().reduce(names[0]) { shared, name in
            String(zip(shared, name).prefix { $0 == $1 }.map(\.0))
        }
    }

    /// HEADs every object, `jobs` at a time; a missing one is an error naming it.
    public static func heads(_ objects: [ObjectLocation], store: any ObjectStore, jobs: Int) throws -> [ObjectInfo] {
        try ParallelMap.map(count: objects.count, jobs: jobs, pool: .threads) { index in
            guard let info = try store.head(objects[index]) else { throw missing(objects[index], store: store) }
            return info
        }
    }

    /// The error for an object that is not there: "No such bucket" when HeadBucket says its
    /// bucket is missing too (asked only on this failure path; if that fails as well, the
    /// object is what is reported), else "No such object".
    public static func missing(_ object: ObjectLocation, store: any ObjectStore) -> GCDCatError {
        let bucketIsMissing = (try? store.bucketExists(object.bucket)) == false
        // A version named that HEAD does not find: an ID the key never had, or a delete marker's.
        let absent =
            object.versionID == nil
            ? "No such object" : "No such version of this key (a delete marker's ID names no bytes either)"
        return GCDCatError(.missingPart, path: object.description, message: bucketIsMissing ? "No such bucket" : absent)
    }

    /// Lists larger than this are refused: a checksum list is text, and this bounds the memory.
    public static let maximumListSize: UInt64 = 64 << 20

    /// The bytes of a list object (a manifest), fetched with one GET.
    ///
    /// ## Errors
    /// `.missingPart` when it does not exist; `.malformedManifest` when it is over 64 MiB; the
    /// store's errors.
    public static func fetchList(_ object: ObjectLocation, store: any ObjectStore) throws -> [UInt8] {
        guard let info = try store.head(object) else { throw missing(object, store: store) }
        guard info.size <= maximumListSize else {
            throw GCDCatError(
                .malformedManifest, path: object.description, message: "too large for a checksum list (over 64 MiB)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.size))
        if info.size > 0 {
            try bytes.withUnsafeMutableBytes { try store.get(object, range: 0..<info.size, into: $0) }
        }
        return bytes
    }

    /// A checksum list object (SFV, GNU or BSD lines), parsed as a local one is.
    public static func loadList(
        _ object: ObjectLocation, store: any ObjectStore, forced: HashAlgorithm? = nil
    ) throws -> ChecksumList {
        try ChecksumList.parse(bytes: fetchList(object, store: store), path: object.description, forced: forced)
    }

    /// An SFV manifest object, parsed as a local one is.
    public static func loadManifest(_ object: ObjectLocation, store: any ObjectStore) throws -> Manifest {
        try Manifest.parse(bytes: fetchList(object, store: store), path: object.description)
    }
}
