import Foundation
import Synchronization
import Testing

@testable import GCDCatCore

/// A transport that takes `seconds` to fail each attempt (a connection that times out), and
/// records the idle limit each attempt was given.
final class SlowFailingTransport: HTTPTransport {
    let seconds: Double
    private let limits = Mutex<[Double]>([])

    init(seconds: Double) { self.seconds = seconds }

    var timeouts: [Double] { limits.withLock { $0 } }

    func send(_ request: HTTPRequest) throws(HTTPTransportError) -> HTTPResponse {
        limits.withLock { $0.append(request.timeout) }
        Thread.sleep(forTimeInterval: seconds)
        throw HTTPTransportError(message: "timed out: held", isRetryable: true)
    }
}

/// One deadline per request (`--request-timeout`), retries included, and one for the undo
/// after a signal (`--cleanup-timeout`): a server that stops answering no longer holds a run
/// for the idle timeout times every attempt, nor its Ctrl-C for minutes.
@Suite struct S3DeadlineTests {
    static let location = ObjectLocation(bucket: "bkt", key: "dir/movie.zip.001")

    static func client(_ transport: any HTTPTransport, endpoint: String, requestTimeout: Double, sleeps: SleepLog)
        throws -> S3Client
    {
        let configuration = S3Configuration(
            endpoint: try S3Endpoint(parsing: endpoint), region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET"), requestTimeout: requestTimeout)
        return S3Client(
            configuration: configuration, transport: transport,
            retry: RetryPolicy(maximumAttempts: 5, sleep: { sleeps.record($0) }, jitter: { 0.999_999 }))
    }

    @Test func anAnswerThatNeverComesFailsAtTheDeadlineWithoutARetry() throws {
        let server = try LoopbackHTTPServer { _ in .stall(seconds: 30) }
        defer { server.stop() }
        let sleeps = SleepLog()
        let client = try Self.client(
            CurlTransport(), endpoint: server.url(""), requestTimeout: 2, sleeps: sleeps)
        let error = try #require(throws: GCDCatError.self) { try client.head(Self.location) }
        #expect(error.path == "s3://bkt/dir/movie.zip.001")
        #expect(error.syscall == "HeadObject")
        #expect(
            error.message.hasPrefix(
                "gave up at the request deadline of 2s (--request-timeout) after 1 attempt: timed out: "),
            "\(error.message)")
        #expect(server.requests.count == 1)
        #expect(sleeps.milliseconds == [])
    }

