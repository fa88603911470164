import Foundation
import GCDCatCore

/// Loopback stand-ins for the services credential sources call, answering as AWS documents
/// them: IMDSv2, the container credentials endpoint, STS and the SSO portal.
enum CredentialStubs {
    static func reply(_ status: String, _ body: String, contentType: String = "application/json")
        -> LoopbackHTTPServer.Reply
    {
        .raw(
            "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
            close: false)
    }

    static func json(id: String, secret: String, token: String, expiration: String = "2100-01-01T00:00:00Z") -> String {
        #"{"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"\#(id)","SecretAccessKey":"\#(secret)","#
            + #""Token":"\#(token)","Expiration":"\#(expiration)","LastUpdated":"2026-11-26T00:00:00Z"}"#
    }

    /// IMDSv2: a token for a PUT with a TTL header; GETs without that token are 401.
    static func instanceMetadata(role: String = "gcdcat-role", id: String = "IMDSKEY") throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            if request.method == "PUT" && request.target == "/latest/api/token" {
                guard request.header("x-aws-ec2-metadata-token-ttl-seconds") == "21600" else {
                    return reply("400 Bad Request", "")
                }
                return reply("200 OK", "IMDSTOKEN", contentType: "text/plain")
            }
            guard request.method == "GET", request.header("x-aws-ec2-metadata-token") == "IMDSTOKEN" else {
                return reply("401 Unauthorized", "")
            }
            switch request.target {
            case "/latest/meta-data/iam/security-credentials/":
                return reply("200 OK", role + "\n", contentType: "text/plain")
            case "/latest/meta-data/iam/security-credentials/\(role)":
                return reply("200 OK", json(id: id, secret: "IMDSSECRET", token: "IMDSSESSION"))
            default:
                return reply("404 Not Found", "")
            }
        }
    }

    /// STS: answers AssumeRole and AssumeRoleWithWebIdentity with keys named after the role
    /// (`KEY-<last part of the ARN>`), or the error `failWith` names.
    static func sts(failWith error: (status: String, code: String, message: String)? = nil) throws
        -> LoopbackHTTPServer
    {
        try LoopbackHTTPServer { request in
            if let error {
                return reply(
                    error.status,
                    "<ErrorResponse><Error><Type>Sender</Type><Code>\(error.code)</Code><Message>\(error.message)"
                        + "</Message></Error></ErrorResponse>", contentType: "text/xml")
            }
            let form = self.form(request.body)
            let action = form["Action"] ?? ""
            let role = (form["RoleArn"] ?? "").split(separator: "/").last.map(String.init) ?? ""
            let body =
                "<\(action)Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><\(action)Result>"
                + "<Credentials><AccessKeyId>KEY-\(role)</AccessKeyId><SecretAccessKey>SECRET-\(role)</SecretAccessKey>"
                + "<SessionToken>TOKEN-\(role)</SessionToken><Expiration>2100-01-01T00:00:00Z</Expiration></Credentials>"
                + "</\(action)Result></\(action)Response>"
            return reply("200 OK", body, contentType: "text/xml")
        }
    }

    /// A form body's fields, decoded.
    static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// The SSO portal's GetRoleCredentials for one bearer token, account and role.
    static func ssoPortal(token: String, account: String, role: String) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            guard request.header("x-amz-sso_bearer_token") == token else {
                return reply("401 Unauthorized", #"{"message":"Session token not found or invalid"}"#)
            }
            guard request.target == "/federation/credentials?role_name=\(role)&account_id=\(account)" else {
                return reply("403 Forbidden", #"{"message":"No access"}"#)
            }
            return reply(
                "200 OK",
                #"{"roleCredentials":{"accessKeyId":"SSOKEY","secretAccessKey":"SSOSECRET","#
                    + #""sessionToken":"SSOTOKEN","expiration":4102444800000}}"#)
        }
    }

    /// SSO-OIDC CreateToken (`POST /token`) for one client and refresh token: a new access token
    /// for an hour, and a new refresh token; anything else is awscli's `invalid_grant`.
    static func ssoOIDC(clientID: String, secret: String, refreshToken: String) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            let fields = (try? JSONDecoder().decode([String: String].self, from: Data(request.body))) ?? [:]
            guard request.method == "POST", request.target == "/token", fields["grantType"] == "refresh_token",
                fields["clientId"] == clientID, fields["clientSecret"] == secret, fields["refreshToken"] == refreshToken
            else {
                return reply(
                    "400 Bad Request", #"{"error":"invalid_grant","error_description":"Invalid refresh token"}"#)
            }
            return reply(
                "200 OK",
                #"{"accessToken":"SSOACCESS","tokenType":"Bearer","expiresIn":3600,"refreshToken":"NEWREFRESH"}"#)
        }
    }
}
