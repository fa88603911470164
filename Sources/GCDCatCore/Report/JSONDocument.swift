import FoundationEssentials
import GCDCatSystem

/// The one way gcdcat turns a report into JSON: sorted keys, indented, slashes as they are,
/// one trailing newline, written as the bytes its strings stand for.
///
/// ## JSON contract
/// Every document gcdcat prints has `schemaVersion` (``JSONDocument/schemaVersion``) and
/// `command`; the schemas are in `docs/json-schema/`. Paths are strings in ``PathName``'s
/// lossless form: valid UTF-8 as it is, and each byte that is not part of valid UTF-8 as the
/// single scalar U+10FF00 + byte (U+10FF80…U+10FFFF), so `p\xe9.001` reads `p\u{10FFE9}.001`.
public enum JSONDocument {
    /// The version of every document's layout, raised when a key is removed or changes meaning;
    /// new keys may appear without a raise.
    public static let schemaVersion = 2

    /// `value` as pretty-printed JSON with sorted keys and a newline.
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value)) + [0x0A]
    }
}

/// What a command prints on standard output instead of its report when it fails under `--json`:
/// `{"schemaVersion": 2, "command": "merge", "error": {…}, "warnings": […], "published": null}`, with the exit status it exits with.
public struct ErrorReport: Encodable, Sendable, Equatable {
    /// The `error` member: the class of failure and where it happened.
    public struct Details: Encodable, Sendable, Equatable {
        /// A ``GCDCatError/Code`` raw value, or `usage` for a command-line mistake (exit 64).
        public var code: String
        public var exitStatus: Int32
        /// The file involved, in ``PathName``'s lossless form; null when none.
        public var path: String?
        public var syscall: String?
        public var errno: Int32?
        /// The line standard error shows, without its `gcdcat: ` prefix.
        public var message: String

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(exitStatus, forKey: .exitStatus)
            try container.encode(path, forKey: .path)
            try container.encode(syscall, forKey: .syscall)
            try container.encode(errno, forKey: .errno)
            try container.encode(message, forKey: .message)
        }

        enum CodingKeys: String, CodingKey { case code, exitStatus, path, syscall, errno, message }
    }

    /// An output that was published before the failure (a merge whose `--remove-parts` failed
    /// after the output was named): it is complete and stays. A split's several outputs (its
    /// parts and lists) are each named in `outputs`, and its manifest, once published, in
    /// `manifest`.
    public struct Published: Encodable, Sendable, Equatable {
        /// The output's path (a split's first), in ``PathName``'s lossless form.
        public var output: String
        /// True when it was checked against the manifest (`manifest`).
        public var verified: Bool
        /// The manifest a merge's output was checked against, or the manifest a split published.
        public var manifest: String?
        /// Every output published, each a path: `[output]` for a merge, a split's parts and lists.
        public var outputs: [String]
        /// The parts `merge --remove-parts` removed before it stopped (a failed `unlink`, a
        /// signal), each a path; the others stay.
        public var removedParts: [String] = []

        public init(output: String, verified: Bool, manifest: String?, outputs: [String]? = nil) {
            self.output = output
            self.verified = verified
            self.manifest = manifest
            self.outputs = outputs ?? [output]
        }

        /// Several outputs, first and last named: `in.001 … in.sfv`; for messages, not for scripts.
        public var displayName: String {
            guard outputs.count > 1, let first = outputs.first, let last = outputs.last else {
                return output.displayPath
            }
            return "\(first.displayPath) … \(last.displayPath)"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(output, forKey: .output)
            try container.encode(outputs, forKey: .outputs)
            try container.encode(verified, forKey: .verified)
            try container.encode(manifest, forKey: .manifest)
            try container.encode(removedParts, forKey: .removedParts)
        }

        enum CodingKeys: String, CodingKey { case output, outputs, verified, manifest, removedParts }
    }

    /// The code of a usage error; every other code is a ``GCDCatError/Code``.
    public static let usageCode = "usage"

    public var schemaVersion = JSONDocument.schemaVersion
    /// The subcommand (`merge`, `split`, …).
    public var command: String
    public var error: Details
    /// Every warning printed on standard error before the failure.
    public var warnings: [String] = []
    /// What was published despite the failure; null when nothing was.
    public var published: Published?

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(command, forKey: .command)
        try container.encode(error, forKey: .error)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(published, forKey: .published)
    }

    enum CodingKeys: String, CodingKey { case schemaVersion, command, error, warnings, published }

    /// The object for `error`.
    public init(command: String, error: GCDCatError) {
        self.command = command
        self.error = Details(
            code: error.code.rawValue, exitStatus: error.exitStatus, path: error.path, syscall: error.syscall,
            errno: error.errno, message: error.description)
    }

    /// The object for a usage error (exit 64) or another failure that is not a ``GCDCatError``.
    public init(command: String, code: String, exitStatus: Int32, message: String) {
        self.command = command
        self.error = Details(code: code, exitStatus: exitStatus, path: nil, syscall: nil, errno: nil, message: message)
    }
}
