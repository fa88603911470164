import Foundation
import GCDCatCore
import Synchronization
import Testing

/// The S3 client's HTTP (libcurl's easy interface) against a scripted server on loopback:
/// what goes out byte for byte, how answers are read, and how each failure is classified for
/// the retry policy. The live S3 suites cover the same transport against Ceph RGW.
@Suite struct CurlTransportTests {
    let transport = CurlTransport()

    static func answer(_ status: String, headers: [String] = [], body: String = "", close: Bool = false)
        -> LoopbackHTTPServer.Reply
    {
        let head = (["HTTP/1.1 \(status)", "Content-Length: \(body.utf8.count)"] + headers).joined(separator: "\r\n")
        return .raw(head + "\r\n\r\n" + body, close: close)
    }

    @Test func anUploadArrivesByteForByteWithoutExpectOrAFormType() throws {
        let server = try LoopbackHTTPServer { _ in Self.answer("200 OK", headers: ["ETag: \"abc\""]) }
        defer { server.stop() }
        // Larger than libcurl's upload buffer, so it goes in several reads of the caller's bytes.
        let body = Data((0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        for method in ["PUT", "POST"] {
            let response = try transport.send(
                HTTPRequest(
                    method: method, url: server.url("/b/k?partNumber=1"), headers: ["x-amz-test": "yes"], body: body,
                    timeout: 10))
            #expect(response.status == 200)
            #expect(response.headers["etag"] == "\"abc\"")
        }
        let seen = server.requests
        try #require(seen.count == 2)
        for (request, method) in zip(seen, ["PUT", "POST"]) {
            #expect(request.method == method)
            #expect(request.target == "/b/k?partNumber=1")
            #expect(request.body == [UInt8](body))
            #expect(request.header("content-length") == String(body.count))
            #expect(request.header("x-amz-test") == "yes")
            #expect(request.header("expect") == nil)
            #expect(request.header("content-type") == nil)
            #expect(request.header("transfer-encoding") == nil)
        }
    }

    @Test func anEmptyPostStillSaysItsLength() throws {
        let server = try LoopbackHTTPServer { _ in Self.answer("200 OK", body: "<UploadId>u</UploadId>") }
        defer { server.stop() }
        let response = try transport.send(
            HTTPRequest(method: "POST", url: server.url("/b/k?uploads"), headers: [:], timeout: 10))
        #expect(String(decoding: response.body, as: UTF8.self) == "<UploadId>u</UploadId>")
        #expect(server.requests.first?.method == "POST")
        #expect(server.requests.first?.header("content-length") == "0")
    }

    @Test func headersAreLowercasedTrimmedAndRepeatsJoined() throws {
        let server = try LoopbackHTTPServer { _ in
            Self.answer(
                "206 Partial Content",
                headers: ["X-Amz-Meta-Gcdcat-Crc32:   0a1b2c3d  ", "X-Dup: one", "X-Dup: two", "ETag: \"e\""],
                body: "abcdef")
        }
        defer { server.stop() }
        let response = try transport.send(
            HTTPRequest(method: "GET", url: server.url("/b/k"), headers: [:], timeout: 10))
        #expect(response.status == 206)
        #expect(response.headers["x-amz-meta-gcdcat-crc32"] == "0a1b2c3d")
        #expect(response.headers["x-dup"] == "one, two")
        #expect(response.headers["content-length"] == "6")
        #expect(response.body == Data("abcdef".utf8))
    }

    @Test func aHeadAnswerHasItsLengthAndNoBody() throws {
        let server = try LoopbackHTTPServer { _ in
            .raw("HTTP/1.1 200 OK\r\nContent-Length: 67108864\r\nETag: \"x-4\"\r\n\r\n", close: false)
        }
        defer { server.stop() }
        let response = try transport.send(
            HTTPRequest(method: "HEAD", url: server.url("/b/k"), headers: [:], timeout: 5))
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "67108864")
        #expect(response.body.isEmpty)
    }

    @Test func onlyTheFinalAnswersHeadersCountAfterA100Continue() throws {
        let server = try LoopbackHTTPServer { _ in
            .raw(
                "HTTP/1.1 100 Continue\r\nX-Early: 1\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno",
                close: false)
        }
        defer { server.stop() }
        let response = try transport.send(
            HTTPRequest(method: "PUT", url: server.url("/b/k"), headers: [:], body: Data("x".utf8), timeout: 5))
        #expect(response.status == 404)
        #expect(response.headers["x-early"] == nil)
        #expect(response.body == Data("no".utf8))
    }

    @Test func aDeleteIsADeleteWithoutABody() throws {
        let server = try LoopbackHTTPServer { _ in Self.answer("204 No Content") }
        defer { server.stop() }
        let response = try transport.send(
            HTTPRequest(method: "DELETE", url: server.url("/b/k"), headers: [:], timeout: 5))
        #expect(response.status == 204)
        #expect(server.requests.map(\.method) == ["DELETE"])
        #expect(server.requests.first?.body == [])
    }

    @Test func requestsOneAfterAnotherShareOneConnection() throws {
        let server = try LoopbackHTTPServer { _ in Self.answer("200 OK", body: "ok") }
        defer { server.stop() }
        for _ in 0..<5 {
            _ = try transport.send(HTTPRequest(method: "GET", url: server.url("/b/k"), headers: [:], timeout: 5))
        }
        #expect(server.requests.count == 5)
        #expect(server.connections == 1)
    }

    /// Every answer closes the connection without saying so. libcurl usually sees the close
    /// before it reuses the connection, but the close can cross the next request on the wire,
    /// and the body's send then meets a reset. CI met it once in 3 requests; before the
    /// transport sent such a request again, 2 or 3 of 300 failed here with "Send failure".
    /// Each request must arrive once, whole.
    @Test func aConnectionTheServerClosedIsReplacedAndTheBodySentWhole() throws {
        let body = [UInt8](repeating: 0x5a, count: 1 << 20)
        let server = try LoopbackHTTPServer(keepsBodies: false) { request in
            let status = request.body == body ? "200 OK" : "400 Bad Request"
            return .raw("HTTP/1.1 \(status)\r\nContent-Length: 0\r\n\r\n", close: true)
        }
        defer { server.stop() }
        var statuses: [Int: Int] = [:]
        for _ in 0..<500 {
            let response = try transport.send(
                HTTPRequest(method: "PUT", url: server.url("/b/k"), headers: [:], body: Data(body), timeout: 5))
            statuses[response.status, default: 0] += 1
        }
        #expect(statuses == [200: 500])
        #expect(server.requests.count == 500)
    }

    /// A kept connection that the server closes after reading a request whole, without an
    /// answer: libcurl sends the request again on a new connection by itself, so the server
    /// may have acted twice (a lost answer). The response says so; a plain one does not.
    @Test func anAnswerLibcurlGotBySendingAgainSaysSo() throws {
        let server = try LoopbackHTTPServer { request in
            request.target == "/lost" && request.connection == 0
                ? .stall(seconds: 0)
                : .raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", close: false)
        }
        defer { server.stop() }
        let first = try transport.send(HTTPRequest(method: "GET", url: server.url("/first"), headers: [:], timeout: 5))
        #expect(first.mayHaveBeenSentTwice == false)
        let again = try transport.send(
            HTTPRequest(method: "POST", url: server.url("/lost"), headers: [:], body: Data("x".utf8), timeout: 5))
        #expect(again.status == 200)
        #expect(again.mayHaveBeenSentTwice == true)
        #expect(server.requests.map(\.target) == ["/first", "/lost", "/lost"])
        let next = try transport.send(HTTPRequest(method: "GET", url: server.url("/next"), headers: [:], timeout: 5))
        #expect(next.mayHaveBeenSentTwice == false)
    }

    /// Once a status line came back, the server may have acted: a connection lost after that
    /// is not sent again by the transport (the S3 client's retry policy decides).
    @Test func aRequestTheServerBeganToAnswerIsNotSentAgain() throws {
        let server = try LoopbackHTTPServer { request in
            request.connection == 0 && request.target == "/first"
                ? .raw("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", close: false)
                : .raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ncut", close: true)
        }
        defer { server.stop() }
        _ = try transport.send(HTTPRequest(method: "GET", url: server.url("/first"), headers: [:], timeout: 5))
        let error = #expect(throws: HTTPTransportError.self) {
            try transport.send(
                HTTPRequest(method: "PUT", url: server.url("/second"), headers: [:], body: Data("x".utf8), timeout: 5))
        }
        #expect(error?.message.hasPrefix("connection lost") == true)
        #expect(server.requests.map(\.target) == ["/first", "/second"])
        #expect(server.connections == 1)
    }

