import Foundation
import GCDCatCore
import Testing

/// A bucket in another region than the one configured: the server's 301, 400
/// AuthorizationHeaderMalformed and 307 answers are followed once, re-signed for the region
/// they name, and the region is kept for the bucket's later requests.
struct S3RegionRedirectTests {
    let object = ObjectLocation(bucket: "bkt", key: "a.001")

    private func client(_ transport: ScriptedTransport, endpoint: String? = nil) throws -> S3Client {
        let configuration = S3Configuration(
            endpoint: try endpoint.map { try S3Endpoint(parsing: $0) }, region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret"))
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: 0, maximumDelay: 0, sleep: { _ in }, jitter: { 0 })
        return S3Client(configuration: configuration, transport: transport, retry: policy)
    }

    private static func error(_ status: Int, _ xml: String, headers: [String: String] = [:]) -> ScriptedTransport.Step {
        .answer(HTTPResponse(status: status, headers: headers, body: Data("<Error>\(xml)</Error>".utf8)))
    }

    private static let found = ScriptedTransport.Step.answer(
        HTTPResponse(status: 200, headers: ["content-length": "5", "etag": "\"e\""]))

    /// The region in the Authorization header's credential scope.
    private static func scope(_ request: HTTPRequest) -> String? {
        request.headers["authorization"]?.firstMatch(of: /Credential=AKID\/\d{8}\/([a-z0-9-]+)\/s3\//)
            .map { String($0.1) }
    }

    @Test func aPermanentRedirectIsFollowedOnceAndTheRegionKeptForTheBucket() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 301, headers: ["x-amz-bucket-region": "eu-west-2"])),  // HEAD: no body
            Self.found, Self.found,
        ])
        let client = try client(transport)
        #expect(try client.head(object)?.size == 5)
        #expect(try client.head(object)?.size == 5)
        let sent = transport.requests
        #expect(
            sent.map(\.url) == [
                "https://bkt.s3.us-east-1.amazonaws.com/a.001", "https://bkt.s3.eu-west-2.amazonaws.com/a.001",
                "https://bkt.s3.eu-west-2.amazonaws.com/a.001",
            ])
        #expect(sent.map(Self.scope) == ["us-east-1", "eu-west-2", "eu-west-2"])
    }

    @Test func anAuthorizationHeaderMalformedNamingTheRegionIsReSignedForIt() throws {
        let transport = ScriptedTransport([
            Self.error(
                400,
                "<Code>AuthorizationHeaderMalformed</Code><Message>the region 'us-east-1' is wrong; expecting "
                    + "'ap-south-1'</Message><Region>ap-south-1</Region>"),
            Self.found,
        ])
        let client = try client(transport, endpoint: "http://127.0.0.1:9")
        #expect(try client.head(object)?.size == 5)
        #expect(transport.requests.map(Self.scope) == ["us-east-1", "ap-south-1"])
        #expect(transport.requests.allSatisfy { $0.url == "http://127.0.0.1:9/bkt/a.001" })
    }

    @Test func aSecondRedirectIsAnErrorNotALoop() throws {
        let redirect = Self.error(
            301, "<Code>PermanentRedirect</Code><Endpoint>bkt.s3.eu-west-2.amazonaws.com</Endpoint>",
            headers: ["x-amz-bucket-region": "eu-west-2"])
        let back = Self.error(
            301, "<Code>PermanentRedirect</Code>", headers: ["x-amz-bucket-region": "us-east-1"])
        let transport = ScriptedTransport([redirect, back, Self.found])
        let client = try client(transport)
        let error = #expect(throws: GCDCatError.self) { try client.list(bucket: "bkt", prefix: "a.") }
        #expect(transport.requests.count == 2)
        #expect(error?.path == "s3://bkt/a.")
        #expect(error?.syscall == "ListObjectsV2")
        #expect(
            error?.message
                == "PermanentRedirect (HTTP 301): the server sends bucket 'bkt' to region us-east-1, after gcdcat had "
                + "already followed one redirect (to region eu-west-2); set AWS_REGION=us-east-1 or the profile's region"
        )
    }

    @Test func aTemporaryRedirectIsFollowedToTheEndpointItNames() throws {
        let transport = ScriptedTransport([
            Self.error(
                307, "<Code>TemporaryRedirect</Code><Endpoint>bkt.s3-eu-central-1.amazonaws.com</Endpoint>"),
            Self.found, Self.found,
        ])
        let client = try client(transport)
        #expect(try client.head(object)?.size == 5)
        #expect(try client.head(ObjectLocation(bucket: "bkt", key: "b"))?.size == 5)
        #expect(
            transport.requests.map(\.url).suffix(2) == [
                "https://bkt.s3-eu-central-1.amazonaws.com/a.001", "https://bkt.s3-eu-central-1.amazonaws.com/b",
            ])
    }

    @Test func aTemporaryRedirectElsewhereIsExplainedNotAVagueHTTPError() throws {
        let transport = ScriptedTransport([
            Self.error(307, "<Code>TemporaryRedirect</Code><Endpoint>other.example:8443</Endpoint>")
        ])
        let client = try client(transport, endpoint: "http://rgw.lan:7480")
        let error = #expect(throws: GCDCatError.self) { try client.head(object) }
        #expect(transport.requests.count == 1)
        #expect(
            error?.message
                == "TemporaryRedirect (HTTP 307): the server sends bucket 'bkt' to endpoint other.example:8443; gcdcat "
                + "sends requests only to http://rgw.lan:7480's hosts: give --endpoint-url for other.example:8443")
        let bare = ScriptedTransport([.answer(HTTPResponse(status: 307))])
        let unnamed = #expect(throws: GCDCatError.self) { try self.client(bare).head(object) }
        #expect(
            unnamed?.message
                == "TemporaryRedirect (HTTP 307): the server sends bucket 'bkt' to another endpoint it does not name")
    }
}

