import Dispatch
import GCDCatS3
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A merge whose parts are objects: on the server into an object (``ServerSideMergePlan``), or
/// downloaded into a local file or standard output with parallel ranged GETs.
///
/// The parts come resolved and HEADed (a missing one is named, exit 1). With a manifest, each part's
/// crc32 must match it before the output is published (exit 2 otherwise, nothing left): a
/// download checks the bytes as they arrive; a server-side merge checks the parts beside the
/// copies, and completes the upload only if all matched. A part it downloads whole (under
/// 5 MiB) is checked from the bytes it uploads (``ServerSideCheck``). For the rest it takes the
/// crc32, in this order, from the server's `x-amz-checksum-crc32`, else from gcdcat's record in its metadata
/// (``RecordedChecksum``; a part found in a listing is HEADed for it), else by reading it;
/// ``trustStoredChecksums`` off reads every part. The output records its crc32 as every object
/// gcdcat writes does: the manifest's crc32s joined (they are checked before it is published),
/// or without a manifest the parts' stored crc32s joined, when every part has one.
public struct ObjectSetMerge: Sendable {
    public var store: any ObjectStore
    /// The parts, in order, as HEAD or a listing saw them (``ObjectDiscovery/resolve(_:store:asGiven:jobs:)``).
    public var parts: [ObjectInfo]
    /// The set's SFV manifest object, if any.
    public var manifest: ObjectLocation?
    /// The manifest as already read, when the caller read it (a list given alone, read to
    /// find its set); nil fetches it.
    public var loadedManifest: Manifest?
    public var output: OutputTarget
    public var jobs: Int
    public var overwrite: Bool
    public var fsync: Bool
    /// Take the same object twice (`--allow-duplicates`).
    public var allowDuplicates = false
    /// Take a part's crc32 from the server (`x-amz-checksum-crc32`) or gcdcat's record
    /// (`x-amz-meta-gcdcat-crc32`) instead of reading it (`--no-stored-checksums` turns it off).
    public var trustStoredChecksums = true

    public init(
        store: any ObjectStore, parts: [ObjectInfo], manifest: ObjectLocation?, output: OutputTarget,
        jobs: Int = 2, overwrite: Bool = false, fsync: Bool = false
    ) {
        self.store = store
        self.parts = parts
        self.manifest = manifest
        self.output = output
        self.jobs = max(1, jobs)
        self.overwrite = overwrite
        self.fsync = fsync
    }

    /// What the merge did, and what passed through the client.
    public struct Result: Sendable, Equatable {
        public var bytes: Int64
        /// The output's crc32, when a manifest gave the parts' (or the bytes were downloaded).
        public var crc32: UInt32?
        /// Parts checked against the manifest (0 without one).
        public var verifiedParts: Int
        /// Of those, how many were taken from the server's `x-amz-checksum-crc32`, unread,
        public var serverChecksums: Int
        /// how many from gcdcat's record in the part's metadata, unread,
        public var recordedChecksums: Int = 0
        /// and how many were read.
        public var readChecksums: Int = 0
        /// The crc32 recorded in the output object's metadata; nil when none was (or the output
        /// is a file).
        public var outputRecord: UInt32? = nil
        /// Bytes read to check the parts.
        public var checkBytesRead: UInt64
        /// Output parts copied on the server, and their bytes.
        public var copyParts: Int
        public var copiedBytes: UInt64
        /// Output parts uploaded from the client.
        public var uploadedParts: Int
        /// Bytes of the parts downloaded to be written or re-uploaded (the check's reads aside).
        public var downloadedBytes: UInt64
        /// Parts downloaded (whole or in part) because they were too small to copy.
        public var downloadedSmallParts: [String]
        /// What the manifest lists beside the set's parts, left out (a README).
        public var listNotes: [String] = []
    }

