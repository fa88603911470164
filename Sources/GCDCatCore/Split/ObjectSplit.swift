import GCDCatS3
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A split whose input is an object (`gcdcat split s3://b/big --size 64M`), by size or by
/// count, with the parts, names and manifest of ``SplitOperation``:
/// - into local files: each part's range of the object is read with parallel ranged GETs and
///   written at its offset in the part (``ObjectReader/read(_:ranges:_:)``), its crc32 taken
///   from the bytes as they arrive;
/// - into objects: each part is its own multipart upload, whose pieces are copied on the server
///   (`UploadPartCopy`, at most 5 GiB each) from the part's range of the source; a part under
///   S3's 5 MiB minimum is downloaded and uploaded instead (``ServerSideMergePlan``). Bytes
///   that are copied never reach the client, so the manifest's crc32s come from reading the
///   source once with ranged GETs, on another thread while the copies run.
///
/// Parts go side by side (one job each) when there are at least `jobs` of them, else one at a
/// time with every job. Nothing is named until every part is done; a failure or a signal
/// discards (aborts) every part, and a failed publish deletes what this run placed
/// (``OutputSet``).
///
/// ## Errors
/// `.missingPart` when the object does not exist; `.invalidInput` for a line mode (lines are
/// found by reading a local file) or a part or manifest that would be the object itself;
/// `.inputChanged` when the object's ETag or size changed while it was split; the store's
/// errors; those of ``SplitOperation``'s output checks.
///
/// ## Implementation details
/// The GETs carry no `If-Match`: a replacement of the object between two of them is caught
/// only by the HEAD after the last one (ETag and size compared with the first HEAD).
struct ObjectSplit: Sendable {
    var operation: SplitOperation
    var source: ObjectLocation
    var store: any ObjectStore

    /// What a split of an object did beyond ``SplitResult``'s counts, for the report.
    struct Facts: Sendable {
        var copyParts = 0
        var copiedBytes: UInt64 = 0
        var checkBytesRead: UInt64 = 0
    }

    func run(counter: TransferCounter) throws -> SplitResult {
        guard let info = try store.head(source) else { throw ObjectDiscovery.missing(source, store: store) }
        let ranges = try plan(info)
        let names = try operation.partNames(count: ranges.count, inputs: []) { [source] name in
            if try ObjectLocation(parsing: name) == source {
                throw GCDCatError(
                    .invalidInput, path: name, message: "is the object being split; choose another --prefix")
            }
        }
        let jobs = operation.jobs
        let parallelParts = ranges.count >= jobs
        let wantsCRCs = operation.manifestPath != nil
        let store = self.store
        // Parts copied on the server never pass through here: read the source once for the
        // manifest, beside the copies.
        let check: BackgroundWork<(checksums: [Checksum], bytesRead: UInt64)>? =
            wantsCRCs && operation.writesObjects
            ? BackgroundWork { try ObjectReader(store: store, jobs: jobs).checksums(info, ranges: ranges) } : nil
        let unnamedParts = SplitLimits.unnamedPartBudget(jobs: jobs)
        return try OutputSet.transaction(inputs: [], overwrite: operation.overwrite, fsync: operation.fsync) { set in
            let finished: [(checksum: Checksum, facts: Facts)]
            do {
                // Copies and downloads wait on the network: a thread per job, not per core.
                finished = try ParallelMap.map(
                    count: ranges.count, jobs: parallelParts ? jobs : 1, pool: .threads
                ) { index in
                    try set.produce(
                        .part(index), try operation.target(names[index]), bytes: Int64(ranges[index].count),
                        unnamed: index < unnamedParts
                    ) { sink in
                        try Self.writePart(
                            ranges[index], of: info, source: source, into: sink, store: store,
                            jobs: parallelParts ? 1 : jobs, counter: counter)
                    }.value
                }
            } catch {
                _ = try? check?.wait()
                throw error
            }
            let crcs = try check.map { try $0.wait() }
            let checksums = crcs?.checksums ?? finished.map(\.checksum)
            // A replaced object would give parts of two objects: compare with the first HEAD.
            _ = try info.headAgain(in: store, "while it was split")
            let combined = Checksum.combine(.crc32, checksums)
            let name = String(source.key.split(separator: "/").last ?? Substring(source.key))
            let warnings = try operation.conclude(
                set, names: names, crcs: checksums.map(\.value),
                whole: Manifest.Whole(name: name, size: Int64(info.size), crc32: combined.value))
            var result = SplitResult(
                partPaths: names, partCRCs: wantsCRCs ? checksums.map(\.value) : [],
                manifestPath: operation.manifestPath, bytesRead: Int64(info.size), bytesWritten: Int64(info.size),
                chunks: Int64(ranges.count), inputCRC: wantsCRCs ? combined.value : nil, warnings: warnings)
            result.serverCopyParts = finished.reduce(0) { $0 + $1.facts.copyParts }
            result.serverCopiedBytes = finished.reduce(0) { $0 + $1.facts.copiedBytes }
            result.checkBytesRead = crcs?.bytesRead ?? 0
            return result
        }
    }

    /// One part, copied on the server into an object (its crc32 comes from the check beside),
    /// or downloaded into a local file (its crc32 taken from the bytes as they arrive).
    private static func writePart(
        _ range: Range<UInt64>, of info: ObjectInfo, source: ObjectLocation, into sink: OutputSink,
        store: any ObjectStore, jobs: Int, counter: TransferCounter
    ) throws -> (checksum: Checksum, facts: Facts) {
        guard let object = sink.object else {
            let download = ObjectDownload(store: store, jobs: jobs, counter: counter)
            return (try download.write([.init(object: info, range: range)], into: sink)[0], Facts())
        }
        let facts = try copy(range, of: source, etag: info.etag, into: object, store: store, jobs: jobs)
        counter.add(bytes: Int64(range.count))
        return (Checksum(.crc32), facts)
    }

    /// The parts' ranges of the object.
    func plan(_ info: ObjectInfo) throws -> [Range<UInt64>] {
        let total = Int64(clamping: info.size)
        guard let pieces = try SplitPlan.byteRanges(for: operation.mode, total: total, path: source.description) else {
            throw GCDCatError(
                .invalidInput, path: source.description,
                message: "an object is split by --size or --parts; lines are found in a local file")
        }
        // An empty object is split into no parts, even by --parts (a local empty file gets COUNT empty ones).
        guard total > 0 else { return [] }
        return pieces.map { UInt64($0.lowerBound)..<UInt64($0.upperBound) }
    }

    /// One part into an object: `UploadPartCopy` of its range, cut as ``ServerSideMergePlan``
    /// cuts one source (a range under 5 MiB is downloaded and uploaded), `jobs` requests at once.
    /// Every request names the version HEAD saw (`etag`); a key with '%' is never copied on the
    /// server (Ceph RGW decodes a copy source twice), its bytes pass through the client.
    static func copy(
        _ range: Range<UInt64>, of source: ObjectLocation, etag: String?, into object: ObjectOutput,
        store: any ObjectStore, jobs: Int
    ) throws -> Facts {
        let plan = try ServerSideMergePlan.make(
            sizes: [UInt64(range.count)], copyable: [!source.key.contains("%")])
        // The part's crc32 comes from the source's read beside the copies, after the upload
        // began: such a part records none (a verified merge of it reads it).
        try plan.run(
            into: object, sources: [.init(location: source, etag: etag)], base: range.lowerBound, recording: nil,
            store: store, jobs: jobs)
        return Facts(copyParts: plan.copyPartCount, copiedBytes: plan.copiedBytes)
    }
}
