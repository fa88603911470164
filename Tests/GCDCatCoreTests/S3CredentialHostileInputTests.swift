import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile or broken credentials and configuration: no secret echoed in a message, expired keys
/// refused, a credential process printing without end cut off, an endpoint's source named.
@Suite struct S3CredentialHostileInputTests {
    let folder = TemporaryDirectory()

    func environment(config: String, _ extra: [String: String] = [:]) -> [String: String] {
        writeFile(folder.file("config"), Array(config.utf8))
        writeFile(folder.file("credentials"), [])
        return [
            "HOME": folder.path, "AWS_CONFIG_FILE": folder.file("config"),
            "AWS_SHARED_CREDENTIALS_FILE": folder.file("credentials"), "AWS_EC2_METADATA_DISABLED": "true",
        ].merging(extra) { $1 }
    }

    func resolve(_ environment: [String: String], endpoint: String? = "http://127.0.0.1:9") throws -> S3Configuration {
        try S3Configuration.resolve(environment: environment, endpointURL: endpoint)
    }

    func script(_ name: String, _ body: String) -> String {
        let path = folder.file(name)
        writeFile(path, Array("#!/bin/sh\n\(body)\n".utf8))
        chmod(path, 0o755)
        return path
    }

    @Test func aMalformedAnswerIsNeverQuotedForItMayHoldTheSecret() throws {
        let program = script(
            "bad", #"printf '{"Version": 1, "AccessKeyId": "AKIDX", "SecretAccessKey": "SUPERSECRET1"'"#)
        let error = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\ncredential_process = \(program)\n"))
        }
        #expect(!error.description.contains("SUPERSECRET1"))
        #expect(
            error.message
                == "credential_process for profile 'default': the answer (72 bytes) is not credentials in JSON; "
                + "its content is not shown")
    }

    @Test func credentialsHandedOverExpiredAreRefusedNamingTheSource() throws {
        let program = script(
            "old",
            #"echo '{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "S", "Expiration": "2020-01-01T00:00:00Z"}'"#)
        let error = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\ncredential_process = \(program)\n"))
        }
        #expect(
            error.message
                == "credential_process for profile 'default': the credentials it gave expired at 2020-01-01 00:00:00 UTC, "
                + "before they could be used")
    }

    @Test func aProcessPrintingWithoutEndIsStoppedAtOneMebibyte() throws {
        let program = script("flood", "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
        let error = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\ncredential_process = \(program)\n"))
        }
        #expect(
            error.message
                == "credential_process for profile 'default': \(program) printed more than 1 MiB on its standard "
                + "output; it was stopped")
    }

    /// Standard error is not the answer: a helper that logs 5 MB there and then answers is not
    /// stopped (it was, at 1 MiB of both streams together, in words that did not say which;
    /// outside re-check r24b N11), and one that fails after logging that much says its
    /// standard error was cut.
    @Test func megabytesOnStandardErrorAreReadButNotKept() throws {
        let answers = script(
            "logs",
            "head -c 5000000 /dev/zero | tr '\\0' x >&2\n"
                + #"echo '{"Version": 1, "AccessKeyId": "LOGKEY", "SecretAccessKey": "LOGSECRET"}'"#)
        let keys = try resolve(environment(config: "[default]\ncredential_process = \(answers)\n")).credentials
        #expect(keys == S3Credentials(accessKeyID: "LOGKEY", secretAccessKey: "LOGSECRET"))
        let failsFirst = script(
            "logsfails", "echo 'token expired' >&2\nhead -c 5000000 /dev/zero | tr '\\0' y >&2\nexit 4")
        let error = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\ncredential_process = \(failsFirst)\n"))
        }
        #expect(
            error.message
                == "credential_process for profile 'default': \(failsFirst) exited 4: token expired (its standard "
                + "error was cut: only its first 64 KiB were kept)")
    }

    @Test func aContainerTokenWithALineBreakIsRefused() throws {
        let error = try #require(throws: GCDCatError.self) {
            try resolve(
                environment(
                    config: "",
                    [
                        "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1:9/creds",
                        "AWS_CONTAINER_AUTHORIZATION_TOKEN": "TOK\r\nX-Evil: 1",
                    ]))
        }
        #expect(
            error.message
                == "container credentials: the authorization token (AWS_CONTAINER_AUTHORIZATION_TOKEN) contains a line break"
        )
    }

    @Test(arguments: [
        ("", ["AWS_ENDPOINT_URL_S3": "notaurl"], "AWS_ENDPOINT_URL_S3 = notaurl"),
        ("[default]\nendpoint_url = notaurl\n", [:], "the profile's endpoint_url = notaurl"),
    ])
    func anEndpointThatIsNotAURLNamesWhereItWasSet(config: String, extra: [String: String], named: String) throws {
        let keys = ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"]
        let refusal = try #require(throws: S3ConfigurationRefusal.self) {
            try resolve(environment(config: config, extra.merging(keys) { $1 }), endpoint: nil)
        }
        #expect(refusal.error.message.hasPrefix(named + ": "))
    }
}