/// A clock far from the server's is reported as such, with both times, not as a key problem.
struct S3ClockSkewTests {
    private func head(_ answer: HTTPResponse) throws -> GCDCatError? {
        let transport = ScriptedTransport([.answer(answer)])
        let client = S3Client(
            configuration: S3Configuration(
                endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "us-east-1",
                credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")),
            transport: transport, retry: RetryPolicy(maximumAttempts: 1, sleep: { _ in }))
        return #expect(throws: GCDCatError.self) { try client.list(bucket: "bkt", prefix: "") }
    }

    private static func httpDate(_ secondsFromNow: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date().addingTimeInterval(secondsFromNow))
    }

    @Test func requestTimeTooSkewedNamesBothClocks() throws {
        let serverDate = Self.httpDate(2 * 3600 + 30)
        let error = try head(
            HTTPResponse(
                status: 403, headers: ["date": serverDate],
                body: Data("<Error><Code>RequestTimeTooSkewed</Code></Error>".utf8)))
        let message = try #require(error?.message)
        #expect(message.hasPrefix("RequestTimeTooSkewed (HTTP 403) (this machine's clock is not the server's: "))
        #expect(message.contains(", the server's Date was \(serverDate) (this machine's clock is 2 h 0 min behind)"))
        #expect(message.contains(" UTC, the server's Date"))
        #expect(message.hasSuffix("set the clock (NTP), the keys are not at fault)"))
        #expect(!message.contains("AWS_ACCESS_KEY_ID"))
    }

    @Test func aForbiddenAnswerFromAServerHoursAwayIsClockSkewNotKeys() throws {
        let serverDate = Self.httpDate(-3 * 3600 - 20 * 60)
        let error = try head(
            HTTPResponse(
                status: 403, headers: ["date": serverDate],
                body: Data("<Error><Code>SignatureDoesNotMatch</Code></Error>".utf8)))
        #expect(error?.message.contains("(this machine's clock is 3 h 20 min ahead)") == true)
        #expect(error?.message.contains("AWS_ACCESS_KEY_ID") == false)
    }

    @Test func aForbiddenAnswerWithTheClocksAgreeingStillPointsAtTheKeys() throws {
        let error = try head(
            HTTPResponse(
                status: 403, headers: ["date": Self.httpDate(60)],
                body: Data("<Error><Code>SignatureDoesNotMatch</Code></Error>".utf8)))
        #expect(
            error?.message.hasSuffix("(check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the profile's keys)") == true)
    }
}
