import GCDCatS3
import GCDCatSystem

/// Parts named at a version (`s3://b/movie.zip.001?versionId=ID`). A listing shows each key's
/// latest version only, and nothing ties the versions of one set's parts together, so gcdcat
/// never guesses one: only what is named with a version is read at it. A versioned first part
/// is merged alone when it is the whole set, and refused when the listing shows more parts of
/// its set; the manifest beside versioned parts is not used (its latest version need not
/// describe them): `--manifest s3://…?versionId=ID` names the one that does.
extension ObjectDiscovery {
    /// A versioned first part, HEADed at its version: a set of one, or refused when the listing
    /// shows other parts of its set.
    ///
    /// ## Errors
    /// `.missingPart` when that version does not exist; `.invalidInput` naming the other parts
    /// and the fix when the set has more; the local rules' errors (a part that is not the first).
    static func lonePartAtItsVersion(_ first: ObjectLocation, store: any ObjectStore) throws -> ObjectSet {
        guard let info = try store.head(first) else { throw missing(first, store: store) }
        let listing = try store.list(bucket: first.bucket, prefix: listingPrefix(for: first.key))
        // The key itself may be absent from the listing (its latest version deleted).
        let names = Set(listing.map(\.location.description)).union([first.latest.description])
        let listedNames = ListedNames(names)
        var resolved = try PartArguments.resolve([first.latest.description], names: listedNames)
        let others = resolved.parts.filter { $0 != first.latest.description }
        guard others.isEmpty else {
            throw GCDCatError(
                .invalidInput, path: first.description,
                message: "names one version, but its set has more parts (\(others.prefix(3).joined(separator: ", "))"
                    + "\(others.count > 3 ? ", …" : "")), which a listing shows only at their latest versions; "
                    + "name every part with its ?versionId= (aws s3api list-object-versions --bucket "
                    + "\(first.bucket) --prefix \(listingPrefix(for: first.key)) lists them), or drop ?versionId= "
                    + "to merge the latest set")
        }
        let listed = Set(listing.map(\.location))
        resolved.notes += resolved.manifestCandidates.compactMap { try? ObjectLocation(parsing: $0) }
            .filter { listed.contains($0) }.prefix(1).map(unusedManifestNote)
        return ObjectSet(
            parts: [info], resolved: resolved, manifest: nil, lateStart: resolved.lateStartRefusal(names: listedNames))
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
                    message: "and \(earlier) are two versions of one key; a set holds one version of each part")
            }
            seen[argument.latest] = argument
        }
    }

    /// The note for a set's manifest found beside versioned parts, which is not used.
    static func manifestBesideVersionsNote(
        _ candidates: [String], bucket: String, store: any ObjectStore
    ) throws -> [String] {
        for candidate in candidates {
            guard let location = try ObjectLocation(parsing: candidate), location.bucket == bucket else { continue }
            if try store.head(location) != nil { return [unusedManifestNote(location)] }
        }
        return []
    }

    private static func unusedManifestNote(_ manifest: ObjectLocation) -> String {
        "\(manifest) is not used to verify parts named at a version: its latest version need not describe them; "
            + "name the one that does with --manifest \(manifest)?versionId=ID"
    }
}
