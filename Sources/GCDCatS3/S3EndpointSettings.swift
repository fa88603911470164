import GCDCatSystem

/// Where requests go and how, from the environment and the profile, with awscli's precedence
/// (AWS SDKs and Tools reference guide, "Service-specific endpoints"):
///
/// - Endpoint: the command line's `--endpoint-url`, then `AWS_ENDPOINT_URL_S3`, then
///   `AWS_ENDPOINT_URL`, then the `s3` settings' `endpoint_url` in the `[services NAME]` section
///   the profile's `services = NAME` names, then the profile's `endpoint_url`. All but the
///   first are ignored when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` (else the profile's
///   `ignore_configured_endpoint_urls`) is `true`.
/// - Addressing: the profile's `s3 =` settings' `addressing_style` (`path`, `virtual`, `auto`).
/// - TLS: `AWS_CA_BUNDLE`, then the profile's `ca_bundle`.
///
/// Settings that would send requests somewhere gcdcat does not go (accelerate, dual-stack and
/// FIPS endpoints) are refused by name; with an endpoint given, dual-stack and FIPS are ignored,
/// as awscli ignores them.
struct S3EndpointSettings {
    var endpoint: S3Endpoint?
    var addressingStyle: S3AddressingStyle?
    var tls = S3TLSSettings()

    /// ## Errors
    /// ``S3ConfigurationRefusal`` for a setting that cannot be honoured; `.invalidInput` for an
    /// endpoint that is not a URL.
    init(
        environment env: (String) -> String?, endpointURL: String?, profile: [String: String]?,
        configFile: AWSSharedConfigFile?, configPath: String?
    ) throws {
        let section = profile ?? [:]
        let ignoringFromEnvironment = try Self.flag(
            env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), name: "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", file: nil)
        let ignoringFromProfile = try Self.flag(
            section["ignore_configured_endpoint_urls"], name: "ignore_configured_endpoint_urls", file: configPath)
        let services = try Self.servicesSection(section, configFile, configPath)
        // The first endpoint set, with where it was set (named when it is not a URL).
        var configured: (text: String, source: String, file: String?)?
        if !(ignoringFromEnvironment ?? ignoringFromProfile ?? false) {
            let file = configPath ?? "~/.aws/config"
            configured =
                env("AWS_ENDPOINT_URL_S3").map { ($0, "AWS_ENDPOINT_URL_S3", nil) }
                ?? env("AWS_ENDPOINT_URL").map { ($0, "AWS_ENDPOINT_URL", nil) }
                ?? Self.nonEmpty(services?["s3.endpoint_url"]).map {
                    ($0, "the services section's s3 endpoint_url", file)
                }
                ?? Self.nonEmpty(section["endpoint_url"]).map { ($0, "the profile's endpoint_url", file) }
        }
        if let text = Self.nonEmpty(endpointURL) {
            endpoint = try S3Endpoint(parsing: text)
        } else if let configured {
            do {
                endpoint = try S3Endpoint(parsing: configured.text)
            } catch {
                throw S3ConfigurationRefusal(
                    file: configured.file, "\(configured.source) = \(configured.text): \(error.message)")
            }
        } else {
            endpoint = nil
        }
        // With an endpoint of the user's own, FIPS and dual-stack are AWS's endpoints not taken,
        // and awscli ignores them; accelerate is refused either way.
        for (name, value) in Self.unsupportedSettings(env, section) where Self.isTrue(value) {
            if endpoint != nil && !name.hasSuffix("use_accelerate_endpoint") { continue }
            throw S3ConfigurationRefusal(
                file: name.hasPrefix("AWS_") ? nil : configPath,
                "\(name) = \(value): gcdcat does not use that endpoint; remove the setting (or set it to false)")
        }
        // As awscli: the values are lowercase (`Virtual` is refused, not taken for `virtual`).
        switch section["s3.addressing_style"] {
        case nil, "", "auto": addressingStyle = nil
        case "path": addressingStyle = .path
        case "virtual": addressingStyle = .virtualHost
        case let other?:
            throw S3ConfigurationRefusal(
                file: configPath, "s3 addressing_style = \(other): expected path, virtual or auto")
        }
        if let bundle = env("AWS_CA_BUNDLE").map({ AWSSharedConfigFile.expandingHome($0, home: env("HOME")) }) {
            try S3TLSSettings.checkBundle(bundle, source: "AWS_CA_BUNDLE")
            tls.caBundle = bundle
            tls.caBundleSource = "AWS_CA_BUNDLE"
        } else if let written = Self.nonEmpty(section["ca_bundle"]) {
            // awscli expands a leading `~` here.
            let bundle = AWSSharedConfigFile.expandingHome(written, home: env("HOME"))
            let source = "the profile's ca_bundle in \(configPath ?? "~/.aws/config")"
            try S3TLSSettings.checkBundle(bundle, source: source)
            tls.caBundle = bundle
            tls.caBundleSource = source
        }
    }

    /// The settings, by the name the user wrote, that ask for an endpoint gcdcat does not build.
    private static func unsupportedSettings(_ env: (String) -> String?, _ section: [String: String])
        -> [(String, String)]
    {
        let variables = ["AWS_USE_FIPS_ENDPOINT", "AWS_USE_DUALSTACK_ENDPOINT"].compactMap { name in
            env(name).map { (name, $0) }
        }
        let keys = [
            "use_fips_endpoint", "use_dualstack_endpoint", "s3.use_accelerate_endpoint", "s3.use_dualstack_endpoint",
            "s3.use_fips_endpoint",
        ]
        return variables + keys.compactMap { key in section[key].map { (key, $0) } }
    }

    /// The `[services NAME]` section the profile names; a name without a section is refused,
    /// since awscli users rely on it to leave AWS.
    private static func servicesSection(
        _ section: [String: String], _ configFile: AWSSharedConfigFile?, _ configPath: String?
    ) throws -> [String: String]? {
        guard let name = nonEmpty(section["services"]) else { return nil }
        guard let services = configFile?.servicesSection(name) else {
            throw S3ConfigurationRefusal(
                file: configPath, "the profile says services = \(name), but there is no [services \(name)] section")
        }
        return services
    }

    private static func flag(_ value: String?, name: String, file: String?) throws -> Bool? {
        guard let value = nonEmpty(value) else { return nil }
        switch value.lowercased() {
        case "true": return true
        case "false": return false
        default: throw S3ConfigurationRefusal(file: file, "\(name) = \(value): expected true or false")
        }
    }

    private static func isTrue(_ value: String) -> Bool { value.lowercased() == "true" }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
