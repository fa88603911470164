import GCDCatS3
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Carrying out a ``ServerSideMergePlan`` into an object: what a merge of objects and a split of
/// one object into objects share.
extension ServerSideMergePlan {
    /// A source of the plan: the object, and the ETag it must still have (nil: any version).
    public struct Source: Sendable {
        public var location: ObjectLocation
        public var etag: String?

        public init(location: ObjectLocation, etag: String?) {
            self.location = location
            self.etag = etag
        }
    }

    /// Runs the parts into `object`, `jobs` at a time: copies on the server, runs of small
    /// slices through one buffer of the largest upload per worker. Every slice's range is
    /// shifted by `base` (a split copies a range of its one source). Every request names the
    /// source's ETag, so a version that replaced it since fails instead of being joined.
    /// `recording` is the crc32 the object records (``ObjectOutput/begin(recording:)``), if
    /// known; `partDone` hears each finished part's length.
    func run(
        into object: ObjectOutput, sources: [Source], base: UInt64 = 0, recording: UInt32?, store: any ObjectStore,
        jobs: Int,
        partDone: @Sendable (UInt64) -> Void = { _ in }
    ) throws {
        guard !parts.isEmpty else {
            object.hold([])
            return
        }
        try object.begin(recording: recording)
        let parts = self.parts
        let largestUpload = self.largestUpload
        let bufferSize = max(1, Int(largestUpload))
        @Sendable func shifted(_ range: Range<UInt64>) -> Range<UInt64> {
            base + range.lowerBound..<base + range.upperBound
        }
        _ = try ParallelMap.run(
            count: parts.count, jobs: jobs, pool: .threads,
            makeState: { () throws -> UnsafeMutableRawPointer? in
                largestUpload == 0
                    ? nil
                    : try Syscall.allocate(byteCount: bufferSize, alignment: 4096, path: object.location.description)
            },
            finish: { $0.map { free($0) } }
        ) { buffer, index in
            switch parts[index] {
            case .copy(let slice):
                let source = sources[slice.source]
                try object.copyPart(
                    index + 1, source: source.location, range: shifted(slice.range), ifMatch: source.etag)
            case .upload(let slices):
                guard let buffer else { return }
                var filled = 0
                for slice in slices {
                    let source = sources[slice.source]
                    let bytes = UnsafeMutableRawBufferPointer(start: buffer + filled, count: slice.range.count)
                    try store.get(source.location, range: shifted(slice.range), ifMatch: source.etag, into: bytes)
                    filled += slice.range.count
                }
                try object.uploadPart(index + 1, UnsafeRawBufferPointer(start: buffer, count: filled))
            }
            partDone(parts[index].length)
        }
    }
}
