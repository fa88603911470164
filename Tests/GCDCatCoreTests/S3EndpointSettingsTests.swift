import GCDCatCore
import Testing

/// The endpoint, addressing style and CA bundle as awscli reads them from the environment and
/// `~/.aws/config`, and the settings gcdcat refuses rather than quietly going to AWS.
struct S3EndpointSettingsTests {
    let folder = TemporaryDirectory()

    /// Keys in the environment, the config file `config`, no credentials file.
    private func resolve(_ config: String, _ extra: [String: String] = [:], flag: String? = nil) throws
        -> S3Configuration
    {
        writeFile(folder.file("config"), Array(config.utf8))
        let environment = [
            "AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "AWS_CONFIG_FILE": folder.file("config"),
            "AWS_SHARED_CREDENTIALS_FILE": folder.file("none"),
        ].merging(extra) { $1 }
        return try S3Configuration.resolve(environment: environment, endpointURL: flag)
    }

    private static let servicesConfig = """
        [default]
        region = eu-west-1
        services = local-s3
        endpoint_url = http://global:1

        [services local-s3]
        s3 =
          endpoint_url = http://services:2
        sts =
          endpoint_url = http://sts:3
        """

    @Test func aServicesSectionsS3EndpointIsUsed() throws {
        let configuration = try resolve(Self.servicesConfig)
        #expect(configuration.endpoint?.description == "http://services:2")
        #expect(configuration.region == "eu-west-1")
    }

    @Test func endpointPrecedenceIsAwscliS() throws {
        #expect(try resolve(Self.servicesConfig, ["AWS_ENDPOINT_URL": "http://generic:4"]).endpoint?.host == "generic")
        let both = ["AWS_ENDPOINT_URL": "http://generic:4", "AWS_ENDPOINT_URL_S3": "http://s3env:5"]
        #expect(try resolve(Self.servicesConfig, both).endpoint?.host == "s3env")
        #expect(try resolve(Self.servicesConfig, both, flag: "http://flag:6").endpoint?.host == "flag")
        let withoutServices = Self.servicesConfig.replacing("services = local-s3\n", with: "")
        #expect(try resolve(withoutServices).endpoint?.host == "global")
    }

    @Test func ignoringConfiguredEndpointsKeepsOnlyTheCommandLine() throws {
        let ignore = ["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true", "AWS_ENDPOINT_URL_S3": "http://s3env:5"]
        #expect(try resolve(Self.servicesConfig, ignore).endpoint == nil)
        #expect(try resolve(Self.servicesConfig, ignore, flag: "http://flag:6").endpoint?.host == "flag")
        let inProfile = Self.servicesConfig.replacing(
            "region = eu-west-1\n", with: "region = eu-west-1\nignore_configured_endpoint_urls = true\n")
        #expect(try resolve(inProfile).endpoint == nil)
        // The variable decides over the profile, either way.
        #expect(try resolve(inProfile, ["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "false"]).endpoint?.host == "services")
        let error = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve(Self.servicesConfig, ["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "yes"])
        }
        #expect(
            error?.description == "configuration: AWS_IGNORE_CONFIGURED_ENDPOINT_URLS = yes: expected true or false")
    }

