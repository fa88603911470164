import COpenSSL
import FoundationEssentials
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// IAM Identity Center (SSO) role credentials: the access token `aws sso login` left in
/// `~/.aws/sso/cache/SHA1.json` (SHA-1 of the `sso_session` name, or of the legacy profile's
/// `sso_start_url`), exchanged at the portal's GetRoleCredentials
/// (`GET /federation/credentials`, `x-amz-sso_bearer_token`).
///
/// gcdcat never logs in itself: a missing token, or an expired one it cannot refresh, is refused
/// naming the `aws sso login` command that renews it. A token of an `sso_session` whose cache
/// holds a refresh token and an unexpired client registration is refreshed as awscli refreshes it,
/// within 15 minutes of its expiry: SSO-OIDC CreateToken (`POST /token`, grant type
/// `refresh_token`), the cache file rewritten (atomically) with the new token.
package struct SSOCredentials: S3CredentialProvider {
    /// The `sso_session` name, or the legacy start URL: what the cache file is named after.
    package let cacheKey: String
    package let isSession: Bool
    package let accountID: String
    package let roleName: String
    package let cacheFolder: String
    /// `https://portal.sso.REGION.amazonaws.com`, or `AWS_ENDPOINT_URL_SSO`.
    package let portal: String
    /// `https://oidc.REGION.amazonaws.com`, or `AWS_ENDPOINT_URL_SSO_OIDC`: where an `sso_session`'s
    /// token is refreshed.
    package let oidc: String
    package let http: CredentialHTTP
    package let profile: String
    package let clock: @Sendable () -> Double

    package init(
        cacheKey: String, isSession: Bool, accountID: String, roleName: String, cacheFolder: String, portal: String,
        oidc: String = "", http: CredentialHTTP, profile: String,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.cacheKey = cacheKey
        self.isSession = isSession
        self.accountID = accountID
        self.roleName = roleName
        self.cacheFolder = cacheFolder
        self.portal = portal.hasSuffix("/") ? String(portal.dropLast()) : portal
        self.oidc = oidc.hasSuffix("/") ? String(oidc.dropLast()) : oidc
        self.http = http
        self.profile = profile
        self.clock = clock
    }

    package var sourceName: String { "SSO for profile '\(profile)'" }

    private var login: String {
        isSession ? "aws sso login --sso-session \(cacheKey)" : "aws sso login --profile \(profile)"
    }

    /// awscli refreshes a token this many seconds before it expires.
    private static let refreshWindow: Double = 15 * 60

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

    /// The access token in the cache: refreshed first when it expires within 15 minutes and the
    /// cache can refresh it (an `sso_session`'s, as awscli), refused when it has expired.
    ///
    /// A refresh holds a lock on the cache file (``whileLocking(_:_:)``) from reading it again to
    /// rewriting it: where the service rotates refresh tokens (each works once), two runs that
    /// refreshed at once sent the same one, and the second was refused (`invalid_grant`) and
    /// told to log in while the cache held the first's new token. After the lock, a token another
    /// run refreshed meanwhile is used as it is; after a failed refresh, the cache is read once
    /// more (a program that takes no lock, awscli, may have refreshed it) before saying to log in.
    private func cachedToken() throws(GCDCatError) -> String {
        let path = "\(cacheFolder)/\(Self.sha1Hex(cacheKey)).json"
        guard (try? Syscall.statIfExists(path)).flatMap({ $0 }) != nil else {
            throw .credentialSource(sourceName, "no SSO token cached at \(path); run \(login)")
        }
        let cache = try readCache(path)
        guard isSession, needsRefresh(cache), refreshable(cache.fields, now: clock()) != nil else {
            return try usable(cache, path: path)
        }
        return try whileLocking(path) { () throws(GCDCatError) -> String in
            let cache = try readCache(path)
            let now = clock()
            guard needsRefresh(cache), let refresh = refreshable(cache.fields, now: now) else {
                return try usable(cache, path: path)
            }
            do throws(GCDCatError) {
                return try refreshed(cache.fields, refresh, path: path, now: now)
            } catch {
                // A token still valid is used as it is, as awscli uses it.
                if let expiry = cache.expiry, expiry > now { return cache.token }
                if let again = try? readCache(path), again.token != cache.token, let expiry = again.expiry,
                    expiry > clock()
                {
                    return again.token
                }
                throw .credentialSource(
                    sourceName,
                    "the SSO token in \(path) expired at \(cache.expiresAt), and refreshing it failed: \(error.message); "
                        + "run \(login)")
            }
        }
    }

    /// The cache file's fields, its token and its expiry (nil when it is not an ISO 8601 time).
    private struct CachedToken {
        var fields: [String: CacheJSON]
        var token: String
        var expiresAt: String
        var expiry: Double?
    }

    private func readCache(_ path: String) throws(GCDCatError) -> CachedToken {
        let text = try readCredentialFile(path, source: sourceName, what: "SSO token cache")
        guard let fields = try? JSONDecoder().decode([String: CacheJSON].self, from: Data(text.utf8)),
            let token = fields["accessToken"]?.string, let expiresAt = fields["expiresAt"]?.string
        else {
            throw .credentialSource(sourceName, "\(path) has no accessToken and expiresAt; run \(login)")
        }
        return CachedToken(fields: fields, token: token, expiresAt: expiresAt, expiry: S3Dates.isoDate(expiresAt))
    }

    /// True when the token expires within the refresh window (or its expiry cannot be read).
    private func needsRefresh(_ cache: CachedToken) -> Bool {
        cache.expiry.map { $0 - clock() < Self.refreshWindow } ?? true
    }

    /// The token, unless it has expired.
    private func usable(_ cache: CachedToken, path: String) throws(GCDCatError) -> String {
        guard let expiry = cache.expiry, expiry > clock() else {
            throw .credentialSource(sourceName, "the SSO token in \(path) expired at \(cache.expiresAt); run \(login)")
        }
        return cache.token
    }

    /// How long a refresh waits for another run's lock on the cache file: longer than that run's
    /// CreateToken may take (10 s). Past it, this run refreshes without the lock, as before.
    private static let lockWait: Double = 30

    /// Runs `body` holding an exclusive `flock` on the cache file; without it when the file cannot
    /// be opened or the lock not had within ``lockWait`` (the refresh then goes on as it did
    /// before locks). A lock taken on a file that another run has since renamed a new one over is
    /// taken again on the new one. A signal while it waits names the wait.
    private func whileLocking<T>(_ path: String, _ body: () throws(GCDCatError) -> T) throws(GCDCatError) -> T {
        let token = GuardedProcessGroup.guardWait(
            naming: "the lock on the SSO token cache \(path), which another run holds while it refreshes the token")
        let end = ContinuousClock.now + .seconds(Self.lockWait)
        while true {
            let raw = PathName.withPathCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
            guard raw >= 0 else { break }
            let file = OwnedDescriptor(adopting: raw)
            var locked = false
            while !locked {
                locked = flock(file.raw, LOCK_EX | LOCK_NB) == 0
                guard !locked, errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < end else { break }
                usleep(20_000)
            }
            guard locked else { break }
            var held = stat()
            var named = stat()
            if fstat(file.raw, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev,
                held.st_ino == named.st_ino
            {
                GuardedProcessGroup.release(token)
                let result = try body()
                // Closed (the lock released) once the body is done, not before.
                _ = file.raw
                return result
            }
            guard ContinuousClock.now < end else { break }
        }
        GuardedProcessGroup.release(token)
        return try body()
    }

    /// What a refresh needs, when the cache holds it and its client registration has not
    /// expired (awscli needs all four fields).
    private func refreshable(_ cached: [String: CacheJSON], now: Double) -> (
        refreshToken: String, clientID: String, clientSecret: String
    )? {
        guard let refreshToken = cached["refreshToken"]?.string, let clientID = cached["clientId"]?.string,
            let clientSecret = cached["clientSecret"]?.string,
            let registration = cached["registrationExpiresAt"]?.string.flatMap(S3Dates.isoDate), registration > now
        else { return nil }
        return (refreshToken, clientID, clientSecret)
    }

    /// CreateToken with the refresh token, then the cache file rewritten with the new token (its
    /// other fields kept), as awscli rewrites it. Errors are said without the source's name.
    private func refreshed(
        _ cached: [String: CacheJSON], _ refresh: (refreshToken: String, clientID: String, clientSecret: String),
        path: String, now: Double
    ) throws(GCDCatError) -> String {
        let url = "\(oidc)/token"
        let body: [String: String] = [
            "clientId": refresh.clientID, "clientSecret": refresh.clientSecret, "grantType": "refresh_token",
            "refreshToken": refresh.refreshToken,
        ]
        let response: HTTPResponse
        do {
            response = try http.send(
                HTTPRequest(
                    method: "POST", url: url, headers: ["Content-Type": "application/json"],
                    body: (try? JSONEncoder().encode(body)) ?? Data(), timeout: 10),
                source: sourceName, what: "SSO-OIDC CreateToken request")
        } catch {
            let prefix = "\(sourceName): "
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
            )
        }
        let answered = "SSO-OIDC CreateToken to \(S3Endpoint.redactingUserInfo(url)) answered"
        guard let answer = try? JSONDecoder().decode([String: CacheJSON].self, from: response.body) else {
            // Never quoted: a cut answer may still hold a token.
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "\(answered) with \(response.body.count) bytes that are not a JSON object (cut short?); "
                    + "their content is not shown")
        }
        let accessToken = answer["accessToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let expiresIn: Double? = if case .number(let seconds) = answer["expiresIn"] { seconds } else { nil }
        guard let accessToken, let expiresIn else {
            let missing = [accessToken == nil ? "accessToken" : nil, expiresIn == nil ? "expiresIn" : nil]
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "\(answered) without \(missing.compactMap { $0 }.joined(separator: " and "))")
        }
        var updated = cached
        updated["accessToken"] = .string(accessToken)
        updated["expiresAt"] = .string(Self.isoTime(now + expiresIn))
        if let refreshToken = answer["refreshToken"]?.string { updated["refreshToken"] = .string(refreshToken) }
        try rewrite(path, updated)
        return accessToken
    }

    /// `path` replaced by `fields` as JSON, mode 0600 as awscli writes it: a new file beside it,
    /// renamed over it.
    private func rewrite(_ path: String, _ fields: [String: CacheJSON]) throws(GCDCatError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = [UInt8]((try? encoder.encode(fields)) ?? Data())
        let temporary = "\(path).gcdcat-\(getpid())"
        do throws(GCDCatError) {
            try Self.write(bytes, to: temporary)
            try Syscall.rename(temporary, to: path, replace: true)
        } catch {
            Syscall.unlink(temporary)
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "the refreshed token could not be written to \(path) (\(error.syscall ?? "write")): "
                    + describeErrno(error.errno ?? 0))
        }
    }

    /// A new file at `path` (mode 0600) holding `bytes`. (A function of its own: a noncopyable
    /// `let` inside do/catch crashes Swift 6.3's compiler.)
    private static func write(_ bytes: [UInt8], to path: String) throws(GCDCatError) {
        let descriptor = try OwnedDescriptor(opening: path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        let written: Result<Void, GCDCatError> = bytes.withUnsafeBytes { buffer in
            do throws(GCDCatError) {
                try Syscall.writeAll(descriptor.raw, from: buffer.baseAddress!, count: buffer.count, path: path)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try written.get()
        try descriptor.close(path: path)
    }

    /// `2026-11-27T20:14:07Z`.
    private static func isoTime(_ seconds: Double) -> String {
        let c = Array(SigV4Signer.amzDate(secondsSince1970: Int(seconds)))
        return "\(String(c[0..<4]))-\(String(c[4..<6]))-\(String(c[6..<8]))T"
            + "\(String(c[9..<11])):\(String(c[11..<13])):\(String(c[13..<15]))Z"
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

/// A JSON value as it was read, so that a cache file rewritten keeps the fields gcdcat does not use.
package enum CacheJSON: Codable, Equatable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([CacheJSON])
    case object([String: CacheJSON])

    var string: String? { if case .string(let text) = self { text } else { nil } }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([CacheJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: CacheJSON].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
