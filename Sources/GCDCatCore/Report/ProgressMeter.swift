import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A progress line on standard error, redrawn five times a second: bytes, %, rate and ETA.
///
/// Draws only when standard error is a terminal; call ``finish()`` to clear the line. The rate
/// is measured over the last few seconds (``RateWindow``), so the ETA follows a slowing disk
/// instead of an average since the start. The line is cut to the terminal's width on every
/// redraw: a line that wraps cannot be redrawn in place, and would fill the screen with stale
/// copies.
public final class ProgressMeter {
    private let timer: (any DispatchSourceTimer)?

    /// A meter over `counter` toward `total` bytes (0 or less when the total is unknown, as
    /// for standard input), or nil when stderr is not a terminal.
    public init?(label: String, total: Int64, counter: TransferCounter) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        let clock = ProcessClock()
        let window = RateWindow()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "gcdcat.progress"))
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        timer.setEventHandler {
            let done = counter.bytes
            let rate = window.record(bytes: done, at: clock.elapsed().wall)
            let line = Self.line(
                label: label, done: done, total: total > 0 ? total : nil, bytesPerSecond: rate,
                columns: terminalColumns())
            writeToStandardError("\r\u{1B}[K" + line)
        }
        self.timer = timer
        timer.resume()
    }

    /// `movie.zip  1.00 GiB / 2.00 GiB  50%  1.23 GB/s  ETA 1s`, or without a known total
    /// `-  2.62 GiB  0.15 GB/s`, cut to fit in `columns - 1` characters (the last column is left
    /// free: writing into it makes some terminals wrap).
    public static func line(
        label: String, done: Int64, total: Int64?, bytesPerSecond rate: Double, columns: Int = 80
    ) -> String {
        var fields = [ByteSize.humanReadable(done)]
        // A total that the data outgrew (a part grew) is no longer a total.
        let known = total.flatMap { $0 >= done ? $0 : nil }
        if let known {
            fields[0] += " / " + ByteSize.humanReadable(known)
            fields.append("\(known > 0 ? Int(Double(done) * 100 / Double(known)) : 100)%")
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
        let rest = fields.joined(separator: "  ")
        let room = width - rest.count - 2
        guard room > 0 else { return String(rest.prefix(width)) }
        return elided(label.displayPath, to: room) + "  " + rest
    }

    public func finish() {
        timer?.cancel()
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

/// `42s`, `3m05s`, `2h10m`.
func formatDuration(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds < 360_000 else { return "--" }
    let whole = Int(seconds.rounded(.up))
    if whole < 60 { return "\(whole)s" }
    if whole < 3600 { return "\(whole / 60)m\(zeroPadded(whole % 60, width: 2))s" }
    return "\(whole / 3600)h\(zeroPadded(whole % 3600 / 60, width: 2))m"
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
