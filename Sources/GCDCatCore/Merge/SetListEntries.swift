import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What each entry of a checksum list is to the set being merged: one of its parts, the whole
/// file the parts join to, or another file (a SHA256SUMS over a download folder names
/// `README.txt` and `b.bin.001` too; one SFV may cover two sets).
///
/// A part is one of the parts by device and inode, or a name of the set's numbering in the
/// parts' folder (a part that is missing is still the set's, and must be reported missing). The
/// whole file is the set's output name in that folder, or the name the merge gives its output
/// with `-o` (`sha256sum orig > SHA256SUMS` beside `xaa`, `xab`, joined with `-o orig`). Names
/// are compared as bytes.
struct SetListEntries {
    enum Role: Equatable {
        case part
        case whole
        case other
    }

    let roles: [Role]

    /// ## Errors
    /// `.io` when a listed name cannot be examined (`stat` other than ENOENT).
    init(
        names: [String], rejections: [String?], listPath: String, parts: [PartFile], outputName: String? = nil
    ) throws {
        var folders: [String: FileIdentity?] = [:]
        let partsFolder = try parts.first.flatMap { try Self.identity(of: splitPath($0.path).directory) }
        try self.init(
            names: names, rejections: rejections, partNames: parts.map(\.path), outputName: outputName,
            resolve: { ChecksumListVerifier.resolve($0, listPath: listPath) },
            isPart: { try MergeVerification.isPart($0, of: parts) },
            inPartsFolder: { directory in
                if folders[directory] == nil { folders[directory] = .some(try Self.identity(of: directory)) }
                return partsFolder != nil && folders[directory] == partsFolder
            })
    }

    /// The roles of an object list's entries: keys are the parts' by their bytes, and the
    /// parts' folder is their keys' common prefix.
    init(names: [String], rejections: [String?], list: ObjectLocation, partKeys: [String]) {
        let keys = Set(partKeys.map { Array($0.utf8) })
        let partsFolder = partKeys.first.map { splitPath($0).directory }
        self.init(
            names: names, rejections: rejections, partNames: partKeys, outputName: nil,
            resolve: { list.sibling($0).description }, isPart: { keys.contains(Array($0.utf8)) },
            inPartsFolder: { $0 == partsFolder })
    }

    /// The reading of a set of one part under which the list names most parts: `cd1_00.mp4`
    /// alone is `cd1_` + `00` + `.mp4` beside a list that names `cd1_01.mp4`, a part then missing,
    /// not `cd1_00.mp` + `4` with the list's other names no part of it. Where it names no part,
    /// the reading whose whole file it names: cksfv's `cd1.mp4` line is then checked against the
    /// part, which is short of it, not read as another set's list (a24 #6). A list naming
    /// `outputName` names the whole under every reading.
    static func widestReading(of part: String, over listed: [String], outputName: String? = nil) -> NumberedName? {
        let readings = NumberedName.listReadings(of: part) + NumberedName.oneLetterReadings(of: part)
        let namesOutput = outputName.map { listed.contains($0) } ?? false
        let named = readings.map { reading in
            listed.count { reading.number(of: $0) != nil } * 2
                + (namesOutput || reading.wholeName.map { listed.contains($0) } == true ? 1 : 0)
        }
        guard let most = named.max() else { return nil }
        return readings[named.firstIndex(of: most)!]
    }

    /// The one rule for files and objects: `resolve` gives a listed name's path, `isPart` says
    /// whether one of the parts is there, and `inPartsFolder` whether a folder is theirs.
    private init(
        names: [String], rejections: [String?], partNames: [String], outputName: String?,
        resolve: (String) -> String, isPart: (String) throws -> Bool, inPartsFolder: (String) throws -> Bool
    ) rethrows {
        let naming =
            partNames.count == 1
            ? Self.widestReading(
                of: splitPath(partNames[0]).name, over: names.map { splitPath(resolve($0)).name },
                outputName: outputName)
            : partNames.first.flatMap { _ in PartArguments.commonSet(partNames.map { splitPath($0).name })?.0 }
        guard let naming else {
            // Parts of no common numbering (`merge a b c --manifest m.sfv`): only names without a
            // number beside numbered ones are other files, as before.
            let other = SetFromList.otherFiles(among: names)
            roles = try names.indices.map { index in
                guard other[index] else { return .part }
                return try isPart(resolve(names[index])) ? .part : .other
            }
            return
        }
        let whole = naming.wholeName
        roles = try names.indices.map { index in
            // A rejected name (absolute, `..`) is never examined; reading it as a part lets the
            // check refuse the list for it.
            if rejections[index] != nil {
                return naming.number(of: splitPath(names[index]).name) != nil ? .part : .other
            }
            let resolved = resolve(names[index])
            if try isPart(resolved) { return .part }
            let (directory, base) = splitPath(resolved)
            guard try inPartsFolder(directory) else { return .other }
            if naming.number(of: base) != nil { return .part }
            return base == whole || base == outputName ? .whole : .other
        }
    }

    /// Whether the list is about this set: it names one of its parts, or its whole file.
    var isAboutTheSet: Bool { roles.contains(.part) || roles.contains(.whole) }

    /// The indices to check: the parts' when any is named; else the whole file's when it is
    /// named once; else all of them (a list of another set, which the check refuses as such, or
    /// a list of one file under another name, read as the whole file's digest).
    var checked: [Int] {
        let parts = roles.indices.filter { roles[$0] == .part }
        if !parts.isEmpty { return parts }
        let wholes = roles.indices.filter { roles[$0] == .whole }
        return wholes.count == 1 ? wholes : Array(roles.indices)
    }

    /// The whole file's line when the parts are named too and the whole once: a list of the
    /// parts and the output (`sha256sum a.bin.00? a.bin`), whose whole line is checked as well.
    var wholeBesideParts: Int? {
        let wholes = roles.indices.filter { roles[$0] == .whole }
        return roles.contains(.part) && wholes.count == 1 ? wholes[0] : nil
    }

    /// The whole file's line an SFV's check reads from the parts' crc32s combined: beside the
    /// parts' lines (``wholeBesideParts``), or as the list's one line about the set (`cksfv -q
    /// movie.zip > movie.zip.sfv`, made before the split).
    var wholeLine: Int? {
        if let index = wholeBesideParts { return index }
        let wholes = roles.indices.filter { roles[$0] == .whole }
        return !roles.contains(.part) && wholes.count == 1 ? wholes[0] : nil
    }

    /// The indices of the entries left out of ``checked``.
    var ignored: [Int] {
        let kept = Set(checked)
        return roles.indices.filter { !kept.contains($0) }
    }

    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(of path: String) throws -> FileIdentity? {
        try Syscall.statIfExists(path).map { FileIdentity(device: UInt64($0.st_dev), inode: UInt64($0.st_ino)) }
    }
}
