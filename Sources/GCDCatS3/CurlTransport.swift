import CCurl
import FoundationEssentials
import GCDCatSystem
import Synchronization

/// ``HTTPTransport`` over libcurl's easy interface: each request is one blocking
/// `curl_easy_perform` on the caller's thread.
///
/// Why not Foundation's URLSession, which runs on the same libcurl: on Linux it drives
/// libcurl's multi interface from a dispatch event loop, which woke tens of thousands of times
/// during a server-side merge that moved no data (one core busy, taken from a server on the
/// same machine), and it copies every body into a buffer of its own. Here libcurl reads the
/// body straight from the caller's buffer, and a thread that waits on a long UploadPartCopy
/// sleeps in `poll` (docs/notes/s3.md, "Transport").
///
/// ## Implementation details
/// - Handles are pooled: each keeps its connection open between requests, so a worker that
///   sends part after part reuses one connection. `curl_easy_reset` clears a handle's options
///   between requests and keeps the connection. A handle whose request failed is dropped.
/// - `Expect:` goes out empty, or libcurl would wait for `100 Continue` before each body.
/// - Timeouts: the connect may take `timeout` seconds, and a request fails once no byte moved
///   either way for `timeout` seconds (the idle timeout URLSession had), judged by the progress
///   callback (``CurlExchange/progress(moved:)``) within about a second.
/// - `CURLOPT_NOSIGNAL`: libcurl must leave signals alone in a threaded program (gcdcat's
///   handler owns them); it sends with `MSG_NOSIGNAL`, so a closed socket raises no SIGPIPE.
public final class CurlTransport: HTTPTransport {
    private let idle = Mutex<[CurlEasyHandle]>([])

    /// libcurl's one-time global setup; thread-safe in the libcurl Debian 12 ships (7.88).
    private static let globalSetup: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    /// libcurl's socket buffers: larger than its defaults (64 KiB up, 16 KiB down), so a part
    /// moves in fewer callbacks and system calls.
    private static let uploadBufferSize = 1 << 20
    private static let downloadBufferSize = 512 << 10

    /// The CA bundle (`CURLOPT_CAINFO`) and whether the peer is verified, for every request.
    private let tls: S3TLSSettings

    public init(tls: S3TLSSettings = S3TLSSettings()) {
        _ = Self.globalSetup
        self.tls = tls
    }

    public func send(_ request: HTTPRequest) throws(HTTPTransportError) -> HTTPResponse {
        guard Self.globalSetup == CURLE_OK else {
            throw HTTPTransportError(message: "libcurl could not start (curl_global_init)", isRetryable: false)
        }
        return try request.body.withUnsafeBytes { body in
            let pooled = idle.withLock { $0.popLast() }
            let first = attempt(request, body: body, handle: pooled ?? CurlEasyHandle(), keptAConnection: pooled != nil)
            guard first.sendFailedOnAKeptConnection else { return first.result }
            return attempt(request, body: body, handle: CurlEasyHandle(), keptAConnection: false).result
        }.get()
    }

    /// One request on `handle`, which goes back to the pool only when an answer came. A failed
    /// handle is not trusted again: after a failed name lookup, libcurl 7.88 refuses
    /// `CURLOPT_BUFFERSIZE` on that handle ever after, so a pooled one failed every later request.
    private func attempt(
        _ request: HTTPRequest, body: UnsafeRawBufferPointer, handle: CurlEasyHandle?, keptAConnection: Bool
    ) -> (result: Result<HTTPResponse, HTTPTransportError>, sendFailedOnAKeptConnection: Bool) {
        guard let handle else {
            let failure = HTTPTransportError(
                message: "libcurl could not make a handle (curl_easy_init)", isRetryable: false)
            return (.failure(failure), false)
        }
        let outcome = perform(request, body: body, on: handle, keptAConnection: keptAConnection)
        if case .success = outcome.result { idle.withLock { $0.append(handle) } }
        return outcome
    }

