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
        let (resolved, listedNames) = try refuseUnnamedVersionedParts([first], listing: listing, store: store)
        let listed = Set(listing.map(\.location))
        var set = ObjectSet(
            parts: [info], resolved: resolved, manifest: nil, lateStart: resolved.lateStartRefusal(names: listedNames))
        set.unusedManifestNote = resolved.manifestCandidates.compactMap { try? ObjectLocation(parsing: $0) }
            .first { listed.contains($0) }.map(unusedManifestNote)
        return set
    }

    /// Parts named at versions (a lone first part, or a list) must be their whole set in every
    /// version: a part name of the set past them, in the latest listing or only in
    /// ListObjectVersions (a set since replaced by a shorter one), is refused, as no listing
    /// tells which of its versions go with the named ones; the set from the first named part,
    /// and the names it was found among, otherwise.
    ///
    /// ## Errors
    /// `.invalidInput` naming the other parts and the fix; the local rules' errors.
    static func refuseUnnamedVersionedParts(
        _ named: [ObjectLocation], listing: [ObjectInfo], store: any ObjectStore
    ) throws -> (PartArguments.Resolved, ListedNames) {
        let first = named[0]
        // Every version, not the latest only: the latest set may be shorter than this version's.
        let versioned = try store.keysWithVersions(bucket: first.bucket, prefix: listingPrefix(for: first.key))
        // A named key may be absent from the listing (its latest version deleted).
        let names = Set(listing.map(\.location.description)).union(named.map(\.latest.description))
            .union((versioned ?? []).map { ObjectLocation(bucket: first.bucket, key: $0).description })
        let listedNames = ListedNames(names)
        let resolved = try PartArguments.resolve([first.latest.description], names: listedNames)
        let given = Set(named.map(\.latest.description))
        let others = resolved.parts.filter { !given.contains($0) }
        guard others.isEmpty else {
            throw GCDCatError(
                .invalidInput, path: named.count == 1 ? first.description : named[named.count - 1].description,
                message: (named.count == 1
                    ? "names one version, but its set has (or had) more parts "
                    : "is the last of \(named.count) parts named at their versions, but their set has (or had) more "
                        + "parts ")
                    + "(\(others.prefix(3).joined(separator: ", "))\(others.count > 3 ? ", …" : "")), and no listing "
                    + "tells which of their versions go with \(named.count == 1 ? "it" : "them"); "
                    + "name every part with its ?versionId= (aws s3api list-object-versions --bucket "
                    + "\(first.bucket) --prefix \(listingPrefix(for: first.key)) lists them), or drop ?versionId= "
                    + "to merge the latest set")
        }
        return (resolved, listedNames)
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
