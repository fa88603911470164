import GCDCatS3
import GCDCatSystem

/// Parts named at a version (`s3://b/movie.zip.001?versionId=ID`). A listing shows each key's
/// latest version only, and nothing ties the versions of one set's parts together, so gcdcat
/// never guesses one: only what is named with a version is read at it. A versioned first part
/// is merged alone when it is the whole set, and refused when any version of another part name
/// of its set exists (ListObjectVersions: a set since replaced by a shorter one shows its old
/// later parts only there), or, from a store without versions, when the listing shows one; the manifest beside versioned parts is not used (its latest version need not
/// describe them): `--manifest s3://…?versionId=ID` names the one that does.
extension ObjectDiscovery {
    /// A versioned first part, HEADed at its version: a set of one, or refused when a version
    /// of another part of its set exists.
    ///
    /// ## Errors
    /// `.missingPart` when that version does not exist; `.invalidInput` naming the other parts
    /// and the fix when the set has more; the local rules' errors (a part that is not the first).
    static func lonePartAtItsVersion(_ first: ObjectLocation, store: any ObjectStore) throws -> ObjectSet {
        guard let info = try store.head(first) else { throw missing(first, store: store) }
        let listing = try store.list(bucket: first.bucket, prefix: listingPrefix(for: first.key))
        // Every version, not the latest only: the latest set may be shorter than this version's.
        let versioned = try store.keysWithVersions(bucket: first.bucket, prefix: listingPrefix(for: first.key))
        // The key itself may be absent from the listing (its latest version deleted).
        let names = Set(listing.map(\.location.description)).union([first.latest.description])
            .union((versioned ?? []).map { ObjectLocation(bucket: first.bucket, key: $0).description })
        let listedNames = ListedNames(names)
        let resolved = try PartArguments.resolve([first.latest.description], names: listedNames)
        let others = resolved.parts.filter { $0 != first.latest.description }
        guard others.isEmpty else {
            throw GCDCatError(
                .invalidInput, path: first.description,
                message: "names one version, but its set has (or had) more parts "
                    + "(\(others.prefix(3).joined(separator: ", "))\(others.count > 3 ? ", …" : "")), and no listing "
                    + "tells which of their versions go with it; "
                    + "name every part with its ?versionId= (aws s3api list-object-versions --bucket "
                    + "\(first.bucket) --prefix \(listingPrefix(for: first.key)) lists them), or drop ?versionId= "
                    + "to merge the latest set")
        }
        let listed = Set(listing.map(\.location))
        var set = ObjectSet(
            parts: [info], resolved: resolved, manifest: nil, lateStart: resolved.lateStartRefusal(names: listedNames))
        set.unusedManifestNote = resolved.manifestCandidates.compactMap { try? ObjectLocation(parsing: $0) }
            .first { listed.contains($0) }.map(unusedManifestNote)
        return set
    }

    /// One key at two versions is no set: its parts are distinct keys.
    ///
    /// ## Errors
    /// `.invalidInput` naming both.
    static func refuseTwoVersionsOfOneKey(_ arguments: [ObjectLocation]) throws {
        var seen: [ObjectLocation: ObjectLocation] = [:]
        for argument in arguments {
            if let earlier = seen[argument.latest], earlier.versionID != argument.versionID {
                throw GCDCatError(
                    .invalidInput, path: argument.description,
                    message: "the same key as \(earlier), at another version; a set holds one version of each part")
            }
            seen[argument.latest] = argument
        }
    }

    /// The note for a set's manifest found beside versioned parts, which is not used.
    static func manifestBesideVersionsNote(
        _ candidates: [String], bucket: String, store: any ObjectStore
    ) throws -> String? {
        for candidate in candidates {
            guard let location = try ObjectLocation(parsing: candidate), location.bucket == bucket else { continue }
            if try store.head(location) != nil { return unusedManifestNote(location) }
        }
        return nil
    }

    private static func unusedManifestNote(_ manifest: ObjectLocation) -> String {
        "\(manifest) is not used to verify parts named at a version: its latest version need not describe them; "
            + "name the one that does with --manifest \(manifest)?versionId=ID"
    }
}
