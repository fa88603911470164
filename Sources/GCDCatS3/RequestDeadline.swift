import GCDCatSystem

/// The one deadline of an S3 request, all its attempts and the waits between them included
/// (`--request-timeout`).
///
/// Without it a server that stopped answering held each request for the idle timeout times
/// every attempt (60 s × 5). Now an attempt may stay idle only for what is left of the
/// request's time, and no retry starts once that is used up, so a request that hangs fails at
/// its deadline. A transfer that keeps moving bytes is not cut: the deadline bounds waiting,
/// not work (a 5 GiB UploadPartCopy on a slow server still completes).
package struct RequestDeadline {
    /// The whole request's time, as the user gave it.
    package let seconds: Double
    private let started = ContinuousClock.now

    package init(seconds: Double) {
        self.seconds = seconds
    }

    /// Seconds left before the deadline; 0 once it passed.
    package var remaining: Double {
        let elapsed = ContinuousClock.now - started
        let used = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return max(0, seconds - used)
    }

    /// How long the next attempt may stay idle: what is left, at least half a second (rounded
    /// up to whole seconds, a held request overran the deadline by up to one).
    package var attemptTimeout: Double {
        max(0.5, remaining)
    }

    /// Whether a retry after waiting `delay` seconds would still have time for an attempt.
    package func allowsRetry(after delay: Double) -> Bool {
        remaining > delay
    }

    /// The error of a request that ran out of time: its operation and object, the deadline,
    /// and the last failure. A failure that was not a timeout, once the deadline had passed, is
    /// the server's (it closed a transfer that kept moving bytes past the deadline, which the
    /// deadline does not cut): said as such, not credited to the deadline.
    package func expired(_ last: GCDCatError, attempts: Int) -> GCDCatError {
        var error = last
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        if remaining == 0 && !last.message.hasPrefix("timed out") {
            error.message =
                last.message + (attempts == 1 ? "" : " (after \(tries))") + "; not tried again: the request deadline "
                + "of \(Self.text(seconds)) (--request-timeout) passed during the attempt, which a transfer that still "
                + "moves bytes may outlast"
            return error
        }
        error.message =
            "gave up at the request deadline of \(Self.text(seconds)) (--request-timeout) after \(tries): "
            + last.message
        return error
    }

    /// A duration as the options take it: `45s`, `5m`, `5m12s`, `2h`, `2h05m`, `1.5s`.
    package static func text(_ seconds: Double) -> String {
        guard seconds == seconds.rounded(), seconds < 1e15 else { return "\(seconds)s" }
        let whole = Int(seconds)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        switch whole {
        case ..<60: return "\(whole)s"
        case ..<3600: return whole % 60 == 0 ? "\(whole / 60)m" : "\(whole / 60)m\(two(whole % 60))s"
        default: return whole % 3600 == 0 ? "\(whole / 3600)h" : "\(whole / 3600)h\(two(whole % 3600 / 60))m"
        }
    }
}
