import GCDCatSystem

/// How requests name the bucket.
public enum S3AddressingStyle: String, Sendable, Equatable {
    /// `http://host:port/BUCKET/KEY`: custom endpoints (Ceph, MinIO) and bucket names with dots.
    case path
    /// `https://BUCKET.s3.REGION.amazonaws.com/KEY`: AWS's default.
    case virtualHost
}

/// Where and as whom ``S3Client`` talks: endpoint, region, credentials, addressing style.
///
/// `description` and `debugDescription` never show the secret.
public struct S3Configuration: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A custom endpoint (`http://127.0.0.1:7480`), or nil for AWS itself.
    public var endpoint: S3Endpoint?
    public var region: String
    /// Where each request gets its credentials: refreshed before they expire.
    public var credentialSource: S3CredentialCache
    /// The credentials last fetched (requests ask ``credentialSource`` for current ones).
    public var credentials: S3Credentials { credentialSource.lastKnown }
    /// Path style for a custom endpoint; virtual-host style for AWS (path style there when
    /// the bucket name has dots, which would break the TLS certificate's wildcard).
    public var addressingStyle: S3AddressingStyle
    /// Seconds one request may take waiting on the server, all attempts included
    /// (``RequestDeadline``, `--request-timeout`).
    public var requestTimeout: Double
    /// The CA bundle, and whether certificates are checked (always, unless `--no-verify-ssl`).
    public var tls = S3TLSSettings()
    /// Storage class, type, tags, encryption and the headers every request carries.
    public var objectOptions = S3ObjectOptions()

    public init(
        endpoint: S3Endpoint?, region: String, credentials: S3Credentials,
        addressingStyle: S3AddressingStyle? = nil, requestTimeout: Double = 60
    ) {
        self.init(
            endpoint: endpoint, region: region, credentialSource: S3CredentialCache(static: credentials),
            addressingStyle: addressingStyle, requestTimeout: requestTimeout)
    }

    public init(
        endpoint: S3Endpoint?, region: String, credentialSource: S3CredentialCache,
        addressingStyle: S3AddressingStyle? = nil, requestTimeout: Double = 60
    ) {
        self.endpoint = endpoint
        self.region = region
        self.credentialSource = credentialSource
        self.addressingStyle = addressingStyle ?? (endpoint == nil ? .virtualHost : .path)
        self.requestTimeout = requestTimeout
    }

    public var description: String {
        "S3Configuration(endpoint: \(endpoint?.description ?? "AWS"), region: \(region), "
            + "addressing: \(addressingStyle.rawValue), credentials: \(credentials))"
    }

    public var debugDescription: String { description }

    /// Whether a custom endpoint's requests name the bucket in the host: virtual-hosted
    /// addressing, except on an IP address, which names no host to put a bucket in (AWS's rules,
    /// and awscli, then address by path).
    package var hostsBuckets: Bool {
        addressingStyle == .virtualHost && !(endpoint?.isIPAddress ?? false)
    }

    /// The scheme, host (with a port when it is not the scheme's default) and path prefix
    /// that a request for `bucket` goes to.
    package func target(bucket: String) -> (scheme: String, host: String, pathPrefix: String) {
        if let endpoint {
            if hostsBuckets && !bucket.isEmpty {
                return (endpoint.scheme, "\(bucket).\(endpoint.hostAndPort)", "")
            }
            return (endpoint.scheme, endpoint.hostAndPort, bucket.isEmpty ? "" : "/\(S3URIEncoding.encode(bucket))")
        }
        let regional = "s3.\(region).amazonaws.com"
        if addressingStyle == .virtualHost && !bucket.isEmpty && !bucket.contains(".") {
            return ("https", "\(bucket).\(regional)", "")
        }
        return ("https", regional, bucket.isEmpty ? "" : "/\(S3URIEncoding.encode(bucket))")
    }
}

/// A custom endpoint's scheme, host and port, parsed from `http://host:port`.
public struct S3Endpoint: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String
    public var host: String
    public var port: Int?

    /// ## Errors
    /// `.invalidInput` when `url` is not `http://HOST[:PORT]` or `https://…`.
    public init(parsing url: String) throws(GCDCatError) {
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        guard let schemeEnd = trimmed.firstRange(of: "://") else {
            throw Self.invalid(url)
        }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        let authority = trimmed[schemeEnd.upperBound...]
        guard scheme == "http" || scheme == "https", !authority.isEmpty, !authority.contains("/"),
            !authority.contains("@")
        else { throw Self.invalid(url) }
        self.scheme = scheme
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else {
                throw Self.invalid(url)
            }
            host = String(authority[..<colon])
            self.port = port
        } else {
            host = String(authority)
            port = nil
        }
        guard Self.isHost(host) else { throw Self.invalid(url) }
    }

    /// Whether the host is an IP address: a bracketed IPv6 literal, or four dotted decimals.
    public var isIPAddress: Bool {
        if host.hasPrefix("[") { return true }
        let fields = host.split(separator: ".", omittingEmptySubsequences: false)
        return fields.count == 4
            && fields.allSatisfy { field in
                !field.isEmpty && field.count <= 3 && field.allSatisfy(\.isASCII) && field.allSatisfy(\.isNumber)
                    && Int(field).map { $0 <= 255 } == true
            }
    }

    /// A host name (letters, digits, `-`, `.`, `_`) or a bracketed IPv6 literal: anything else
    /// (spaces, an unclosed `[`) would only fail later, inside libcurl, with its own words.
    private static func isHost(_ host: String) -> Bool {
        if host.hasPrefix("[") {
            let inside = host.dropFirst().dropLast()
            return host.hasSuffix("]") && !inside.isEmpty
                && inside.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return !host.isEmpty
            && host.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." || $0 == "_" }
    }

    private static func invalid(_ url: String) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: redactingUserInfo(url), syscall: "endpoint",
            message: "not an endpoint URL; expected http://HOST[:PORT] or https://HOST[:PORT]")
    }

    /// `url` with anything between `://` and an `@` (a user and password) shown as `***`, and
    /// any query or fragment dropped, so a secret typed into the URL is not echoed into logs.
    package static func redactingUserInfo(_ full: String) -> String {
        let url = full.firstIndex(where: { $0 == "?" || $0 == "#" }).map { String(full[...$0]) + "***" } ?? full
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return url[..<scheme.upperBound] + "***" + rest[at...]
    }

    /// `host` or `host:port`, as the Host header carries it (no default port).
    package var hostAndPort: String {
        guard let port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) else { return host }
        return "\(host):\(port)"
    }

    public var description: String { "\(scheme)://\(hostAndPort)" }
}
