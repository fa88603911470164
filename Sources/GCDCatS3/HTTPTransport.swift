import FoundationEssentials
import GCDCatSystem

/// One HTTP request as ``S3Client`` sends it: signed, with the whole body in memory.
public struct HTTPRequest: Sendable {
    public var method: String
    /// Absolute, with the path and query already percent-encoded.
    public var url: String
    public var headers: [String: String]
    public var body: Data
    /// Seconds the request may stay idle.
    public var timeout: Double

    public init(method: String, url: String, headers: [String: String], body: Data = Data(), timeout: Double) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A response: status, headers (names lowercased) and the whole body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// The transport may have sent the request twice: its kept connection died and the
    /// request went again on a new one, so an answer to the first sending may have been lost
    /// after the server acted. The S3 client treats it as a retry (a CreateMultipartUpload
    /// looks for an orphan; a conditional PUT's 412 may be its own object).
    public var mayHaveBeenSentTwice: Bool

    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), mayHaveBeenSentTwice: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.mayHaveBeenSentTwice = mayHaveBeenSentTwice
    }
}

/// A request that got no HTTP answer: a timeout, a reset connection, a refused connect.
public struct HTTPTransportError: Error, Sendable, Equatable {
    public var message: String
    /// Worth another attempt (timeouts, resets); false for a malformed URL and the like.
    public var isRetryable: Bool

    public init(message: String, isRetryable: Bool) {
        self.message = message
        self.isRetryable = isRetryable
    }
}

/// The seam between ``S3Client`` and the network: blocking, callable from any thread.
/// ``CurlTransport`` is the real one; tests script a fake to force retries.
///
/// A request's `body` may be `Data` over the caller's buffer (no copy), valid only until
/// ``send(_:)`` returns: a transport that keeps the body longer must copy it.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) throws(HTTPTransportError) -> HTTPResponse
}