    /// Checks the manifest and the output, then merges and publishes.
    ///
    /// ## Errors
    /// `.missingPart` naming an object the manifest lists that is not among the parts;
    /// `.invalidInput` for a part the manifest does not list, or an output that is one of the
    /// parts; `.outputExists` without `overwrite`; `.checksumMismatch` naming a corrupt part;
    /// the store's errors.
    public func run(counter: TransferCounter = TransferCounter()) throws -> Result {
        var repeated = RepeatedParts<ObjectInfo>(allowed: allowDuplicates)
        for part in parts { try repeated.admit(part) }
        let listed = try manifest.map { try expectedCRCs(manifest: $0) }
        let expected = listed?.crcs
        if case .object(let target) = output, parts.contains(where: { $0.location.latest == target.location }) {
            throw GCDCatError(
                .invalidInput, path: target.description, message: "is one of the parts; refusing to overwrite it")
        }
        if case .object(let target) = output, target.location == manifest?.latest {
            throw GCDCatError(
                .invalidInput, path: target.description,
                message: "is the manifest that verifies the set; refusing to overwrite it, even with --force")
        }
        try OutputSink.check(target: output, inputs: [], overwrite: overwrite)
        var result =
            if case .object = output {
                try mergeOnServer(parts, expected: expected, counter: counter)
            } else {
                try download(parts, expected: expected, counter: counter)
            }
        result.listNotes = listed?.notes ?? []
        return result
    }

    /// The manifest's crc32 for each part, in order, and the note naming the files it lists
    /// that are no part of the set (a README), left out as a local list's are
    /// (``SetListEntries``). Its names are relative to its "folder" (``ObjectLocation/sibling(_:)``).
    func expectedCRCs(manifest: ObjectLocation) throws -> (crcs: [UInt32], notes: [String]) {
        let loaded = try loadedManifest ?? ObjectDiscovery.loadManifest(manifest, store: store)
        let (parsed, notes) = MergeVerification.setEntries(
            of: loaded, path: manifest.description,
            roles: SetListEntries(
                names: loaded.entries.map(\.name), rejections: loaded.entries.map(\.rejection), list: manifest,
                partKeys: parts.map(\.location.latest.description)))
        for entry in parsed.entries {
            if let rejection = entry.rejection {
                throw GCDCatError(
                    .invalidInput, path: manifest.description,
                    message: "line \(entry.line): '\(entry.name.displayPath)' rejected (\(rejection)); it was not read")
            }
        }
        // The local rules, by key: each line the part at its position, none left out, none
        // past the list's end, another set's list said as such. The manifest names keys; a
        // part named at a version is its key's line.
        let siblings = Dictionary(
            parsed.entries.map { (manifest.sibling($0.name).description, manifest.sibling($0.name)) },
            uniquingKeysWith: { first, _ in first })
        let keys = Set(parts.map(\.location.latest.description))
        let store = self.store
        try MergeVerification.matchEntries(
            parsed.entries.map { (name: $0.name, line: $0.line, rejection: $0.rejection) },
            manifestPath: manifest.description,
            parts: parts.map { (path: $0.location.description, identity: $0.location.latest.description) },
            lookup: MergeVerification.ListedPartLookup<String>(
                resolve: { manifest.sibling($0).description },
                identity: { name in
                    if keys.contains(name) { return name }
                    guard let location = siblings[name] else { return nil }
                    return try store.head(location) != nil ? name : nil
                }))
        let crcs = parsed.entries.prefix(parts.count).map(\.crc32)
        if parsed.header != nil {
            throw GCDCatError(
                .invalidInput, path: manifest.description,
                message: "the parts repeat a header that merge drops, which a copy on the server cannot do; "
                    + "merge them to a local file")
        }
        // The whole file's record (`; gcdcat-whole:`), checked from the sizes and the listed
        // crc32s before anything runs: each part must then match its line, so the whole does.
        if let whole = parsed.whole {
            let combined = Checksum.combine(
                .crc32, zip(crcs, parts).map { Checksum(.crc32, value: $0, length: Int64($1.size)) })
            if let error = whole.mismatch(
                joined: combined, lastPart: parts.last?.location.description ?? manifest.description,
                manifestPath: manifest.description)
            {
                throw error
            }
        }
        return (crcs, notes)
    }

    /// A part whose crc32 does not match the manifest, from gcdcat's record, is read before it
    /// is called corrupt: a run killed between completing the part and rewriting its record
    /// leaves the record of the bytes it replaced (outside attack on issue 24). Returns the part's
    /// checksum as read when it matches after all.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the part, with the crc32 its bytes (or the server) give.
    static func confirmMismatch(
        _ item: ObjectReader.ObjectChecksum, expected: UInt32, manifest: ObjectLocation?, store: any ObjectStore,
        jobs: Int
    ) throws -> ObjectReader.Checksums {
        guard item.source == .recorded else {
            throw mismatch(item.object.location, actual: item.checksum.value, expected: expected, manifest: manifest)
        }
        let read = try ObjectReader(store: store, jobs: jobs).checksums([item.object], trustServer: false)
        let actual = read.objects[0].checksum.value
        guard actual == expected else {
            throw mismatch(item.object.location, actual: actual, expected: expected, manifest: manifest)
        }
        return read
    }

