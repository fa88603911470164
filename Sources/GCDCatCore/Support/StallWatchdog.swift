import CSystemShim
import FoundationEssentials
import GCDCatSystem
import Glibc
import Synchronization

/// Ends the process with a clean error when the work has stalled because the address space
/// is exhausted.
///
/// Under `ulimit -v`, libdispatch retries a thread it cannot create for ever
/// (`_dispatch_temporary_resource_shortage`). Near the limit a `dispatchdata` merge hung in 1
/// run of 4 even with 512 MiB kept free after its mappings: libdispatch's thread count varies,
/// and the hang can come anywhere (a DispatchIO write, the release of a DispatchData), so no
/// check before the work can rule it out. This watchdog runs on a thread of its own, started
/// before the work while its small stack can still be had. When the byte counter has not moved
/// for `patience` seconds and not even `probe` bytes of address space (a thread's 8 MiB stack
/// and a 64 MiB malloc arena, with slack) can be mapped, it removes
/// every unfinished file (as a signal would) and exits 1 with
/// `gcdcat: OUTPUT: mmap: Cannot allocate memory (…; raise ulimit -v)`, the fix a split refused
/// up front also names.
public final class StallWatchdog: Sendable {
    private let stopped = Atomic<Bool>(false)

    /// Starts watching `counter` for a run that writes `outputName`.
    public init(counter: TransferCounter, outputName: String, patience: Double = 8, probe: Int = 96 << 20) {
        WorkerThreads.detach(stackSize: 256 << 10) { [self] in
            var last = counter.bytes
            var still = 0.0
            while !self.stopped.load(ordering: .acquiring) {
                usleep(500_000)
                let now = counter.bytes
                still = now == last ? still + 0.5 : 0
                last = now
                guard still >= patience, gcdcat_probe_address_space(probe) != 0 else { continue }
                guard !self.stopped.load(ordering: .acquiring) else { return }
                let removed = CleanupRegistry.shared.removeAll()
                let note = CleanupRegistry.shared.removalNote(removed)
                _ = StandardStreams.writeError(
                    "gcdcat: \(outputName.displayPath): mmap: Cannot allocate memory "
                        + "(no progress for \(Int(patience)) s with the address space exhausted: "
                        + "libdispatch cannot start a thread under this limit; raise ulimit -v)\(note)\n")
                _exit(1)
            }
        }
    }

    /// Stops watching; the thread ends within half a second.
    public func stop() {
        stopped.store(true, ordering: .releasing)
    }
}
