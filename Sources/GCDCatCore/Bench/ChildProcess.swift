import Dispatch
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One finished child process: its status, wall time, peak RSS and captured standard output.
public struct ChildOutcome: Sendable {
    public var status: Int32
    public var wallSeconds: Double
    /// The child's peak RSS (`VmHWM`), polled while it ran, in bytes. Not `ru_maxrss`: after
    /// `posix_spawn` that also counts the spawning process's memory at the time of the spawn.
    public var peakRSSBytes: Int64
    public var standardOutput: [UInt8]
    public var standardError: [UInt8]

    public var succeeded: Bool { status == 0 }
    public var errorText: String { String(decoding: standardError, as: UTF8.self) }
}

/// Runs programs with `posix_spawnp` and reaps them with `wait4`, which reports the child's own
/// peak RSS; Foundation's Process does not.
public enum ChildProcess {
    /// Runs `arguments[0]` (looked up in PATH) with standard input from /dev/null, and standard
    /// output captured or, with `standardOutputPath`, sent to a new file there.
    ///
    /// ## Errors
    /// `.io` naming the program when it cannot be started.
    public static func run(
        _ arguments: [String], standardOutputPath: String? = nil, registry: CleanupRegistry = .shared
    ) throws -> ChildOutcome {
        let start = DispatchTime.now().uptimeNanoseconds
        let child = try SpawnedChild.start(arguments, standardInput: .null, standardOutputPath: standardOutputPath)
        let pid = child.pid
        let token = registry.register(.process(pid))
        defer { registry.forget(token) }
        let peak = PeakPoller(pid: pid)

        let (output, errors, _) = (try? child.drain().get()) ?? ([], [], false)  // no limit, no deadline: never fails
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let peakRSS = peak.stop()
        return ChildOutcome(
            status: SpawnedChild.exitCode(status), wallSeconds: wall, peakRSSBytes: peakRSS,
            standardOutput: output, standardError: errors)
    }
}

/// Polls a running child's `VmHWM` every 2 ms; the kernel keeps it as a high-water mark, so
/// the last reading before the child exits is its peak, give or take its final 2 ms.
private final class PeakPoller: Sendable {
    private let peak = PeakValue()
    private let timer: SendableTimer

    init(pid: pid_t) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "gcdcat.peak-poller"))
        self.timer = SendableTimer(timer)
        timer.schedule(deadline: .now(), repeating: .milliseconds(2))
        timer.setEventHandler { [peak] in
            peak.raise(to: MemorySample.of(pid: pid).peakRSS)
        }
        timer.resume()
    }

    func stop() -> Int64 {
        timer.source.cancel()
        return peak.value
    }
}

/// A timer used only through its thread-safe `cancel()` after setup.
private struct SendableTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer
    init(_ source: any DispatchSourceTimer) { self.source = source }
}

/// The largest value seen, raised from the poller's queue.
private final class PeakValue: Sendable {
    private let stored = Atomic<Int64>(0)

    var value: Int64 { stored.load(ordering: .relaxed) }

    func raise(to candidate: Int64) {
        var current = stored.load(ordering: .relaxed)
        while candidate > current {
            let (exchanged, original) = stored.compareExchange(
                expected: current, desired: candidate, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
