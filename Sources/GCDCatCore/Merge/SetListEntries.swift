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
/// whole file is the set's output name in that folder. Names are compared as bytes.
struct SetListEntries {
    enum Role: Equatable {
        case part
        case whole
        case other
    }

    let roles: [Role]

    /// ## Errors
    /// `.io` when a listed name cannot be examined (`stat` other than ENOENT).
    init(names: [String], rejections: [String?], listPath: String, parts: [PartFile]) throws {
        let naming = parts.first.flatMap { _ in PartArguments.commonSet(parts.map { splitPath($0.path).name })?.0 }
        guard let naming else {
            // Parts of no common numbering (`merge a b c --manifest m.sfv`): only names without a
            // number beside numbered ones are other files, as before.
            let other = SetFromList.otherFiles(among: names)
            roles = try names.indices.map { index in
                guard other[index] else { return .part }
                let resolved = ChecksumListVerifier.resolve(names[index], listPath: listPath)
                return try MergeVerification.isPart(resolved, of: parts) ? .part : .other
            }
            return
        }
        let folder = try Self.identity(of: splitPath(parts[0].path).directory)
        let whole = naming.wholeName
        var folders: [String: FileIdentity?] = [:]
        roles = try names.indices.map { index in
            // A rejected name (absolute, `..`) is never examined; reading it as a part lets the
            // check refuse the list for it.
            if rejections[index] != nil {
                return naming.number(of: splitPath(names[index]).name) != nil ? .part : .other
            }
            let resolved = ChecksumListVerifier.resolve(names[index], listPath: listPath)
            if try MergeVerification.isPart(resolved, of: parts) { return .part }
            let (directory, base) = splitPath(resolved)
            if folders[directory] == nil { folders[directory] = .some(try Self.identity(of: directory)) }
            guard let inFolder = folders[directory] ?? nil, inFolder == folder else { return .other }
            if naming.number(of: base) != nil { return .part }
            return base == whole ? .whole : .other
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
