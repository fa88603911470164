import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// AWS Signature Version 4 for S3, written out step by step so each step can be tested
/// against AWS's published examples.
///
/// The steps: a canonical request (method, encoded path, sorted query, sorted lowercase
/// headers, the signed header names, the payload's SHA-256), a string to sign (algorithm,
/// timestamp, scope, the canonical request's SHA-256), a signing key derived from the secret
/// through the date, region and service, and the HMAC of the string to sign under that key.
public struct SigV4Signer: Sendable {
    public var credentials: S3Credentials
    public var region: String
    public var service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// Every intermediate value of one signature, so tests can compare them with AWS's.
    public struct Signature: Sendable {
        public var canonicalRequest: String
        public var stringToSign: String
        public var signature: String
        /// The `Authorization` header's value.
        public var authorization: String
    }

    /// The SHA-256 of an empty payload, sent by bodiless requests.
    public static let emptyPayloadHash = RequestDigests.hex(RequestDigests.sha256([UInt8]()))

    /// The `x-amz-content-sha256` of a body: its SHA-256 in lowercase hex (RGW checks it).
    public static func payloadHash(_ body: UnsafeRawBufferPointer) -> String {
        RequestDigests.hex(RequestDigests.sha256(body))
    }

    /// Signs a request whose `headers` are exactly those to sign (`host`, `x-amz-date`,
    /// `x-amz-content-sha256` and any other `x-amz-*`, `range`, …), names in any case.
    ///
    /// - Parameters:
    ///   - encodedPath: the path as sent, already URI-encoded (``S3URIEncoding``).
    ///   - amzDate: the `x-amz-date` value, `YYYYMMDD'T'HHMMSS'Z'`.
    public func sign(
        method: String, encodedPath: String, query: [(name: String, value: String)],
        headers: [String: String], payloadHash: String, amzDate: String
    ) -> Signature {
        let canonicalHeaders =
            headers
            .map { (name: $0.key.lowercased(), value: Self.trimmed($0.value)) }
            .sorted { $0.name < $1.name }
        let signedHeaders = canonicalHeaders.map(\.name).joined(separator: ";")
        let canonicalRequest = [
            method,
            encodedPath,
            S3URIEncoding.canonicalQuery(query),
            canonicalHeaders.map { "\($0.name):\($0.value)\n" }.joined(),
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256",
            amzDate,
            scope,
            RequestDigests.hex(RequestDigests.sha256(canonicalRequest.utf8)),
        ].joined(separator: "\n")
        let signature = RequestDigests.hex(RequestDigests.hmac(key: signingKey(day: day), Array(stringToSign.utf8)))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope),"
            + "SignedHeaders=\(signedHeaders),Signature=\(signature)"
        return Signature(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
            authorization: authorization)
    }

    /// HMAC("AWS4" + secret, day) → region → service → "aws4_request".
    package func signingKey(day: String) -> [UInt8] {
        var key = Array(("AWS4" + credentials.secretAccessKey).utf8)
        for step in [day, region, service, "aws4_request"] {
            key = RequestDigests.hmac(key: key, Array(step.utf8))
        }
        return key
    }

    /// Header values lose leading and trailing spaces, and inner runs of spaces become one.
    package static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// `x-amz-date` for a moment: `20130524T000000Z`.
    public static func amzDate(secondsSince1970 seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
