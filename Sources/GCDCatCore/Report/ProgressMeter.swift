import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A progress line on standard error, redrawn five times a second: bytes, %, rate and ETA.
///
/// Draws only when standard error is a terminal; call ``finish()`` to clear the line.
public final class ProgressMeter {
    private let timer: (any DispatchSourceTimer)?
    private let label: String

    /// A meter over `counter` toward `total` bytes, or nil when stderr is not a terminal.
    public init?(label: String, total: Int64, counter: TransferCounter) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        self.label = label
        let clock = ProcessClock()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "gcdcat.progress"))
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        timer.setEventHandler {
            let line = Self.line(
                label: label, done: counter.bytes, total: total, seconds: clock.elapsed().wall)
            writeToStandardError("\r\u{1B}[K" + line)
        }
        self.timer = timer
        timer.resume()
    }

    /// `movie.zip  1.00 GiB / 2.00 GiB  50%  1.23 GB/s  ETA 1s`
    public static func line(label: String, done: Int64, total: Int64, seconds: Double) -> String {
        let percent = total > 0 ? Int(Double(done) * 100 / Double(total)) : 100
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let eta = rate > 0 ? Int((Double(total - done) / rate).rounded(.up)) : 0
        return
            "\(label)  \(ByteSize.humanReadable(done)) / \(ByteSize.humanReadable(total))  \(percent)%  \(formatFixed(rate / 1e9, decimals: 2)) GB/s  ETA \(eta)s"
    }

    public func finish() {
        timer?.cancel()
        writeToStandardError("\r\u{1B}[K")
    }
}

/// Writes `text` to standard error unbuffered, so it interleaves sanely with other output.
public func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}
