import Dispatch
import Foundation
import GCDCatCore
import Synchronization
import Testing

/// A source whose every fetch gives new keys (`KEY-1`, `KEY-2`, …) valid for `lifetime`
/// seconds of the test's clock, or fails while `failing` is set.
final class CountingCredentialSource: S3CredentialProvider {
    let clock: TestClock
    let lifetime: Double
    let fetches = Atomic<Int>(0)
    let failing = Atomic<Bool>(false)

    init(clock: TestClock, lifetime: Double) {
        self.clock = clock
        self.lifetime = lifetime
    }

    var sourceName: String { "counting source" }

    func fetch() throws(GCDCatError) -> ExpiringCredentials {
        if failing.load(ordering: .relaxed) {
            throw GCDCatError(.invalidInput, syscall: "credentials", message: "counting source: down")
        }
        let number = fetches.add(1, ordering: .relaxed).newValue
        return ExpiringCredentials(
            S3Credentials(
                accessKeyID: "KEY-\(number)", secretAccessKey: "SECRET-\(number)", sessionToken: "T\(number)"),
            expiration: clock.now + lifetime)
    }
}

/// Seconds since 1970 that only the test moves.
final class TestClock: Sendable {
    private let seconds = Mutex<Double>(2_000_000_000)
    var now: Double { seconds.withLock { $0 } }
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
}

/// Temporary credentials are fetched again five minutes before they expire, once however many
/// threads ask, and each request is signed with the credentials current when it is sent.
@Suite struct S3CredentialRefreshTests {
    let clock = TestClock()

    func cache(lifetime: Double = 3600) throws -> (S3CredentialCache, CountingCredentialSource) {
        let source = CountingCredentialSource(clock: clock, lifetime: lifetime)
        let clock = self.clock
        return (try S3CredentialCache(fetchingFrom: source, clock: { clock.now }), source)
    }

    @Test func credentialsAreKeptUntilFiveMinutesBeforeTheyExpire() throws {
        let (cache, source) = try cache()
        #expect(try cache.current().accessKeyID == "KEY-1")
        clock.advance(3600 - 301)
        #expect(try cache.current().accessKeyID == "KEY-1")
        clock.advance(2)
        #expect(try cache.current().accessKeyID == "KEY-2")
        #expect(try cache.current().accessKeyID == "KEY-2")
        #expect(source.fetches.load(ordering: .relaxed) == 2)
    }

    @Test func aFailedEarlyRefreshKeepsTheOldKeysUntilTheyExpireThenNamesTheSource() throws {
        let (cache, source) = try cache()
        source.failing.store(true, ordering: .relaxed)
        clock.advance(3600 - 60)
        #expect(try cache.current().accessKeyID == "KEY-1")
        clock.advance(61)
        let error = try #require(throws: GCDCatError.self) { try cache.current() }
        #expect(error.message == "counting source: down")
        source.failing.store(false, ordering: .relaxed)
        #expect(try cache.current().accessKeyID == "KEY-2")
    }

    @Test func manyThreadsNeedingNewKeysCauseOneRefresh() throws {
        let (cache, source) = try cache()
        clock.advance(3600)
        let seen = Mutex<Set<String>>([])
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            let key = (try? cache.current().accessKeyID) ?? "error"
            seen.withLock { _ = $0.insert(key) }
        }
        #expect(seen.withLock { $0 } == ["KEY-2"])
        #expect(source.fetches.load(ordering: .relaxed) == 2)
    }

    @Test func aTransferOutlivingItsCredentialsSignsLaterRequestsWithNewOnes() throws {
        let (cache, _) = try cache(lifetime: 900)
        let transport = ScriptedTransport(Array(repeating: .answer(HTTPResponse(status: 200)), count: 3))
        let client = S3Client(
            configuration: S3Configuration(
                endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "eu-west-1", credentialSource: cache),
            transport: transport, retry: .standard)
        #expect(try client.bucketExists("b"))
        clock.advance(700)
        #expect(try client.bucketExists("b"))
        let sent = transport.requests
        try #require(sent.count == 2)
        #expect(sent[0].headers["authorization"]?.contains("Credential=KEY-1/") == true)
        #expect(sent[0].headers["x-amz-security-token"] == "T1")
        #expect(sent[1].headers["authorization"]?.contains("Credential=KEY-2/") == true)
        #expect(sent[1].headers["x-amz-security-token"] == "T2")
    }

    @Test func refusedTemporaryCredentialsNameTheSourceThatGaveThem() throws {
        let (cache, _) = try cache()
        let refusal = HTTPResponse(
            status: 403, body: Data("<Error><Code>ExpiredToken</Code><Message>expired</Message></Error>".utf8))
        let client = S3Client(
            configuration: S3Configuration(
                endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "eu-west-1", credentialSource: cache),
            transport: ScriptedTransport([.answer(refusal)]), retry: .standard)
        let error = try #require(throws: GCDCatError.self) { try client.bucketExists("b") }
        #expect(error.message == "ExpiredToken (HTTP 403): expired (check the credentials from counting source)")
    }
}
