import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// When and how long ``S3Client`` waits before trying a request again.
///
/// Retried: transport failures (timeouts, resets, refused connects), HTTP 5xx and 429, and
/// the S3 codes that mean "try again" (`SlowDown`, `InternalError`, `RequestTimeout`, …)
/// even inside a 200. Never retried: other 4xx. The wait after attempt n (0-based) is
/// `min(cap, base × 2^n)` scaled by a jitter in [0.5, 1), so parallel workers spread out.
public struct RetryPolicy: Sendable {
    public var maximumAttempts: Int
    public var baseDelay: Double
    public var maximumDelay: Double
    /// Sleeps for the given seconds; tests inject one that records instead.
    public var sleep: @Sendable (Double) -> Void
    /// A number in [0, 1).
    public var jitter: @Sendable () -> Double

    public init(
        maximumAttempts: Int = 5, baseDelay: Double = 0.2, maximumDelay: Double = 5,
        sleep: @escaping @Sendable (Double) -> Void = RetryPolicy.sleepForReal,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.sleep = sleep
        self.jitter = jitter
    }

    public static let standard = RetryPolicy()

    /// The wait after the failed attempt `attempt` (0-based).
    public func delay(afterAttempt attempt: Int) -> Double {
        let exponential = min(maximumDelay, baseDelay * Double(1 << min(attempt, 30)))
        return exponential * (0.5 + 0.5 * jitter())
    }

    public static func isRetryable(status: Int) -> Bool { status >= 500 || status == 429 }

    public static func isRetryable(code: String) -> Bool {
        ["SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout", "Throttling", "ThrottlingException"]
            .contains(code)
    }

    @Sendable public static func sleepForReal(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
