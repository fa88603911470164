import ArgumentParser
import FoundationEssentials
import GCDCatCore

/// `--endpoint-url`, `--ca-bundle`, `--no-verify-ssl` and the two deadlines, for commands that read or write
/// `s3://` objects.
struct ObjectStoreOptions: ParsableArguments {
    @Option(
        name: .customLong("endpoint-url"),
        help: ArgumentHelp(
            "The S3 endpoint for s3:// names (Ceph RGW, MinIO; path-style); default AWS_ENDPOINT_URL, else AWS.",
            valueName: "url"))
    var endpointURL: String?

    @Option(
        name: .customLong("ca-bundle"),
        help: ArgumentHelp(
            "PEM file of the CA certificates to trust for an https endpoint; default AWS_CA_BUNDLE, else the "
                + "profile's ca_bundle, else the system's.",
            valueName: "file"))
    var caBundle: String?

    @Flag(
        name: .customLong("no-verify-ssl"),
        help: "Do not check the endpoint's TLS certificate (warned about on every run).")
    var noVerifySSL = false

    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp(
            "How long one S3 request may wait on the server, its retries included: 90, 90s, 15m, 2h (default: 60s).",
            valueName: "duration"))
    var requestTimeout: String?

    @Option(
        name: .customLong("cleanup-timeout"),
        help: ArgumentHelp(
            "How long the undo after Ctrl-C (aborting uploads, deleting what was placed) may take; what is "
                + "not undone by then is named (default: 30s).",
            valueName: "duration"))
    var cleanupTimeout: String?

    @OptionGroup var access: ObjectAccessOptions

    /// A malformed URL is a usage error even when no s3:// name needs it, and an empty one is
    /// not a quiet fallback to AWS (signed requests would go there).
    func validate() throws {
        try validateTLS()
        _ = try parseDuration(requestTimeout ?? "60s", option: "--request-timeout")
        _ = try parseDuration(cleanupTimeout ?? "30s", option: "--cleanup-timeout")
        guard let endpointURL else { return }
        guard !endpointURL.isEmpty else {
            throw ValidationError(
                "--endpoint-url is empty: give http://HOST[:PORT] or https://HOST[:PORT], or leave it out for AWS.")
        }
        do {
            _ = try S3Endpoint(parsing: endpointURL)
        } catch {
            throw ValidationError("--endpoint-url \(error.path ?? ""): \(error.message)")
        }
    }

    /// Refuses an option given to a command that names no `s3://` object, which would ignore
    /// it (`--request-timeout` on a local merge looks like a deadline that holds).
    func check(namesObjects: Bool) throws {
        guard !namesObjects, let given = givenRequestOptionName else { return }
        throw s3OnlyRefusal(given, scope: "s3:// paths", command: "this command names no s3:// object")
    }

    /// The first request-wide option given, as typed.
    private var givenRequestOptionName: String? {
        if access.sseCustomerKeyFile != nil { return "--sse-c-key" }
        if access.requestPayer { return "--request-payer" }
        if access.expectedBucketOwner != nil { return "--expected-bucket-owner" }
        if requestTimeout != nil { return "--request-timeout" }
        return cleanupTimeout != nil ? "--cleanup-timeout" : nil
    }

    /// A bundle that cannot be read, or one given with `--no-verify-ssl`, is a usage error
    /// even before any s3:// name needs it.
    private func validateTLS() throws {
        guard let caBundle else { return }
        guard !noVerifySSL else {
            throw ValidationError("--ca-bundle and --no-verify-ssl contradict each other: give one.")
        }
        guard !caBundle.isEmpty else {
            throw ValidationError("--ca-bundle is empty: give a PEM file of CA certificates.")
        }
        do {
            // A quoted `~` is the home folder, as AWS_CA_BUNDLE's is (awscli expands both).
            let home = ProcessInfo.processInfo.environment["HOME"]
            try S3TLSSettings.checkBundle(
                AWSSharedConfigFile.expandingHome(caBundle, home: home), source: "--ca-bundle")
        } catch let refusal as S3ConfigurationRefusal {
            throw ValidationError(refusal.description)
        }
    }

    /// The store every `s3://` name of the command goes through, counted for the report.
    func makeStore() throws -> CountingObjectStore {
        try makeObjectStore(self, objectOptions: access.objectOptions())
    }

    /// The store of a command that writes objects: `writing`'s storage class, type, tags and SSE.
    func makeStore(writing: ObjectWriteOptionGroup) throws -> CountingObjectStore {
        let objectOptions = try writing.objectOptions(access.objectOptions())
        // A killed run's upload keeps that run's encryption, class, type and tags: resuming it
        // would ignore this run's (the data stayed unencrypted under --sse-c-key).
        if objectOptions.choosesCreationSettings { UploadResumption.startAfresh() }
        return try makeObjectStore(self, objectOptions: objectOptions)
    }
}

