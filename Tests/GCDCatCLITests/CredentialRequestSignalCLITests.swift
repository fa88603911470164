import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A signal while gcdcat waits on a credential service that does not answer (the SSO portal,
/// SSO-OIDC's token refresh, the container endpoint): one line names the request and its source,
/// whether the command handles signals itself (split) or takes their default action (checksum).
/// Each such wait lasts up to its timeout (10 s for SSO), and a Ctrl-C meanwhile ended the run
/// without a word (outside re-check r24b N13).
@Suite struct CredentialRequestSignalCLITests {
    static let ssoConfig = ssoSessionTestConfig

    enum Source: String, CaseIterable {
        /// GetRoleCredentials with a valid cached token.
        case ssoPortal
        /// SSO-OIDC CreateToken: the cached token has expired and holds a refresh token.
        case ssoRefresh
        /// The container credentials endpoint.
        case container
    }

    @Test(arguments: [
        (Source.ssoPortal, ["checksum", "s3://bkt/t.bin"], SIGINT),
        (Source.ssoRefresh, ["split", "in.bin", "--size", "1k", "--prefix", "s3://bkt/t."], SIGTERM),
        (Source.container, ["checksum", "s3://bkt/t.bin"], SIGTERM),
        (Source.container, ["split", "in.bin", "--size", "1k", "--prefix", "s3://bkt/t."], SIGINT),
    ])
    func aSignalWhileACredentialRequestHangsNamesIt(source: Source, arguments: [String], signal: Int32) throws {
        let scratch = try Scratch()
        try scratch.write("in.bin", randomData(4096, seed: 5))
        // Accepts every connection and never answers.
        let silent = try HoldingProxy(upstream: nil, holding: { _, _ in true })
        defer { silent.stop() }
        var environment = [
            "HOME": scratch.path, "PATH": "/usr/bin:/bin", "AWS_CONFIG_FILE": scratch.file("config"),
            "AWS_SHARED_CREDENTIALS_FILE": scratch.file("credentials"), "AWS_EC2_METADATA_DISABLED": "true",
        ]
        let expected: String
        switch source {
        case .ssoPortal, .ssoRefresh:
            try scratch.write("config", Data(Self.ssoConfig.utf8))
            let cache = scratch.file(".aws/sso/cache")
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            let expiresAt = source == .ssoPortal ? "2100-01-01T00:00:00Z" : "2020-01-01T00:00:00Z"
            try scratch.write(
                ".aws/sso/cache/ee0bfd2552fbd840c02cc48b6e823320543c450f.json",
                Data(
                    (#"{"accessToken": "OLDACCESS", "expiresAt": "\#(expiresAt)", "clientId": "cid", "#
                        + #""clientSecret": "csecret", "registrationExpiresAt": "2100-01-01T00:00:00Z", "#
                        + #""refreshToken": "sso-refresh"}"#).utf8))
            environment["AWS_PROFILE"] = "work"
            environment["AWS_ENDPOINT_URL_SSO"] = silent.url
            environment["AWS_ENDPOINT_URL_SSO_OIDC"] = silent.url
            expected =
                source == .ssoPortal
                ? "the answer to the GetRoleCredentials request to \(silent.url)/federation/credentials?*** "
                    + "(SSO for profile 'work')"
                : "the answer to the SSO-OIDC CreateToken request to \(silent.url)/token (SSO for profile 'work')"
        case .container:
            try scratch.write("config", Data())
            environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = silent.url + "/creds"
            expected = "the answer to the request to \(silent.url)/creds (container credentials)"
        }
        let process = signalableGCDCat(arguments + ["--endpoint-url", "http://127.0.0.1:9"])
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        try process.run()
        let started = Date().addingTimeInterval(60)
        while silent.held.isEmpty && process.isRunning && Date() < started { usleep(10_000) }
        try #require(silent.held.count == 1)
        kill(process.processIdentifier, signal)
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if arguments[0] == "checksum" {
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(process.terminationStatus == signal)
        } else {
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 128 + signal)
        }
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(
            said.split(separator: "\n").first.map(String.init)
                == "gcdcat: interrupted by \(name) while waiting for \(expected)", "\(said)")
    }
}
