import GCDCatSystem

/// An ECS task role or EKS Pod Identity's credentials, from the endpoint the container's
/// environment names: `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` on `http://169.254.170.2`, or
/// `AWS_CONTAINER_CREDENTIALS_FULL_URI`, with `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read
/// at each fetch: the agent rotates it) or `AWS_CONTAINER_AUTHORIZATION_TOKEN` as the
/// `Authorization` header.
package struct ContainerCredentials: S3CredentialProvider {
    package let url: String
    package let tokenFile: String?
    package let token: String?
    package let http: CredentialHTTP
    package let timeout: Double

    /// nil when the environment names no container endpoint.
    ///
    /// ## Errors
    /// `.invalidInput` for a full URI over plain HTTP to a host other than loopback or the
    /// container agent's (awscli refuses those too: the token would travel in clear).
    package init?(environment: [String: String], http: CredentialHTTP, timeout: Double = 2) throws(GCDCatError) {
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let relative = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
            url = "http://169.254.170.2" + (relative.hasPrefix("/") ? "" : "/") + relative
        } else if let full = env("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
            guard Self.isAllowed(full) else {
                throw .credentialSource(
                    "container credentials",
                    "AWS_CONTAINER_CREDENTIALS_FULL_URI \(S3Endpoint.redactingUserInfo(full)) must be https, or"
                        + " http to loopback, 169.254.170.2 or 169.254.170.23")
            }
            url = full
        } else {
            return nil
        }
        tokenFile = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
        token = env("AWS_CONTAINER_AUTHORIZATION_TOKEN")
        self.http = http
        self.timeout = timeout
    }

    package var sourceName: String { "container credentials" }

    package func fetch() throws(GCDCatError) -> ExpiringCredentials {
        var headers: [String: String] = ["accept": "application/json"]
        if let tokenFile {
            headers["authorization"] = try readCredentialFile(
                tokenFile, source: sourceName, what: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
        } else if let token {
            headers["authorization"] = token
        }
        // A line break would end the header and start another: refused, as botocore refuses it.
        if let value = headers["authorization"], value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            throw .credentialSource(
                sourceName,
                "the authorization token (\(tokenFile.map { "from \($0)" } ?? "AWS_CONTAINER_AUTHORIZATION_TOKEN")) "
                    + "contains a line break")
        }
        let response = try http.send(
            HTTPRequest(method: "GET", url: url, headers: headers, timeout: timeout), source: sourceName,
            what: "request")
        return try CredentialJSON.credentials([UInt8](response.body), source: sourceName)
    }

    private static func isAllowed(_ url: String) -> Bool {
        if url.lowercased().hasPrefix("https://") { return true }
        guard let endpoint = try? S3Endpoint(parsing: Self.origin(url)), endpoint.scheme == "http" else { return false }
        return endpoint.host == "localhost" || endpoint.host.hasPrefix("127.") || endpoint.host == "[::1]"
            || endpoint.host == "169.254.170.2" || endpoint.host == "169.254.170.23"
            || endpoint.host == "[fd00:ec2::23]"
    }

    /// `scheme://host:port` of a URL with a path.
    private static func origin(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return String(url[..<(rest.firstIndex(of: "/") ?? url.endIndex)])
    }
}
