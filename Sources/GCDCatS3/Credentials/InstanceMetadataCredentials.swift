import GCDCatSystem

/// An EC2 instance role's credentials from the instance metadata service, IMDSv2: a session
/// token from `PUT /latest/api/token`, then the role's name and its credentials under
/// `/latest/meta-data/iam/security-credentials/`, each GET carrying the token.
///
/// Each request may take `timeout` (1 s, as awscli), so a machine outside EC2 fails fast. The
/// token's answer travels back with the hop limit the instance sets (1 by default): inside a
/// container behind a bridge it never arrives, and the token request times out; raise the
/// instance's `HttpPutResponseHopLimit` to 2.
package struct InstanceMetadataCredentials: S3CredentialProvider {
    package let endpoint: String
    package let http: CredentialHTTP
    package let timeout: Double

    /// `AWS_EC2_METADATA_SERVICE_ENDPOINT` (tests point it at a loopback stub), else the
    /// profile's `ec2_metadata_service_endpoint`, else `http://169.254.169.254`.
    package init(endpoint: String?, http: CredentialHTTP, timeout: Double = 1) {
        var base = endpoint ?? "http://169.254.169.254"
        while base.hasSuffix("/") { base.removeLast() }
        self.endpoint = base
        self.http = http
        self.timeout = timeout
    }

    package var sourceName: String { "IMDSv2" }

    package func fetch() throws(GCDCatError) -> ExpiringCredentials {
        let tokenURL = "\(endpoint)/latest/api/token"
        let token = try text(
            HTTPRequest(
                method: "PUT", url: tokenURL, headers: ["x-aws-ec2-metadata-token-ttl-seconds": "21600"],
                timeout: timeout), what: "token request")
        let roles = "\(endpoint)/latest/meta-data/iam/security-credentials/"
        let listing = try text(
            HTTPRequest(method: "GET", url: roles, headers: ["x-aws-ec2-metadata-token": token], timeout: timeout),
            what: "role name request")
        guard let role = listing.split(separator: "\n").first.map(String.init), !role.isEmpty else {
            throw .credentialSource(sourceName, "the instance has no IAM role (\(roles) is empty)")
        }
        let response = try http.send(
            HTTPRequest(
                method: "GET", url: roles + S3URIEncoding.encode(role),
                headers: ["x-aws-ec2-metadata-token": token], timeout: timeout),
            source: sourceName, what: "credentials request for role '\(role)'")
        return try CredentialJSON.credentials([UInt8](response.body), source: "\(sourceName) role '\(role)'")
    }

    private func text(_ request: HTTPRequest, what: String) throws(GCDCatError) -> String {
        let body = try http.send(request, source: sourceName, what: what).body
        return String(decoding: body, as: UTF8.self).trimmingSpaces
    }
}
