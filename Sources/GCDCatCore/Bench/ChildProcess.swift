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
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw GCDCatError.syscall("pipe", path: arguments[0], errno: errno)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let standardOutputPath {
            posix_spawn_file_actions_addopen(&actions, 1, standardOutputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        }
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw GCDCatError.syscall("posix_spawn", path: arguments[0], errno: spawned)
        }
        let token = registry.register(.process(pid))
        defer { registry.forget(token) }
        let peak = PeakPoller(pid: pid)

        // Drain standard error on another thread so neither pipe can fill up and block the child.
        let errorBytes = PipeDrain(fd: errPipe[0])
        let output = readAll(outPipe[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let peakRSS = peak.stop()
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ChildOutcome(
            status: exit, wallSeconds: wall, peakRSSBytes: peakRSS,
            standardOutput: output, standardError: errorBytes.wait())
    }

    /// Reads a pipe to its end and closes it; a read error ends the output there.
    static func readAll(_ fd: Int32) -> [UInt8] {
        defer { close(fd) }
        return (try? Syscall.readToEnd(fd, path: "pipe")) ?? []
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

/// Reads a pipe to its end on a global queue.
private final class PipeDrain: Sendable {
    private let group = DispatchGroup()
    private let result = ResultSlots<[UInt8]>(count: 1)

    init(fd: Int32) {
        DispatchQueue.global().async(group: group) { [result] in
            result[0] = ChildProcess.readAll(fd)
        }
    }

    func wait() -> [UInt8] {
        group.wait()
        return result[0] ?? []
    }
}
