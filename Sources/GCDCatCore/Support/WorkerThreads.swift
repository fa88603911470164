#if canImport(Glibc)
    import Glibc
#endif

/// Runs `worker(0)` on the calling thread and `worker(1)` … `worker(count - 1)` on threads of
/// their own, and returns when all have returned (``ParallelMap/Pool/threads``).
///
/// Plain pthreads, because libdispatch runs no more `concurrentPerform` workers at once than
/// there are cores, and its global queues add threads for blocked work only slowly. A thread
/// that cannot be created (EAGAIN under `ulimit -u` or `ulimit -v`) is skipped: the workers
/// claim items from a shared counter, so the others do its share.
enum WorkerThreads {
    /// What a new thread runs, retained across `pthread_create`.
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func run(_ count: Int, _ worker: @Sendable (Int) -> Void) {
        withoutActuallyEscaping(worker) { worker in
            var threads: [pthread_t] = []
            for index in 1..<max(1, count) {
                let work = Unmanaged.passRetained(Work { worker(index) })
                var thread = pthread_t()
                let started = pthread_create(
                    &thread, nil,
                    { raw in
                        let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
                        work.body()
                        return nil
                    }, work.toOpaque())
                if started == 0 {
                    threads.append(thread)
                } else {
                    work.release()
                }
            }
            worker(0)
            for thread in threads { pthread_join(thread, nil) }
        }
    }

    /// Starts `body` on a detached thread of its own that the process never joins: the signal
    /// sweeper and the stall watchdog, which live until the process exits. Returns false when
    /// the thread cannot be created (EAGAIN under `ulimit -u` or `ulimit -v`). Plain pthreads
    /// rather than Foundation's `Thread`, so the binary needs only FoundationEssentials.
    @discardableResult
    static func detach(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Work(body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        // A small stack where the caller must run under a tight `ulimit -v`.
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { raw in
                let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
                work.body()
                return nil
            }, work.toOpaque())
        guard started == 0 else {
            work.release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
