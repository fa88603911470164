import GCDCatSystem

extension S3Configuration {
    /// The configuration the AWS tools would use, from the environment and the shared files.
    ///
    /// - Credentials: the chain ``S3CredentialChain`` describes, awscli's: the environment's
    ///   keys, the profile (`AWS_PROFILE`, default `default`) in the credentials file
    ///   (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`) and the config file
    ///   (`AWS_CONFIG_FILE`, default `~/.aws/config`), the container's, the instance's. The
    ///   services they call (STS, SSO, IMDS) go through `credentialTransport` (by default curl,
    ///   trusting the same CA bundle as S3's requests).
    /// - Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`.
    /// - Endpoint, addressing style and CA bundle: ``S3EndpointSettings`` (`endpointURL`, the
    ///   command line's, first); no endpoint means AWS itself.
    ///
    /// ## Errors
    /// `.invalidInput` when no credentials are found (the message names every place looked
    /// in), when a configured source fails (the message names it and says why), when only
    /// half a key pair is set, when a named profile exists nowhere, or when an endpoint is not
    /// a URL; ``S3ConfigurationRefusal`` for a setting that cannot be honoured. A shared file that
    /// exists but cannot be read is an `.io` error.
    public static func resolve(
        environment: [String: String], endpointURL: String?, credentialTransport: (any HTTPTransport)? = nil
    ) throws -> S3Configuration {
        func env(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let home = env("HOME")
        let profile = env("AWS_PROFILE") ?? "default"
        // A `~` in the variables (a Dockerfile's ENV, a quoted value) is expanded, as awscli does;
        // left as it is, the file would be missed and the profile's endpoint with it.
        let credentialsPath =
            env("AWS_SHARED_CREDENTIALS_FILE").map { AWSSharedConfigFile.expandingHome($0, home: home) }
            ?? home.map { "\($0)/.aws/credentials" }
        let configPath =
            env("AWS_CONFIG_FILE").map { AWSSharedConfigFile.expandingHome($0, home: home) }
            ?? home.map { "\($0)/.aws/config" }
        let credentialsFile = try credentialsPath.flatMap { try AWSSharedConfigFile.load($0) }
        let configFile = try configPath.flatMap { try AWSSharedConfigFile.load($0) }
        let fromConfigFile = configFile?.configSection(profile)
        let region =
            env("AWS_REGION") ?? env("AWS_DEFAULT_REGION") ?? nonEmpty(fromConfigFile?["region"]) ?? "us-east-1"
        let settings = try S3EndpointSettings(
            environment: env, endpointURL: endpointURL, profile: fromConfigFile, configFile: configFile,
            configPath: configPath)
        let credentialSource = try S3CredentialChain(
            environment: environment, profile: profile, credentialsPath: credentialsPath, configPath: configPath,
            credentialsFile: credentialsFile, configFile: configFile, region: region,
            http: CredentialHTTP(transport: credentialTransport ?? CurlTransport(tls: settings.tls))
        ).resolve()
        var configuration = S3Configuration(
            endpoint: settings.endpoint, region: region, credentialSource: credentialSource,
            addressingStyle: settings.addressingStyle)
        configuration.tls = settings.tls
        return configuration
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