/// The one place the CLI builds its S3 client: credentials, region, endpoint and CA bundle from
/// the environment (and `~/.aws`) as the AWS tools take them, the command line's options first.
/// A setting that cannot be honoured is a usage error (exit 64).
func makeObjectStore(_ options: ObjectStoreOptions, objectOptions: S3ObjectOptions) throws -> CountingObjectStore {
    var environment = ProcessInfo.processInfo.environment
    // The flag wins as AWS_CA_BUNDLE would: over the profile's ca_bundle, and over the variable.
    if let caBundle = options.caBundle { environment["AWS_CA_BUNDLE"] = caBundle }
    var configuration: S3Configuration
    do {
        configuration = try S3Configuration.resolve(environment: environment, endpointURL: options.endpointURL)
    } catch let refusal as S3ConfigurationRefusal {
        throw ValidationError(refusal.description)
    }
    configuration.requestTimeout = try parseDuration(options.requestTimeout ?? "60s", option: "--request-timeout")
    // The variable carried the flag's bundle through the resolution; the flag is what to name.
    if options.caBundle != nil { configuration.tls.caBundleSource = "--ca-bundle" }
    LeftBehindAdvice.useConnectionArguments(
        [
            options.endpointURL.map { ("--endpoint-url", $0) }, options.caBundle.map { ("--ca-bundle", $0) },
            options.noVerifySSL ? ("--no-verify-ssl", nil) : nil,
            options.access.requestPayer ? ("--request-payer", nil) : nil,
            options.access.expectedBucketOwner.map { ("--expected-bucket-owner", $0) },
        ].compactMap { $0 })
    CleanupRegistry.shared.setUndoDeadline(
        try parseDuration(options.cleanupTimeout ?? "30s", option: "--cleanup-timeout"))
    configuration.objectOptions = objectOptions
    if options.noVerifySSL {
        configuration.tls.verifiesPeer = false
        writeToStandardError(
            "gcdcat: warning: --no-verify-ssl: the TLS certificate of \(configuration.endpoint?.description ?? "AWS") "
                + "is not checked; anyone between here and there can read and change what is sent\n")
    }
    return CountingObjectStore(S3Client(configuration: configuration))
}

/// The one refusal of an option that only `s3://` names use, given where none is (`scope`
/// says which names, `command` what the command does instead).
func s3OnlyRefusal(_ option: String, scope: String, command: String) -> ValidationError {
    ValidationError("\(option) applies to \(scope) only; \(command).")
}

/// A malformed `s3://` name (`s3://bucket`, a `..` segment) is a mistake in the command line,
/// caught with the other usage errors (exit 64) rather than when the run reaches it.
/// `suffix` completes a name that is a prefix (`split --prefix s3://b/movie.` names parts
/// `movie.001`, …), so the prefix is checked as the names it will make. A name that is
/// `written` cannot name a version (`?versionId=`).
func validateObjectNames(_ paths: [String?], suffix: String = "", written: Bool = false) throws {
    for path in paths.compactMap({ $0 }) where ObjectLocation.isObjectPath(path) {
        let location: ObjectLocation?
        do {
            location = try ObjectLocation(parsing: path + suffix)
        } catch let error as GCDCatError {
            throw ValidationError("\(path.displayPath): \(error.message)")
        }
        if written, location?.versionID != nil {
            throw ValidationError(
                "\(path.displayPath): ?versionId= names a version to read, but this is written: S3 makes every "
                    + "write the key's newest version; name the key alone")
        }
    }
}
