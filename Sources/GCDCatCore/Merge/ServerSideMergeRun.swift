import GCDCatS3
import GCDCatSystem

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

    /// One slice the run downloaded, and the crc32 of the bytes it uploaded from it.
    struct FetchedSlice: Sendable, Equatable {
        var slice: Slice
        var checksum: Checksum
    }

    /// One unit of a run's work: part `part` copied on the server, or slice `slice` of uploaded
    /// part `part` fetched into that part's buffer.
    enum Step: Sendable, Equatable {
        case copy(part: Int)
        case fetch(part: Int, slice: Int)
    }

    /// The run's work in output order: a small part is a request like a copy, so `jobs` of them
    /// are in flight at once, not one part's slices one after another.
    var steps: [Step] {
        parts.enumerated().flatMap { index, part -> [Step] in
            switch part {
            case .copy: return [.copy(part: index)]
            case .upload(let slices): return slices.indices.map { .fetch(part: index, slice: $0) }
            }
        }
    }

    /// Runs the parts into `object`: copies on the server, and the slices of the uploaded parts
    /// fetched `jobs` at a time into per-part buffers, each part uploaded once its last slice
    /// is in (``UploadPartAssembly``: at most `jobs + 1` buffers of the largest upload part).
    /// Every slice's range is shifted by `base` (a split copies a range of its one source).
    /// Every request names the source's ETag, so a version that replaced it since fails instead
    /// of being joined. `recording` is the crc32 the object records
    /// (``ObjectOutput/begin(recording:partCount:)``), if known; `partDone` hears each finished part's
    /// length. Returns every downloaded slice with the crc32 of its bytes, in output order: a
    /// verified merge checks the parts it downloads without reading them again.
    @discardableResult
    func run(
        into object: ObjectOutput, sources: [Source], base: UInt64 = 0, recording: UInt32?, store: any ObjectStore,
        jobs: Int,
        partDone: @Sendable (UInt64) -> Void = { _ in }
    ) throws -> [FetchedSlice] {
        guard !parts.isEmpty else {
            object.hold([])
            return []
        }
        try object.begin(
            recording: recording, partCount: parts.count,
            copying: parts.contains { if case .copy = $0 { true } else { false } })
        let parts = self.parts
        let steps = self.steps
        var sliceCounts: [Int: Int] = [:]
        var offsets: [[Int]] = parts.map { _ in [] }
        for (index, part) in parts.enumerated() {
            guard case .upload(let slices) = part else { continue }
            sliceCounts[index] = slices.count
            offsets[index] = slices.reduce(into: [0]) { $0.append($0.last! + $1.range.count) }
        }
        let path = object.location.description
        let assembly = try UploadPartAssembly(
            sliceCounts: sliceCounts, partSize: Int(largestUpload),
            workers: ParallelMap.workerCount(jobs: jobs, items: steps.count), path: path)
        let offsetsInPart = offsets
        @Sendable func shifted(_ range: Range<UInt64>) -> Range<UInt64> {
            base + range.lowerBound..<base + range.upperBound
        }
        let fetched = try ParallelMap.map(count: steps.count, jobs: jobs, pool: .threads) { index -> FetchedSlice? in
            switch steps[index] {
            case .copy(let part):
                guard case .copy(let slice) = parts[part] else { return nil }
                let source = sources[slice.source]
                try object.copyPart(
                    part + 1, source: source.location, range: shifted(slice.range), ifMatch: source.etag)
                partDone(parts[part].length)
                return nil
            case .fetch(let part, let sliceIndex):
                guard case .upload(let slices) = parts[part] else { return nil }
                let slice = slices[sliceIndex]
                let source = sources[slice.source]
                let buffer = try assembly.buffer(for: part, path: path)
                let bytes = UnsafeMutableRawBufferPointer(
                    start: buffer.pointer + offsetsInPart[part][sliceIndex], count: slice.range.count)
                try store.get(source.location, range: shifted(slice.range), ifMatch: source.etag, into: bytes)
                var checksum = Checksum(.crc32)
                checksum.update(UnsafeRawBufferPointer(bytes))
                if assembly.sliceFetched(part) {
                    defer { assembly.release(part) }
                    let length = Int(parts[part].length)
                    try object.uploadPart(part + 1, UnsafeRawBufferPointer(start: buffer.pointer, count: length))
                    partDone(UInt64(length))
                }
                return FetchedSlice(slice: slice, checksum: checksum)
            }
        }
        return fetched.compactMap { $0 }
    }
}
