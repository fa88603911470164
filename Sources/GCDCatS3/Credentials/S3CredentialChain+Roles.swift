import GCDCatSystem

/// The chain's sources that call a service first: STS (AssumeRole, AssumeRoleWithWebIdentity)
/// and the SSO portal.
extension S3CredentialChain {
    /// `role_arn` with `source_profile` (whose own credentials may come from another role, and
    /// so on) or `credential_source`.
    func assumeRole(_ name: String, _ settings: [String: String], chain: [String]) throws(GCDCatError)
        -> STSCredentials
    {
        let roleARN = settings["role_arn"] ?? ""
        let source = "AssumeRole of \(roleARN) for profile '\(name)'"
        if settings["mfa_serial"] != nil {
            throw .credentialSource(
                source,
                "mfa_serial needs a code typed at a prompt, which gcdcat does not show; use credentials from"
                    + " `aws configure export-credentials` or a credential_process")
        }
        let base: any S3CredentialProvider
        switch (settings["source_profile"], settings["credential_source"]) {
        case (let sourceProfile?, nil):
            base = try sourceProfileCredentials(sourceProfile, of: name, settings, chain: chain)
        case (nil, let credentialSource?):
            base = try namedCredentialSource(credentialSource, of: name)
        case (_?, _?):
            throw .credentialSource(source, "source_profile and credential_source are both set; keep one")
        case (nil, nil):
            throw .credentialSource(source, "role_arn needs source_profile or credential_source")
        }
        return STSCredentials(
            call: .assumeRole(
                source: try S3CredentialCache(fetchingFrom: base, clock: clock), externalID: settings["external_id"]),
            roleARN: roleARN, sessionName: settings["role_session_name"],
            durationSeconds: settings["duration_seconds"].flatMap { Int($0) }, endpoint: try stsEndpoint(),
            region: region, http: http, profile: name)
    }

