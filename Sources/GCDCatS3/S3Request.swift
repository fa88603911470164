import FoundationEssentials
import GCDCatSystem

/// One S3 operation before signing: what ``S3Client/perform(_:allowing:)`` turns into HTTP.
package struct S3Request {
    /// The S3 operation's name, the error's `syscall`.
    package var operation: String
    package var method: String
    /// The object, or the bucket and prefix for bucket-level operations; errors name it.
    package var location: ObjectLocation
    /// The path is the bucket alone, not the key.
    package var bucketLevel = false
    package var query: [(name: String, value: String)] = []
    /// Extra headers, names lowercase; every one is signed.
    package var headers: [String: String] = [:]
    package var body = Data()
    /// UploadPartCopy and CompleteMultipartUpload: a 200 whose body is `<Error>` is an error.
    package var errorMayComeWith200 = false
    /// A check of a successful answer (a ranged GET's length); a non-nil reason is a
    /// retryable failure.
    package var checkBody: ((HTTPResponse) -> String?)? = nil
    /// Called when the request may have reached the server more than once: before each retry,
    /// and for an answer the transport got by sending it again (CreateMultipartUpload then looks
    /// for the upload a lost answer may have left; a conditional PutObject's 412 may be its own).
    package var onRetry: (() -> Void)? = nil
    /// Called when an attempt got no answer (a timeout, a lost connection): the server may
    /// have acted on it all the same (CreateMultipartUpload then looks for the upload it made).
    package var onLostAnswer: (() -> Void)? = nil
}

extension S3Client {
    /// Signs, sends and retries `request`; returns a 2xx answer, or one whose status is in
    /// `allowing`.
    ///
    /// ## Errors
    /// The last failure once retries run out, or the first that is not retryable.
    package func perform(_ request: S3Request, allowing: Set<Int> = []) throws(GCDCatError) -> HTTPResponse {
        let request = try request.readingVersion()
        let payloadHash = request.body.withUnsafeBytes { SigV4Signer.payloadHash($0) }
        var route = routes.route(request.location.bucket, default: configuration.region)
        var redirected = false
        var attempt = 0
        let deadline = RequestDeadline(seconds: configuration.requestTimeout)
        while true {
            let (url, host, path) = address(request, route: route)
            let failure: GCDCatError
            let retryable: Bool
            let (headers, signature) = try signedHeaders(
                request, host: host, path: path, region: route.region, payloadHash: payloadHash)
            sent.add(UInt64(request.body.count), ordering: .relaxed)
            let answer: Result<HTTPResponse, HTTPTransportError>
            do {
                answer = .success(
                    try transport.send(
                        HTTPRequest(
                            method: request.method, url: url, headers: headers, body: request.body,
                            timeout: deadline.attemptTimeout)))
            } catch {
                answer = .failure(error)
            }
            switch answer {
            case .success(let response):
                received.add(UInt64(response.body.count), ordering: .relaxed)
                if response.mayHaveBeenSentTwice { request.onRetry?() }
                if let redirect = S3Redirect(response) {
                    // Followed once, re-signed for the region named; a second one is an error.
                    guard !redirected, let next = redirect.next(after: route, configuration: configuration) else {
                        throw redirect.refusal(
                            request, route: route, followed: redirected, configuration: configuration)
                    }
                    routes.learn(next, for: request.location.bucket)
                    (route, redirected) = (next, true)
                    continue
                }
                guard
                    let problem = classify(
                        response, request, allowing: allowing, signature: signature.signature,
                        sentAt: headers["x-amz-date"]!)
                else { return response }
                (failure, retryable) = problem
            case .failure(let error):
                request.onLostAnswer?()
                failure = GCDCatError(
                    .io, path: request.location.description, syscall: request.operation,
                    message: "\(error.message) (\(configuration.endpoint?.description ?? host))")
                retryable = error.isRetryable
            }
            attempt += 1
            try waitToRetry(request, after: failure, retryable: retryable, attempt: attempt, deadline: deadline)
        }
    }

    /// The headers of one attempt at `request`, signed with `region` (it may have been learned
    /// from a redirect) and the credentials current now (temporary ones may have been
    /// refreshed since the last attempt), and the signature.
    private func signedHeaders(
        _ request: S3Request, host: String, path: String, region: String, payloadHash: String
    ) throws(GCDCatError) -> (headers: [String: String], signature: SigV4Signer.Signature) {
        var signer = self.signer
        signer.region = region
        var headers = configuration.objectOptions.headers(for: request.operation, location: request.location)
        headers.merge(request.headers) { $1 }
        headers["host"] = host
        headers["x-amz-date"] = SigV4Signer.amzDate(secondsSince1970: Int(Date().timeIntervalSince1970))
        headers["x-amz-content-sha256"] = payloadHash
        signer.credentials = try currentCredentials(request)
        if let token = signer.credentials.sessionToken { headers["x-amz-security-token"] = token }
        let signature = signer.sign(
            method: request.method, encodedPath: path, query: request.query, headers: headers,
            payloadHash: payloadHash, amzDate: headers["x-amz-date"]!)
        headers["authorization"] = signature.authorization
        headers["host"] = nil  // libcurl sends it from the URL, the same text
        return (headers, signature)
    }

    /// Waits before attempt `attempt + 1` of `request` after `failure`; throws it instead when it
    /// is not retryable, the attempts ran out, or the retry could not start before the deadline
    /// (the request ends at its deadline however many attempts remain).
    private func waitToRetry(
        _ request: S3Request, after failure: GCDCatError, retryable: Bool, attempt: Int, deadline: RequestDeadline
    ) throws(GCDCatError) {
        let delay = retry.delay(afterAttempt: attempt - 1)
        if retryable, attempt < retry.maximumAttempts, !deadline.allowsRetry(after: delay) {
            throw deadline.expired(failure, attempts: attempt)
        }
        guard retryable, attempt < retry.maximumAttempts else {
            if attempt > 1 {
                var last = failure
                last.message += " (after \(attempt) attempts)"
                throw last
            }
            throw failure
        }
        request.onRetry?()
        retry.sleep(delay)
    }

