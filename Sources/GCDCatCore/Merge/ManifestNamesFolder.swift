import GCDCatSystem

/// Where the names of a list given with `--manifest` are looked up. They are relative to the
/// list's folder; but a list kept in another folder than the parts it names (`gcdcat
/// parts/a.bin.001 --manifest sums/a.bin.sfv`, made by `cd parts; cksfv -q a.bin.0* >
/// ../sums/a.bin.sfv`) names none of the files there, and was "another set's". When the
/// list's folder holds none of its names and the parts' folder holds some, they are read
/// there, with a note; the two folders are never mixed within one list.
enum ManifestNamesFolder {
    /// A path of the list's name in the parts' folder, to resolve its names against
    /// (``ChecksumListVerifier/resolve(_:listPath:)``), and the note that says so; nil to read
    /// them beside the list, as always.
    static func partsFolder(for list: String, parts: [PartFile], algorithm: HashAlgorithm?) -> (
        namesRelativeTo: String, note: String
    )? {
        guard let first = parts.first else { return nil }
        let listFolder = splitPath(list).directory
        let partsFolder = splitPath(first.path).directory
        guard let listIdentity = try? SetListEntries.identity(of: listFolder),
            let partsIdentity = try? SetListEntries.identity(of: partsFolder), listIdentity != partsIdentity,
            let names = try? SetFromList.entryNames(list, algorithm: algorithm)
        else { return nil }
        guard !names.contains(where: ChecksumList.existsBeside(listPath: list)) else { return nil }
        let there = ChecksumListVerifier.resolve(splitPath(list).name, listPath: first.path)
        guard names.contains(where: ChecksumList.existsBeside(listPath: there)) else { return nil }
        return (
            there,
            "none of the files \(list.displayPath) lists is in its folder, \(listFolder.displayPath), but some are in "
                + "the parts' folder, \(partsFolder.displayPath): they are read from there"
        )
    }
}