    static func mismatch(_ part: ObjectLocation, actual: UInt32, expected: UInt32, manifest: ObjectLocation?)
        -> GCDCatError
    {
        GCDCatError(
            .checksumMismatch, path: part.description,
            message:
                "crc32 is \(hex8(actual)), but \(manifest?.description ?? "the manifest") says \(hex8(expected)): the part is corrupt"
        )
    }

    // MARK: On the server

    private func mergeOnServer(_ listed: [ObjectInfo], expected: [UInt32]?, counter: TransferCounter) throws -> Result {
        // Ceph RGW decodes x-amz-copy-source twice, so a key with '%' would be copied from
        // another key (seen: `w%41` copied from `wA`, and it ignores x-amz-copy-source-if-match):
        // such parts pass through the client instead.
        let plan = try ServerSideMergePlan.make(
            sizes: listed.map(\.size), copyable: listed.map { !$0.location.key.contains("%") })
        let checker = ServerSideCheck(plan: plan, sizes: listed.map(\.size))
        let total = listed.reduce(0) { $0 + $1.size }
        let store = self.store
        let jobs = self.jobs
        let manifest = self.manifest
        let trust = trustStoredChecksums
        // A part downloaded whole is checked from its bytes: its stored crc32 is wanted only
        // for the output's record when no manifest gives one.
        let infos =
            trust
            ? try Self.withMetadata(
                listed, only: expected == nil ? nil : checker.notDownloadedWhole, store: store, jobs: jobs)
            : listed
        let record = Self.outputRecord(infos, expected: expected, trustStored: trust)
        let check = try OutputSet.single(output, inputs: [], overwrite: overwrite, fsync: fsync, bytes: 0) {
            sink -> ObjectReader.Checksums? in
            guard let object = sink.object else { return nil }
            // The check reads what is copied (or takes the stored crc32s) beside the copies.
            let copied = expected.map { _ in
                BackgroundWork { try checker.readCopied(infos, trust: trust, store: store, jobs: jobs) }
            }
            let fetched: [ServerSideMergePlan.FetchedSlice]
            do {
                fetched = try copyParts(plan, infos, into: object, recording: record, counter: counter)
            } catch {
                _ = try? copied?.wait()
                throw error
            }
            let read = Swift.Result { try copied?.wait() }
            // RGW ignores x-amz-copy-source-if-match: a part replaced while the copies ran is seen
            // only by looking at it again once they are done. A part fetched whole was read
            // with If-Match, which RGW honours.
            try Self.requireUnchanged(checker.toHeadAgain(infos), store: store, jobs: jobs)
            guard let expected, let copiedChecksums = try read.get() else { return nil }
            var checksums = checker.checksums(infos, fetched: fetched, copied: copiedChecksums)
            for (index, item) in checksums.objects.enumerated() where item.checksum.value != expected[index] {
                let read = try Self.confirmMismatch(
                    item, expected: expected[index], manifest: manifest, store: store, jobs: jobs)
                checksums.objects[index] = read.objects[0]
                checksums.bytesRead += read.bytesRead
            }
            return checksums
        }
        let whole = check.map { Checksum.combine(.crc32, $0.objects.map(\.checksum)).value }
        return Result(
            bytes: Int64(total), crc32: whole, verifiedParts: check == nil ? 0 : infos.count,
            serverChecksums: check?.trustedFromServer ?? 0, recordedChecksums: check?.trustedFromRecord ?? 0,
            readChecksums: check?.read ?? 0, outputRecord: plan.parts.isEmpty ? 0 : record,
            checkBytesRead: check?.bytesRead ?? 0,
            copyParts: plan.copyPartCount, copiedBytes: plan.copiedBytes,
            uploadedParts: plan.parts.count - plan.copyPartCount, downloadedBytes: plan.downloadedBytes,
            downloadedSmallParts: plan.downloadedSources.map { infos[$0].location.description })
    }