    /// One `curl_easy_perform`, and whether its send failed on a kept-alive connection before
    /// any answer came. The server closed that connection while it sat idle (a close can cross
    /// the next request on the wire), so the request never reached it whole: it goes again on
    /// a new handle's connection, safely for every method.
    ///
    /// libcurl 7.88 itself sends a request again on a new connection when the kept one gave
    /// nothing back: a failed *receive*, after which the server may have acted on the first
    /// sending and lost only the answer. That cannot be told from a connection found closed
    /// before the send, so every answer that needed a new connection on a handle that kept
    /// one says ``HTTPResponse/mayHaveBeenSentTwice``.
    private func perform(
        _ request: HTTPRequest, body: UnsafeRawBufferPointer, on handle: CurlEasyHandle, keptAConnection: Bool
    ) -> (result: Result<HTTPResponse, HTTPTransportError>, sendFailedOnAKeptConnection: Bool) {
        let easy = handle.raw
        curl_easy_reset(easy)
        let exchange = CurlExchange(body: body, idleLimit: request.timeout)
        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(headerList) }
        for (name, value) in request.headers { headerList = curl_slist_append(headerList, "\(name): \(value)") }
        headerList = curl_slist_append(headerList, "Expect:")

        var setup = Self.exchangeOptions(request, headers: headerList, on: easy, exchange: exchange, tls: tls)
        guard let methodSetup = Self.methodOptions(request, body: body, on: easy, exchange: exchange) else {
            let refusal = HTTPTransportError(message: "a \(request.method) request with a body", isRetryable: false)
            return (.failure(refusal), false)
        }
        setup += methodSetup
        if let refused = setup.first(where: { $0 != CURLE_OK }) {
            return (.failure(Self.transportError(refused, exchange, tls: tls)), false)
        }

