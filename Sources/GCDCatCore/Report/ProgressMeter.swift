import Dispatch
import GCDCatSystem
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
        let lastRate = Mutex<(rate: Double, phase: Int)>((0, 0))
        let draw: @Sendable (Bool) -> Void = { sample in
            let phase = counter.phase
            let number = counter.phaseNumber
            let done = counter.bytes
            let rate = lastRate.withLock { last in
                // A new step counts from 0: its rate starts afresh.
                if last.phase != number {
                    window.reset()
                    last = (0, number)
                }
                if sample { last.rate = window.record(bytes: done, at: clock.elapsed().wall) }
                return last.rate
            }
            // A step before the run shows itself; verify and checksum name the file being read,
            // which says more than the list's name.
            let shownTotal = phase?.total ?? total
            let line = Self.line(
                label: phase?.label ?? counter.current ?? label, done: done, total: shownTotal > 0 ? shownTotal : nil,
                bytesPerSecond: rate, columns: terminalColumns())
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

    /// `movie.zip  1.00 GiB / 2.00 GiB  [#####.....]  50%  1.23 GiB/s  ETA 0:00:01`, or
    /// without a known total `-  2.62 GiB  150.00 MiB/s`, cut to fit in `columns - 1`
    /// characters (the last column is left free: writing into it makes some terminals wrap).
    ///
    /// The rate is in the same binary units as the sizes. When the line is narrow, what goes
    /// first is what pv drops first: the bar, then the label (cut from the left at a `/` or a
    /// word, keeping the file name: `…/dir/movie.zip.003`, then left out), then the sizes, the
    /// percentage and the ETA; the rate stays longest.
    public static func line(
        label: String, done: Int64, total: Int64?, bytesPerSecond rate: Double, columns: Int = 80
    ) -> String {
        let width = max(columns - 1, 1)
        // A total that the data outgrew (a part grew) is no longer a total.
        let known = total.flatMap { $0 >= done ? $0 : nil }
        let fraction = known.map { $0 > 0 ? Double(done) / Double($0) : 1 }
        let amount = ByteSize.humanReadable(done) + (known.map { " / " + ByteSize.humanReadable($0) } ?? "")
        let percent = fraction.map { "\(Int($0 * 100))%" }
        let speed = ByteSize.humanReadable(Int64(rate.isFinite ? max(rate, 0).rounded() : 0)) + "/s"
        let eta = known.flatMap { known in rate > 0 ? "ETA \(formatDuration(Double(known - done) / rate))" : nil }
        // The fields that say how it goes, least needed first.
        var core: [(String, Int)] = [(amount, 0), percent.map { ($0, 1) }, (speed, 3), eta.map { ($0, 2) }]
            .compactMap { $0 }
        let length = { (fields: [(String, Int)]) in fields.map(\.0.count).reduce(0, +) + 2 * (fields.count - 1) }
        while core.count > 1, length(core) > width {
            let least = core.indices.min { core[$0].1 < core[$1].1 }!
            // The sizes lose their total (which the percentage says) before they go.
            if core[least].1 == 0, known != nil, core[least].0 != ByteSize.humanReadable(done) {
                core[least].0 = ByteSize.humanReadable(done)
            } else {
                core.remove(at: least)
            }
        }
        var fields = core.map(\.0)
        var room = width - length(core) - 2
        guard room > 0 else { return String(fields.joined(separator: "  ").prefix(width)) }
        // The label before the bar; a long path gets at most a third of a wide line first.
        let shown = label.displayPath
        let labelBudget = min(shown.count, max(room - 7, min(room, max(20, width / 3))))
        let name = leftElided(shown, to: labelBudget)
        if let name { room -= name.count + 2 }
        // The bar goes before the percentage it draws, and only with it; under 10 columns it
        // says nothing.
        if let fraction, let percent, let at = fields.firstIndex(of: percent), room >= 10 {
            fields.insert(progressBar(fraction, width: min(room, 30)), at: at)
        }
        return ((name.map { [$0] } ?? []) + fields).joined(separator: "  ")
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

    /// Forgets every sample (a new step counts from 0).
    func reset() {
        samples.withLock { $0.removeAll() }
    }

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

/// `text` in at most `width` characters: whole, or its longest tail that starts at a `/` or
/// after a `/` or a space, behind `…` (`…/dir/movie.zip.003`, `…movie.zip.003`, `…output`); nil
/// when not even the file name or last word fits. A name is never cut inside a word.
func leftElided(_ text: String, to width: Int) -> String? {
    let characters = Array(text)
    guard characters.count > width else { return text.isEmpty ? nil : text }
    for start in characters.indices.dropFirst() where characters.count - start + 1 <= width {
        let previous = characters[start - 1]
        if characters[start] == "/" || previous == "/" || previous == " " {
            return "…" + String(characters[start...])
        }
    }
    return nil
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
