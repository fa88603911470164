import GCDCatS3

/// One part of a set, wherever it lives: what a merge's shared steps ask of a part, whatever
/// its source. A local file (``PartFile``) and an object (``ObjectInfo``) conform, so a step
/// written once over this protocol (``RepeatedParts``, ``MergeVerification/truncationWarning(_:)``)
/// serves both merges.
public protocol ReadablePart: Sendable {
    /// What two names of the same part share: two names of one file, or one object twice.
    associatedtype Identity: Hashable & Sendable

    /// The part as the user spelt it, for every message.
    var name: String { get }
    var byteCount: Int64 { get }
    var identity: Identity { get }
    /// The part's crc32 as its store keeps it beside the bytes, so a check need not read them
    /// (nil for a file: a file system keeps none).
    var storedCRC32: UInt32? { get }
    /// What a part is, in the one message for a part given twice (`file`, `object`).
    static var noun: String { get }
}

/// The parts of a merge seen so far, by identity, to refuse one given again: one step for
/// file and object parts alike.
struct RepeatedParts<Part: ReadablePart> {
    /// `--allow-duplicates`: take a part twice.
    let allowed: Bool
    private var seen: [Part.Identity: String] = [:]

    init(allowed: Bool) { self.allowed = allowed }

    /// Takes the next part, in order.
    ///
    /// ## Errors
    /// `.invalidInput` naming `part` when it is an earlier part again and repeats are not
    /// allowed, with `--allow-duplicates` as the way to mean it.
    mutating func admit(_ part: Part) throws {
        if !allowed, let earlier = seen[part.identity] {
            // Two names of one file (`ln`, `hardlink`, a symlink) are found in a set nobody listed.
            let how =
                earlier == part.name
                ? "given earlier" : "under another name (a hard link or symlink), earlier in the set"
            throw GCDCatError(
                .invalidInput, path: part.name,
                message: "is the same \(Part.noun) as \(earlier), \(how) (use --allow-duplicates if you mean it)")
        }
        seen[part.identity] = part.name
    }
}

extension PartFile: ReadablePart {
    /// A file's device and inode: a hard link or symlink is the same part.
    public struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    public var name: String { path }
    public var byteCount: Int64 { size }
    public var identity: Identity { Identity(device: device, inode: inode) }
    public var storedCRC32: UInt32? { nil }

    public static var noun: String { "file" }
}

extension ObjectInfo: ReadablePart {
    public var name: String { location.description }
    public var byteCount: Int64 { Int64(size) }
    public var identity: ObjectLocation { location }
    /// The server's `x-amz-checksum-crc32`, else gcdcat's record in the metadata.
    public var storedCRC32: UInt32? { crc32 ?? recordedCRC32 }

    public static var noun: String { "object" }
}