    /// Every part HEADed again (`jobs` at a time): still there, the same size and ETag as when
    /// it was listed, so the copies took the version that was checked.
    ///
    /// ## Errors
    /// `.inputChanged` naming the first part that is gone or differs; the store's errors.
    static func requireUnchanged(_ parts: [ObjectInfo], store: any ObjectStore, jobs: Int) throws {
        _ = try ParallelMap.map(count: parts.count, jobs: jobs, pool: .threads) { index in
            try parts[index].headAgain(in: store, "while it was copied; nothing was published")
        }
    }

    /// `parts` with their metadata: a part seen only in a listing (``ObjectInfo/metadata`` nil)
    /// is HEADed, `jobs` at a time, for the server's crc32 and gcdcat's record; with `wanted`,
    /// only the parts of those indices are.
    ///
    /// ## Errors
    /// `.inputChanged` when a part is gone, or its size or ETag differ from the listing's; the
    /// store's errors.
    static func withMetadata(
        _ parts: [ObjectInfo], only wanted: [Int]? = nil, store: any ObjectStore, jobs: Int
    ) throws -> [ObjectInfo] {
        let unknown = (wanted ?? Array(parts.indices)).filter { parts[$0].metadata == nil }
        guard !unknown.isEmpty else { return parts }
        let heads = try ParallelMap.map(count: unknown.count, jobs: jobs, pool: .threads) { index -> ObjectInfo in
            let listed = parts[unknown[index]]
            let info = try listed.headAgain(in: store, "since it was listed")
            return ObjectInfo(
                location: listed.location, size: listed.size, etag: listed.etag ?? info.etag, crc32: info.crc32,
                metadata: info.metadata ?? [:])
        }
        var result = parts
        for (index, info) in zip(unknown, heads) { result[index] = info }
        return result
    }

    /// The crc32 the output records: the manifest's joined (the parts are checked against it
    /// before the output is published), else, with `trustStored`, the parts' stored crc32s
    /// joined when every part has one; nil otherwise (the output then records none).
    static func outputRecord(_ parts: [ObjectInfo], expected: [UInt32]?, trustStored: Bool) -> UInt32? {
        let crcs: [UInt32]
        if let expected {
            crcs = expected
        } else {
            guard trustStored else { return nil }
            let stored = parts.compactMap(\.storedCRC32)
            guard stored.count == parts.count else { return nil }
            crcs = stored
        }
        return Checksum.combine(
            .crc32, zip(crcs, parts).map { Checksum(.crc32, value: $0, length: Int64($1.size)) }
        ).value
    }

    /// Runs the plan's parts, `jobs` at a time: copies on the server, small runs through a
    /// buffer of the largest upload.
    private func copyParts(
        _ plan: ServerSideMergePlan, _ infos: [ObjectInfo], into object: ObjectOutput, recording record: UInt32?,
        counter: TransferCounter
    ) throws -> [ServerSideMergePlan.FetchedSlice] {
        // The versions that were listed and checked, never ones that replaced them since.
        try plan.run(
            into: object, sources: infos.map { .init(location: $0.location, etag: $0.etag) }, recording: record,
            store: store, jobs: jobs
        ) { counter.add(bytes: Int64($0)) }
    }

    // MARK: Downloaded

    /// The parts written into the output (``ObjectDownload``), each one's crc32 checked against
    /// the list's as it is known.
    private func download(_ infos: [ObjectInfo], expected: [UInt32]?, counter: TransferCounter) throws -> Result {
        let total = infos.reduce(0) { $0 + $1.size }
        let manifest = self.manifest
        let jobs = self.jobs
        let store = self.store
        let crcs = try OutputSet.single(output, inputs: [], overwrite: overwrite, fsync: fsync, bytes: Int64(total)) {
            sink -> [Checksum] in
            let download = ObjectDownload(store: store, jobs: jobs, counter: counter)
            let perPart = try download.write(infos.map { .init(object: $0, range: 0..<$0.size) }, into: sink)
            if let expected {
                for (index, checksum) in perPart.enumerated() where checksum.value != expected[index] {
                    throw Self.mismatch(
                        infos[index].location, actual: checksum.value, expected: expected[index], manifest: manifest
                    )
                }
            }
            return perPart
        }
        return Result(
            bytes: Int64(total), crc32: Checksum.combine(.crc32, crcs).value,
            verifiedParts: expected == nil ? 0 : infos.count, serverChecksums: 0, checkBytesRead: 0,
            copyParts: 0, copiedBytes: 0, uploadedParts: 0, downloadedBytes: total, downloadedSmallParts: [])
    }
}
