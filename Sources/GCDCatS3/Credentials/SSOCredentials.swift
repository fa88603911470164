import COpenSSL
import FoundationEssentials
import GCDCatSystem

/// IAM Identity Center (SSO) role credentials: the access token `aws sso login` left in
/// `~/.aws/sso/cache/SHA1.json` (SHA-1 of the `sso_session` name, or of the legacy profile's
/// `sso_start_url`), exchanged at the portal's GetRoleCredentials
/// (`GET /federation/credentials`, `x-amz-sso_bearer_token`).
///
/// gcdcat never logs in itself: an expired or missing token is refused naming the
/// `aws sso login` command that renews it.
package struct SSOCredentials: S3CredentialProvider {
    /// The `sso_session` name, or the legacy start URL: what the cache file is named after.
    package let cacheKey: String
    package let isSession: Bool
    package let accountID: String
    package let roleName: String
    package let cacheFolder: String
    /// `https://portal.sso.REGION.amazonaws.com`, or `AWS_ENDPOINT_URL_SSO`.
    package let portal: String
    package let http: CredentialHTTP
    package let profile: String
    package let clock: @Sendable () -> Double

    package init(
        cacheKey: String, isSession: Bool, accountID: String, roleName: String, cacheFolder: String, portal: String,
        http: CredentialHTTP, profile: String,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.cacheKey = cacheKey
        self.isSession = isSession
        self.accountID = accountID
        self.roleName = roleName
        self.cacheFolder = cacheFolder
        self.portal = portal.hasSuffix("/") ? String(portal.dropLast()) : portal
        self.http = http
        self.profile = profile
        self.clock = clock
    }

    package var sourceName: String { "SSO for profile '\(profile)'" }

    private var login: String {
        isSession ? "aws sso login --sso-session \(cacheKey)" : "aws sso login --profile \(profile)"
    }

    private struct CachedToken: Decodable {
        var accessToken: String?
        var expiresAt: String?
    }

    private struct RoleCredentialsAnswer: Decodable {
        struct Role: Decodable {
            var accessKeyId: String?
            var secretAccessKey: String?
            var sessionToken: String?
            /// Milliseconds since 1970.
            var expiration: Double?
        }
        var roleCredentials: Role?
    }

    package func fetch() throws(GCDCatError) -> ExpiringCredentials {
        let token = try cachedToken()
        let url =
            "\(portal)/federation/credentials?role_name=\(S3URIEncoding.encode(roleName))"
            + "&account_id=\(S3URIEncoding.encode(accountID))"
        let response = try http.send(
            HTTPRequest(method: "GET", url: url, headers: ["x-amz-sso_bearer_token": token], timeout: 10),
            source: sourceName, what: "GetRoleCredentials request")
        guard let role = try? JSONDecoder().decode(RoleCredentialsAnswer.self, from: response.body).roleCredentials,
            let id = role.accessKeyId, let secret = role.secretAccessKey
        else {
            throw .credentialSource(sourceName, "GetRoleCredentials answered without roleCredentials")
        }
        return ExpiringCredentials(
            S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: role.sessionToken),
            expiration: role.expiration.map { $0 / 1000 })
    }

    /// The access token in the cache, if it has not expired.
    private func cachedToken() throws(GCDCatError) -> String {
        let path = "\(cacheFolder)/\(Self.sha1Hex(cacheKey)).json"
        guard (try? Syscall.statIfExists(path)).flatMap({ $0 }) != nil else {
            throw .credentialSource(sourceName, "no SSO token cached at \(path); run \(login)")
        }
        let text = try readCredentialFile(path, source: sourceName, what: "SSO token cache")
        guard let cached = try? JSONDecoder().decode(CachedToken.self, from: Data(text.utf8)),
            let token = cached.accessToken, let expiresAt = cached.expiresAt
        else {
            throw .credentialSource(sourceName, "\(path) has no accessToken and expiresAt; run \(login)")
        }
        guard let expiry = S3Dates.isoDate(expiresAt), expiry > clock() else {
            throw .credentialSource(sourceName, "the SSO token in \(path) expired at \(expiresAt); run \(login)")
        }
        return token
    }

    /// The cache file's name: SHA-1 in lowercase hex, as botocore names it.
    package static func sha1Hex(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { input in
            _ = EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha1(), nil)
        }
        return RequestDigests.hex(digest)
    }
}
