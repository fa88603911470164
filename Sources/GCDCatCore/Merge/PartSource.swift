import GCDCatS3

/// Where a merge's parts come from, as the user named them: the counterpart of ``OutputTarget``.
///
/// A merge reads its parts from one kind of source: every part is a local file, or every part
/// is an `s3://` object (the command line refuses a mix). The names are kept as given, so that
/// every message names a part exactly as the user spelt it.
public enum PartSource: Sendable, Equatable {
    /// Local files: a first part, every part, a checksum list, or several sets.
    case files([String])
    /// `s3://` objects: a first part, or every part.
    case objects([String])

    /// The source `arguments` name: objects when any of them is an `s3://` name.
    public init(_ arguments: [String]) {
        self = arguments.contains(where: ObjectLocation.isObjectPath) ? .objects(arguments) : .files(arguments)
    }

    /// The parts as given.
    public var arguments: [String] {
        switch self {
        case .files(let paths): paths
        case .objects(let names): names
        }
    }
}
