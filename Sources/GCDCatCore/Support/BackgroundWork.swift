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

    /// Starts `body` at once: on a global queue, or with `ownThread` on a thread of its own, as
    /// ``ParallelMap``'s `.threads` workers run (for work that starts libdispatch-free workers
    /// itself). A thread that cannot be created (a tight `ulimit -v`, where libdispatch would
    /// retry for ever) runs `body` here, on the caller's thread, before `init` returns.
    init(
        qos: DispatchQoS.QoSClass = .userInitiated, ownThread: Bool = false,
        _ body: @escaping @Sendable () throws -> Value
    ) {
        let run: @Sendable () -> Void = {
            let outcome = Result { try body() }
            self.result.withLock { $0 = outcome }
            self.done.signal()
        }
        if !ownThread {
            DispatchQueue.global(qos: qos).async(execute: run)
        } else if !WorkerThreads.detach(run) {
            run()
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
