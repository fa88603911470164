import ArgumentParser
import GCDCatCore

/// `--sse-c-key`, `--request-payer` and `--expected-bucket-owner`: what every request to an
/// `s3://` object must carry, reads as much as writes, so every command that takes s3:// names
/// has them (through ``ObjectStoreOptions``).
struct ObjectAccessOptions: ParsableArguments {
    @Option(
        name: .customLong("sse-c-key"),
        help: ArgumentHelp(
            "A file of 32 raw bytes: the SSE-C key every s3:// object of the run is encrypted with (written, read "
                + "and copied from).",
            valueName: "file"))
    var sseCustomerKeyFile: String?

    @Flag(
        name: .customLong("request-payer"),
        help: "Agree to pay for the requests to a Requester Pays bucket (x-amz-request-payer: requester).")
    var requestPayer = false

    @Option(
        name: .customLong("expected-bucket-owner"),
        help: ArgumentHelp(
            "The account id that must own every bucket used (sources of copies too); another owner is refused "
                + "with 403.",
            valueName: "id"))
    var expectedBucketOwner: String?

    func validate() throws {
        _ = try objectOptions()
        if let expectedBucketOwner, expectedBucketOwner.isEmpty || !expectedBucketOwner.allSatisfy(\.isNumber) {
            throw ValidationError(
                "--expected-bucket-owner '\(expectedBucketOwner)' is not an AWS account id (12 digits).")
        }
    }

    /// The request-wide options as the S3 client takes them.
    func objectOptions() throws -> S3ObjectOptions {
        var options = S3ObjectOptions()
        options.requestPayer = requestPayer
        options.expectedBucketOwner = expectedBucketOwner
        if let sseCustomerKeyFile {
            do {
                options.customerKey = try S3CustomerKey.read(sseCustomerKeyFile)
            } catch {
                throw ValidationError("--sse-c-key \(error.description)")
            }
        }
        return options
    }
}
