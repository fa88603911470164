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
            let trusted = trustServer && item.entry.algorithm == .crc32 && info.crc32 != nil
            return total + (trusted ? 0 : Int64(info.size))
        }
    }

    /// Checks every located object against its expected value.
    public static func verify(_ located: [Located], reader: ObjectReader, trustServer: Bool = true) -> Verification {
        var statuses = located.map(\.status)
        var sources = [ObjectReader.Source?](repeating: nil, count: located.count)
        var bytesRead: UInt64 = 0
        let toCheck = located.indices.filter { located[$0].info != nil }
        // The list's own algorithms, in order of first use: BLAKE2b-256 is in no fixed list.
        var algorithms: [HashAlgorithm] = []
        for index in toCheck where !algorithms.contains(located[index].entry.algorithm) {
            algorithms.append(located[index].entry.algorithm)
        }
        for algorithm in algorithms {
            let group = toCheck.filter { located[$0].entry.algorithm == algorithm }
            guard !group.isEmpty else { continue }
            let (results, read) = reader.hashesEach(
                group.map { located[$0].info! }, algorithm: algorithm, trustServer: trustServer)
            bytesRead += read
            for (index, result) in zip(group, results) {
                switch result {
                case .success(let hash):
                    statuses[index] = hash.hex == located[index].entry.expected ? .ok : .failed(actual: hash.hex)
                    sources[index] = hash.source
                case .failure(let error):
                    statuses[index] = error.code == .missingPart ? .missing : .unreadable(error)
                }
            }
        }
        let outcomes = zip(located, statuses).map { item, status in
            ChecksumListVerifier.Outcome(entry: item.entry, path: item.location.description, status: status!)
        }
        return Verification(outcomes: outcomes, sources: sources, bytesRead: bytesRead)
    }

    static func asError(_ error: any Error, _ location: ObjectLocation) -> GCDCatError {
        error as? GCDCatError ?? GCDCatError(.io, path: location.description, message: "\(error)")
    }
}
