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

    /// A step that reads before the run proper (a merge into a pipe checks every part before
    /// its first byte goes out): what it does, how many bytes it reads, and a number that
    /// changes with each step, so that a progress line can start its rate afresh.
    public struct Phase: Sendable, Equatable {
        public var label: String
        public var total: Int64
        public var number: Int
    }

    private let phaseState = Mutex<(current: Phase?, count: Int)>((nil, 0))

    /// The step under way, or nil during the run proper.
    public var phase: Phase? { phaseState.withLock { $0.current } }

    /// Starts counting a step of its own, from 0 bytes of `total`, shown as `label`.
    public func beginPhase(_ label: String, total: Int64) {
        phaseState.withLock { state in
            byteCount.store(0, ordering: .relaxed)
            state.count += 1
            state.current = Phase(label: label, total: total, number: state.count)
        }
    }

    /// Ends the step: the count starts again from 0 for the run proper.
    public func endPhase() {
        phaseState.withLock { state in
            byteCount.store(0, ordering: .relaxed)
            state.count += 1
            state.current = nil
        }
    }

    /// Changes with every ``beginPhase(_:total:)`` and ``endPhase()``.
    public var phaseNumber: Int { phaseState.withLock { $0.count } }
}