    @Test func aRefusedConnectIsRetryableAndSaysSo() throws {
        let server = try LoopbackHTTPServer { _ in Self.answer("200 OK") }
        let url = server.url("/b/k")
        server.stop()
        let error = #expect(throws: HTTPTransportError.self) {
            try transport.send(HTTPRequest(method: "GET", url: url, headers: [:], timeout: 5))
        }
        #expect(error?.isRetryable == true)
        #expect(error?.message.hasPrefix("cannot connect to host") == true)
    }

    @Test func aSilentServerTimesOutAfterTheIdleTimeout() throws {
        let server = try LoopbackHTTPServer { _ in .stall(seconds: 20) }
        defer { server.stop() }
        let started = Date()
        let error = #expect(throws: HTTPTransportError.self) {
            try transport.send(HTTPRequest(method: "GET", url: server.url("/b/k"), headers: [:], timeout: 1))
        }
        #expect(error?.isRetryable == true)
        #expect(error?.message.hasPrefix("timed out") == true)
        #expect(Date().timeIntervalSince(started) < 15)
    }

    @Test func anAnswerCutShortIsALostConnection() throws {
        let server = try LoopbackHTTPServer { _ in
            .raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this", close: true)
        }
        defer { server.stop() }
        let error = #expect(throws: HTTPTransportError.self) {
            try transport.send(HTTPRequest(method: "GET", url: server.url("/b/k"), headers: [:], timeout: 5))
        }
        #expect(error?.isRetryable == true)
        #expect(error?.message.hasPrefix("connection lost") == true)
    }

    /// libcurl 7.88 leaves a handle whose name lookup failed refusing CURLOPT_BUFFERSIZE: when
    /// that handle went back to the pool, every later request on it failed with "A libcurl
    /// function was given a bad argument", a failure not retried.
    @Test func aFailedNameLookupLeavesTheTransportWorking() throws {
        let server = try LoopbackHTTPServer { _ in Self.answer("200 OK", body: "ok") }
        defer { server.stop() }
        for _ in 0..<3 {
            let error = #expect(throws: HTTPTransportError.self) {
                try transport.send(
                    HTTPRequest(method: "GET", url: "http://no-such-host.invalid/b/k", headers: [:], timeout: 5))
            }
            #expect(error?.message.hasPrefix("cannot find host: ") == true, "\(String(describing: error))")
            #expect(error?.isRetryable == true)
            let response = try transport.send(
                HTTPRequest(method: "GET", url: server.url("/b/k"), headers: [:], timeout: 5))
            #expect(response.status == 200)
        }
        #expect(server.requests.count == 3)
    }

    /// Bytes that are not HTTP (a wrong port, a middlebox) are a garbled answer, retried like a
    /// lost connection; libcurl's own code for it (UNSUPPORTED_PROTOCOL) was read as a bad scheme.
    @Test func anAnswerThatIsNotHTTPIsRetryableAndSaysSo() throws {
        let server = try LoopbackHTTPServer { _ in .raw("SSH-2.0-OpenSSH_9.2\r\n\r\n", close: true) }
        defer { server.stop() }
        let error = #expect(throws: HTTPTransportError.self) {
            try transport.send(HTTPRequest(method: "GET", url: server.url("/b/k"), headers: [:], timeout: 5))
        }
        #expect(error?.isRetryable == true)
        #expect(error?.message.hasPrefix("the answer is not HTTP: ") == true, "\(String(describing: error))")
    }

    @Test func anUnsupportedSchemeIsNotRetried() throws {
        let error = #expect(throws: HTTPTransportError.self) {
            try transport.send(HTTPRequest(method: "GET", url: "gopherx://127.0.0.1/b/k", headers: [:], timeout: 5))
        }
        #expect(error?.isRetryable == false)
    }

    @Test func manyThreadsShareOneTransport() throws {
        let server = try LoopbackHTTPServer { request in Self.answer("200 OK", body: String(request.body.count)) }
        defer { server.stop() }
        let failures = Mutex<[String]>([])
        let transport = self.transport
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            let body = Data(repeating: UInt8(index), count: index * 1000)
            do {
                let response = try transport.send(
                    HTTPRequest(method: "PUT", url: server.url("/b/\(index)"), headers: [:], body: body, timeout: 10))
                if response.body != Data(String(body.count).utf8) {
                    failures.withLock { $0.append("\(index): wrong answer") }
                }
            } catch {
                failures.withLock { $0.append("\(index): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(server.requests.count == 32)
    }
}
