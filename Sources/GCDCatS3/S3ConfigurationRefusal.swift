import GCDCatSystem

/// A setting gcdcat reads but cannot honour (`use_accelerate_endpoint = true`, a `services`
/// name with no section, an unknown `addressing_style`, an unreadable CA bundle). It is a
/// mistake in the configuration, which the command line reports as a usage error (exit 64),
/// rather than a run that quietly goes elsewhere, such as to AWS.
public struct S3ConfigurationRefusal: Error, Sendable, CustomStringConvertible {
    /// The setting's file (or variable) as `path`, `configuration` as the syscall, and the fix.
    public var error: GCDCatError

    public init(_ error: GCDCatError) { self.error = error }

    init(file: String?, _ message: String) {
        error = GCDCatError(.invalidInput, path: file, syscall: "configuration", message: message)
    }

    public var description: String { error.description }
}
