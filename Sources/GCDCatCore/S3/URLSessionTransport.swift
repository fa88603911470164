import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``HTTPTransport`` over Foundation's URLSession (libcurl underneath on Linux), each request
/// made blocking with a semaphore.
///
/// ## Implementation details
/// One session serves every thread; its connection pool allows as many connections per host
/// as `maximumConnections`, so parallel part uploads do not queue behind each other. Nothing
/// is cached and no cookies are kept. Besides URLSession's idle timeout, a wall-clock guard
/// (4 × the timeout + 60 s) cancels a request whose completion never comes.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init(maximumConnections: Int = 16) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maximumConnections
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest) throws(HTTPTransportError) -> HTTPResponse {
        guard let url = URL(string: request.url) else {
            throw HTTPTransportError(message: "not a valid URL: \(request.url)", isRetryable: false)
        }
        var urlRequest = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty || request.method == "PUT" || request.method == "POST" {
            // dataTask(with:) copies it into the task's own buffer (the body may be borrowed).
            urlRequest.httpBody = request.body
        }

        let outcome = Mutex<Result<HTTPResponse, HTTPTransportError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: urlRequest) { data, response, error in
            let result: Result<HTTPResponse, HTTPTransportError>
            if let error {
                result = .failure(Self.transportError(error))
            } else if let http = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    headers[String(describing: name).lowercased()] = String(describing: value)
                }
                result = .success(HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
            } else {
                result = .failure(HTTPTransportError(message: "no HTTP response", isRetryable: true))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + .milliseconds(Int((request.timeout * 4 + 60) * 1000))) == .timedOut {
            task.cancel()
            _ = done.wait(timeout: .now() + .seconds(10))
            throw HTTPTransportError(message: "no answer within \(Int(request.timeout * 4 + 60)) s", isRetryable: true)
        }
        guard let result = outcome.withLock({ $0 }) else {
            throw HTTPTransportError(message: "request abandoned", isRetryable: true)
        }
        return try result.get()
    }

    private static func transportError(_ error: any Error) -> HTTPTransportError {
        guard let urlError = error as? URLError else {
            return HTTPTransportError(message: String(describing: error), isRetryable: true)
        }
        switch urlError.code {
        case .badURL, .unsupportedURL, .cancelled, .userAuthenticationRequired:
            return HTTPTransportError(message: urlError.localizedDescription, isRetryable: false)
        case .timedOut:
            return HTTPTransportError(message: "timed out", isRetryable: true)
        case .networkConnectionLost:
            return HTTPTransportError(message: "connection lost", isRetryable: true)
        case .cannotConnectToHost:
            return HTTPTransportError(message: "cannot connect to host", isRetryable: true)
        case .cannotFindHost, .dnsLookupFailed:
            return HTTPTransportError(message: "cannot find host", isRetryable: true)
        default:
            return HTTPTransportError(message: urlError.localizedDescription, isRetryable: true)
        }
    }
}
