import GCDCatS3
import GCDCatSystem

/// Ranges of objects written one after another into a local output: an S3 → local merge (each
/// object whole) and a split of an object into local parts (one range per part) are both this.
///
/// The ranged GETs of ``ObjectReader`` land at their offsets with `pwrite`, `jobs` at once, as
/// the `offsets` strategy writes; standard output and devices take no positional writes, so
/// they get one reader and the bytes in order. Each piece's crc32 is computed as its bytes
/// arrive and joined from its ranges with `crc32_combine`: the output is never read back.
struct ObjectDownload {
    /// Bytes `range` of `object`.
    struct Piece: Sendable {
        var object: ObjectInfo
        var range: Range<UInt64>
    }

    var store: any ObjectStore
    var jobs: Int
    var counter: TransferCounter

    /// Writes `pieces` into `sink` from its start, and returns each piece's crc32.
    ///
    /// ## Errors
    /// The first failed GET (naming the object) or write (naming the output).
    func write(_ pieces: [Piece], into sink: OutputSink) throws -> [Checksum] {
        let ends = pieces.reduce(into: [UInt64]()) { $0.append(($0.last ?? 0) + UInt64($1.range.count)) }
        let starts = [0] + ends.dropLast()
        let positional = sink.allowsPositionalWrites
        let fd = try sink.fd
        let path = sink.path
        let reader = ObjectReader(store: store, jobs: positional ? jobs : 1, counter: counter)
        let slices = reader.slices(covering: pieces.map(\.range))
        let mapped = try reader.map(pieces.map(\.object), slices, policy: .cancelAll) { slice, bytes in
            if let base = bytes.baseAddress {
                if positional {
                    let at = starts[slice.object] + slice.offset - pieces[slice.object].range.lowerBound
                    try Syscall.pwriteAll(fd, from: base, count: bytes.count, offset: Int64(at), path: path)
                } else {
                    try Syscall.writeAll(fd, from: base, count: bytes.count, path: path)
                }
            }
            var checksum = Checksum(.crc32)
            checksum.update(bytes)
            return checksum
        }
        return ObjectReader.joined(mapped.results, of: slices, count: pieces.count, .crc32)
    }
}
