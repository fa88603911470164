import GCDCatSystem

/// How to join objects into one on the server: which output parts are `UploadPartCopy`s of a
/// source's range, and which must pass through the client. Pure arithmetic over the sizes.
///
/// S3's rules: every part is at most 5 GiB (and so is a copy range); every part but the last is
/// at least 5 MiB (EntityTooSmall otherwise); at most 10 000 parts. So:
/// - a source of at least 5 MiB is copied, in ranges of at most 5 GiB (evenly cut, so each is
///   over 2.5 GiB and none is small);
/// - a run of sources under 5 MiB is downloaded and uploaded as one part, closed as soon as it
///   reaches 5 MiB; when a big source follows a run still under 5 MiB, its first bytes complete
///   the run (just enough to reach 5 MiB, or all of it when what would be left to copy is
///   itself under 5 MiB) and the rest is copied;
/// - the last part may be small: a last small source after a copy is copied, not downloaded.
///
/// An uploaded part is under 15 MiB (a run under 5 MiB, plus a source under 10 MiB), which
/// bounds the client's buffers.
public struct ServerSideMergePlan: Sendable, Equatable {
    /// A byte range of source `source` (an index into the sizes).
    public struct Slice: Sendable, Equatable {
        public var source: Int
        public var range: Range<UInt64>

        public init(source: Int, range: Range<UInt64>) {
            self.source = source
            self.range = range
        }
    }

    /// One output part, in order (part number = index + 1).
    public enum Part: Sendable, Equatable {
        /// `UploadPartCopy` of a slice, on the server.
        case copy(Slice)
        /// Slices downloaded, joined and uploaded as one part.
        case upload([Slice])

        public var length: UInt64 {
            switch self {
            case .copy(let slice): return UInt64(slice.range.count)
            case .upload(let slices): return slices.reduce(0) { $0 + UInt64($1.range.count) }
            }
        }
    }

    public var parts: [Part]

    /// Bytes that pass through the client (downloaded, then uploaded).
    public var downloadedBytes: UInt64 {
        parts.reduce(0) { if case .upload = $1 { return $0 + $1.length } else { return $0 } }
    }

    /// Bytes copied on the server.
    public var copiedBytes: UInt64 {
        parts.reduce(0) { if case .copy = $1 { return $0 + $1.length } else { return $0 } }
    }

    public var copyPartCount: Int { parts.filter { if case .copy = $0 { true } else { false } }.count }

    /// The sources some of whose bytes are downloaded, in order.
    public var downloadedSources: [Int] {
        var seen = Set<Int>()
        var order: [Int] = []
        for case .upload(let slices) in parts {
            for slice in slices where seen.insert(slice.source).inserted { order.append(slice.source) }
        }
        return order
    }

    /// The largest uploaded part: the buffer a worker needs.
    public var largestUpload: UInt64 {
        parts.reduce(0) { if case .upload = $1 { return max($0, $1.length) } else { return $0 } }
    }

    /// Plans the join of sources of `sizes` bytes, in order. An empty total gives no parts.
    /// A source whose `copyable` is false (when given) is never copied: it passes through the
    /// client in pieces of at most `minimumPartSize`, joined with its neighbours like small parts.
    ///
    /// ## Errors
    /// `.invalidInput` when the join needs more than `maximumParts` parts.
    public static func make(
        sizes: [UInt64], minimumPartSize: UInt64 = MultipartSizing.minimumPartSize,
        maximumPartSize: UInt64 = MultipartSizing.maximumPartSize,
        maximumParts: Int = MultipartSizing.maximumParts, copyable: [Bool] = []
    ) throws -> ServerSideMergePlan {
        var parts: [Part] = []
        var run: [Slice] = []
        var runLength: UInt64 = 0
        let lastData = sizes.lastIndex { $0 > 0 }

        func copy(_ source: Int, _ range: Range<UInt64>) {
            let length = UInt64(range.count)
            let pieces = (length + maximumPartSize - 1) / maximumPartSize
            var start = range.lowerBound
            for piece in 0..<pieces {
                // Even cuts: the first `length % pieces` pieces take one byte more.
                let size = length / pieces + (piece < length % pieces ? 1 : 0)
                parts.append(.copy(Slice(source: source, range: start..<start + size)))
                start += size
            }
        }
        func take(_ source: Int, _ range: Range<UInt64>) {
            run.append(Slice(source: source, range: range))
            runLength += UInt64(range.count)
            if runLength >= minimumPartSize { flush() }
        }
        func flush() {
            guard !run.isEmpty else { return }
            parts.append(.upload(run))
            run = []
            runLength = 0
        }

        for (index, size) in sizes.enumerated() where size > 0 {
            if !copyable.isEmpty && !copyable[index] {
                var start: UInt64 = 0
                while start < size {
                    let end = min(size, start + minimumPartSize)
                    take(index, start..<end)
                    start = end
                }
            } else if run.isEmpty {
                // A big source, or the last one (the final part may be small): copy it.
                if size >= minimumPartSize || index == lastData {
                    copy(index, 0..<size)
                } else {
                    take(index, 0..<size)
                }
            } else if size >= minimumPartSize {
                let need = minimumPartSize - runLength
                if size - need >= minimumPartSize {
                    take(index, 0..<need)
                    copy(index, need..<size)
                } else {
                    take(index, 0..<size)
                }
            } else {
                take(index, 0..<size)
            }
        }
        flush()
        guard parts.count <= maximumParts else {
            throw GCDCatError(
                .invalidInput,
                message:
                    "joining these objects on the server needs \(parts.count) parts, and S3 allows \(maximumParts); "
                    + "merge them to a local file instead")
        }
        return ServerSideMergePlan(parts: parts)
    }
}
