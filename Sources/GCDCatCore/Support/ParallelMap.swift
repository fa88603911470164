import CSystemShim
import Dispatch
import Synchronization

/// How gcdcat runs many work items on several threads (one piece of work beside the caller is
/// ``BackgroundWork``; between them, the whole concurrency family).
///
/// `count` items are claimed in order by `min(jobs, count, maximumWorkers)` workers; each
/// worker makes its own state once (a buffer, an open part) and hands it to every item it runs.
/// Results come back in item order.
///
/// Two pools (``Pool``): `.cores` runs the workers on `concurrentPerform`, which never runs
/// more of them at once than there are cores (libdispatch's `dispatch_apply` takes its thread
/// count from the active CPUs): right for CPU and disk work. `.threads` gives every worker a
/// thread of its own: for work that waits on the network (S3 requests), where `--jobs 8` on
/// two cores must mean eight requests in flight, not two.
///
/// One worker runs on the calling thread, without libdispatch. Under an address-space limit
/// (`ulimit -v`) the workers are reduced to what fits: libdispatch retries a thread it cannot
/// create for ever (`_dispatch_temporary_resource_shortage`), so a split under a tight limit
/// used to hang in `concurrentPerform` instead of failing or finishing. A `.threads` worker
/// whose thread cannot be created is skipped: the others claim its items.
///
/// ## Cancellation
/// The first error wins and later ones are dropped. After it, no worker starts a new item;
/// items already running finish (they poll nothing), then the error is rethrown.
enum ParallelMap {
    /// A bound on threads however large `jobs` is: more than this only adds contention here.
    static let maximumWorkers = 64

    /// Where the workers run.
    enum Pool: Sendable {
        /// `concurrentPerform`: at most one worker per core at a time.
        case cores
        /// One thread per worker: for work that mostly waits (network requests).
        case threads
    }

    /// The number of workers for `items` items at `jobs` (at least 1, never more than the items
    /// or ``maximumWorkers``); safe for any `jobs`, `Int.max` included.
    static func workerCount(jobs: Int, items: Int) -> Int {
        max(1, min(jobs, items, maximumWorkers))
    }

    /// Address space one more worker thread needs: its 8 MiB stack, and room for what it
    /// allocates (its buffer, malloc's bookkeeping).
    static let addressSpacePerWorker = 24 << 20

    /// `workers`, halved until the extra threads' address space can be had.
    static func affordable(_ workers: Int) -> Int {
        var workers = workers
        while workers > 1, gcdcat_probe_address_space((workers - 1) * addressSpacePerWorker) != 0 {
            workers /= 2
        }
        return workers
    }

    /// `body(&state, index)` for every index in `0..<count`, with one `makeState()` per worker
    /// and `finish(&state)` when the worker stops.
    static func run<State, Result: Sendable>(
        count: Int, jobs: Int, pool: Pool = .cores, makeState: @Sendable () throws -> State,
        finish: @Sendable (inout State) -> Void = { _ in },
        _ body: @Sendable (inout State, Int) throws -> Result
    ) throws -> [Result] {
        let next = Atomic<Int>(0)
        let aborted = Atomic<Bool>(false)
        let firstError = FirstError<any Error>()
        let results = Mutex<[Result?]>(Array(repeating: nil, count: count))
        let record: @Sendable (any Error) -> Void = { error in
            firstError.record(error)
            aborted.store(true, ordering: .releasing)
        }
        @Sendable func worker(_: Int) {
            guard !aborted.load(ordering: .acquiring) else { return }
            var state: State
            do { state = try makeState() } catch {
                record(error)
                return
            }
            defer { finish(&state) }
            while !aborted.load(ordering: .acquiring) {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < count else { return }
                do {
                    let result = try body(&state, index)
                    results.withLock { $0[index] = result }
                } catch {
                    record(error)
                }
            }
        }
        let workers = affordable(workerCount(jobs: jobs, items: count))
        if workers == 1 {
            worker(0)
        } else if pool == .threads {
            WorkerThreads.run(workers, worker)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: worker)
        }
        if let error = firstError.error { throw error }
        return results.withLock { $0.map { $0! } }
    }

    /// ``run(count:jobs:pool:makeState:finish:_:)`` for closures that cannot fail: then it
    /// cannot either (it only rethrows theirs).
    static func collect<State, Result: Sendable>(
        count: Int, jobs: Int, pool: Pool = .cores, makeState: @Sendable () -> State,
        _ body: @Sendable (inout State, Int) -> Result
    ) -> [Result] {
        do {
            return try run(count: count, jobs: jobs, pool: pool, makeState: makeState, body)
        } catch {
            preconditionFailure("ParallelMap.run threw \(error) from closures that cannot throw")
        }
    }

    /// `body(index)` for every index in `0..<count`, without per-worker state.
    static func map<Result: Sendable>(
        count: Int, jobs: Int, pool: Pool = .cores, _ body: @Sendable (Int) throws -> Result
    ) throws -> [Result] {
        try run(count: count, jobs: jobs, pool: pool, makeState: { () }) { _, index in try body(index) }
    }
}
