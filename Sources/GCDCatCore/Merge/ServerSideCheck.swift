import GCDCatS3
import GCDCatSystem

/// Where a verified server-side merge takes each part's crc32 from, so that no byte is read
/// twice: the slices it downloads to upload (small parts, the head of a big one) are checked
/// from the bytes it uploads, as they pass; only what is copied on the server is read for the
/// check (beside the copies), or taken from the server's `x-amz-checksum-crc32` or gcdcat's
/// record when those are trusted.
struct ServerSideCheck: Sendable {
    /// A range of part `source` and its crc32.
    struct Piece: Sendable {
        var source: Int
        var range: Range<UInt64>
        var checksum: Checksum
    }

    /// What was found beside the copies: stored crc32s taken, copied ranges read.
    struct Copied: Sendable {
        var stored: [Int: (crc32: UInt32, source: ObjectReader.Source)]
        var read: [Piece]
        var bytesRead: UInt64
    }

    let plan: ServerSideMergePlan
    /// Per part: whether the plan downloads every byte of it (a part of 0 bytes: no).
    let downloadedWhole: [Bool]

    init(plan: ServerSideMergePlan, sizes: [UInt64]) {
        self.plan = plan
        var downloaded = [UInt64](repeating: 0, count: sizes.count)
        for case .upload(let slices) in plan.parts {
            for slice in slices { downloaded[slice.source] += UInt64(slice.range.count) }
        }
        downloadedWhole = zip(sizes, downloaded).map { $0 > 0 && $0 == $1 }
    }

    /// The parts some of whose bytes are copied (or that are empty): the ones whose stored
    /// crc32 can spare a read.
    var notDownloadedWhole: [Int] { downloadedWhole.indices.filter { !downloadedWhole[$0] } }

    /// The parts to HEAD again once the copies are done, since Ceph RGW ignores
    /// `x-amz-copy-source-if-match`: all but those fetched whole with `If-Match` (an ETag),
    /// which RGW honours on a GET.
    func toHeadAgain(_ infos: [ObjectInfo]) -> [ObjectInfo] {
        infos.indices.filter { !downloadedWhole[$0] || infos[$0].etag == nil }.map { infos[$0] }
    }

    /// The crc32s of what the copies do not pass through the client: a part's stored crc32
    /// (the server's first, then gcdcat's record) when `trust` allows, else its copied ranges,
    /// read `jobs` at a time. Runs beside the copies.
    ///
    /// ## Errors
    /// The first failed GET, naming its part.
    func readCopied(_ infos: [ObjectInfo], trust: Bool, store: any ObjectStore, jobs: Int) throws -> Copied {
        var stored: [Int: (crc32: UInt32, source: ObjectReader.Source)] = [:]
        for index in notDownloadedWhole where trust {
            if let crc32 = infos[index].crc32 {
                stored[index] = (crc32, .server)
            } else if let crc32 = infos[index].recordedCRC32 {
                stored[index] = (crc32, .recorded)
            }
        }
        var pieces: [(object: ObjectInfo, range: Range<UInt64>)] = []
        var sources: [Int] = []
        for case .copy(let slice) in plan.parts where stored[slice.source] == nil {
            pieces.append((infos[slice.source], slice.range))
            sources.append(slice.source)
        }
        let (checksums, bytesRead) = try ObjectReader(store: store, jobs: jobs).checksums(of: pieces)
        let read = zip(sources, zip(pieces, checksums)).map {
            Piece(source: $0, range: $1.0.range, checksum: $1.1)
        }
        return Copied(stored: stored, read: read, bytesRead: bytesRead)
    }

    /// Each part's crc32: stored, or joined in order from its downloaded slices and its copied
    /// ranges that were read (a part of 0 bytes has none, and crc32 0).
    func checksums(
        _ infos: [ObjectInfo], fetched: [ServerSideMergePlan.FetchedSlice], copied: Copied
    ) -> ObjectReader.Checksums {
        var pieces = [[Piece]](repeating: [], count: infos.count)
        for item in fetched {
            pieces[item.slice.source].append(
                Piece(source: item.slice.source, range: item.slice.range, checksum: item.checksum))
        }
        for piece in copied.read { pieces[piece.source].append(piece) }
        let objects = infos.indices.map { index -> ObjectReader.ObjectChecksum in
            if let stored = copied.stored[index] {
                let checksum = Checksum(.crc32, value: stored.crc32, length: Int64(infos[index].size))
                return ObjectReader.ObjectChecksum(object: infos[index], checksum: checksum, source: stored.source)
            }
            let inOrder = pieces[index].sorted { $0.range.lowerBound < $1.range.lowerBound }
            return ObjectReader.ObjectChecksum(
                object: infos[index], checksum: Checksum.combine(.crc32, inOrder.map(\.checksum)), source: .read)
        }
        return ObjectReader.Checksums(objects: objects, bytesRead: copied.bytesRead)
    }
}
