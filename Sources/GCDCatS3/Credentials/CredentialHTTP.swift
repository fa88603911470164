import FoundationEssentials
import GCDCatSystem

/// The few HTTP calls credential sources make (IMDS, the container endpoint, STS, the SSO
/// portal): one attempt each with a short timeout, failures worded as "SOURCE: WHAT to URL: why".
package struct CredentialHTTP: Sendable {
    package let transport: any HTTPTransport

    package init(transport: any HTTPTransport) { self.transport = transport }

    /// Sends `request` and returns its 2xx answer.
    ///
    /// ## Errors
    /// `.invalidInput` naming `source`, `what` and the URL, with the transport's reason or the
    /// HTTP status and the first line of the answer (an STS or SSO `<Message>` when there is one).
    package func send(_ request: HTTPRequest, source: String, what: String) throws(GCDCatError) -> HTTPResponse {
        let url = S3Endpoint.redactingUserInfo(request.url)
        let response: HTTPResponse
        // A signal while it hangs (up to its timeout) says what gcdcat was waiting for: it ended
        // the run without a word.
        let token = GuardedProcessGroup.guardWait(naming: "the answer to the \(what) to \(url) (\(source))")
        defer { GuardedProcessGroup.release(token) }
        do {
            response = try transport.send(request)
        } catch {
            // libcurl's words for a timeout vary (a slow connect, a silent answer); the limit is what matters.
            let why = error.message.hasPrefix("timed out") ? "timed out after \(Int(request.timeout)) s" : error.message
            throw .credentialSource(source, "\(what) to \(url): \(why)")
        }
        guard (200..<300).contains(response.status) else {
            let body = [UInt8](response.body)
            let said =
                S3XML.error(in: body).map { "\($0.code): \($0.message)" }
                ?? String(decoding: body.prefix(300), as: UTF8.self).split(separator: "\n").first.map(String.init)
                ?? ""
            throw .credentialSource(
                source, "\(what) to \(url): HTTP \(response.status)" + (said.isEmpty ? "" : " \(said)"))
        }
        return response
    }
}

/// The JSON that `credential_process`, the container endpoint and IMDS answer with: the same
/// four fields, spelt the same way.
package struct CredentialJSON: Decodable {
    var version: Int?
    var accessKeyID: String?
    var secretAccessKey: String?
    var sessionToken: String?
    /// The container endpoint and IMDS call the session token `Token`.
    var token: String?
    var expiration: String?

    enum CodingKeys: String, CodingKey {
        case version = "Version"
        case accessKeyID = "AccessKeyId"
        case secretAccessKey = "SecretAccessKey"
        case sessionToken = "SessionToken"
        case token = "Token"
        case expiration = "Expiration"
    }

    /// The credentials in `bytes`.
    ///
    /// ## Errors
    /// `.invalidInput` naming `source` when `bytes` is not such JSON, a key is missing, or
    /// `Expiration` is not an ISO 8601 time.
    package static func credentials(_ bytes: [UInt8], source: String) throws(GCDCatError) -> ExpiringCredentials {
        let document: CredentialJSON
        do {
            document = try JSONDecoder().decode(CredentialJSON.self, from: Data(bytes))
        } catch {
            // Never quoted: a malformed answer may still hold a secret key.
            throw .credentialSource(
                source, "the answer (\(bytes.count) bytes) is not credentials in JSON; its content is not shown")
        }
        guard let id = document.accessKeyID, !id.isEmpty, let secret = document.secretAccessKey, !secret.isEmpty
        else {
            throw .credentialSource(source, "the answer has no AccessKeyId and SecretAccessKey")
        }
        var expiration: Double?
        if let text = document.expiration {
            guard let seconds = S3Dates.isoDate(text) else {
                throw .credentialSource(source, "Expiration '\(text)' is not an ISO 8601 time")
            }
            expiration = seconds
        }
        let token = document.sessionToken ?? document.token
        return ExpiringCredentials(
            S3Credentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: token?.isEmpty == false ? token : nil),
            expiration: expiration)
    }

    /// The `Version` field (credential_process requires 1).
    package static func version(_ bytes: [UInt8]) -> Int? {
        (try? JSONDecoder().decode(CredentialJSON.self, from: Data(bytes)))?.version
    }
}
