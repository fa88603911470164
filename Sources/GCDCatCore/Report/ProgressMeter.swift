import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A progress line on standard error, redrawn five times a second and on every resize
/// (SIGWINCH): bytes, a bar, %, rate and an h:mm:ss ETA. The label is the counter's current
/// file (``TransferCounter/current``) once one is named, else the one given.
///
/// Draws only when standard error is a terminal; call ``finish()`` to clear the line. The rate
/// is measured over the last few seconds (``RateWindow``), so the ETA follows a slowing disk
/// instead of an average since the start. The line is cut to the terminal's width on every
/// redraw: a line that wraps cannot be redrawn in place, and would fill the screen with stale
/// copies.
public final class ProgressMeter {
    private let queue = DispatchQueue(label: "gcdcat.progress")
    private let timer: any DispatchSourceTimer
    private let resize: any DispatchSourceSignal

    /// A meter over `counter` toward `total` bytes (0 or less when the total is unknown, as
    /// for standard input), or nil when stderr is not a terminal.
    public init?(label: String, total: Int64, counter: TransferCounter) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        let clock = ProcessClock()
        let window = RateWindow()
        // Both sources run on `queue`, so draws never interleave; the last rate is kept for a
        // resize, which must not add a sample of its own.
        let lastRate = Mutex<Double>(0)
        let draw: @Sendable (Bool) -> Void = { sample in
            let done = counter.bytes
            let rate =
                sample
                ? lastRate.withLock {
                    $0 = window.record(bytes: done, at: clock.elapsed().wall)
                    return $0
                } : lastRate.withLock { $0 }
            // Verify and checksum name the file being read, which says more than the list's name.
            let line = Self.line(
                label: counter.current ?? label, done: done, total: total > 0 ? total : nil, bytesPerSecond: rate,
                columns: terminalColumns())
            writeToStandardError("\r\u{1B}[K" + line)
        }
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        timer.setEventHandler { draw(true) }
        // SIGWINCH's default action is to ignore it, so the source sees it without a handler.
        resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
        resize.setEventHandler { draw(false) }
        timer.resume()
        resize.resume()
    }

    /// `movie.zip  1.00 GiB / 2.00 GiB  [#####.....]  50%  1.23 GB/s  ETA 0:00:01`, or
    /// without a known total `-  2.62 GiB  0.15 GB/s`, cut to fit in `columns - 1` characters
    /// (the last column is left free: writing into it makes some terminals wrap).
    public static func line(
        label: String, done: Int64, total: Int64?, bytesPerSecond rate: Double, columns: Int = 80
    ) -> String {
        var fields = [ByteSize.humanReadable(done)]
        // A total that the data outgrew (a part grew) is no longer a total.
        let known = total.flatMap { $0 >= done ? $0 : nil }
        let fraction = known.map { $0 > 0 ? Double(done) / Double($0) : 1 }
        if let known, let fraction {
            fields[0] += " / " + ByteSize.humanReadable(known)
            fields.append("\(Int(fraction * 100))%")
        }
        fields.append("\(formatFixed(rate / 1e9, decimals: 2)) GB/s")
        if let known, rate > 0 {
            fields.append("ETA \(formatDuration(Double(known - done) / rate))")
        }
        let width = max(columns - 1, 1)
        // Drop the least useful fields first (ETA, then the rate), then shorten the label.
        while fields.count > 1 {
            let needed = fields.joined(separator: "  ").count + 2 + min(label.count, 12)
            if needed <= width { break }
            fields.removeLast()
        }
        // The bar takes what room is left, up to 30 columns; under 5 it is left out.
        if let fraction {
            let free = width - fields.joined(separator: "  ").count - 2 - min(label.count, 12) - 4
            if free >= 5 { fields.insert(progressBar(fraction, width: min(free, 30)), at: 1) }
        }
        let rest = fields.joined(separator: "  ")
        let room = width - rest.count - 2
        guard room > 0 else { return String(rest.prefix(width)) }
        return elided(label.displayPath, to: room) + "  " + rest
    }

    public func finish() {
        queue.sync {
            timer.cancel()
            resize.cancel()
        }
        writeToStandardError("\r\u{1B}[K")
    }
}

/// Bytes per second over the last few seconds of samples.
final class RateWindow: Sendable {
    private let samples = Mutex<[(seconds: Double, bytes: Int64)]>([])
    private let span: Double

    init(span: Double = 3) { self.span = span }

    /// Adds a sample and returns the rate between the oldest sample in the window and this one.
    func record(bytes: Int64, at seconds: Double) -> Double {
        samples.withLock { samples in
            samples.append((seconds, bytes))
            while samples.count > 2, seconds - samples[1].seconds >= span { samples.removeFirst() }
            guard let first = samples.first, seconds > first.seconds else { return 0 }
            return Double(bytes - first.bytes) / (seconds - first.seconds)
        }
    }
}

/// `text` shortened to `width` characters with `…` in the middle, keeping both ends (a path's
/// folder and its file name are the parts people recognise).
func elided(_ text: String, to width: Int) -> String {
    guard text.count > width else { return text }
    guard width > 1 else { return String(text.prefix(width)) }
    let tail = (width - 1) / 2
    let head = width - 1 - tail
    return String(text.prefix(head)) + "…" + String(text.suffix(tail))
}

/// `[#####.....]`: `fraction` of `width - 2` columns filled.
func progressBar(_ fraction: Double, width: Int) -> String {
    let inside = max(width - 2, 1)
    let filled = min(inside, max(0, Int(fraction * Double(inside))))
    return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: inside - filled) + "]"
}

/// `h:mm:ss`, like a clock: `0:00:42`, `1:02:05`; `--:--:--` when unknown or 100 hours or more.
func formatDuration(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--:--" }
    let whole = Int(seconds.rounded(.up))
    return "\(whole / 3600):\(zeroPadded(whole % 3600 / 60, width: 2)):\(zeroPadded(whole % 60, width: 2))"
}

/// The width of the terminal on standard error, or 80 when it cannot be told.
func terminalColumns() -> Int {
    var size = winsize()
    guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
}

/// Writes `text` to standard error unbuffered, so it interleaves sanely with other output.
public func writeToStandardError(_ text: String) {
    StandardStreams.writeError(text)
}
