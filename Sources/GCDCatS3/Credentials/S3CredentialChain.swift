import FoundationEssentials
import GCDCatSystem

/// Where credentials come from, in awscli's (botocore's) order; the first source that is
/// configured is used, and if it fails, its error stops the run (it is not skipped):
///
/// 1. `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`);
/// 2. the profile's `role_arn` with `source_profile` or `credential_source`: STS AssumeRole;
/// 3. `web_identity_token_file` + `role_arn` (or `AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`):
///    STS AssumeRoleWithWebIdentity;
/// 4. `sso_session` (or the legacy `sso_start_url`) + `sso_account_id` + `sso_role_name`;
/// 5. static keys in the credentials file;
/// 6. `credential_process`;
/// 7. static keys in the config file;
/// 8. container credentials (`AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` / `_FULL_URI`);
/// 9. IMDSv2, unless `AWS_EC2_METADATA_DISABLED=true`. Only here does a failure mean "none
///    found", as on any machine outside EC2; its reason ends the "no S3 credentials" message.
package struct S3CredentialChain {
    package let environment: [String: String]
    package let profile: String
    package let credentialsPath: String?
    package let configPath: String?
    package let credentialsFile: AWSSharedConfigFile?
    package let configFile: AWSSharedConfigFile?
    /// The region STS is called in, and its calls signed for.
    package let region: String
    package let http: CredentialHTTP
    package let clock: @Sendable () -> Double

    package init(
        environment: [String: String], profile: String, credentialsPath: String?, configPath: String?,
        credentialsFile: AWSSharedConfigFile?, configFile: AWSSharedConfigFile?, region: String, http: CredentialHTTP,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.environment = environment
        self.profile = profile
        self.credentialsPath = credentialsPath
        self.configPath = configPath
        self.credentialsFile = credentialsFile
        self.configFile = configFile
        self.region = region
        self.http = http
        self.clock = clock
    }

    private func env(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The credentials of the first configured source, fetched once, to be refreshed as they expire.
    ///
    /// ## Errors
    /// The failing source's error, naming it; "no S3 credentials…" naming every place looked
    /// in when none is configured; a half key pair; a named profile that exists nowhere.
    package func resolve() throws(GCDCatError) -> S3CredentialCache {
        // Before the environment's keys, as awscli: the profile named may hold the endpoint and
        // region, and without it a run with keys went to AWS where a lab endpoint was meant.
        if env("AWS_PROFILE") != nil && section(profile) == nil {
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "profile '\(profile)' (AWS_PROFILE) is in neither \(credentialsPath ?? "~/.aws/credentials")"
                    + " nor \(configPath ?? "~/.aws/config")")
        }
        if let keys = try environmentKeys() {
            return S3CredentialCache(
                source: StaticCredentialProvider(keys, sourceName: "environment"), initial: ExpiringCredentials(keys))
        }
        if let source = try profileSource(profile, chain: [], allowEnvironment: true) {
            return try cache(source)
        }
        if let container = try ContainerCredentials(environment: environment, http: http) {
            return try cache(container)
        }
        let imdsOutcome: String
        if env("AWS_EC2_METADATA_DISABLED")?.lowercased() == "true" {
            imdsOutcome = "IMDSv2 (off: AWS_EC2_METADATA_DISABLED)"
        } else {
            // A bad endpoint mode is refused, not taken for a machine outside EC2.
            let instanceMetadata = try instanceMetadata()
            do {
                return try cache(instanceMetadata)
            } catch {
                imdsOutcome = error.message
            }
        }
        throw GCDCatError(
            .invalidInput, syscall: "credentials",
            message: "no S3 credentials: looked for AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the"
                + " environment, then profile '\(profile)' in \(credentialsPath ?? "~/.aws/credentials (HOME unset)")"
                + " and \(configPath ?? "~/.aws/config (HOME unset)"), then AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"
                + " and _FULL_URI, then \(imdsOutcome); set the variables or add the profile")
    }

    private func cache(_ source: any S3CredentialProvider) throws(GCDCatError) -> S3CredentialCache {
        try S3CredentialCache(fetchingFrom: source, clock: clock)
    }

    private func environmentKeys() throws(GCDCatError) -> S3Credentials? {
        switch (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        case (let id?, let secret?):
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: env("AWS_SESSION_TOKEN"))
        case (_?, nil):
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; set both")
        case (nil, _?):
            throw GCDCatError(
                .invalidInput, syscall: "credentials",
                message: "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not; set both")
        case (nil, nil):
            return nil
        }
    }

    /// The profile as awscli sees it: its config section, with the credentials file's values over it.
    package func section(_ name: String) -> [String: String]? {
        let config = configFile?.configSection(name)
        let credentials = credentialsFile?.credentialsSection(name)
        guard config != nil || credentials != nil else { return nil }
        return (config ?? [:]).merging(credentials ?? [:]) { $1 }
    }

    /// Sources 2 to 7 for profile `name`; nil when it configures none. `chain` holds the
    /// profiles whose `source_profile` led here, to refuse a loop; the environment's web
    /// identity variables count only for the profile the run uses, as in botocore.
    package func profileSource(
        _ name: String, chain: [String], allowEnvironment: Bool, ignoringRole: Bool = false
    ) throws(GCDCatError) -> (any S3CredentialProvider)? {
        let settings = section(name) ?? [:]
        if !ignoringRole && settings["role_arn"] != nil && settings["web_identity_token_file"] == nil {
            return try assumeRole(name, settings, chain: chain + [name])
        }
        if let webIdentity = try webIdentity(name, settings, allowEnvironment: allowEnvironment) {
            return webIdentity
        }
        if let sso = try sso(name, settings) { return sso }
        let credentialsFileSource = "profile '\(name)' in \(credentialsPath ?? "the credentials file")"
        if let keys = try Self.keyPair(credentialsFile?.credentialsSection(name), file: credentialsPath, profile: name)
        {
            return StaticCredentialProvider(keys, sourceName: credentialsFileSource)
        }
        if let command = settings["credential_process"], !command.isEmpty {
            return CredentialProcess(command: command, profile: name)
        }
        if let keys = try Self.keyPair(configFile?.configSection(name), file: configPath, profile: name) {
            return StaticCredentialProvider(keys, sourceName: "profile '\(name)' in \(configPath ?? "the config file")")
        }
        return nil
    }

    /// A profile section's key pair; nil when the section has neither key.
    private static func keyPair(_ section: [String: String]?, file: String?, profile: String) throws(GCDCatError)
        -> S3Credentials?
    {
        guard let section else { return nil }
        let id = section["aws_access_key_id"].flatMap { $0.isEmpty ? nil : $0 }
        let secret = section["aws_secret_access_key"].flatMap { $0.isEmpty ? nil : $0 }
        switch (id, secret) {
        case (let id?, let secret?):
            let token = section["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
        case (nil, nil):
            return nil
        default:
            throw GCDCatError(
                .invalidInput, path: file, syscall: "credentials",
                message: "profile '\(profile)' needs both aws_access_key_id and aws_secret_access_key")
        }
    }

    /// The IMDSv2 source, at `AWS_EC2_METADATA_SERVICE_ENDPOINT` or the profile's
    /// `ec2_metadata_service_endpoint` when set, else at the address of the endpoint mode
    /// (``instanceMetadataEndpointMode()``): `http://169.254.169.254` or `http://[fd00:ec2::254]`.
    ///
    /// ## Errors
    /// An endpoint mode other than IPv4 or IPv6, naming where it was set.
    package func instanceMetadata() throws(GCDCatError) -> InstanceMetadataCredentials {
        let mode = try instanceMetadataEndpointMode()
        return InstanceMetadataCredentials(
            endpoint: env("AWS_EC2_METADATA_SERVICE_ENDPOINT") ?? section(profile)?["ec2_metadata_service_endpoint"]
                ?? (mode == "ipv6" ? "http://[fd00:ec2::254]" : "http://169.254.169.254"),
            http: http)
    }

    /// `AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE`, else the profile's
    /// `ec2_metadata_service_endpoint_mode`, lowercased as botocore reads it: `ipv4` (also
    /// when neither is set) or `ipv6`.
    private func instanceMetadataEndpointMode() throws(GCDCatError) -> String {
        let variable = "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"
        let setting =
            env(variable).map { ($0, variable) }
            ?? section(profile)?["ec2_metadata_service_endpoint_mode"].flatMap { $0.isEmpty ? nil : $0 }.map {
                ($0, "ec2_metadata_service_endpoint_mode of profile '\(profile)'")
            }
        guard let (value, origin) = setting else { return "ipv4" }
        guard ["ipv4", "ipv6"].contains(value.lowercased()) else {
            throw .credentialSource("IMDSv2", "\(origin) is '\(value)'; it must be IPv4 or IPv6")
        }
        return value.lowercased()
    }
}
