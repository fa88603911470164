import FoundationEssentials
import GCDCatSystem
import Synchronization

/// The credentials every request is signed with, refreshed from their source before they
/// expire, so a transfer that outlives an hour-long STS session keeps going.
///
/// ## Implementation details
/// - Requests on many threads read the cached credentials under a short lock.
/// - Refreshes are serialised by a second lock held across the (blocking) fetch, so a hundred
///   parts whose credentials expire together cause one STS call, not a hundred; the others
///   wait, then find the fresh credentials in the cache.
/// - Credentials are refreshed `refreshAhead` seconds (5 minutes) before they expire. If that
///   early refresh fails, the old credentials are used while they still work, and the source is
///   asked again no sooner than `retryAfterFailure` seconds later (not at every request); once
///   they have expired, the source's error is thrown.
/// - Credentials that a source hands over already expired are refused, naming it, as awscli
///   refuses them.
public final class S3CredentialCache: Sendable {
    public let source: any S3CredentialProvider
    private let refreshAhead: Double
    private let clock: @Sendable () -> Double
    private let cached: Mutex<ExpiringCredentials>
    /// Held across a refresh; holds when the source may next be asked after a failed one.
    private let refreshing = Mutex<Double>(0)
    private static let retryAfterFailure: Double = 30

    /// - Parameters:
    ///   - initial: the credentials already fetched from `source` (resolution fetches once, so
    ///     a broken source is reported before any work starts).
    ///   - clock: seconds since 1970; tests move it to expire credentials without waiting.
    public init(
        source: any S3CredentialProvider, initial: ExpiringCredentials, refreshAhead: Double = 300,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.source = source
        self.refreshAhead = refreshAhead
        self.clock = clock
        self.cached = Mutex(initial)
    }

    /// Keys that never expire.
    public convenience init(static credentials: S3Credentials) {
        self.init(source: StaticCredentialProvider(credentials), initial: ExpiringCredentials(credentials))
    }

    /// Fetches once from `source` and caches the answer.
    ///
    /// ## Errors
    /// The source's own, naming it.
    public convenience init(
        fetchingFrom source: any S3CredentialProvider, refreshAhead: Double = 300,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) throws(GCDCatError) {
        self.init(
            source: source, initial: try Self.unexpired(source.fetch(), from: source, now: clock()),
            refreshAhead: refreshAhead, clock: clock)
    }

    /// `fetched`, unless it expired already.
    private static func unexpired(
        _ fetched: ExpiringCredentials, from source: any S3CredentialProvider, now: Double
    ) throws(GCDCatError) -> ExpiringCredentials {
        if let expiration = fetched.expiration, expiration <= now {
            throw .credentialSource(
                source.sourceName,
                "the credentials it gave expired at \(S3Dates.readable(secondsSince1970: expiration)), before they could be used"
            )
        }
        return fetched
    }

    /// The credentials last fetched, fresh or not (for descriptions and for scrubbing the
    /// secret out of a server's message).
    public var lastKnown: S3Credentials { cached.withLock { $0.credentials } }

    /// Credentials good for at least `refreshAhead` seconds more, fetching new ones if needed.
    ///
    /// ## Errors
    /// The source's, when a refresh fails and the cached credentials have expired.
    public func current() throws(GCDCatError) -> S3Credentials {
        if let fresh = freshCached() { return fresh }
        return try refreshing.withLock { nextAttempt throws(GCDCatError) -> S3Credentials in
            // Another thread may have refreshed while this one waited for the lock.
            if let fresh = freshCached() { return fresh }
            let old = cached.withLock { $0 }
            let now = clock()
            let oldStillWorks = old.expiration.map { now < $0 } ?? true
            if oldStillWorks && now < nextAttempt { return old.credentials }
            do throws(GCDCatError) {
                let new = try Self.unexpired(source.fetch(), from: source, now: now)
                cached.withLock { $0 = new }
                return new.credentials
            } catch {
                nextAttempt = now + Self.retryAfterFailure
                if oldStillWorks { return old.credentials }
                throw error
            }
        }
    }

    private func freshCached() -> S3Credentials? {
        let entry = cached.withLock { $0 }
        guard let expiration = entry.expiration else { return entry.credentials }
        return clock() < expiration - refreshAhead ? entry.credentials : nil
    }
}
