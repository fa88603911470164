import Foundation
import GCDCatCore
import GCDCatTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Each credential source of awscli's chain against loopback stubs of the services it calls,
/// the order the chain tries them in, and the words a failing source uses.
@Suite struct S3CredentialChainTests {
    let folder = TemporaryDirectory()

    /// A HOME of the test's own, shared files in it, and IMDS off unless a test turns it on.
    func environment(config: String = "", credentials: String = "", _ extra: [String: String] = [:])
        -> [String: String]
    {
        writeFile(folder.file("config"), Array(config.utf8))
        writeFile(folder.file("credentials"), Array(credentials.utf8))
        return [
            "HOME": folder.path, "AWS_CONFIG_FILE": folder.file("config"),
            "AWS_SHARED_CREDENTIALS_FILE": folder.file("credentials"), "AWS_EC2_METADATA_DISABLED": "true",
        ].merging(extra) { $1 }
    }

    func resolve(_ environment: [String: String]) throws -> S3Configuration {
        try S3Configuration.resolve(environment: environment, endpointURL: "http://127.0.0.1:9")
    }

    /// An executable script in the test's folder.
    func script(_ name: String, _ body: String) -> String {
        let path = folder.file(name)
        writeFile(path, Array("#!/bin/sh\n\(body)\n".utf8))
        chmod(path, 0o755)
        return path
    }

