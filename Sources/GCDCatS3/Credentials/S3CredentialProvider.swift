import GCDCatSystem

/// Credentials and the moment they stop working: seconds since 1970, nil for keys that do
/// not expire (environment variables, a profile's static keys).
public struct ExpiringCredentials: Sendable, Equatable {
    public var credentials: S3Credentials
    public var expiration: Double?

    public init(_ credentials: S3Credentials, expiration: Double? = nil) {
        self.credentials = credentials
        self.expiration = expiration
    }
}

/// One place credentials come from (the environment, a profile's `credential_process`, STS,
/// the instance metadata service…), asked again each time its last answer is about to expire.
///
/// ## Errors
/// ``fetch()`` throws a ``GCDCatError`` whose message starts with ``sourceName`` and says why
/// that source gave nothing: the user learns which link of the chain broke.
public protocol S3CredentialProvider: Sendable {
    /// What the user would recognise: `credential_process for profile 'dev'`, `IMDSv2`.
    var sourceName: String { get }
    func fetch() throws(GCDCatError) -> ExpiringCredentials
}

/// Keys that were found once and never change.
public struct StaticCredentialProvider: S3CredentialProvider {
    public let sourceName: String
    let credentials: S3Credentials

    public init(_ credentials: S3Credentials, sourceName: String = "static keys") {
        self.credentials = credentials
        self.sourceName = sourceName
    }

    public func fetch() -> ExpiringCredentials { ExpiringCredentials(credentials) }
}

extension GCDCatError {
    /// A credential source that gave nothing: `.invalidInput` (exit 1), with the source named
    /// first so the message reads "credential_process for profile 'x' exited 1: …".
    package static func credentialSource(_ source: String, _ why: String, path: String? = nil) -> GCDCatError {
        GCDCatError(.invalidInput, path: path, syscall: "credentials", message: "\(source): \(why)")
    }
}

/// A small file a credential source needs (a web identity token, an SSO token cache, an
/// authorization token), as text without surrounding spaces.
///
/// ## Errors
/// `.invalidInput` naming `source` and `what`, with the path and the failed syscall's reason.
package func readCredentialFile(_ path: String, source: String, what: String) throws(GCDCatError) -> String {
    do {
        return String(decoding: try readWholeFile(path), as: UTF8.self).trimmingSpaces
    } catch {
        let reason = (error as? GCDCatError).map { "\($0.syscall ?? "read"): \($0.message)" } ?? "\(error)"
        throw .credentialSource(source, "\(what) \(path): \(reason)")
    }
}
