import CSystemShim
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Memory as the kernel reports it in `/proc/self/status`, in bytes.
public struct MemorySample: Sendable, Equatable {
    public var rss: Int64 = 0
    public var rssAnon: Int64 = 0
    public var rssFile: Int64 = 0
    /// `VmHWM`: the kernel's own peak RSS.
    public var peakRSS: Int64 = 0

    /// Reads `/proc/self/status`; zeroes where it is unreadable.
    public static func current() -> MemorySample {
        read(status: "/proc/self/status")
    }

    /// Reads another process's `/proc/PID/status`; zeroes once it has exited.
    public static func of(pid: Int32) -> MemorySample {
        read(status: "/proc/\(pid)/status")
    }

    private static func read(status path: String) -> MemorySample {
        var sample = MemorySample()
        guard let file = fopen(path, "r") else { return sample }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else { continue }
            let key = text[..<colon]
            let kilobytes = Int64(text[text.index(after: colon)...].filter { $0.isNumber }) ?? 0
            switch key {
            case "VmRSS": sample.rss = kilobytes * 1024
            case "RssAnon": sample.rssAnon = kilobytes * 1024
            case "RssFile": sample.rssFile = kilobytes * 1024
            case "VmHWM": sample.peakRSS = kilobytes * 1024
            default: break
            }
        }
        return sample
    }
}

/// Samples memory on a DispatchSourceTimer while an operation runs, keeping the peaks.
///
/// The kernel keeps a peak for total RSS (VmHWM) but not for its anonymous and file-backed
/// parts, so those are sampled every `interval` and once more at ``stop()``.
///
/// Under a tight address-space limit (`ulimit -v`) the timer is not started: libdispatch would
/// retry the thread it cannot create for ever, and the run would hang before its first byte.
/// The report then holds the peaks read at ``stop()`` (VmHWM is the kernel's own peak).
public final class ResourceSampler {
    private let peaks = PeakMemory()
    private let interval: DispatchTimeInterval
    private var timer: (any DispatchSourceTimer)?

    /// Address space the sampler's thread needs (its stack and libdispatch's manager).
    static let addressSpaceNeeded = 64 << 20

    public init(interval: DispatchTimeInterval = .milliseconds(10)) {
        self.interval = interval
    }

    public func start() {
        guard timer == nil, gcdcat_probe_address_space(Self.addressSpaceNeeded) == 0 else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "gcdcat.sampler"))
        timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(2))
        timer.setEventHandler { [peaks] in peaks.fold(MemorySample.current()) }
        timer.resume()
        self.timer = timer
    }

    /// Stops sampling and returns the peaks seen.
    public func stop() -> MemorySample {
        timer?.cancel()
        peaks.fold(MemorySample.current())
        return peaks.value
    }
}

/// The largest of each memory figure seen so far, shared by the timer and the caller.
private final class PeakMemory: Sendable {
    private let peaks = Mutex(MemorySample())

    var value: MemorySample { peaks.withLock { $0 } }

    func fold(_ sample: MemorySample) {
        peaks.withLock { peak in
            peak.rss = max(peak.rss, sample.rss)
            peak.rssAnon = max(peak.rssAnon, sample.rssAnon)
            peak.rssFile = max(peak.rssFile, sample.rssFile)
            peak.peakRSS = max(peak.peakRSS, sample.peakRSS, sample.rss)
        }
    }
}

/// Wall, user and system time of the process between ``start()`` and ``elapsed()``.
public struct ProcessClock: Sendable {
    private let wallStart: UInt64
    private let cpuStart: (user: Double, system: Double)

    public init() {
        wallStart = DispatchTime.now().uptimeNanoseconds
        cpuStart = Self.cpuTimes()
    }

    public func elapsed() -> (wall: Double, user: Double, system: Double) {
        let now = Self.cpuTimes()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9
        return (wall, now.user - cpuStart.user, now.system - cpuStart.system)
    }

    private static func cpuTimes() -> (user: Double, system: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }
}