        let code = withExtendedLifetime(exchange) { curl_easy_perform(easy) }
        let newConnections = gcdcat_curl_info_long(easy, CURLINFO_NUM_CONNECTS, 1)
        guard code == CURLE_OK else {
            if code == CURLE_ABORTED_BY_CALLBACK, exchange.idledOut {
                let idle = HTTPTransportError(
                    message:
                        "timed out: no byte moved either way for \(RequestDeadline.text(request.timeout.rounded(.up)))",
                    isRetryable: true)
                return (.failure(idle), false)
            }
            let sendFailed = code == CURLE_SEND_ERROR && newConnections == 0 && !exchange.answered
            // The URL's scheme is http or https (S3Endpoint), so here this code means the
            // server's bytes were not HTTP at all (libcurl: "Received HTTP/0.9"): a middlebox
            // or a wrong port, worth another attempt like any garbled answer.
            if code == CURLE_UNSUPPORTED_PROTOCOL, request.url.hasPrefix("http://") || request.url.hasPrefix("https://")
            {
                let garbled = HTTPTransportError(
                    message: "the answer is not HTTP: \(Self.transportError(code, exchange, tls: tls).message)",
                    isRetryable: true
                )
                return (.failure(garbled), false)
            }
            return (.failure(Self.transportError(code, exchange, tls: tls)), sendFailed)
        }
        let response = HTTPResponse(
            status: gcdcat_curl_info_long(easy, CURLINFO_RESPONSE_CODE, 0), headers: exchange.headers,
            body: exchange.received, mayHaveBeenSentTwice: keptAConnection && newConnections > 0)
        return (.success(response), false)
    }

    /// The options every request sets: its URL and headers, the idle timeout's progress
    /// callback, the exchange's callbacks for the answer, and the TLS settings.
    private static func exchangeOptions(
        _ request: HTTPRequest, headers headerList: UnsafeMutablePointer<curl_slist>?,
        on easy: UnsafeMutableRawPointer, exchange: CurlExchange, tls: S3TLSSettings
    ) -> [CURLcode] {
        var setup = [
            gcdcat_curl_set_string(easy, CURLOPT_URL, request.url),
            gcdcat_curl_set_headers(easy, headerList),
            gcdcat_curl_set_long(easy, CURLOPT_NOSIGNAL, 1),
            gcdcat_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(request.timeout * 1000))),
            gcdcat_curl_set_long(easy, CURLOPT_NOPROGRESS, 0),
            gcdcat_curl_set_pointer(easy, CURLOPT_XFERINFODATA, exchange.context),
            gcdcat_curl_set_progress_callback(easy) { context, _, downloaded, _, uploaded in
                CurlExchange.from(context).progress(moved: Int64(downloaded) + Int64(uploaded)) ? 0 : 1
            },
            gcdcat_curl_set_long(easy, CURLOPT_BUFFERSIZE, Self.downloadBufferSize),
            gcdcat_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, exchange.errorBuffer),
            gcdcat_curl_set_pointer(easy, CURLOPT_WRITEDATA, exchange.context),
            gcdcat_curl_set_callback(easy, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
                let length = size * count
                CurlExchange.from(context).receive(UnsafeRawBufferPointer(start: bytes, count: length))
                return length
            },
            gcdcat_curl_set_pointer(easy, CURLOPT_HEADERDATA, exchange.context),
            gcdcat_curl_set_callback(easy, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
                let length = size * count
                CurlExchange.from(context).header(UnsafeRawBufferPointer(start: bytes, count: length))
                return length
            },
        ]
        if let bundle = tls.caBundle { setup.append(gcdcat_curl_set_string(easy, CURLOPT_CAINFO, bundle)) }
        if !tls.verifiesPeer {
            setup += [
                gcdcat_curl_set_long(easy, CURLOPT_SSL_VERIFYPEER, 0),
                gcdcat_curl_set_long(easy, CURLOPT_SSL_VERIFYHOST, 0),
            ]
        }
        return setup
    }

    /// The options of `request`'s method: an upload reads `body` through `exchange`; nil for a
    /// body on a method that cannot send one.
    private static func methodOptions(
        _ request: HTTPRequest, body: UnsafeRawBufferPointer, on easy: UnsafeMutableRawPointer, exchange: CurlExchange
    ) -> [CURLcode]? {
        var setup: [CURLcode] = []
        switch request.method {
        case "HEAD":
            setup.append(gcdcat_curl_set_long(easy, CURLOPT_NOBODY, 1))
        case "GET":
            setup.append(gcdcat_curl_set_long(easy, CURLOPT_HTTPGET, 1))
        case "PUT", "POST":
            // An upload of exactly `body.count` bytes, read from the caller's buffer.
            setup += [
                gcdcat_curl_set_long(easy, CURLOPT_UPLOAD, 1),
                gcdcat_curl_set_offset(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(body.count)),
                gcdcat_curl_set_long(easy, CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferSize),
                gcdcat_curl_set_pointer(easy, CURLOPT_READDATA, exchange.context),
                gcdcat_curl_set_callback(easy, CURLOPT_READFUNCTION) { buffer, size, count, context in
                    guard let buffer else { return 0 }
                    return CurlExchange.from(context).read(into: buffer, capacity: size * count)
                },
                gcdcat_curl_set_pointer(easy, CURLOPT_SEEKDATA, exchange.context),
                gcdcat_curl_set_seek_callback(easy) { context, offset, origin in
                    CurlExchange.from(context).seek(to: Int64(offset), origin: origin)
                },
            ]
            if request.method == "POST" { setup.append(gcdcat_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, "POST")) }
        default:
            guard body.isEmpty else { return nil }
            setup.append(gcdcat_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        return setup
    }

    /// The failure in the words the retry policy and the user need: what happened, and
    /// whether another attempt may do better; an untrusted certificate names what it was
    /// checked against (`tls`).
    package static func transportError(_ code: CURLcode, _ exchange: CurlExchange, tls: S3TLSSettings)
        -> HTTPTransportError
    {
        let detail = exchange.errorMessage.isEmpty ? String(cString: curl_easy_strerror(code)) : exchange.errorMessage
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            return HTTPTransportError(
                message: "the endpoint's TLS certificate is not trusted: \(detail) (\(tls.untrustedHint(detail)))",
                isRetryable: false)
        case CURLE_SSL_CACERT_BADFILE:
            return HTTPTransportError(message: "the CA bundle cannot be used: \(detail)", isRetryable: false)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_BAD_FUNCTION_ARGUMENT,
            CURLE_UNKNOWN_OPTION, CURLE_OUT_OF_MEMORY, CURLE_SSL_CERTPROBLEM:
            return HTTPTransportError(message: detail, isRetryable: false)
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPTransportError(message: "timed out: \(detail)", isRetryable: true)
        case CURLE_COULDNT_CONNECT:
            return HTTPTransportError(message: "cannot connect to host: \(detail)", isRetryable: true)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPTransportError(message: "cannot find host: \(detail)", isRetryable: true)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return HTTPTransportError(message: "connection lost: \(detail)", isRetryable: true)
        default:
            return HTTPTransportError(message: detail, isRetryable: true)
        }
    }
}

/// One libcurl easy handle and the connection it keeps open.
///
/// `@unchecked Sendable`: a handle is used by one request at a time. ``CurlTransport`` takes it
/// from its pool under the pool's lock and returns it there when the request is done, so it
/// passes between threads only through that lock.
package final class CurlEasyHandle: @unchecked Sendable {
    package let raw: UnsafeMutableRawPointer

    package init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }
}