    @Test func retriesGetOnlyWhatIsLeftOfTheDeadline() throws {
        let transport = SlowFailingTransport(seconds: 1.2)
        let sleeps = SleepLog()
        let client = try Self.client(transport, endpoint: "http://127.0.0.1:9", requestTimeout: 3, sleeps: sleeps)
        let error = try #require(throws: GCDCatError.self) { try client.head(Self.location) }
        let timeouts = transport.timeouts
        // The first attempt may use the whole deadline (not rounded up: the transport times
        // idleness itself now); each later one only what is left.
        #expect(timeouts.first.map { $0 > 2.9 && $0 <= 3 } == true, "\(timeouts)")
        #expect(timeouts.count >= 1 && timeouts.count < 5, "\(timeouts)")
        #expect(timeouts.dropFirst().allSatisfy { $0 < 3 }, "\(timeouts)")
        #expect(zip(timeouts, timeouts.dropFirst()).allSatisfy { $0 >= $1 }, "\(timeouts)")
        let attempts = timeouts.count == 1 ? "1 attempt" : "\(timeouts.count) attempts"
        #expect(
            error.message
                == "gave up at the request deadline of 3s (--request-timeout) after \(attempts): timed out: held "
                + "(http://127.0.0.1:9)")
    }

    /// A connection the server closed after the deadline passed (a transfer kept alive by slow
    /// bytes, which the deadline does not cut) is said as the server's doing, not as the
    /// deadline's: "gave up at the request deadline … connection lost" was untrue.
    @Test func aConnectionClosedPastTheDeadlineIsNotCreditedToIt() throws {
        final class ClosingTransport: HTTPTransport {
            func send(_ request: HTTPRequest) throws(HTTPTransportError) -> HTTPResponse {
                Thread.sleep(forTimeInterval: 1.3)
                throw HTTPTransportError(message: "connection lost", isRetryable: true)
            }
        }
        let sleeps = SleepLog()
        let client = try Self.client(
            ClosingTransport(), endpoint: "http://127.0.0.1:9", requestTimeout: 1, sleeps: sleeps)
        let error = try #require(throws: GCDCatError.self) { try client.head(Self.location) }
        #expect(
            error.message
                == "connection lost (http://127.0.0.1:9); not tried again: the request deadline of 1s "
                + "(--request-timeout) passed during the attempt, which a transfer that still moves bytes may outlast")
        #expect(sleeps.milliseconds == [])
    }

    @Test func quickFailuresAreStillRetriedWithinTheDeadline() throws {
        let transport = ScriptedTransport([
            .fail(HTTPTransportError(message: "connection lost", isRetryable: true)),
            .answer(HTTPResponse(status: 200, headers: ["content-length": "5", "etag": "\"e\""])),
        ])
        let client = try Self.client(transport, endpoint: "http://127.0.0.1:9", requestTimeout: 60, sleeps: SleepLog())
        #expect(try client.head(Self.location)?.size == 5)
        #expect(transport.requests.map(\.timeout).allSatisfy { $0 > 59.9 && $0 <= 60 }, "\(transport.requests)")
        #expect(transport.requests.count == 2)
    }

    /// A sweep whose server hangs: an abort that never returns and a create still in flight.
    /// The sweep ends at its deadline, runs what can run, and names the rest with the command
    /// that finishes the job.
    @Test func theUndoEndsAtItsDeadlineNamingWhatItLeftAndTheCommandThatAbortsIt() throws {
        let registry = CleanupRegistry()
        registry.setUndoDeadline(2)
        let never = DispatchSemaphore(value: 0)
        defer { for _ in 0..<2 { never.signal() } }
        let hanging = ObjectLocation(bucket: "bkt", key: "dir/movie.zip.001")
        let upload = MultipartUpload(location: hanging, uploadID: "ID-1")
        _ = registry.register(
            .undo(
                UndoAction(
                    name: hanging.description, aborting: hanging, { never.wait() },
                    ifItFails: { LeftBehindAdvice.upload(upload, $0) })))
        let quick = ObjectLocation(bucket: "bkt", key: "dir/movie.zip.002")
        _ = registry.register(.undo(UndoAction(name: quick.description, aborting: quick, {})))
        let entered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? registry.make(
                naming: "s3://bkt/dir/movie.zip.003",
                {
                    entered.signal()
                    never.wait()
                }, registering: { _ in .undo(UndoAction(name: "late") {}) })
        }
        #expect(entered.wait(timeout: .now() + 10) == .success)

        let swept = DispatchSemaphore(value: 0)
        let removed = Mutex<[String]>([])
        Thread.detachNewThread {
            let names = registry.removeAll(signal: SIGINT)
            removed.withLock { $0 = names }
            swept.signal()
        }
        // The deadline is 2 s; the server "hangs" for ever.
        #expect(swept.wait(timeout: .now() + 30) == .success)
        #expect(removed.withLock { $0 } == ["s3://bkt/dir/movie.zip.002"])
        #expect(
            registry.takeLeftBehind() == [
                "s3://bkt/dir/movie.zip.003: a request that creates or completes its upload had no answer within "
                    + "the cleanup deadline of 2s (--cleanup-timeout); an upload it made is left unfinished",
                "s3://bkt/dir/movie.zip.001: the multipart upload ID-1 could not be aborted (no answer within the "
                    + "cleanup deadline of 2s (--cleanup-timeout)); its parts keep their storage until it is: aws "
                    + "s3api abort-multipart-upload --bucket bkt --key dir/movie.zip.001 --upload-id ID-1 (and "
                    + "--endpoint-url, as for gcdcat, for a store other than AWS)",
                "to abort the uploads above: gcdcat uploads s3://bkt/dir/movie.zip.00 --abort",
            ])
    }

    @Test func theAbortCommandCoversEachBucketsKeysByTheirCommonPrefix() {
        #expect(LeftBehindAdvice.abortCommands(for: []) == [])
        #expect(
            LeftBehindAdvice.abortCommands(for: [
                ObjectLocation(bucket: "b2", key: "x y/a.001"), ObjectLocation(bucket: "b1", key: "set.sfv"),
                ObjectLocation(bucket: "b2", key: "x y/a.010"), ObjectLocation(bucket: "b1", key: "set.001"),
            ]) == [
                "to abort the uploads above: gcdcat uploads s3://b1/set. --abort",
                "to abort the uploads above: gcdcat uploads 's3://b2/x y/a.0' --abort",
            ])
    }

    /// The options that reach the server are repeated in the command: without `--ca-bundle` it
    /// failed TLS against a private CA's endpoint (outside attack on issue 24).
    @Test func theAbortCommandRepeatsTheOptionsThatReachTheServer() {
        let connection = LeftBehindAdvice.connectionWords([
            ("--endpoint-url", "https://127.0.0.1:5727"), ("--ca-bundle", "tls dir/ca.pem"), ("--no-verify-ssl", nil),
            ("--request-payer", nil), ("--expected-bucket-owner", "123456789012"),
        ])
        #expect(
            LeftBehindAdvice.abortCommands(for: [ObjectLocation(bucket: "b", key: "i/d.001")], connection: connection)
                == [
                    "to abort the uploads above: gcdcat uploads s3://b/i/d.001 --abort --endpoint-url "
                        + "https://127.0.0.1:5727 --ca-bundle 'tls dir/ca.pem' --no-verify-ssl --request-payer "
                        + "--expected-bucket-owner 123456789012"
                ])
    }
}
