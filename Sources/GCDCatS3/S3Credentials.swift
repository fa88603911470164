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

extension S3Credentials {
    /// A secret shorter than this is hidden only where it stands as a word of its own: a
    /// one-letter secret key (a lab's `x`) is in most words, and hiding it there too turned a
    /// server's message into "e<redacted>pired" while it showed nothing secret. Longer ones are
    /// hidden wherever they appear, also inside a longer word (`AWS4` + the key).
    static let wordOnlySecretLength = 8

    /// `text` with every secret in `secrets` replaced by `<redacted>`: everywhere for a secret
    /// of at least ``wordOnlySecretLength`` characters, and for a shorter one wherever it is not
    /// part of a longer word (letters, digits and `+/_-`, what keys and tokens are spelt with),
    /// so that no message shows a secret and none is mangled.
    package static func redact(_ text: String, hiding secrets: [String]) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty {
            guard secret.count < wordOnlySecretLength else {
                result = result.replacing(secret, with: "<redacted>")
                continue
            }
            var redacted = ""
            var start = result.startIndex
            var searchFrom = result.startIndex
            while let range = result[searchFrom...].firstRange(of: secret) {
                let before = range.lowerBound > result.startIndex ? result[result.index(before: range.lowerBound)] : nil
                let after = range.upperBound < result.endIndex ? result[range.upperBound] : nil
                if !isWordCharacter(before) && !isWordCharacter(after) {
                    redacted += result[start..<range.lowerBound] + "<redacted>"
                    start = range.upperBound
                }
                searchFrom = range.upperBound
            }
            result = redacted + result[start...]
        }
        return result
    }

    private static func isWordCharacter(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || "+/_-".contains(character)
    }
}