    /// The URL (path and query percent-encoded), the host, and the path as signed.
    private func address(_ request: S3Request, route: BucketRoute) -> (url: String, host: String, path: String) {
        let (scheme, host, prefix) = configuration.target(bucket: request.location.bucket, route: route)
        let keyPath = request.bucketLevel ? "" : "/" + S3URIEncoding.encode(request.location.key, keepingSlash: true)
        var path = prefix + keyPath
        if path.isEmpty { path = "/" }
        let queryText = request.query
            .map {
                // A subresource (`?uploads`) goes bare; an empty value (`prefix=`) keeps its `=`.
                $0.value.isEmpty && $0.name == "uploads"
                    ? S3URIEncoding.encode($0.name)
                    : "\(S3URIEncoding.encode($0.name))=\(S3URIEncoding.encode($0.value))"
            }
            .joined(separator: "&")
        return ("\(scheme)://\(host)\(path)" + (queryText.isEmpty ? "" : "?\(queryText)"), host, path)
    }

    /// nil for a good answer; otherwise the error it carries and whether to try again.
    private func classify(
        _ response: HTTPResponse, _ request: S3Request, allowing: Set<Int>, signature: String, sentAt amzDate: String
    ) -> (GCDCatError, Bool)? {
        if (200..<300).contains(response.status) || allowing.contains(response.status) {
            if request.errorMayComeWith200, let error = S3XML.error(in: [UInt8](response.body)) {
                return (
                    makeError(request, status: response.status, code: error.code, message: error.message, signature),
                    RetryPolicy.isRetryable(code: error.code)
                )
            }
            if (200..<300).contains(response.status), let reason = request.checkBody?(response) {
                // The same answer would come again: the server does not serve this addressing.
                if let refusal = virtualHostRefusal(request.location.bucket, response) {
                    return (
                        GCDCatError(
                            .io, path: request.location.description, syscall: request.operation, message: refusal),
                        false
                    )
                }
                return (
                    GCDCatError(.io, path: request.location.description, syscall: request.operation, message: reason),
                    true
                )
            }
            return nil
        }
        let parsed = S3XML.error(in: [UInt8](response.body))
        let code = parsed?.code ?? Self.statusName(response.status)
        let skew = S3ClockSkew(code: code, sentAmzDate: amzDate, serverDate: response.headers["date"])
        return (
            makeError(
                request, status: response.status, code: code, message: parsed?.message ?? "", signature, skew: skew),
            RetryPolicy.isRetryable(status: response.status) || RetryPolicy.isRetryable(code: code)
        )
    }

    /// `Code (HTTP status): message`, with the secret and the signature scrubbed from what
    /// the server said, and the fix named where there is one.
    private func makeError(
        _ request: S3Request, status: Int, code: String, message: String, _ signature: String,
        skew: S3ClockSkew? = nil
    ) -> GCDCatError {
        var text = "\(code) (HTTP \(status))"
        let said = S3Credentials.redact(
            message,
            hiding: [
                configuration.credentials.secretAccessKey, signature, configuration.credentials.sessionToken ?? "",
            ] + configuration.objectOptions.secrets)
        if !said.isEmpty { text += ": \(said)" }
        switch code {
        case _ where skew != nil && (status == 403 || code == "RequestTimeTooSkewed"):
            text += " (\(skew?.explanation ?? ""))"
        case "SignatureDoesNotMatch", "InvalidAccessKeyId", "InvalidClientTokenId", "ExpiredToken":
            text += " (\(credentialHint))"
        case "NoSuchBucket":
            text += " (bucket '\(request.location.bucket)')"
        case "Forbidden" where request.method == "HEAD":
            // HEAD answers carry no body, so no error code tells a wrong key from a missing right.
            text +=
                configuration.objectOptions.customerKey == nil
                ? " (check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or that these keys may read the bucket)"
                : " (check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, that these keys may read the bucket, or that "
                    + "--sse-c-key gives the key the object was written with)"
        case "BadRequest" where request.method == "HEAD":
            // S3 and RGW answer a HEAD of an SSE-C object with 400, and no body, when the request
            // lacks the object's key (or, on RGW, carries another one).
            text +=
                configuration.objectOptions.customerKey == nil
                ? " (the object is encrypted with a customer key (SSE-C) and none was given: give it with "
                    + "--sse-c-key FILE)"
                : " (the object is encrypted with another customer key than --sse-c-key gives, or with none: give "
                    + "the key it was written with)"
        default: break
        }
        return GCDCatError(
            status == 412 ? .outputExists : .io, path: request.location.description, syscall: request.operation,
            message: text)
    }

    /// A name for a status whose answer has no `<Error>` body (HEAD never has one).
    package static func statusName(_ status: Int) -> String {
        switch status {
        case 301: return "PermanentRedirect"
        case 307: return "TemporaryRedirect"
        case 400: return "BadRequest"
        case 403: return "Forbidden"
        case 404: return "NotFound"
        case 405: return "MethodNotAllowed"
        case 409: return "Conflict"
        case 412: return "PreconditionFailed"
        case 416: return "InvalidRange"
        case 429: return "TooManyRequests"
        case 500: return "InternalError"
        case 501: return "NotImplemented"
        case 503: return "ServiceUnavailable"
        default: return "HTTPError"
        }
    }
}
