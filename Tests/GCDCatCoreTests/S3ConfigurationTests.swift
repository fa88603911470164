import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

struct S3ConfigurationTests {
    let secret = "SuperSecretValue/abc+123"

    @Test func environmentKeysWinAndCustomEndpointIsPathStyle() throws {
        let configuration = try S3Configuration.resolve(
            environment: [
                "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "TOKEN",
                "AWS_REGION": "eu-west-2", "AWS_DEFAULT_REGION": "us-west-1", "HOME": "/nonexistent",
                "AWS_ENDPOINT_URL": "http://127.0.0.1:7480/",
            ], endpointURL: nil)
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: "AKID", secretAccessKey: secret, sessionToken: "TOKEN"))
        #expect(configuration.region == "eu-west-2")
        #expect(configuration.endpoint?.description == "http://127.0.0.1:7480")
        #expect(configuration.addressingStyle == .path)
        #expect(!"\(configuration)".contains(secret) && !"\(configuration)".contains("TOKEN"))
        #expect(!String(reflecting: configuration).contains(secret))
        #expect("\(configuration)".contains("AKID"))
    }

    @Test func defaultsToAWSVirtualHostInUSEast1() throws {
        let configuration = try S3Configuration.resolve(
            environment: ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"], endpointURL: nil)
        #expect(configuration.region == "us-east-1")
        #expect(configuration.endpoint == nil)
        #expect(configuration.addressingStyle == .virtualHost)
    }

    @Test func endpointPrecedenceArgumentThenEnvironmentThenConfig() throws {
        let folder = TemporaryDirectory()
        writeFile(folder.file("config"), Array("[default]\nendpoint_url = http://config:1\nregion = ap-south-1\n".utf8))
        var environment = [
            "AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "AWS_CONFIG_FILE": folder.file("config"),
            "AWS_SHARED_CREDENTIALS_FILE": folder.file("none"),
        ]
        #expect(try S3Configuration.resolve(environment: environment, endpointURL: nil).endpoint?.host == "config")
        #expect(try S3Configuration.resolve(environment: environment, endpointURL: nil).region == "ap-south-1")
        environment["AWS_ENDPOINT_URL"] = "http://generic:2"
        #expect(try S3Configuration.resolve(environment: environment, endpointURL: nil).endpoint?.host == "generic")
        environment["AWS_ENDPOINT_URL_S3"] = "https://s3only:3"
        let s3Only = try S3Configuration.resolve(environment: environment, endpointURL: nil).endpoint
        #expect(s3Only == (try S3Endpoint(parsing: "https://s3only:3")))
        let argument = try S3Configuration.resolve(environment: environment, endpointURL: "http://flag:4").endpoint
        #expect(argument?.host == "flag" && argument?.port == 4)
    }

    @Test func profilesFromTheSharedFiles() throws {
        let folder = TemporaryDirectory()
        writeFile(
            folder.file("credentials"),
            Array(
                """
                # a comment
                [default]
                aws_access_key_id = DEFAULTID
                aws_secret_access_key = \(secret)

                [work]
                aws_access_key_id=WORKID
                aws_secret_access_key=WORKSECRET
                aws_session_token = WORKTOKEN
                """.utf8))
        writeFile(
            folder.file("config"),
            Array(
                """
                [default]
                region = eu-central-1
                [profile work]
                region = sa-east-1
                endpoint_url = http://work-endpoint:9000
                s3 =
                  addressing_style = virtual
                [profile cfgonly]
                aws_access_key_id = CFGID
                aws_secret_access_key = CFGSECRET
                """.utf8))
        let base = [
            "HOME": folder.path + "/nohome", "AWS_SHARED_CREDENTIALS_FILE": folder.file("credentials"),
            "AWS_CONFIG_FILE": folder.file("config"),
        ]
        let standard = try S3Configuration.resolve(environment: base, endpointURL: nil)
        #expect(standard.credentials == S3Credentials(accessKeyID: "DEFAULTID", secretAccessKey: secret))
        #expect(standard.region == "eu-central-1")
        #expect(standard.endpoint == nil)

        var work = base
        work["AWS_PROFILE"] = "work"
        let chosen = try S3Configuration.resolve(environment: work, endpointURL: nil)
        #expect(
            chosen.credentials
                == S3Credentials(accessKeyID: "WORKID", secretAccessKey: "WORKSECRET", sessionToken: "WORKTOKEN"))
        #expect(chosen.region == "sa-east-1")
        #expect(chosen.endpoint?.description == "http://work-endpoint:9000")
        work["AWS_DEFAULT_REGION"] = "us-west-2"
        #expect(try S3Configuration.resolve(environment: work, endpointURL: nil).region == "us-west-2")

        var configOnly = base
        configOnly["AWS_PROFILE"] = "cfgonly"
        #expect(
            try S3Configuration.resolve(environment: configOnly, endpointURL: nil).credentials.accessKeyID == "CFGID")

        var missing = base
        missing["AWS_PROFILE"] = "nosuch"
        let error = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(environment: missing, endpointURL: nil)
        }
        #expect(error.code == .invalidInput)
        #expect(error.message.contains("profile 'nosuch' (AWS_PROFILE)"), "\(error)")
        #expect(!"\(error)".contains(secret))
    }

    @Test func homeDefaultsToDotAWS() throws {
        let folder = TemporaryDirectory()
        _ = mkdir(folder.file(".aws"), 0o755)
        writeFile(
            folder.file(".aws/credentials"), Array("[default]\naws_access_key_id=H\naws_secret_access_key=HS\n".utf8))
        let configuration = try S3Configuration.resolve(environment: ["HOME": folder.path], endpointURL: nil)
        #expect(configuration.credentials.accessKeyID == "H")
    }

    @Test func missingCredentialsNameWhatWasLookedFor() throws {
        let error = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(
                environment: ["HOME": "/nonexistent-home", "AWS_EC2_METADATA_DISABLED": "true"], endpointURL: nil)
        }
        #expect(error.code == .invalidInput)
        #expect(error.exitStatus == 1)
        #expect(
            error.description
                == "credentials: no S3 credentials: looked for AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the"
                + " environment, then profile 'default' in /nonexistent-home/.aws/credentials and"
                + " /nonexistent-home/.aws/config, then AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI, then"
                + " IMDSv2 (off: AWS_EC2_METADATA_DISABLED); set the variables or add the profile")
    }

    @Test func halfAKeyPairIsRefusedWithoutShowingTheSecret() throws {
        let onlySecret = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(environment: ["AWS_SECRET_ACCESS_KEY": secret], endpointURL: nil)
        }
        #expect(onlySecret.message.contains("AWS_ACCESS_KEY_ID is not"))
        #expect(!"\(onlySecret)".contains(secret))
        let folder = TemporaryDirectory()
        writeFile(folder.file("c"), Array("[default]\naws_secret_access_key = \(secret)\n".utf8))
        let half = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(
                environment: ["AWS_SHARED_CREDENTIALS_FILE": folder.file("c"), "HOME": "/nonexistent"], endpointURL: nil
            )
        }
        #expect(half.message == "profile 'default' needs both aws_access_key_id and aws_secret_access_key")
        #expect(!"\(half)".contains(secret))
    }

    @Test(arguments: [
        "127.0.0.1:7480", "ftp://host", "http://", "http://host:0", "http://host:99999", "http://u@host", "http://[::1",
        "http://[]:80", "http:// host", "http://ho st:80", "http://[::1]x",
    ])
    func badEndpointsAreRefused(url: String) throws {
        let error = try #require(throws: GCDCatError.self) {
            try S3Configuration.resolve(
                environment: ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"], endpointURL: url)
        }
        #expect(
            error.description
                == "\(url.replacingOccurrences(of: "u@", with: "***@")): endpoint: not an endpoint URL; expected http://HOST[:PORT] or https://HOST[:PORT]"
        )
    }

    @Test func ipv6AndNamedHostsAreEndpoints() throws {
        #expect(try S3Endpoint(parsing: "http://[::1]:7480").description == "http://[::1]:7480")
        #expect(try S3Endpoint(parsing: "https://[fe80::1]").host == "[fe80::1]")
        #expect(
            try S3Endpoint(parsing: "http://rgw_1.example-2.internal:80/").description
                == "http://rgw_1.example-2.internal")
    }

    @Test func credentialsDescriptionRedacts() {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: secret, sessionToken: "tok")
        #expect(
            "\(credentials)"
                == "S3Credentials(accessKeyID: AKID, secretAccessKey: <redacted>, sessionToken: <redacted>)")
        #expect(String(reflecting: credentials) == "\(credentials)")
    }
}