    @Test func credentialProcessRunsWithoutAShellAndItsJSONIsTheKeys() throws {
        // A quoted argument with a space and a `$` reaches the program as one word, unexpanded.
        let program = script(
            "creds",
            #"printf '{"Version": 1, "AccessKeyId": "PROCKEY", "SecretAccessKey": "PROCSECRET", "SessionToken": "%s", "Expiration": "2100-01-01T00:00:00Z"}' "$1""#
        )
        let configuration = try resolve(
            environment(config: "[profile dev]\ncredential_process = \(program) 'a $HOME b'\n", ["AWS_PROFILE": "dev"]))
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: "PROCKEY", secretAccessKey: "PROCSECRET", sessionToken: "a $HOME b"))
        #expect(CredentialProcess.split(#"a 'b c' "d \"e\" \$f" g\ h"#) == ["a", "b c", #"d "e" $f"#, "g h"])
        #expect(CredentialProcess.split("a 'b") == nil)
    }

    /// A process that printed its keys and exited, leaving a child of its own that holds its
    /// standard error, or in a session of its own (`setsid`) its standard output, has answered:
    /// it was waited for until the child ended, past the deadline if it outlived it, and then
    /// called silent (outside re-checks r24b N10 and N9).
    @Test(arguments: [
        ("leftover", "sleep 30 > /dev/null &", "standard error"), ("setsid", "setsid sleep 30 &", "standard output"),
    ])
    func aProcessThatAnsweredIsNotWaitedForPastItsExit(name: String, child: String, held: String) throws {
        let pids = folder.file(name)
        let program = script(
            "answers-" + name,
            #"printf '{"Version": 1, "AccessKeyId": "K", "SecretAccessKey": "S"}'"#
                + "\n\(child)\necho $! > \(pids)")
        defer {
            let text = String(decoding: readFile(pids) ?? [], as: UTF8.self)
            if let pid = Int32(text.filter(\.isNumber)) { kill(pid, SIGKILL) }
        }
        var process = CredentialProcess(command: program, profile: "dev")
        process.deadline = 10
        let started = ContinuousClock.now
        let keys = try process.fetch()
        #expect(keys.credentials == S3Credentials(accessKeyID: "K", secretAccessKey: "S"))
        #expect(ContinuousClock.now - started < .seconds(9), "waited for the child's \(held) to end")
    }

    /// A process that never answers is stopped at its deadline and named (it was waited for
    /// forever, and a Ctrl-C left it running; outside attack on issue 24).
    @Test func aCredentialProcessThatHangsIsStoppedAtItsDeadline() throws {
        // The sleep the script starts is stopped with it (its process group is killed).
        let pids = folder.file("pids")
        let program = script("hangs", "echo $$ >> \(pids)\nsleep 600 &\necho $! >> \(pids)\nwait")
        var process = CredentialProcess(command: program, profile: "slow")
        process.deadline = 1
        let error = try #require(throws: GCDCatError.self) { try process.fetch() }
        #expect(
            error.message
                == "credential_process for profile 'slow': \(program) gave no credentials within 1 s; it was stopped "
                + "(a process that asks for input must be answered by then)")
        let started = String(decoding: readFile(pids) ?? [], as: UTF8.self).split(separator: "\n").compactMap {
            Int32($0)
        }
        #expect(started.count == 2)
        let reaped = ContinuousClock.now + .seconds(5)
        while started.contains(where: { kill($0, 0) == 0 && !isZombie($0) }) && ContinuousClock.now < reaped {
            usleep(20_000)
        }
        let alive = started.filter { kill($0, 0) == 0 && !isZombie($0) }
        #expect(alive.isEmpty, "still running: \(alive)")
        for pid in alive { kill(pid, SIGKILL) }
    }

    /// A child that stops (a Ctrl-Z at a credential_process's prompt stops its group alone) is
    /// handed to `onStop`, which continues it, and the time stopped does not count against the
    /// deadline: the terminal stayed with the stopped process, and the deadline stopped it
    /// (outside re-check r24b N8). Here the child stops itself and `onStop` waits 1.5 s, past
    /// the 1 s deadline, before it continues it.
    @Test func aStoppedChildIsHandedOverAndItsTimeStoppedIsNotCounted() throws {
        let program = script("stops", "kill -STOP $$\nprintf answer")
        let child = try SpawnedChild.start([program], standardInput: .null, ownProcessGroup: true)
        let pid = child.pid
        let stops = Mutex(0)
        let drained = child.drain(
            seconds: 1,
            onStop: {
                stops.withLock { $0 += 1 }
                usleep(1_500_000)
                kill(-pid, SIGCONT)
            })
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(stops.withLock { $0 } == 1)
        #expect((try? drained.get().output) == Array("answer".utf8))
        #expect(status == 0)
    }

    /// True when `pid` has ended and waits to be reaped.
    func isZombie(_ pid: Int32) -> Bool {
        let stat = String(decoding: readFile("/proc/\(pid)/stat") ?? [], as: UTF8.self)
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[close...].hasPrefix(") Z")
    }

    @Test func aFailingCredentialProcessNamesItselfItsExitAndItsError() throws {
        let program = script("fails", "echo 'token expired, run sso login' >&2\necho second line >&2\nexit 3")
        let error = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\ncredential_process = \(program)\n"))
        }
        #expect(
            error.description
                == "credentials: credential_process for profile 'default': \(program) exited 3: token expired, run sso login"
        )
        let badVersion = script("v2", #"echo '{"Version": 2, "AccessKeyId": "A", "SecretAccessKey": "S"}'"#)
        let versionError = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\ncredential_process = \(badVersion)\n"))
        }
        #expect(versionError.message == "credential_process for profile 'default': the output's Version is not 1")
        let missing = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\ncredential_process = /nonexistent/helper --x\n"))
        }
        #expect(
            missing.message
                == "credential_process for profile 'default': cannot run /nonexistent/helper (posix_spawn): No such file or directory"
        )
    }

    @Test func instanceMetadataV2TakesATokenThenTheRoleThenItsKeys() throws {
        let imds = try CredentialStubs.instanceMetadata()
        defer { imds.stop() }
        var env = environment(["AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url("")])
        env["AWS_EC2_METADATA_DISABLED"] = nil
        let configuration = try resolve(env)
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: "IMDSKEY", secretAccessKey: "IMDSSECRET", sessionToken: "IMDSSESSION"))
        #expect(
            imds.requests.map { "\($0.method) \($0.target)" } == [
                "PUT /latest/api/token", "GET /latest/meta-data/iam/security-credentials/",
                "GET /latest/meta-data/iam/security-credentials/gcdcat-role",
            ])
    }

    /// A profile named by AWS_PROFILE that exists nowhere is refused even with keys in the
    /// environment, as awscli refuses it: it may be the one that holds the endpoint, and the run
    /// went to AWS instead (outside re-check r24b N5).
    @Test func aProfileThatExistsNowhereIsRefusedEvenWithEnvironmentKeys() throws {
        let env = environment(
            config: "[profile lab]\nendpoint_url = http://127.0.0.1:9\n",
            ["AWS_PROFILE": "nosuch", "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S"])
        let error = try #require(throws: GCDCatError.self) { try resolve(env) }
        #expect(
            error.message
                == "profile 'nosuch' (AWS_PROFILE) is in neither \(folder.file("credentials")) nor \(folder.file("config"))"
        )
        var named = env
        named["AWS_PROFILE"] = "lab"
        #expect(try resolve(named).credentials == S3Credentials(accessKeyID: "K", secretAccessKey: "S"))
    }

    @Test func anUnreachableInstanceMetadataServiceEndsTheNoCredentialsMessage() throws {
        let silent = try LoopbackHTTPServer { _ in .stall(seconds: 5) }
        defer { silent.stop() }
        var env = environment(["AWS_EC2_METADATA_SERVICE_ENDPOINT": silent.url("")])
        env["AWS_EC2_METADATA_DISABLED"] = nil
        let error = try #require(throws: GCDCatError.self) { try resolve(env) }
        #expect(error.message.hasPrefix("no S3 credentials: looked for AWS_ACCESS_KEY_ID"))
        #expect(
            error.message.hasSuffix(
                "then IMDSv2: token request to \(silent.url("/latest/api/token")): timed out after 1 s;"
                    + " set the variables or add the profile"), "\(error)")
    }

    /// `AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE` (or the profile's `ec2_metadata_service_endpoint_mode`)
    /// picks IMDS's address as botocore does, any case; an explicit endpoint still wins.
    @Test(arguments: [
        (["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE": "IPv6"], "", "http://[fd00:ec2::254]"),
        ([:], "ec2_metadata_service_endpoint_mode = ipv6\n", "http://[fd00:ec2::254]"),
        (
            ["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE": "IPV4"], "ec2_metadata_service_endpoint_mode = ipv6\n",
            "http://169.254.169.254"
        ),
        ([:], "", "http://169.254.169.254"),
        (
            [
                "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE": "IPv6",
                "AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:9",
            ],
            "", "http://127.0.0.1:9"
        ),
    ])
    func theInstanceMetadataEndpointModeChoosesItsAddress(variables: [String: String], profile: String, address: String)
        throws
    {
        let transport = ScriptedTransport([.fail(HTTPTransportError(message: "no route", isRetryable: false))])
        var env = environment(config: "[default]\n\(profile)", variables)
        env["AWS_EC2_METADATA_DISABLED"] = nil
        _ = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(
                environment: env, endpointURL: "http://127.0.0.1:9", credentialTransport: transport)
        }
        #expect(transport.requests.map(\.url) == ["\(address)/latest/api/token"])
    }

    @Test func anInstanceMetadataEndpointModeOtherThanIPv4OrIPv6IsRefusedByName() throws {
        let transport = ScriptedTransport([])
        var env = environment(
            config: "[default]\nec2_metadata_service_endpoint_mode = v6\n",
            ["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE": "IPv7"])
        env["AWS_EC2_METADATA_DISABLED"] = nil
        let error = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(
                environment: env, endpointURL: "http://127.0.0.1:9", credentialTransport: transport)
        }
        #expect(error.message == "IMDSv2: AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE is 'IPv7'; it must be IPv4 or IPv6")
        env["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"] = nil
        let profileError = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(
                environment: env, endpointURL: "http://127.0.0.1:9", credentialTransport: transport)
        }
        #expect(
            profileError.message
                == "IMDSv2: ec2_metadata_service_endpoint_mode of profile 'default' is 'v6'; it must be IPv4 or IPv6")
        #expect(transport.requests.isEmpty)
    }

    @Test func containerCredentialsCarryTheAuthorizationTokenFromItsFile() throws {
        let server = try LoopbackHTTPServer { request in
            request.header("authorization") == "Bearer rotated"
                ? CredentialStubs.reply(
                    "200 OK", CredentialStubs.json(id: "TASKKEY", secret: "TASKSECRET", token: "TT"))
                : CredentialStubs.reply("401 Unauthorized", "")
        }
        defer { server.stop() }
        writeFile(folder.file("token"), Array("Bearer rotated\n".utf8))
        let configuration = try resolve(
            environment([
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": server.url("/v2/credentials/abc"),
                "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": folder.file("token"),
                "AWS_CONTAINER_AUTHORIZATION_TOKEN": "ignored when the file is set",
            ]))
        #expect(configuration.credentials.accessKeyID == "TASKKEY")
        #expect(server.requests.map(\.target) == ["/v2/credentials/abc"])

        let http = CredentialHTTP(transport: CurlTransport())
        let relative = try #require(
            try ContainerCredentials(
                environment: ["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/x"], http: http))
        #expect(relative.url == "http://169.254.170.2/v2/credentials/x")
        let refused = try #require(throws: GCDCatError.self) {
            try ContainerCredentials(
                environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://example.com/creds"], http: http)
        }
        #expect(
            refused.message.hasPrefix(
                "container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI http://example.com/creds must be https"))
    }

    @Test func assumeRoleChainsThroughSourceProfilesSigningEachCallWithTheLast() throws {
        let sts = try CredentialStubs.sts()
        defer { sts.stop() }
        let configuration = try resolve(
            environment(
                config: """
                    [profile app]
                    role_arn = arn:aws:iam::111:role/app
                    source_profile = hop
                    role_session_name = nightly
                    [profile hop]
                    role_arn = arn:aws:iam::111:role/hop
                    source_profile = base
                    external_id = ext-1
                    """,
                credentials: "[base]\naws_access_key_id = BASEKEY\naws_secret_access_key = BASESECRET\n",
                ["AWS_PROFILE": "app", "AWS_ENDPOINT_URL_STS": sts.url(""), "AWS_REGION": "eu-west-3"]))
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: "KEY-app", secretAccessKey: "SECRET-app", sessionToken: "TOKEN-app"))
        let calls = sts.requests
        try #require(calls.count == 2)
        let (hop, app) = (CredentialStubs.form(calls[0].body), CredentialStubs.form(calls[1].body))
        #expect(hop["Action"] == "AssumeRole" && hop["RoleArn"] == "arn:aws:iam::111:role/hop")
        #expect(hop["ExternalId"] == "ext-1" && hop["Version"] == "2011-06-15")
        #expect(app["RoleArn"] == "arn:aws:iam::111:role/app" && app["RoleSessionName"] == "nightly")
        #expect(calls[0].header("authorization")?.contains("Credential=BASEKEY/") == true)
        #expect(calls[0].header("authorization")?.contains("/eu-west-3/sts/aws4_request") == true)
        #expect(calls[0].header("x-amz-security-token") == nil)
        #expect(calls[1].header("authorization")?.contains("Credential=KEY-hop/") == true)
        #expect(calls[1].header("x-amz-security-token") == "TOKEN-hop")
        #expect(calls.allSatisfy { $0.method == "POST" && $0.target == "/" })
    }

    @Test func assumeRoleIsSignedWithSigV4ForSTSOverTheFormBody() throws {
        let sts = try CredentialStubs.sts()
        defer { sts.stop() }
        _ = try resolve(
            environment(
                config: "[default]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = base\n",
                credentials: "[base]\naws_access_key_id = BASEKEY\naws_secret_access_key = BASESECRET\n",
                ["AWS_ENDPOINT_URL_STS": sts.url(""), "AWS_REGION": "us-west-2"]))
        let call = try #require(sts.requests.first)
        let authorization = try #require(call.header("authorization"))
        let signedNames = try #require(authorization.split(separator: ",").first { $0.hasPrefix("SignedHeaders=") })
            .dropFirst("SignedHeaders=".count).split(separator: ";").map(String.init)
        #expect(signedNames == ["content-type", "host", "x-amz-content-sha256", "x-amz-date"])
        let headers = Dictionary(uniqueKeysWithValues: signedNames.map { ($0, call.header($0) ?? "") })
        let bodyHash = call.body.withUnsafeBytes { SigV4Signer.payloadHash($0) }
        #expect(headers["x-amz-content-sha256"] == bodyHash)
        let expected = SigV4Signer(
            credentials: S3Credentials(accessKeyID: "BASEKEY", secretAccessKey: "BASESECRET"), region: "us-west-2",
            service: "sts"
        ).sign(
            method: "POST", encodedPath: "/", query: [], headers: headers, payloadHash: bodyHash,
            amzDate: headers["x-amz-date"] ?? "")
        #expect(authorization == expected.authorization)
    }

    @Test func webIdentityFromTheEnvironmentIsUnsignedAndSendsTheTokenFile() throws {
        let sts = try CredentialStubs.sts()
        defer { sts.stop() }
        writeFile(folder.file("oidc"), Array("eyJ.web.token\n".utf8))
        let configuration = try resolve(
            environment([
                "AWS_WEB_IDENTITY_TOKEN_FILE": folder.file("oidc"), "AWS_ROLE_ARN": "arn:aws:iam::2:role/pod",
                "AWS_ROLE_SESSION_NAME": "pod-1", "AWS_ENDPOINT_URL_STS": sts.url(""),
            ]))
        #expect(configuration.credentials.accessKeyID == "KEY-pod")
        let call = try #require(sts.requests.first)
        let form = CredentialStubs.form(call.body)
        #expect(form["Action"] == "AssumeRoleWithWebIdentity" && form["WebIdentityToken"] == "eyJ.web.token")
        #expect(form["RoleSessionName"] == "pod-1")
        #expect(call.header("authorization") == nil)
    }

    @Test func aRefusedAssumeRoleNamesTheRoleTheProfileAndSTSsWords() throws {
        let sts = try CredentialStubs.sts(failWith: ("403 Forbidden", "AccessDenied", "not authorized to assume"))
        defer { sts.stop() }
        let error = try #require(throws: GCDCatError.self) {
            try resolve(
                environment(
                    config: "[default]\nrole_arn = arn:aws:iam::3:role/x\nsource_profile = default\n"
                        + "aws_access_key_id = K\naws_secret_access_key = S\n",
                    ["AWS_ENDPOINT_URL_STS": sts.url("")]))
        }
        #expect(
            error.message
                == "AssumeRole of arn:aws:iam::3:role/x for profile 'default': AssumeRole request to \(sts.url("/")):"
                + " HTTP 403 AccessDenied: not authorized to assume")
    }

    @Test func sourceProfileLoopsAndMissingSourcesAreRefusedByName() throws {
        let loop = try #require(throws: GCDCatError.self) {
            try resolve(
                environment(
                    config: "[profile a]\nrole_arn = arn:r/a\nsource_profile = b\n"
                        + "[profile b]\nrole_arn = arn:r/b\nsource_profile = a\n", ["AWS_PROFILE": "a"]))
        }
        #expect(loop.message == "AssumeRole for profile 'b': source_profile loops: a -> b -> a")
        let neither = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\nrole_arn = arn:r/x\n"))
        }
        #expect(
            neither.message
                == "AssumeRole of arn:r/x for profile 'default': role_arn needs source_profile or credential_source")
    }

    /// IMDS turned off is off for a role's credential_source too, as awscli has it (the keys
    /// were fetched from the instance anyway).
    @Test func anInstanceMetadataSourceIsRefusedWhenTheServiceIsOff() throws {
        let off = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: "[default]\nrole_arn = arn:r/x\ncredential_source = Ec2InstanceMetadata\n"))
        }
        #expect(
            off.message
                == "credential_source Ec2InstanceMetadata for profile 'default': the instance metadata service is off "
                + "(AWS_EC2_METADATA_DISABLED=true)")
    }

    @Test func ssoSessionTokenFromTheCacheBuysRoleCredentials() throws {
        let portal = try CredentialStubs.ssoPortal(token: "SSOACCESS", account: "123456789012", role: "Admin")
        defer { portal.stop() }
        let cache = folder.file(".aws/sso/cache")
        #expect(mkdir(folder.file(".aws"), 0o755) == 0 && mkdir(folder.file(".aws/sso"), 0o755) == 0)
        #expect(mkdir(cache, 0o755) == 0)
        // SHA-1 of "corp" (`printf corp | sha1sum`), as `aws sso login --sso-session corp` names the file.
        let tokenFile = "\(cache)/ee0bfd2552fbd840c02cc48b6e823320543c450f.json"
        writeFile(tokenFile, Array(#"{"accessToken": "SSOACCESS", "expiresAt": "2100-01-01T00:00:00Z"}"#.utf8))
        let config = Self.ssoConfig
        let configuration = try resolve(
            environment(config: config, ["AWS_PROFILE": "work", "AWS_ENDPOINT_URL_SSO": portal.url("")]))
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: "SSOKEY", secretAccessKey: "SSOSECRET", sessionToken: "SSOTOKEN"))
        writeFile(tokenFile, Array(#"{"accessToken": "SSOACCESS", "expiresAt": "2020-01-01T00:00:00Z"}"#.utf8))
        let expired = try #require(throws: GCDCatError.self) {
            try resolve(environment(config: config, ["AWS_PROFILE": "work", "AWS_ENDPOINT_URL_SSO": portal.url("")]))
        }
        #expect(
            expired.message
                == "SSO for profile 'work': the SSO token in \(tokenFile) expired at 2020-01-01T00:00:00Z;"
                + " run aws sso login --sso-session corp")
    }

    /// An `sso_session` token that expired, or expires within 15 minutes, is refreshed with the
    /// cache's refresh token (SSO-OIDC CreateToken), and the cache file rewritten as awscli
    /// rewrites it: its other fields kept, the new token, expiry and refresh token.
    @Test(arguments: [-3600.0, 600.0])
    func anSSOSessionTokenNearItsExpiryIsRefreshedAndTheCacheRewritten(expiresIn: Double) throws {
        let portal = try CredentialStubs.ssoPortal(token: "SSOACCESS", account: "123456789012", role: "Admin")
        let oidc = try CredentialStubs.ssoOIDC(clientID: "cid", secret: "csecret", refreshToken: "sso-refresh")
        defer {
            portal.stop()
            oidc.stop()
        }
        let tokenFile = ssoCache(expiresAt: Date().addingTimeInterval(expiresIn))
        let configuration = try resolve(
            environment(
                config: Self.ssoConfig,
                [
                    "AWS_PROFILE": "work", "AWS_ENDPOINT_URL_SSO": portal.url(""),
                    "AWS_ENDPOINT_URL_SSO_OIDC": oidc.url(""),
                ]
            ))
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: "SSOKEY", secretAccessKey: "SSOSECRET", sessionToken: "SSOTOKEN"))
        #expect(
            oidc.requests.map { "\($0.method) \($0.target) \($0.header("content-type") ?? "")" } == [
                "POST /token application/json"
            ])
        let rewritten = try JSONDecoder().decode([String: String].self, from: Data(readFile(tokenFile) ?? []))
        let expiry = try #require(rewritten["expiresAt"].flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(abs(expiry.timeIntervalSinceNow - 3600) < 60)
        #expect(
            rewritten.filter { $0.key != "expiresAt" } == [
                "startUrl": "https://corp.awsapps.com/start", "region": "eu-west-1", "accessToken": "SSOACCESS",
                "clientId": "cid", "clientSecret": "csecret", "registrationExpiresAt": "2100-01-01T00:00:00Z",
                "refreshToken": "NEWREFRESH",
            ])
        var info = stat()
        #expect(stat(tokenFile, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// A token an hour from its expiry is used as it is; one that expired and whose refresh the
    /// service refuses is refused, naming the cache file, the answer, and `aws sso login`.
    @Test func anSSOTokenIsRefreshedOnlyNearItsExpiryAndAFailedRefreshIsNamed() throws {
        let portal = try CredentialStubs.ssoPortal(token: "OLDACCESS", account: "123456789012", role: "Admin")
        let oidc = try CredentialStubs.ssoOIDC(clientID: "cid", secret: "csecret", refreshToken: "other")
        defer {
            portal.stop()
            oidc.stop()
        }
        let env = environment(
            config: Self.ssoConfig,
            ["AWS_PROFILE": "work", "AWS_ENDPOINT_URL_SSO": portal.url(""), "AWS_ENDPOINT_URL_SSO_OIDC": oidc.url("")])
        let tokenFile = ssoCache(expiresAt: Date().addingTimeInterval(3600))
        #expect(try resolve(env).credentials.accessKeyID == "SSOKEY")
        #expect(oidc.requests.isEmpty)
        // 10 minutes left and the refresh refused: the old token still serves.
        _ = ssoCache(expiresAt: Date().addingTimeInterval(600))
        #expect(try resolve(env).credentials.accessKeyID == "SSOKEY")
        #expect(oidc.requests.count == 1)
        _ = ssoCache(expiresAt: Date(timeIntervalSince1970: 1_577_836_800))
        let failed = try #require(throws: GCDCatError.self) { try resolve(env) }
        #expect(
            failed.message
                == "SSO for profile 'work': the SSO token in \(tokenFile) expired at 2020-01-01T00:00:00Z, and refreshing "
                + "it failed: SSO-OIDC CreateToken request to \(oidc.url("/token")): HTTP 400 "
                + #"{"error":"invalid_grant","error_description":"Invalid refresh token"}; "#
                + "run aws sso login --sso-session corp")
    }

    /// An SSO-OIDC answer cut short (not JSON) and one that lacks only `expiresIn` are each said
    /// as what they are, the first never quoted (it may hold a token): both were "answered
    /// without accessToken and expiresIn" (outside re-check r24b N13).
    @Test(arguments: [
        (
            #"{"accessToken":"NEWACCESS","expiresIn":36"#,
            "with 41 bytes that are not a JSON object (cut short?); their content is not shown"
        ),
        (#"{"accessToken":"NEWACCESS","tokenType":"Bearer"}"#, "without expiresIn"),
        (#"{"expiresIn":3600}"#, "without accessToken"),
        (#"[]"#, "with 2 bytes that are not a JSON object (cut short?); their content is not shown"),
    ])
    func aBrokenRefreshAnswerIsSaidAsWhatItIs(answer: String, said: String) throws {
        let oidc = try LoopbackHTTPServer { _ in CredentialStubs.reply("200 OK", answer) }
        defer { oidc.stop() }
        let tokenFile = ssoCache(expiresAt: Date(timeIntervalSince1970: 1_577_836_800))
        let env = environment(
            config: Self.ssoConfig,
            [
                "AWS_PROFILE": "work", "AWS_ENDPOINT_URL_SSO": "http://127.0.0.1:9",
                "AWS_ENDPOINT_URL_SSO_OIDC": oidc.url(""),
            ])
        let failed = try #require(throws: GCDCatError.self) { try resolve(env) }
        #expect(
            failed.message
                == "SSO for profile 'work': the SSO token in \(tokenFile) expired at 2020-01-01T00:00:00Z, and refreshing "
                + "it failed: SSO-OIDC CreateToken to \(oidc.url("/token")) answered \(said); "
                + "run aws sso login --sso-session corp")
        #expect(!failed.message.contains("NEWACCESS"))
    }

    /// Two runs refreshing one token where the service rotates refresh tokens (each works once):
    /// the second sent the refresh token the first had just used, was refused (`invalid_grant`)
    /// and told to log in while the cache held a valid token (outside re-check r24b N12). A lock
    /// on the cache file makes the second wait, read the first's token and use it.
    @Test func twoRunsRefreshingOneTokenRefreshItOnce() throws {
        let portal = try CredentialStubs.ssoPortal(token: "SSOACCESS", account: "123456789012", role: "Admin")
        let refreshToken = Mutex("sso-refresh")
        let oidc = try LoopbackHTTPServer { request in
            // Slow enough that both runs would have sent theirs before the first answer.
            usleep(500_000)
            let fields = (try? JSONDecoder().decode([String: String].self, from: Data(request.body))) ?? [:]
            let valid = refreshToken.withLock { current in
                guard fields["refreshToken"] == current else { return false }
                current = "ROTATED"
                return true
            }
            return valid
                ? CredentialStubs.reply(
                    "200 OK", #"{"accessToken":"SSOACCESS","expiresIn":3600,"refreshToken":"ROTATED"}"#)
                : CredentialStubs.reply(
                    "400 Bad Request", #"{"error":"invalid_grant","error_description":"Invalid refresh token"}"#)
        }
        defer {
            portal.stop()
            oidc.stop()
        }
        _ = ssoCache(expiresAt: Date(timeIntervalSince1970: 1_577_836_800))
        let env = environment(
            config: Self.ssoConfig,
            ["AWS_PROFILE": "work", "AWS_ENDPOINT_URL_SSO": portal.url(""), "AWS_ENDPOINT_URL_SSO_OIDC": oidc.url("")])
        let results = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let outcome: String
            do {
                outcome = try S3Configuration.resolve(environment: env, endpointURL: "http://127.0.0.1:9").credentials
                    .accessKeyID
            } catch {
                outcome = "\(error)"
            }
            results.withLock { $0.append(outcome) }
        }
        #expect(results.withLock { $0 } == ["SSOKEY", "SSOKEY"])
        #expect(oidc.requests.count == 1)
    }

    /// A refresh refused because another program (awscli, which takes no lock) refreshed the
    /// token meanwhile: the cache is read again, and its new token used, before telling the user
    /// to log in.
    @Test func aRefreshRefusedAfterAnotherProgramRefreshedUsesItsToken() throws {
        let portal = try CredentialStubs.ssoPortal(token: "SSOACCESS", account: "123456789012", role: "Admin")
        let tokenFile = ssoCache(expiresAt: Date(timeIntervalSince1970: 1_577_836_800))
        let fresh = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
        let oidc = try LoopbackHTTPServer { _ in
            writeFile(
                tokenFile,
                Array(
                    (#"{"accessToken": "SSOACCESS", "expiresAt": "\#(fresh)", "clientId": "cid", "#
                        + #""clientSecret": "csecret", "registrationExpiresAt": "2100-01-01T00:00:00Z", "#
                        + #""refreshToken": "ROTATED"}"#).utf8))
            return CredentialStubs.reply(
                "400 Bad Request", #"{"error":"invalid_grant","error_description":"Invalid refresh token"}"#)
        }
        defer {
            portal.stop()
            oidc.stop()
        }
        let env = environment(
            config: Self.ssoConfig,
            ["AWS_PROFILE": "work", "AWS_ENDPOINT_URL_SSO": portal.url(""), "AWS_ENDPOINT_URL_SSO_OIDC": oidc.url("")])
        #expect(try resolve(env).credentials.accessKeyID == "SSOKEY")
        #expect(oidc.requests.count == 1)
    }

    static let ssoConfig = ssoSessionTestConfig

    /// The cache file of `aws sso login --sso-session corp` (named by SHA-1 of "corp"), with a
    /// refresh token and its client registration.
    func ssoCache(expiresAt: Date) -> String {
        let cache = folder.file(".aws/sso/cache")
        mkdir(folder.file(".aws"), 0o755)
        mkdir(folder.file(".aws/sso"), 0o755)
        mkdir(cache, 0o755)
        let tokenFile = "\(cache)/ee0bfd2552fbd840c02cc48b6e823320543c450f.json"
        let time = ISO8601DateFormatter().string(from: expiresAt)
        writeFile(
            tokenFile,
            Array(
                (#"{"startUrl": "https://corp.awsapps.com/start", "region": "eu-west-1", "accessToken": "OLDACCESS", "#
                    + #""expiresAt": "\#(time)", "clientId": "cid", "clientSecret": "csecret", "#
                    + #""registrationExpiresAt": "2100-01-01T00:00:00Z", "refreshToken": "sso-refresh"}"#).utf8))
        return tokenFile
    }

    /// botocore's order: environment, role_arn, web identity, SSO, credentials file keys,
    /// credential_process, config file keys, container, IMDS.
    @Test func precedenceIsAWSCLIs() throws {
        let process = script("p", #"echo '{"Version": 1, "AccessKeyId": "PROCESS", "SecretAccessKey": "S"}'"#)
        let sts = try CredentialStubs.sts()
        defer { sts.stop() }
        let container = try LoopbackHTTPServer { _ in
            CredentialStubs.reply("200 OK", CredentialStubs.json(id: "CONTAINER", secret: "S", token: "T"))
        }
        defer { container.stop() }
        let imds = try CredentialStubs.instanceMetadata(id: "IMDS")
        defer { imds.stop() }
        var everything = [
            "AWS_ENDPOINT_URL_STS": sts.url(""), "AWS_CONTAINER_CREDENTIALS_FULL_URI": container.url("/c"),
            "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url(""),
        ]
        let configKeys = "aws_access_key_id = CONFIGFILE\naws_secret_access_key = S\n"
        func winner(_ config: String, _ credentials: String, _ extra: [String: String] = [:]) throws -> String {
            var env = environment(config: config, credentials: credentials, everything.merging(extra) { $1 })
            env["AWS_EC2_METADATA_DISABLED"] = nil
            return try resolve(env).credentials.accessKeyID
        }
        let full =
            "[default]\nrole_arn = arn:aws:iam::1:role/ROLE\nsource_profile = src\ncredential_process = \(process)\n"
            + configKeys + "[profile src]\n" + configKeys
        let credentialsKeys = "[default]\naws_access_key_id = CREDFILE\naws_secret_access_key = S\n"
        #expect(try winner(full, credentialsKeys, ["AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "S"]) == "ENV")
        #expect(try winner(full, credentialsKeys) == "KEY-ROLE")
        let noRole = "[default]\ncredential_process = \(process)\n" + configKeys
        #expect(try winner(noRole, credentialsKeys) == "CREDFILE")
        #expect(try winner(noRole, "") == "PROCESS")
        #expect(try winner("[default]\n" + configKeys, "") == "CONFIGFILE")
        #expect(try winner("", "") == "CONTAINER")
        everything["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = nil
        #expect(try winner("", "") == "IMDS")
    }
}
