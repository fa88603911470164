import GCDCatS3
import GCDCatSystem

/// Checks the objects a checksum list names, where the list is itself an object
/// (`gcdcat verify s3://b/movie.zip.sfv`): the same outcomes, lines and exit status as
/// ``ChecksumListVerifier`` gives for files.
///
/// Names are relative to the list's "folder" (``ObjectLocation/sibling(_:)``); an absolute name
/// or a `..` component is REJECTED and never fetched. Every named object is HEAD-ed first (a
/// missing one is MISSING), then read with ``ObjectReader``: crc32 and adler32 objects in
/// parallel ranges across all of them, md5/sha one object per worker. An object whose crc32
/// the server reports is not read (``ObjectReader/Source/server``) unless `trustServer` is off.
public enum ObjectListVerifier {
    /// An entry after its HEAD: the object to read, or already an outcome.
    public struct Located: Sendable {
        public var entry: ChecksumList.Entry
        public var location: ObjectLocation
        /// The object as HEAD found it; nil when ``status`` is already known.
        public var info: ObjectInfo?
        public var status: ChecksumListVerifier.Status?
    }

    /// What verifying a list of objects found and what it cost.
    public struct Verification: Sendable {
        public var outcomes: [ChecksumListVerifier.Outcome]
        /// Where each checked value came from, per outcome (nil for one not checked).
        public var sources: [ObjectReader.Source?]
        /// Bytes fetched with ranged GETs.
        public var bytesRead: UInt64
        /// How many values were the server's crc32 rather than read.
        public var trustedFromServer: Int { sources.filter { $0 == .server }.count }
    }

    /// Resolves each entry against `list` and HEADs the objects, `jobs` at once.
    public static func locate(
        _ entries: [ChecksumList.Entry], listObject list: ObjectLocation, store: any ObjectStore, jobs: Int
    ) -> [Located] {
        let locate: @Sendable (Int) -> Located = { index in
            let entry = entries[index]
            let location = list.sibling(entry.name)
            if let rejection = entry.rejection {
                return Located(entry: entry, location: location, status: .rejected(rejection))
            }
            do {
                guard let info = try store.head(location) else {
                    return Located(entry: entry, location: location, status: .missing)
                }
                return Located(entry: entry, location: location, info: info)
            } catch {
                return Located(entry: entry, location: location, status: .unreadable(asError(error, location)))
            }
        }
        // `locate` never throws, so neither does the map.
        return (try? ParallelMap.map(count: entries.count, jobs: jobs, pool: .threads, locate)) ?? []
    }

    /// The bytes ``verify(_:reader:trustServer:)`` will read: objects not vouched for by the server.
    public static func bytesToRead(_ located: [Located], trustServer: Bool) -> Int64 {
        located.reduce(0) { total, item in
            guard let info = item.info else { return total }
            return total + ObjectReader.bytesToRead(info, algorithm: item.entry.algorithm, trustServer: trustServer)
        }
    }

    /// Checks every located object against its expected value, with a local list's verdicts
    /// (``ListVerdict``): a mismatch under an algorithm guessed from the length is read again
    /// under the others of that length, and a guess no object confirmed is UNCONFIRMED.
    public static func verify(_ located: [Located], reader: ObjectReader, trustServer: Bool = true) -> Verification {
        var statuses = located.map(\.status)
        var actuals = [String?](repeating: nil, count: located.count)
        var sources = [ObjectReader.Source?](repeating: nil, count: located.count)
        var bytesRead: UInt64 = 0
        let toCheck = located.indices.filter { located[$0].info != nil }
        for algorithm in algorithms(of: toCheck.map { located[$0].entry }) {
            let group = toCheck.filter { located[$0].entry.algorithm == algorithm }
            let (results, read) = reader.hashesEach(
                group.map { located[$0].info! }, algorithm: algorithm, trustServer: trustServer)
            bytesRead += read
            for (index, result) in zip(group, results) {
                switch result {
                case .success(let hash):
                    actuals[index] = hash.hex
                    sources[index] = hash.source
                case .failure(let error):
                    statuses[index] = error.code == .missingPart ? .missing : .unreadable(error)
                }
            }
        }
        // The progress bar counts the first reading only, as for a file.
        let again = ObjectReader(store: reader.store, jobs: reader.jobs, rangeSize: reader.rangeSize)
        let (others, reread) = rehashes(located, actuals: actuals, reader: again)
        bytesRead += reread
        for index in located.indices {
            guard let actual = actuals[index] else { continue }
            do {
                statuses[index] = try ListVerdict.status(of: located[index].entry, actual: actual) { other in
                    try others[index][other]!.get()
                }
            } catch let error as GCDCatError {
                statuses[index] = error.code == .missingPart ? .missing : .unreadable(error)
            } catch {
                statuses[index] = .unreadable(asError(error, located[index].location))
            }
        }
        let outcomes = zip(located, statuses).map { item, status in
            ChecksumListVerifier.Outcome(entry: item.entry, path: item.location.description, status: status!)
        }
        let confirmed = ListVerdict.confirmed(outcomes)
        return Verification(
            outcomes: outcomes.map { ListVerdict.settled($0, confirmed: confirmed) }, sources: sources,
            bytesRead: bytesRead)
    }

    /// The entries' algorithms, in order of first use: BLAKE2b-256 is in no fixed list.
    private static func algorithms(of entries: [ChecksumList.Entry]) -> [HashAlgorithm] {
        var algorithms: [HashAlgorithm] = []
        for entry in entries where !algorithms.contains(entry.algorithm) { algorithms.append(entry.algorithm) }
        return algorithms
    }

    /// What ``ListVerdict/status(of:actual:hashingAs:)`` asks of an object whose value differs
    /// under a guessed algorithm: its hash under each other algorithm of that length, in order,
    /// until one matches the list or a reading fails. Read a batch at a time (one algorithm over
    /// every such object), not an object at a time.
    private static func rehashes(
        _ located: [Located], actuals: [String?], reader: ObjectReader
    ) -> (hashes: [[HashAlgorithm: Result<String, GCDCatError>]], bytesRead: UInt64) {
        var hashes = [[HashAlgorithm: Result<String, GCDCatError>]](repeating: [:], count: located.count)
        var open = located.indices.filter { actuals[$0] != nil && actuals[$0] != located[$0].entry.expected }
        open = open.filter { located[$0].entry.guessed }
        var bytesRead: UInt64 = 0
        for other in algorithms(of: open.map { located[$0].entry }).flatMap(\.alternatives) {
            let group = open.filter { located[$0].entry.algorithm.alternatives.contains(other) }
            guard !group.isEmpty else { continue }
            let (results, read) = reader.hashesEach(group.map { located[$0].info! }, algorithm: other)
            bytesRead += read
            for (index, result) in zip(group, results) {
                hashes[index][other] = result.map(\.hex)
            }
            // Decided: a match, or a reading that failed.
            open.removeAll { index in
                guard let result = hashes[index][other] else { return false }
                return (try? result.get()).map { $0 == located[index].entry.expected } ?? true
            }
        }
        return (hashes, bytesRead)
    }

    static func asError(_ error: any Error, _ location: ObjectLocation) -> GCDCatError {
        error as? GCDCatError ?? GCDCatError(.io, path: location.description, message: "\(error)")
    }
}