    /// A section given twice in the config or the credentials file is refused, as awscli refuses
    /// it, naming the file, the section and both lines (the last one silently won).
    @Test func aSectionGivenTwiceIsRefusedNamingTheFileAndBothLines() throws {
        let config =
            "[default]\nendpoint_url = http://127.0.0.1:5799\n\n[profile x]\n[default]\nendpoint_url = http://a:1\n"
        let error = #expect(throws: S3ConfigurationRefusal.self) { try resolve(config) }
        #expect(
            error?.description
                == "\(folder.file("config")): configuration: the section [default] is given twice, on lines 1 and 5; "
                + "awscli refuses such a file too (ConfigParseError): merge the two into one")
        writeFile(folder.file("credentials"), Array("[x]\naws_access_key_id = A\n# c\n[x]\n".utf8))
        let credentials = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve(
                "[profile x]\nregion = eu-west-1\n", ["AWS_SHARED_CREDENTIALS_FILE": folder.file("credentials")])
        }
        #expect(
            credentials?.description
                == "\(folder.file("credentials")): configuration: the section [x] is given twice, on lines 1 and 4; "
                + "awscli refuses such a file too (ConfigParseError): merge the two into one")
        // [default] and [profile default] are two sections, as in awscli.
        #expect(throws: Never.self) { try resolve("[default]\nregion = eu-west-1\n[profile default]\n") }
    }

    /// Section names and keys as awscli's configparser reads them (outside re-check r24b N5-N7):
    /// `[profile  x]` and `[profile "x"]` are profile x, not sections gcdcat passed over (a run
    /// then went to AWS); `[ default ]` is no `[default]`; a key given twice in a section is
    /// refused, a key repeated in a nested block is not.
    @Test func sectionNamesAndKeysAreReadAsAwscliReadsThem() throws {
        for header in ["[profile  x]", "[profile\tx]", "[profile \"x\"]"] {
            let configuration = try resolve(
                "\(header)\nendpoint_url = http://127.0.0.1:5714\n", ["AWS_PROFILE": "x"])
            #expect(configuration.endpoint?.description == "http://127.0.0.1:5714", "\(header)")
        }
        let spaced = try resolve("[ default ]\nendpoint_url = http://127.0.0.1:5714\n[default]\nregion = eu-west-1\n")
        #expect(spaced.endpoint == nil && spaced.region == "eu-west-1")
        let twice = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve("[default]\nendpoint_url = http://a:1\nENDPOINT_URL = http://b:2\n")
        }
        #expect(
            twice?.description
                == "\(folder.file("config")): configuration: endpoint_url in the section [default] is given twice, on "
                + "lines 2 and 3; awscli refuses such a file too (ConfigParseError): keep one")
        #expect(throws: Never.self) {
            try resolve("[default]\ns3 =\n  addressing_style = path\n  addressing_style = path\n")
        }
    }

    @Test func aServicesNameWithoutItsSectionIsRefusedNotSentToAWS() throws {
        let error = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve("[default]\nservices = missing\n")
        }
        #expect(
            error?.description
                == "\(folder.file("config")): configuration: the profile says services = missing, but there is no "
                + "[services missing] section")
    }

    @Test(arguments: [
        ("path", S3AddressingStyle.path), ("virtual", .virtualHost), ("auto", .path), ("", .path),
    ])
    func addressingStyleFromTheProfilesS3Settings(value: String, style: S3AddressingStyle) throws {
        let configuration = try resolve(
            "[default]\nendpoint_url = http://localhost:7480\ns3 =\n  addressing_style = \(value)\n")
        #expect(configuration.addressingStyle == style)
    }

    @Test func virtualHostedStyleOnACustomEndpointPutsTheBucketInTheHost() throws {
        let configuration = try resolve(
            "[default]\ns3 =\n    addressing_style = virtual\n", flag: "http://rgw.lan:7480")
        #expect(configuration.target(bucket: "bkt") == ("http", "bkt.rgw.lan:7480", ""))
        let onAWS = try resolve("[default]\nregion = eu-west-2\ns3 =\n    addressing_style = path\n")
        #expect(onAWS.target(bucket: "bkt") == ("https", "s3.eu-west-2.amazonaws.com", "/bkt"))
    }

    @Test func anUnknownAddressingStyleIsRefused() throws {
        let error = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve("[default]\ns3 =\n  addressing_style = dns\n")
        }
        #expect(error?.error.path == folder.file("config"))
        #expect(error?.error.message == "s3 addressing_style = dns: expected path, virtual or auto")
    }

    @Test(arguments: [
        ("[default]\ns3 =\n  use_accelerate_endpoint = true\n", [:], "s3.use_accelerate_endpoint = true"),
        ("[default]\nuse_fips_endpoint = true\n", [:], "use_fips_endpoint = true"),
        ("[default]\n", ["AWS_USE_DUALSTACK_ENDPOINT": "true"], "AWS_USE_DUALSTACK_ENDPOINT = true"),
    ])
    func endpointsGcdcatDoesNotBuildAreRefusedByName(config: String, environment: [String: String], named: String)
        throws
    {
        let error = #expect(throws: S3ConfigurationRefusal.self) { try resolve(config, environment) }
        #expect(error?.error.message.hasPrefix("\(named): gcdcat does not use that endpoint") == true)
        _ = try resolve(config.replacing("true", with: "false"), environment.mapValues { _ in "false" })
    }

    /// FIPS and dual-stack with an endpoint of the user's own use that endpoint, as awscli does;
    /// accelerate is still refused.
    @Test(arguments: [
        ("[default]\nendpoint_url = http://127.0.0.1:5714\nuse_fips_endpoint = true\n", [:], nil),
        ("[default]\nuse_dualstack_endpoint = true\n", ["AWS_ENDPOINT_URL": "http://127.0.0.1:5714"], nil),
        (
            "[default]\n", ["AWS_USE_FIPS_ENDPOINT": "true", "AWS_USE_DUALSTACK_ENDPOINT": "true"],
            "http://127.0.0.1:5714"
        ),
        (
            "[default]\ns3 =\n  use_fips_endpoint = true\n  endpoint_url = http://127.0.0.1:5714\n", [:],
            "http://127.0.0.1:5714"
        ),
    ])
    func fipsAndDualStackWithAnEndpointOfTheUsersOwnUseThatEndpoint(
        config: String, environment: [String: String], flag: String?
    ) throws {
        #expect(try resolve(config, environment, flag: flag).endpoint?.host == "127.0.0.1")
        let accelerate = #expect(throws: S3ConfigurationRefusal.self) {
            // Within the s3 block there is one (a second `s3 =` is a key given twice).
            let accelerate = (config.contains("s3 =") ? "" : "s3 =\n") + "  use_accelerate_endpoint = true\n"
            return try resolve(config + accelerate, environment, flag: "http://127.0.0.1:5714")
        }
        #expect(accelerate?.error.message.hasPrefix("s3.use_accelerate_endpoint = true: gcdcat does not use") == true)
    }

    @Test func caBundleFromTheVariableOverTheProfile() throws {
        let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
        writeFile(folder.file("profile.pem"), Array(pem.utf8))
        writeFile(folder.file("env.pem"), Array(pem.utf8))
        let config = "[default]\nca_bundle = \(folder.file("profile.pem"))\n"
        #expect(
            try resolve(config).tls
                == S3TLSSettings(
                    caBundle: folder.file("profile.pem"),
                    source: "the profile's ca_bundle in \(folder.file("config"))"))
        #expect(try resolve(config, ["AWS_CA_BUNDLE": folder.file("env.pem")]).tls.caBundle == folder.file("env.pem"))
        #expect(try resolve("[default]\n").tls == S3TLSSettings(caBundle: nil, verifiesPeer: true))
    }

    @Test func aMissingOrNonPEMCABundleIsRefusedNamingIt() throws {
        let missing = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve("[default]\n", ["AWS_CA_BUNDLE": folder.file("nope.pem")])
        }
        #expect(missing?.error.path == folder.file("nope.pem"))
        #expect(missing?.error.message.hasSuffix("(the CA bundle AWS_CA_BUNDLE names)") == true)
        writeFile(folder.file("text.pem"), Array("not a certificate\n".utf8))
        let notPEM = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve("[default]\nca_bundle = \(folder.file("text.pem"))\n")
        }
        #expect(notPEM?.error.path == folder.file("text.pem"))
        #expect(notPEM?.error.message.contains("has no PEM certificate") == true)
    }

    /// `~` in AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE and a profile's ca_bundle is the home
    /// folder, as awscli reads them: left as it was, the files were missed and a profile's
    /// endpoint with them, so the requests went to AWS instead.
    @Test func aTildeInTheFilesPathsIsTheHomeFolder() throws {
        let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
        writeFile(folder.file("ca.pem"), Array(pem.utf8))
        writeFile(
            folder.file("lab.cfg"),
            Array("[profile z]\nregion = eu-west-1\nendpoint_url = http://lab:1\nca_bundle = ~/ca.pem\n".utf8))
        writeFile(folder.file("keys"), Array("[z]\naws_access_key_id = Z\naws_secret_access_key = zz\n".utf8))
        let configuration = try S3Configuration.resolve(
            environment: [
                "HOME": folder.path, "AWS_CONFIG_FILE": "~/lab.cfg", "AWS_SHARED_CREDENTIALS_FILE": "~/keys",
                "AWS_PROFILE": "z",
            ], endpointURL: nil)
        #expect(configuration.endpoint?.host == "lab")
        #expect(configuration.region == "eu-west-1")
        #expect(configuration.credentials == S3Credentials(accessKeyID: "Z", secretAccessKey: "zz"))
        #expect(configuration.tls.caBundle == folder.file("ca.pem"))
        let fromVariable = try S3Configuration.resolve(
            environment: [
                "HOME": folder.path, "AWS_CONFIG_FILE": "~/none", "AWS_SHARED_CREDENTIALS_FILE": "~/keys",
                "AWS_PROFILE": "z", "AWS_CA_BUNDLE": "~/ca.pem",
            ], endpointURL: nil)
        #expect(fromVariable.tls.caBundle == folder.file("ca.pem"))
    }

    /// Virtual-hosted addressing on an IP address has no host to put the bucket in: path style,
    /// as AWS's rules and awscli have it (it tried `bkt.127.0.0.1`); a host name keeps the bucket.
    @Test(arguments: [
        ("http://127.0.0.1:5714", ("http", "127.0.0.1:5714", "/bkt")),
        ("http://[::1]:5714", ("http", "[::1]:5714", "/bkt")),
        ("http://10.0.0.256:7480", ("http", "bkt.10.0.0.256:7480", "")),
        ("http://s3.lan:7480", ("http", "bkt.s3.lan:7480", "")),
    ])
    func virtualHostedAddressingOnAnIPAddressIsByPath(endpoint: String, target: (String, String, String)) throws {
        let configuration = try resolve("[default]\ns3 =\n  addressing_style = virtual\n", flag: endpoint)
        #expect(configuration.target(bucket: "bkt") == target)
    }

    /// The values are lowercase, as awscli reads them: `Virtual` is refused, not taken for `virtual`.
    @Test func anAddressingStyleInAnotherCaseIsRefused() throws {
        let error = #expect(throws: S3ConfigurationRefusal.self) {
            try resolve("[default]\ns3 =\n  addressing_style = Virtual\n")
        }
        #expect(error?.error.message == "s3 addressing_style = Virtual: expected path, virtual or auto")
    }

    /// A certificate for another host name was reported as a bundle lacking the CA, which was
    /// untrue when the bundle held it (outside attack on issue 24): libcurl's words decide.
    @Test func aCertificateForAnotherHostIsNotCalledAMissingCA() {
        let tls = S3TLSSettings(caBundle: "ca.pem", source: "--ca-bundle")
        let otherName =
            "the certificate was issued for other host names than the endpoint's (none of its subject and alternative "
            + "names matches): give the endpoint by a name the certificate holds, or have one issued for this name"
        #expect(
            tls.untrustedHint("SSL: no alternative certificate subject name matches target host name '127.0.0.1'")
                == otherName)
        #expect(
            tls.untrustedHint("SSL: certificate subject name 'a.lan' does not match target host name 'b.lan'")
                == otherName)
        #expect(
            tls.untrustedHint("SSL certificate problem: unable to get local issuer certificate")
                == "checked against the CA bundle ca.pem, from --ca-bundle; it does not hold the CA that signed the "
                + "endpoint's certificate")
    }
}
