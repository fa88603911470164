import Synchronization

/// Bytes and chunks moved so far, shared by the workers and read by the progress bar.
public final class TransferCounter: Sendable {
    private let byteCount = Atomic<Int64>(0)
    private let chunkCount = Atomic<Int64>(0)
    private let currentName = Mutex<String?>(nil)

    public init() {}

    /// Records one chunk of `bytes`.
    public func add(bytes: Int64, chunks: Int64 = 1) {
        byteCount.add(bytes, ordering: .relaxed)
        chunkCount.add(chunks, ordering: .relaxed)
    }

    public var bytes: Int64 { byteCount.load(ordering: .relaxed) }
    public var chunks: Int64 { chunkCount.load(ordering: .relaxed) }

    /// The file read most recently started, for a progress line that names it (verify and
    /// checksum go through many files); nil until one is named.
    public var current: String? { currentName.withLock { $0 } }

    /// Names the file now being read.
    public func setCurrent(_ name: String) {
        currentName.withLock { $0 = name }
    }
}
