import Dispatch
import Synchronization

/// One piece of work run on a global queue while the caller goes on: ``wait()`` returns its
/// value or rethrows its error.
///
/// With ``ParallelMap`` (many items, first error wins) this is gcdcat's concurrency family: a
/// check overlapped with a copy, the crc32 of a split's pieces read while the kernel clones
/// them, a server-side listing read while parts upload. Both keep the first error and hand it
/// to the caller, who decides what wins (a checksum mismatch over a copy failure, for one).
final class BackgroundWork<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` at once.
    init(qos: DispatchQoS.QoSClass = .userInitiated, _ body: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global(qos: qos).async {
            let outcome = Result { try body() }
            self.result.withLock { $0 = outcome }
            self.done.signal()
        }
    }

    /// Waits for the work to end and returns its outcome (a second call returns at once).
    func outcome() -> Result<Value, any Error> {
        done.wait()
        done.signal()
        guard let outcome = result.withLock({ $0 }) else { preconditionFailure("background work recorded nothing") }
        return outcome
    }

    /// Waits for the work to end; its value, or its error rethrown.
    func wait() throws -> Value {
        try outcome().get()
    }
}
