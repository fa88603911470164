import FoundationEssentials
import GCDCatSystem

/// Temporary credentials from AWS STS: AssumeRole (signed, service `sts`, with the source
/// profile's credentials) or AssumeRoleWithWebIdentity (unsigned, with an OIDC token file, as
/// EKS's IRSA mounts one). Both are a form POST to `/`, answered in XML.
package struct STSCredentials: S3CredentialProvider {
    package enum Call: Sendable {
        /// Signed with the credentials `source` gives.
        case assumeRole(source: S3CredentialCache, externalID: String?)
        /// The token is read from the file at each call: the kubelet rotates it.
        case assumeRoleWithWebIdentity(tokenFile: String)
    }

    package let call: Call
    package let roleARN: String
    package let sessionName: String
    package let durationSeconds: Int?
    /// `https://sts.REGION.amazonaws.com`, or `AWS_ENDPOINT_URL_STS` and the like.
    package let endpoint: S3Endpoint
    package let region: String
    package let http: CredentialHTTP
    package let profile: String

    package init(
        call: Call, roleARN: String, sessionName: String?, durationSeconds: Int?, endpoint: S3Endpoint,
        region: String, http: CredentialHTTP, profile: String
    ) {
        self.call = call
        self.roleARN = roleARN
        self.sessionName = sessionName ?? "gcdcat-session-\(Int(Date().timeIntervalSince1970))"
        self.durationSeconds = durationSeconds
        self.endpoint = endpoint
        self.region = region
        self.http = http
        self.profile = profile
    }

    /// The default endpoint for `region`: STS's regional one.
    ///
    /// ## Errors
    /// `.invalidInput` when `region` cannot be part of a host name.
    package static func regionalEndpoint(_ region: String) throws(GCDCatError) -> S3Endpoint {
        try S3Endpoint(parsing: "https://sts.\(region).amazonaws.com")
    }

    package var sourceName: String {
        switch call {
        case .assumeRole: "AssumeRole of \(roleARN) for profile '\(profile)'"
        case .assumeRoleWithWebIdentity: "AssumeRoleWithWebIdentity of \(roleARN) for profile '\(profile)'"
        }
    }

    package func fetch() throws(GCDCatError) -> ExpiringCredentials {
        var form: [(String, String)] = [
            ("Version", "2011-06-15"), ("RoleArn", roleARN), ("RoleSessionName", sessionName),
        ]
        if let durationSeconds { form.append(("DurationSeconds", String(durationSeconds))) }
        var headers = ["content-type": "application/x-www-form-urlencoded; charset=utf-8"]
        let action: String
        switch call {
        case .assumeRole(let source, let externalID):
            action = "AssumeRole"
            if let externalID { form.append(("ExternalId", externalID)) }
            form.insert(("Action", action), at: 0)
            try sign(&headers, body: Self.encode(form), with: source.current())
        case .assumeRoleWithWebIdentity(let tokenFile):
            action = "AssumeRoleWithWebIdentity"
            let token = try readCredentialFile(tokenFile, source: sourceName, what: "web_identity_token_file")
            form.insert(("Action", action), at: 0)
            form.append(("WebIdentityToken", token))
        }
        let body = Data(Self.encode(form).utf8)
        let response = try http.send(
            HTTPRequest(method: "POST", url: "\(endpoint)/", headers: headers, body: body, timeout: 10),
            source: sourceName, what: "\(action) request")
        return try Self.credentials(in: [UInt8](response.body), source: sourceName)
    }

    /// SigV4 for service `sts` over the form body, as AWS's SDKs sign it.
    private func sign(_ headers: inout [String: String], body: String, with credentials: S3Credentials) {
        let payloadHash = RequestDigests.hex(RequestDigests.sha256(body.utf8))
        headers["host"] = endpoint.hostAndPort
        headers["x-amz-date"] = SigV4Signer.amzDate(secondsSince1970: Int(Date().timeIntervalSince1970))
        headers["x-amz-content-sha256"] = payloadHash
        if let token = credentials.sessionToken { headers["x-amz-security-token"] = token }
        let signer = SigV4Signer(credentials: credentials, region: region, service: "sts")
        headers["authorization"] =
            signer.sign(
                method: "POST", encodedPath: "/", query: [], headers: headers, payloadHash: payloadHash,
                amzDate: headers["x-amz-date"]!
            ).authorization
        headers["host"] = nil  // libcurl sends it from the URL, the same text
    }

    private static func encode(_ form: [(String, String)]) -> String {
        form.map { "\(S3URIEncoding.encode($0.0))=\(S3URIEncoding.encode($0.1))" }.joined(separator: "&")
    }

    /// The `<Credentials>` of an AssumeRole(WithWebIdentity)Result.
    package static func credentials(in xml: [UInt8], source: String) throws(GCDCatError) -> ExpiringCredentials {
        guard let block = S3XML.blocks("Credentials", in: xml).first,
            let id = S3XML.value("AccessKeyId", in: block), let secret = S3XML.value("SecretAccessKey", in: block),
            let token = S3XML.value("SessionToken", in: block)
        else {
            throw .credentialSource(
                source, "the answer has no Credentials with AccessKeyId, SecretAccessKey and SessionToken")
        }
        let expiration = S3XML.value("Expiration", in: block).flatMap(S3Dates.isoDate)
        return ExpiringCredentials(
            S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token), expiration: expiration)
    }
}
