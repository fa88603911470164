import Foundation
import GCDCatCore
import Synchronization
import Testing

/// A transport that answers from a script and records what it was sent.
final class ScriptedTransport: HTTPTransport {
    enum Step: Sendable {
        case answer(HTTPResponse)
        case fail(HTTPTransportError)
    }

    private let state: Mutex<(steps: [Step], sent: [HTTPRequest])>

    init(_ steps: [Step]) { state = Mutex((steps, [])) }

    var requests: [HTTPRequest] { state.withLock { $0.sent } }

    func send(_ request: HTTPRequest) throws(HTTPTransportError) -> HTTPResponse {
        // The body may be borrowed from the caller's buffer (HTTPTransport): keep a copy.
        var kept = request
        kept.body = Data([UInt8](request.body))
        let step = state.withLock { state -> Step in
            state.sent.append(kept)
            return state.steps.isEmpty ? .answer(HTTPResponse(status: 599)) : state.steps.removeFirst()
        }
        switch step {
        case .answer(let response): return response
        case .fail(let error): throw error
        }
    }
}

/// The waits a retry policy asked for, recorded instead of slept.
final class SleepLog: Sendable {
    private let waits = Mutex<[Double]>([])
    func record(_ seconds: Double) { waits.withLock { $0.append(seconds) } }
    /// In whole milliseconds.
    var milliseconds: [Double] { waits.withLock { $0 }.map { ($0 * 1000).rounded() } }
}

struct S3RetryTests {
    let secret = "NeverShowThisSecret"
    let object = ObjectLocation(bucket: "bkt", key: "dir/a b.001")