    /// What `source_profile` names: its static keys when it points at itself, else its own
    /// chain of sources (without the environment's), refusing a loop.
    private func sourceProfileCredentials(
        _ sourceProfile: String, of name: String, _ settings: [String: String], chain: [String]
    ) throws(GCDCatError) -> any S3CredentialProvider {
        let source = "AssumeRole for profile '\(name)'"
        if sourceProfile == name {
            guard let id = settings["aws_access_key_id"], let secret = settings["aws_secret_access_key"] else {
                throw .credentialSource(source, "source_profile names the profile itself, which has no static keys")
            }
            return StaticCredentialProvider(
                S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: settings["aws_session_token"]),
                sourceName: "profile '\(name)'")
        }
        if chain.contains(sourceProfile) {
            throw .credentialSource(
                source, "source_profile loops: \((chain + [sourceProfile]).joined(separator: " -> "))")
        }
        guard let sourceSettings = section(sourceProfile) else {
            throw .credentialSource(
                source, "source_profile '\(sourceProfile)' is in neither the config nor the credentials file")
        }
        let hasKeys = sourceSettings["aws_access_key_id"] != nil
        if sourceSettings["role_arn"] != nil && !hasKeys {
            return try assumeRole(sourceProfile, sourceSettings, chain: chain + [sourceProfile])
        }
        // With static keys, they are the source even if the profile also names a role.
        guard
            let found = try profileSource(
                sourceProfile, chain: chain + [sourceProfile], allowEnvironment: false, ignoringRole: hasKeys)
        else {
            throw .credentialSource(
                source,
                "source_profile '\(sourceProfile)' has no credentials (static keys, credential_process,"
                    + " web_identity_token_file, sso or its own role_arn)")
        }
        return found
    }

    /// `credential_source`: Environment, Ec2InstanceMetadata or EcsContainer.
    private func namedCredentialSource(_ name: String, of profile: String) throws(GCDCatError)
        -> any S3CredentialProvider
    {
        let source = "credential_source \(name) for profile '\(profile)'"
        switch name {
        case "Environment":
            guard let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] else {
                throw .credentialSource(source, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set")
            }
            return StaticCredentialProvider(
                S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"]),
                sourceName: "environment")
        case "Ec2InstanceMetadata":
            // Off means off here too, as awscli has it: the role is not assumed from IMDS keys.
            if environment["AWS_EC2_METADATA_DISABLED"]?.lowercased() == "true" {
                throw .credentialSource(source, "the instance metadata service is off (AWS_EC2_METADATA_DISABLED=true)")
            }
            return try instanceMetadata()
        case "EcsContainer":
            guard let container = try ContainerCredentials(environment: environment, http: http) else {
                throw .credentialSource(
                    source, "neither AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor _FULL_URI is set")
            }
            return container
        default:
            throw .credentialSource(source, "unknown; use Environment, Ec2InstanceMetadata or EcsContainer")
        }
    }

    /// `web_identity_token_file` + `role_arn` (+ `role_session_name`); for the run's own profile,
    /// `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN` and `AWS_ROLE_SESSION_NAME` win over it.
    func webIdentity(_ name: String, _ settings: [String: String], allowEnvironment: Bool) throws(GCDCatError)
        -> STSCredentials?
    {
        func setting(_ key: String, _ variable: String) -> String? {
            if allowEnvironment, let value = environment[variable], !value.isEmpty { return value }
            return settings[key].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let tokenFile = setting("web_identity_token_file", "AWS_WEB_IDENTITY_TOKEN_FILE") else { return nil }
        guard let roleARN = setting("role_arn", "AWS_ROLE_ARN") else {
            throw .credentialSource(
                "AssumeRoleWithWebIdentity for profile '\(name)'",
                "web_identity_token_file (or AWS_WEB_IDENTITY_TOKEN_FILE) needs role_arn (or AWS_ROLE_ARN)")
        }
        return STSCredentials(
            call: .assumeRoleWithWebIdentity(tokenFile: tokenFile), roleARN: roleARN,
            sessionName: setting("role_session_name", "AWS_ROLE_SESSION_NAME"),
            durationSeconds: settings["duration_seconds"].flatMap { Int($0) }, endpoint: try stsEndpoint(),
            region: region, http: http, profile: name)
    }

    /// `sso_session` (its `[sso-session NAME]` section gives `sso_start_url` and `sso_region`),
    /// or the legacy `sso_start_url` + `sso_region` in the profile itself.
    func sso(_ name: String, _ settings: [String: String]) throws(GCDCatError) -> SSOCredentials? {
        let source = "SSO for profile '\(name)'"
        let cacheKey: String
        let ssoRegion: String?
        let isSession: Bool
        if let session = settings["sso_session"], !session.isEmpty {
            guard let sessionSettings = configFile?.sections["sso-session \(session)"] else {
                throw .credentialSource(
                    source, "no [sso-session \(session)] section in \(configPath ?? "the config file")")
            }
            cacheKey = session
            ssoRegion = sessionSettings["sso_region"]
            isSession = true
        } else if let startURL = settings["sso_start_url"], !startURL.isEmpty {
            cacheKey = startURL
            ssoRegion = settings["sso_region"]
            isSession = false
        } else {
            return nil
        }
        guard let accountID = settings["sso_account_id"], let roleName = settings["sso_role_name"], let ssoRegion else {
            throw .credentialSource(source, "needs sso_account_id, sso_role_name and sso_region")
        }
        let home = environment["HOME"] ?? ""
        return SSOCredentials(
            cacheKey: cacheKey, isSession: isSession, accountID: accountID, roleName: roleName,
            cacheFolder: "\(home)/.aws/sso/cache",
            portal: environment["AWS_ENDPOINT_URL_SSO"].flatMap { $0.isEmpty ? nil : $0 }
                ?? "https://portal.sso.\(ssoRegion).amazonaws.com",
            oidc: environment["AWS_ENDPOINT_URL_SSO_OIDC"].flatMap { $0.isEmpty ? nil : $0 }
                ?? "https://oidc.\(ssoRegion).amazonaws.com",
            http: http, profile: name, clock: clock)
    }

    /// `AWS_ENDPOINT_URL_STS`, `AWS_ENDPOINT_URL`, the profile's `endpoint_url` (all three
    /// ignored with `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true`), else STS in the region.
    func stsEndpoint() throws(GCDCatError) -> S3Endpoint {
        let ignore = environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"]?.lowercased() == "true"
        let configured = [
            environment["AWS_ENDPOINT_URL_STS"], environment["AWS_ENDPOINT_URL"], section(profile)?["endpoint_url"],
        ]
        .compactMap { $0 }.first { !$0.isEmpty }
        if !ignore, let configured { return try S3Endpoint(parsing: configured) }
        return try STSCredentials.regionalEndpoint(region)
    }
}
