import GCDCatSystem

extension S3Configuration {
    /// The configuration the AWS tools would use, from the environment and the shared files.
    ///
    /// - Credentials: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`);
    ///   else the profile (`AWS_PROFILE`, default `default`) in the credentials file
    ///   (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`), then in the config file
    ///   (`AWS_CONFIG_FILE`, default `~/.aws/config`).
    /// - Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`.
    /// - Endpoint, addressing style and CA bundle: ``S3EndpointSettings`` (`endpointURL`, the
    ///   command line's, first); no endpoint means AWS itself.
    ///
    /// ## Errors
    /// `.invalidInput` when no credentials are found (the message names every place looked
    /// in), when only half a key pair is set, when a named profile exists nowhere, or when an
    /// endpoint is not a URL; ``S3ConfigurationRefusal`` for a setting that cannot be honoured.
    /// A shared file that exists but cannot be read is an `.io` error.
    public static func resolve(environment: [String: String], endpointURL: String?) throws -> S3Configuration {
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
        let fromCredentialsFile = credentialsFile?.credentialsSection(profile)
        let fromConfigFile = configFile?.configSection(profile)

        let credentials: S3Credentials
        switch (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        case (let id?, let secret?):
            credentials = S3Credentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: env("AWS_SESSION_TOKEN"))
        case (_?, nil):
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; set both")
        case (nil, _?):
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not; set both")
        case (nil, nil):
            if let found = try keyPair(fromCredentialsFile, file: credentialsPath, profile: profile)
                ?? keyPair(fromConfigFile, file: configPath, profile: profile)
            {
                credentials = found
            } else if env("AWS_PROFILE") != nil && fromCredentialsFile == nil && fromConfigFile == nil {
                throw GCDCatError(
                    .invalidInput, syscall: "credentials",
                    message:
                        "profile '\(profile)' (AWS_PROFILE) is in neither \(credentialsPath ?? "~/.aws/credentials")"
                        + " nor \(configPath ?? "~/.aws/config")")
            } else {
                throw GCDCatError(
                    .invalidInput, syscall: "credentials",
                    message: "no S3 credentials: looked for AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the"
                        + " environment, then profile '\(profile)' in \(credentialsPath ?? "~/.aws/credentials (HOME unset)")"
                        + " and \(configPath ?? "~/.aws/config (HOME unset)"); set the variables or add the profile")
            }
        }

        let region =
            env("AWS_REGION") ?? env("AWS_DEFAULT_REGION") ?? nonEmpty(fromConfigFile?["region"]) ?? "us-east-1"
        let settings = try S3EndpointSettings(
            environment: env, endpointURL: endpointURL, profile: fromConfigFile, configFile: configFile,
            configPath: configPath)
        var configuration = S3Configuration(
            endpoint: settings.endpoint, region: region, credentials: credentials,
            addressingStyle: settings.addressingStyle)
        configuration.tls = settings.tls
        return configuration
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// A profile section's key pair; nil when the section has neither key.
    private static func keyPair(_ section: [String: String]?, file: String?, profile: String) throws -> S3Credentials? {
        guard let section else { return nil }
        let id = nonEmpty(section["aws_access_key_id"])
        let secret = nonEmpty(section["aws_secret_access_key"])
        switch (id, secret) {
        case (let id?, let secret?):
            return S3Credentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: nonEmpty(section["aws_session_token"]))
        case (nil, nil):
            return nil
        default:
            throw GCDCatError(
                .invalidInput, path: file, syscall: "credentials",
                message: "profile '\(profile)' needs both aws_access_key_id and aws_secret_access_key")
        }
    }
}