    private func client(
        _ transport: ScriptedTransport, endpoint: String? = "http://127.0.0.1:9", attempts: Int = 5,
        secret: String? = nil
    ) throws -> (S3Client, SleepLog) {
        let secret = secret ?? self.secret
        let sleeps = SleepLog()
        let policy = RetryPolicy(
            maximumAttempts: attempts, baseDelay: 0.2, maximumDelay: 1.0,
            sleep: { sleeps.record($0) }, jitter: { 0.999_999 })
        let configuration = S3Configuration(
            endpoint: try endpoint.map { try S3Endpoint(parsing: $0) }, region: "eu-west-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: secret))
        return (S3Client(configuration: configuration, transport: transport, retry: policy), sleeps)
    }

    private static func xmlError(_ status: Int, _ code: String, _ message: String = "") -> ScriptedTransport.Step {
        .answer(
            HTTPResponse(
                status: status, body: Data("<Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8)))
    }

    @Test func slowDownTwiceThenSuccessResendsTheBody() throws {
        let transport = ScriptedTransport([
            Self.xmlError(503, "SlowDown", "Please reduce your request rate."),
            .fail(HTTPTransportError(message: "connection lost", isRetryable: true)),
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"e\""])),
        ])
        let (client, sleeps) = try client(transport)
        let body = seededBytes(1000, seed: 9)
        try body.withUnsafeBytes { try client.put(object, body: $0, ifNoneMatch: true) }
        let requests = transport.requests
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.body == Data(body) && $0.method == "PUT" })
        #expect(requests.allSatisfy { $0.url == "http://127.0.0.1:9/bkt/dir/a%20b.001" })
        #expect(requests.allSatisfy { $0.headers["if-none-match"] == "*" })
        let expectedHash = body.withUnsafeBytes { SigV4Signer.payloadHash($0) }
        #expect(requests.allSatisfy { $0.headers["x-amz-content-sha256"] == expectedHash })
        #expect(requests[0].headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKID/") == true)
        // 0.2 × 2^n, jitter at its top: just under 0.2, then 0.4.
        #expect(sleeps.milliseconds == [200, 400])
        #expect(client.bytesSent == 3000)
    }

    @Test func backoffIsCappedAndAttemptsRunOut() throws {
        let transport = ScriptedTransport(Array(repeating: Self.xmlError(500, "InternalError", "oops"), count: 9))
        let (client, sleeps) = try client(transport, attempts: 5)
        let error = try #require(throws: GCDCatError.self) { _ = try client.head(object) }
        #expect(transport.requests.count == 5)
        #expect(sleeps.milliseconds == [200, 400, 800, 1000])
        #expect(
            error.description == "s3://bkt/dir/a b.001: HeadObject: InternalError (HTTP 500): oops (after 5 attempts)")
    }

    @Test func jitterSpreadsTheWaits() {
        let policy = RetryPolicy(sleep: { _ in }, jitter: { 0 })
        #expect(policy.delay(afterAttempt: 0) == 0.1)
        #expect(policy.delay(afterAttempt: 10) == 2.5)
        #expect(RetryPolicy.isRetryable(status: 503) && RetryPolicy.isRetryable(status: 429))
        #expect(!RetryPolicy.isRetryable(status: 404) && !RetryPolicy.isRetryable(status: 403))
    }

    @Test func clientErrorsAreNotRetriedAndNameCodeStatusAndKey() throws {
        let transport = ScriptedTransport([Self.xmlError(403, "AccessDenied", "Access Denied")])
        let (client, sleeps) = try client(transport)
        var buffer = [UInt8](repeating: 0, count: 10)
        let error = try #require(throws: GCDCatError.self) {
            try buffer.withUnsafeMutableBytes { try client.get(object, range: 0..<10, into: $0) }
        }
        #expect(transport.requests.count == 1)
        #expect(sleeps.milliseconds.isEmpty)
        #expect(transport.requests[0].headers["range"] == "bytes=0-9")
        #expect(error.description == "s3://bkt/dir/a b.001: GetObject: AccessDenied (HTTP 403): Access Denied")
    }

    @Test func preconditionFailedIsOutputExists() throws {
        let transport = ScriptedTransport([.answer(HTTPResponse(status: 412))])
        let (client, _) = try client(transport)
        let error = try #require(throws: GCDCatError.self) {
            try [UInt8]().withUnsafeBytes { try client.put(object, body: $0, ifNoneMatch: true) }
        }
        #expect(error.code == .outputExists)
        #expect(error.message == "PreconditionFailed (HTTP 412)")
    }

    @Test func errorInsideA200IsRetriedWhenTransientAndReportedOtherwise() throws {
        let upload = MultipartUpload(location: object, uploadID: "U1")
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, body: Data("<Error><Code>InternalError</Code></Error>".utf8))),
            .answer(
                HTTPResponse(
                    status: 200,
                    body: Data("<CopyPartResult><ETag>&quot;abc&quot;</ETag></CopyPartResult>".utf8))),
            .answer(
                HTTPResponse(
                    status: 200, body: Data("<Error><Code>InvalidPart</Code><Message>no</Message></Error>".utf8))),
        ])
        let (client, sleeps) = try client(transport)
        let part = try client.uploadPartCopy(
            upload, partNumber: 3, source: ObjectLocation(bucket: "src", key: "a b/ü&.001"), range: 5..<15)
        #expect(part == UploadedPart(partNumber: 3, etag: "abc"))
        #expect(sleeps.milliseconds.count == 1)
        let copy = transport.requests[0]
        #expect(copy.headers["x-amz-copy-source"] == "/src/a%20b/%C3%BC%26.001")
        #expect(copy.headers["x-amz-copy-source-range"] == "bytes=5-14")
        #expect(copy.url == "http://127.0.0.1:9/bkt/dir/a%20b.001?partNumber=3&uploadId=U1")
        let error = try #require(throws: GCDCatError.self) {
            try client.completeMultipartUpload(upload, parts: [part], ifNoneMatch: false)
        }
        #expect(error.description == "s3://bkt/dir/a b.001: CompleteMultipartUpload: InvalidPart (HTTP 200): no")
        let body = String(decoding: transport.requests[2].body, as: UTF8.self)
        #expect(body.contains("<Part><PartNumber>3</PartNumber><ETag>&quot;abc&quot;</ETag></Part>"))
    }

    @Test func shortRangedBodyIsRetriedThenReported() throws {
        let short = HTTPResponse(status: 206, headers: ["content-length": "4"], body: Data([1, 2, 3, 4]))
        let transport = ScriptedTransport(Array(repeating: .answer(short), count: 5))
        let (client, _) = try client(transport)
        var buffer = [UInt8](repeating: 0, count: 8)
        let error = try #require(throws: GCDCatError.self) {
            try buffer.withUnsafeMutableBytes { try client.get(object, range: 100..<108, into: $0) }
        }
        #expect(transport.requests.count == 5)
        #expect(error.message == "Content-Length 4 for a range of 8 bytes (after 5 attempts)")
    }

    /// A server (or proxy) that answers another range of the same length: the bytes would
    /// pass every length check (second attack on the transport, F1: wrong bytes, exit 0).
    @Test(arguments: ["bytes 101-108/200", "", "bytes 100-107"])
    func aRangedAnswerForAnotherRangeIsRetriedThenReported(contentRange: String) throws {
        let headers = ["content-length": "8"].merging(contentRange.isEmpty ? [:] : ["content-range": contentRange]) {
            $1
        }
        let shifted = HTTPResponse(status: 206, headers: headers, body: Data(1...8))
        let transport = ScriptedTransport(Array(repeating: .answer(shifted), count: 5))
        let (client, _) = try client(transport)
        var buffer = [UInt8](repeating: 0, count: 8)
        let error = try #require(throws: GCDCatError.self) {
            try buffer.withUnsafeMutableBytes { try client.get(object, range: 100..<108, into: $0) }
        }
        #expect(transport.requests.count == 5)
        #expect(error.message == "Content-Range '\(contentRange)' for the range 100-107 (after 5 attempts)")
        #expect(buffer == [UInt8](repeating: 0, count: 8))

        let right = HTTPResponse(
            status: 206, headers: ["content-length": "8", "content-range": "bytes 100-107/200"], body: Data(1...8))
        let (good, _) = try self.client(ScriptedTransport([.answer(right)]))
        try buffer.withUnsafeMutableBytes { try good.get(object, range: 100..<108, into: $0) }
        #expect(buffer == Array(1...8))
    }

    /// A 200 that is not S3's XML (a captive portal's page) was read as an empty listing, so an
    /// existing set was "No such object" (F5).
    @Test func aListingThatIsNotXMLIsRetriedThenReported() throws {
        let page = HTTPResponse(status: 200, body: Data("<html><body>Log in to the Wi-Fi</body></html>".utf8))
        let transport = ScriptedTransport(Array(repeating: .answer(page), count: 10))
        let (client, _) = try client(transport)
        let error = try #require(throws: GCDCatError.self) { try client.list(bucket: "bkt", prefix: "x.") }
        #expect(
            error.description == "s3://bkt/x.: ListObjectsV2: the answer is not a ListBucketResult (after 5 attempts)")
        let uploads = try #require(throws: GCDCatError.self) {
            try client.listMultipartUploads(bucket: "bkt", prefix: "x.")
        }
        #expect(uploads.message == "the answer is not a ListMultipartUploadsResult (after 5 attempts)")
    }

    @Test func serverMessagesNeverCarryTheSecretOrSignature() throws {
        let transport = ScriptedTransport([
            Self.xmlError(403, "SignatureDoesNotMatch", "secret was \(secret)")
        ])
        let (client, _) = try client(transport)
        let error = try #require(throws: GCDCatError.self) { _ = try client.list(bucket: "bkt", prefix: "p") }
        let signature = try #require(transport.requests[0].headers["authorization"]?.split(separator: "=").last)
        #expect(!"\(error)".contains(secret))
        #expect(!"\(error)".contains(signature))
        #expect(
            error.description
                == "s3://bkt/p: ListObjectsV2: SignatureDoesNotMatch (HTTP 403): secret was <redacted>"
                + " (check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the profile's keys)")
    }

    /// A one-letter secret key (a lab's `x`) is hidden where it stands as a word, and only
    /// there: every `x` of the server's words was replaced ("e<redacted>pected").
    @Test func aOneLetterSecretIsHiddenAsAWordWithoutManglingTheMessage() throws {
        let transport = ScriptedTransport([
            Self.xmlError(
                403, "SignatureDoesNotMatch",
                "SecretAccessKey=x; expected x-amz-date, max exceeded (x) for key 'x' and AWS4x")
        ])
        let (client, _) = try client(transport, secret: "x")
        let error = try #require(throws: GCDCatError.self) { _ = try client.list(bucket: "bkt", prefix: "p") }
        #expect(
            error.description
                == "s3://bkt/p: ListObjectsV2: SignatureDoesNotMatch (HTTP 403): SecretAccessKey=<redacted>; expected "
                + "x-amz-date, max exceeded (<redacted>) for key '<redacted>' and AWS4x"
                + " (check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the profile's keys)")
        #expect(
            S3Credentials.redact("AWS4LongerSecret1 and LongerSecret1x", hiding: ["LongerSecret1"])
                == "AWS4<redacted> and <redacted>x")
    }

    @Test func awsAddressingIsVirtualHostUnlessTheBucketHasDots() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 404)), .answer(HTTPResponse(status: 404)),
            .answer(
                HTTPResponse(
                    status: 200,
                    body: Data("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>".utf8))),
        ])
        let (client, _) = try client(transport, endpoint: nil)
        #expect(try client.head(ObjectLocation(bucket: "plain", key: "k~1")) == nil)
        #expect(try client.head(ObjectLocation(bucket: "with.dots", key: "k")) == nil)
        #expect(try client.list(bucket: "plain", prefix: "a b").isEmpty)
        #expect(
            transport.requests.map(\.url) == [
                "https://plain.s3.eu-west-1.amazonaws.com/k~1",
                "https://s3.eu-west-1.amazonaws.com/with.dots/k",
                "https://plain.s3.eu-west-1.amazonaws.com/?list-type=2&prefix=a%20b",
            ])
    }

    @Test func listingFollowsContinuationTokens() throws {
        func page(_ keys: [String], next: String?) -> ScriptedTransport.Step {
            let contents = keys.map { "<Contents><Key>\($0)</Key><Size>1</Size></Contents>" }.joined()
            let tail = next.map {
                "<IsTruncated>true</IsTruncated><NextContinuationToken>\($0)</NextContinuationToken>"
            }
            return .answer(
                HTTPResponse(
                    status: 200,
                    body: Data(
                        "<ListBucketResult>\(contents)\(tail ?? "<IsTruncated>false</IsTruncated>")</ListBucketResult>"
                            .utf8)))
        }
        let transport = ScriptedTransport([page(["a", "b"], next: "t/1+"), page(["c"], next: nil)])
        let (client, _) = try client(transport)
        #expect(try client.list(bucket: "bkt", prefix: "").map(\.location.key) == ["a", "b", "c"])
        #expect(transport.requests[1].url.hasSuffix("?list-type=2&prefix=&continuation-token=t%2F1%2B"))
    }
}
