import GCDCatCore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Passes every call to a ``MemoryObjectStore`` and records what the engines asked: the
/// prefixes listed and the most GETs ever under way at once. With `reportsCRC32`, HEAD
/// answers with the object's crc32 as a server that keeps `x-amz-checksum-crc32` does. With
/// `ignoresCopyIfMatch` it copies whatever version is there, as Ceph RGW does, and
/// `beforeCopy` runs before each copy (to replace a source mid-merge).
final class InstrumentedStore: ForwardingStore {
    let inner: MemoryObjectStore
    let getDelay: UInt32
    let reportsCRC32: Bool
    let ignoresCopyIfMatch: Bool
    let beforeCopy: (@Sendable (ObjectLocation) -> Void)?
    private let record = Mutex(
        (current: 0, peak: 0, prefixes: [String](), gets: [(object: ObjectLocation, range: Range<UInt64>)]()))

    init(
        _ inner: MemoryObjectStore, getDelay: UInt32 = 0, reportsCRC32: Bool = false, ignoresCopyIfMatch: Bool = false,
        beforeCopy: (@Sendable (ObjectLocation) -> Void)? = nil
    ) {
        self.inner = inner
        self.getDelay = getDelay
        self.reportsCRC32 = reportsCRC32
        self.ignoresCopyIfMatch = ignoresCopyIfMatch
        self.beforeCopy = beforeCopy
    }

    var peak: Int { record.withLock { $0.peak } }
    var listedPrefixes: [String] { record.withLock { $0.prefixes } }
    /// The object and range of every GET, in the order they began.
    var gets: [(object: ObjectLocation, range: Range<UInt64>)] { record.withLock { $0.gets } }

    func head(_ object: ObjectLocation) throws -> ObjectInfo? {
        guard var info = try inner.head(object) else { return nil }
        if reportsCRC32, let bytes = inner.bytes(object) {
            var crc = Checksum(.crc32)
            crc.update(bytes)
            info.crc32 = crc.value
        }
        return info
    }

    func list(bucket: String, prefix: String) throws -> [ObjectInfo] {
        record.withLock { $0.prefixes.append(prefix) }
        return try inner.list(bucket: bucket, prefix: prefix)
    }

    func get(
        _ object: ObjectLocation, range: Range<UInt64>, ifMatch: String?, into buffer: UnsafeMutableRawBufferPointer
    ) throws {
        record.withLock {
            $0.current += 1
            $0.peak = max($0.peak, $0.current)
            $0.gets.append((object, range))
        }
        defer { record.withLock { $0.current -= 1 } }
        if getDelay > 0 { usleep(getDelay) }
        try inner.get(object, range: range, ifMatch: ifMatch, into: buffer)
    }

    func uploadPartCopy(
        _ upload: MultipartUpload, partNumber: Int, source: ObjectLocation, range: Range<UInt64>, ifMatch: String?
    ) throws -> UploadedPart {
        beforeCopy?(source)
        return try inner.uploadPartCopy(
            upload, partNumber: partNumber, source: source, range: range, ifMatch: ignoresCopyIfMatch ? nil : ifMatch)
    }
}
