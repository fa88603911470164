import GCDCatSystem

extension S3Configuration {
    /// The configuration the AWS tools would use, from the environment and the shared files.
    ///
    /// - Credentials: the chain ``S3CredentialChain`` describes, awscli's: the environment's
    ///   keys, the profile (`AWS_PROFILE`, default `default`) in the credentials file
    ///   (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`) and the config file
    ///   (`AWS_CONFIG_FILE`, default `~/.aws/config`), the container's, the instance's. The
    ///   services they call (STS, SSO, IMDS) go through `credentialTransport`.
    /// - Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`.
    /// - Endpoint: `endpointURL` (the command line) over `AWS_ENDPOINT_URL_S3` over
    ///   `AWS_ENDPOINT_URL` over the profile's `endpoint_url`; none means AWS itself.
    ///
    /// ## Errors
    /// `.invalidInput` when no credentials are found (the message names every place looked
    /// in), when a configured source fails (the message names it and says why), when only
    /// half a key pair is set, when a named profile exists nowhere, or when an endpoint is not
    /// a URL. A shared file that exists but cannot be read is an `.io` error.
    public static func resolve(
        environment: [String: String], endpointURL: String?, credentialTransport: any HTTPTransport = CurlTransport()
    ) throws -> S3Configuration {
        func env(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let home = env("HOME")
        let profile = env("AWS_PROFILE") ?? "default"
        let credentialsPath = env("AWS_SHARED_CREDENTIALS_FILE") ?? home.map { "\($0)/.aws/credentials" }
        let configPath = env("AWS_CONFIG_FILE") ?? home.map { "\($0)/.aws/config" }
        let credentialsFile = try credentialsPath.flatMap { try AWSSharedConfigFile.load($0) }
        let configFile = try configPath.flatMap { try AWSSharedConfigFile.load($0) }
        let fromConfigFile = configFile?.configSection(profile)
        let region =
            env("AWS_REGION") ?? env("AWS_DEFAULT_REGION") ?? nonEmpty(fromConfigFile?["region"]) ?? "us-east-1"
        let endpointText =
            nonEmpty(endpointURL) ?? env("AWS_ENDPOINT_URL_S3") ?? env("AWS_ENDPOINT_URL")
            ?? nonEmpty(fromConfigFile?["endpoint_url"])
        let endpoint = try endpointText.map { text throws(GCDCatError) in try S3Endpoint(parsing: text) }
        let credentialSource = try S3CredentialChain(
            environment: environment, profile: profile, credentialsPath: credentialsPath, configPath: configPath,
            credentialsFile: credentialsFile, configFile: configFile, region: region,
            http: CredentialHTTP(transport: credentialTransport)
        ).resolve()
        return S3Configuration(endpoint: endpoint, region: region, credentialSource: credentialSource)
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
