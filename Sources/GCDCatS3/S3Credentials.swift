import GCDCatSystem

/// An access key pair, and a session token for temporary credentials.
///
/// Printing it never shows the secret or the token: `description` and `debugDescription`
/// redact them, so a credential that ends up in a log or an error stays hidden.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "S3Credentials(accessKeyID: \(accessKeyID), secretAccessKey: <redacted>"
            + (sessionToken == nil ? ")" : ", sessionToken: <redacted>)")
    }

    public var debugDescription: String { description }
}
