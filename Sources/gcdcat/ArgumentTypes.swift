import ArgumentParser
import GCDCatCore

extension MergeStrategyKind: ExpressibleByArgument {}

/// Parses a size flag, turning the core's reason into a usage error that names the value.
func parseSize(_ text: String) throws -> ByteSize {
    do {
        return try ByteSize(parsing: text)
    } catch {
        throw ValidationError(error.description)
    }
}

/// Parses a size flag that must be positive and fit an `Int`.
func parsePositiveSize(_ text: String) throws -> Int {
    let size = try parseSize(text)
    guard size.bytes > 0 else { throw ValidationError("must be greater than zero") }
    return Int(size.bytes)
}

/// What shells offer where a manifest is expected: checksum lists first, by their extensions.
let manifestExtensions = ["sfv", "md5", "sha1", "sha256", "sha512"]

/// What shells offer for verify's lists: every file, checksum lists first (SHA256SUMS, B2SUMS,
/// *.sfv, … by name), then the others, so a list with no extension is offered too.
let listsFirstCompletion = CompletionKind.custom { _, _, prefix in
    FileCandidates.complete(prefix, listsFirst: true)
}
