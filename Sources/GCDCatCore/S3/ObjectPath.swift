import GCDCatS3
import GCDCatSystem

extension ObjectLocation {
    /// The scheme that marks a path as an object: `s3://BUCKET/KEY`.
    public static let scheme = "s3://"

    /// Whether `path` is spelled as an object (`s3://…`) rather than a local path.
    public static func isObjectPath(_ path: String) -> Bool { path.hasPrefix(scheme) }

    /// `s3://BUCKET/KEY` read into its bucket and key; nil when `path` is not an `s3://` path
    /// (a local file). The key is taken as it is: S3 keys are not paths, so `a//b` is a key of
    /// its own; a `.` or `..` segment is refused, since the URL path would drop it.
    ///
    /// ## Errors
    /// `.invalidInput` naming `path` when it has no bucket or no key, or the bucket's name has a
    /// character no bucket name has.
    public init?(parsing path: String) throws {
        guard Self.isObjectPath(path) else { return nil }
        let rest = path.dropFirst(Self.scheme.count)
        guard let slash = rest.firstIndex(of: "/"), slash != rest.startIndex else {
            throw GCDCatError(
                .invalidInput, path: path, message: "no bucket and key: an object is named s3://BUCKET/KEY")
        }
        // Letters, digits, '.', '-' and '_' (AWS's legacy names allow capitals and '_'); a
        // space, '@' or ':' can only be a mistake, and would reach the server as another host.
        let bucket = rest[..<slash]
        guard bucket.count <= 255,
            bucket.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else {
            throw GCDCatError(
                .invalidInput, path: path,
                message: "'\(bucket)' is not a bucket name (letters, digits, '.', '-' and '_')")
        }
        var key = rest[rest.index(after: slash)...]
        let versionID = try Self.versionID(in: &key, path: path)
        guard !key.isEmpty else {
            throw GCDCatError(.invalidInput, path: path, message: "no key after the bucket: s3://BUCKET/KEY")
        }
        // URL paths drop `.` and `..` segments (after gcdcat signed them, so the server answers
        // SignatureDoesNotMatch): such a key cannot be addressed; say so instead.
        if key.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) {
            throw GCDCatError(
                .invalidInput, path: path,
                message: "a key with a '.' or '..' segment cannot be addressed over HTTP (the URL path drops it)")
        }
        self.init(bucket: String(bucket), key: String(key), versionID: versionID)
    }

    /// The `?versionId=ID` that ends `key`, removed from it; nil when there is none. A key
    /// that itself ends so cannot be named (as in awscli's URLs, the query wins).
    ///
    /// ## Errors
    /// `.invalidInput` naming `path` for an empty ID or one with characters no version ID has.
    private static func versionID(in key: inout Substring, path: String) throws -> String? {
        guard let marker = key.ranges(of: versionMarker).last else { return nil }
        let id = key[marker.upperBound...]
        // S3's IDs are URL-safe text (and `null` for an object older than versioning); '/',
        // '?', '&', '=' or a space can only be a mistake.
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && !$0.isWhitespace && !"/?&=#".contains($0) }) else {
            throw GCDCatError(
                .invalidInput, path: path,
                message: "'\(id)' is not a version ID: name a version as s3://BUCKET/KEY?versionId=ID")
        }
        key = key[..<marker.lowerBound]
        return String(id)
    }

    /// The object `name` stands for when a list in this object names it: relative to this
    /// key's "folder" (the key up to its last `/`), with `.` components and repeated `/` dropped,
    /// as a local list's names are read.
    public func sibling(_ name: String) -> ObjectLocation {
        let folder = key.lastIndex(of: "/").map { String(key[...$0]) } ?? ""
        let clean = name.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
            .joined(separator: "/")
        // The list names keys, not versions: a list read at a version names the latest parts.
        return ObjectLocation(bucket: bucket, key: folder + clean)
    }
}
