import ArgumentParser
import FoundationEssentials
import GCDCatCore

/// `--endpoint-url`, for commands that read or write `s3://` objects.
struct ObjectStoreOptions: ParsableArguments {
    @Option(
        name: .customLong("endpoint-url"),
        help: ArgumentHelp(
            "The S3 endpoint for s3:// names (Ceph RGW, MinIO; path-style); default AWS_ENDPOINT_URL, else AWS.",
            valueName: "url"))
    var endpointURL: String?

    /// A malformed URL is a usage error even when no s3:// name needs it, and an empty one is
    /// not a quiet fallback to AWS (signed requests would go there).
    func validate() throws {
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

    /// The store every `s3://` name of the command goes through, counted for the report.
    func makeStore() throws -> CountingObjectStore {
        try makeObjectStore(endpointURL: endpointURL)
    }
}

/// The one place the CLI builds its S3 client: credentials and region from the environment
/// (and `~/.aws`), as the AWS tools take them.
func makeObjectStore(endpointURL: String?) throws -> CountingObjectStore {
    CountingObjectStore(
        S3Client(
            configuration: try S3Configuration.resolve(
                environment: ProcessInfo.processInfo.environment, endpointURL: endpointURL)))
}

/// A malformed `s3://` name (`s3://bucket`, a `..` segment) is a mistake in the command line,
/// caught with the other usage errors (exit 64) rather than when the run reaches it.
/// `suffix` completes a name that is a prefix (`split --prefix s3://b/movie.` names parts
/// `movie.001`, …), so the prefix is checked as the names it will make.
func validateObjectNames(_ paths: [String?], suffix: String = "") throws {
    for path in paths.compactMap({ $0 }) where ObjectLocation.isObjectPath(path) {
        do {
            _ = try ObjectLocation(parsing: path + suffix)
        } catch let error as GCDCatError {
            throw ValidationError("\(path.displayPath): \(error.message)")
        }
    }
}
