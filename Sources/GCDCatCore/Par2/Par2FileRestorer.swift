#if canImport(Glibc)
    import Glibc
#endif

/// Writes the repaired files of a set: each damaged or missing file is written anew, unnamed,
/// from its good slices on disk and its rebuilt slices, checked against the file's MD5, and only
/// then given its name (replacing the damaged file). Files that verified OK are never opened
/// for writing.
public enum Par2FileRestorer {
    public struct Restored: Sendable, Encodable {
        public var path: String
        public var blocksRebuilt: Int
        public var bytes: Int64
        /// What the user should know of the new file: other hard links of the damaged one that
        /// still hold its bytes, an owner that could not be kept. Nil (and left out of JSON)
        /// when there is nothing to say.
        public var notes: [String]?
        /// The file its bytes were copied from, found whole there (a renamed or swapped file);
        /// nil (left out of JSON) for a file rebuilt from its own blocks and the recovery blocks.
        public var foundIn: String?
    }

    /// The set at `indexPath` checked (``Par2Verification/checking(indexPath:extras:jobs:)``),
    /// shown to `verified` before anything is written, then repaired: `gcdcat repair`.
    ///
    /// ## Errors
    /// Those of the check, of `verified`, and of ``repair(_:jobs:fsync:)``.
    public static func repair(
        indexPath: String, extras: [String], jobs: Int, fsync: Bool, verified: (Par2Verification) throws -> Void
    ) throws -> (verification: Par2Verification, repaired: [Restored]) {
        let verification = try Par2Verification.checking(indexPath: indexPath, extras: extras, jobs: jobs)
        try verified(verification)
        return (verification, try repair(verification, jobs: jobs, fsync: fsync))
    }

    /// ## Errors
    /// `.missingPart` when the set is not repairable (before anything is written);
    /// `.checksumMismatch` naming a file whose rebuilt bytes do not have the set's MD5 (it is not
    /// published); `.io` naming the file and syscall.
    public static func repair(_ verification: Par2Verification, jobs: Int, fsync: Bool) throws -> [Restored] {
        guard !verification.isComplete else { return [] }
        guard verification.isRepairable else { throw Par2Repairer.insufficient(verification) }
        let set = verification.set
        // Resolved once: a check per file against every file was quadratic in a 65 536-file set.
        let places = Places(set)
        for (file, status) in zip(set.files, verification.files) where status.state != .ok {
            try requireFolderInside(set, file)
            try requireLinkTargetInside(set, file, places: places)
            try requireOwnPlace(set, file, places: places)
            _ = try missingFolders(set, file)
        }
        // Only empty files lost or grown: nothing to rebuild, each is written empty.
        let rebuilt = verification.badSliceCount == 0 ? nil : try Par2Repairer.rebuild(verification, jobs: jobs)
        var restored: [Restored] = []
        let pending = set.files.indices.filter { verification.files[$0].state != .ok }
        let linked = LinkedNames(set)
        restored += try copyFound(verification, pending: pending, fsync: fsync, linked: linked)
        for (position, index) in pending.enumerated() where verification.files[index].foundIn == nil {
            let (file, status) = (set.files[index], verification.files[index])
            let made = try create(missingFolders(set, file))
            let notes: [String]
            do {
                notes = try restore(
                    file, path: set.path(of: file), sliceSize: set.sliceSize, rebuilt: rebuilt, fsync: fsync,
                    repairedLater: pending[(position + 1)...].map { set.path(of: set.files[$0]) }, linked: linked,
                    keeping: Unlikeness(file, status).map { ($0, set.files.map { set.path(of: $0) }) })
            } catch {
                // No folder made for a file that was not restored is left behind.
                removeFolders(made)
                throw error
            }
            restored.append(
                Restored(
                    path: set.path(of: file), blocksRebuilt: status.badSlices.count, bytes: file.length,
                    notes: notes.isEmpty ? nil : notes))
        }
        return restored
    }

    /// Restores the files of `pending` found whole under other names (``Par2FileStatus/foundIn``):
    /// every one is written unnamed from its copy and checked against its MD5 before any is named,
    /// so that swapped files each get the other's bytes, read from the files as they were (each
    /// source is opened before anything is replaced). The copy is left as it is, unless it is
    /// itself a file of the set to repair, which is then replaced by its own bytes.
    private static func copyFound(
        _ verification: Par2Verification, pending: [Int], fsync: Bool, linked: LinkedNames
    ) throws -> [Restored] {
        let set = verification.set
        let found = pending.filter { verification.files[$0].foundIn != nil }
        guard !found.isEmpty else { return [] }
        var sources: [SharedDescriptor] = []
        for index in found {
            sources.append(
                SharedDescriptor(try Syscall.openRegularFile(verification.files[index].foundIn!).takeDescriptor()))
        }
        defer { for source in sources { _ = source.take() } }
        var prepared: [Prepared] = []
        var folders: [String] = []
        do {
            for (position, index) in found.enumerated() {
                let file = set.files[index]
                folders += try create(missingFolders(set, file))
                prepared.append(
                    try prepare(
                        file, path: set.path(of: file), sliceSize: set.sliceSize, rebuilt: nil, fsync: fsync,
                        repairedLater: pending.filter { $0 != index }.map { set.path(of: set.files[$0]) },
                        linked: linked, from: sources[position].raw))
            }
        } catch {
            for each in prepared { each.output.discard() }
            removeFolders(folders)
            throw error
        }
        let kept: [String]
        do {
            kept = try keepReplacedSources(
                found.map { (source: verification.files[$0].foundIn!, target: set.path(of: set.files[$0])) },
                replacing: pending.map { set.path(of: set.files[$0]) }
            ) { copy in
                // Held while the repair runs: its hidden name is then in use, not a leftover to name.
                _ = flock(sources[copy].raw, LOCK_EX | LOCK_NB)
            }
        } catch {
            for each in prepared { each.output.discard() }
            throw error
        }
        var restored: [Restored] = []
        for (position, index) in found.enumerated() {
            do {
                try publish(prepared[position], fsync: fsync)
            } catch {
                for each in prepared[(position + 1)...] { each.output.discard() }
                if position == 0 {
                    for name in kept { Syscall.unlink(name) }
                } else if !kept.isEmpty, var failure = error as? GCDCatError {
                    failure.message +=
                        "; \(restored.map(\.path.displayPath).joined(separator: ", ")) was repaired already, and "
                        + "copies of the swapped files' bytes are kept in \(kept.map(\.displayPath).joined(separator: ", "))"
                        + " (gcdcat repair finds them there when run again)"
                    throw failure
                }
                throw error
            }
            let notes = prepared[position].notes
            restored.append(
                Restored(
                    path: set.path(of: set.files[index]), blocksRebuilt: 0, bytes: set.files[index].length,
                    notes: notes.isEmpty ? nil : notes, foundIn: verification.files[index].foundIn))
        }
        for name in kept { Syscall.unlink(name) }
        return restored
    }

    /// Gives each source that this repair also replaces (a swap, a cycle: a file of
    /// `replacing`) a second, hidden name named after the file whose bytes it holds
    /// (`.TARGET.gcdcat-XXXXXX`, a hard link), so those bytes keep a name while the renames run:
    /// without it, a crash or an error between two of them left one file's bytes only in an
    /// unnamed copy, and the set unrepairable. A name a crash leaves is searched by the next run
    /// (``Par2FoundFiles``). Returns the names made.
    ///
    /// ## Errors
    /// `.io` naming the hidden name and `link` (the names made before it are removed).
    private static func keepReplacedSources(
        _ copies: [(source: String, target: String)], replacing targets: [String], holding: (Int) -> Void
    ) throws -> [String] {
        let replaced = Set(targets.compactMap { (try? Syscall.statIfExists($0)).flatMap { $0 }.map(Self.identity) })
        var kept: [String] = []
        var seen = Set<[UInt64]>()
        for (copy, (source, target)) in copies.enumerated() {
            guard let info = (try? Syscall.statIfExists(source)).flatMap({ $0 }), replaced.contains(identity(info)),
                seen.insert(identity(info)).inserted
            else { continue }
            let name = temporaryName(for: target)
            do {
                try Syscall.link(source, to: name)
            } catch  where error.errno == EXDEV {
                // The two on different file systems (a subfolder that is a mount): no hard link
                // can join them, and the repair goes on as it did before links were kept.
                continue
            } catch {
                for made in kept { Syscall.unlink(made) }
                throw error
            }
            kept.append(name)
            holding(copy)
        }
        return kept
    }

    private static func identity(_ info: stat) -> [UInt64] { [UInt64(info.st_dev), UInt64(info.st_ino)] }

    /// Refuses, before anything is written, a file whose folder (`sub/` in a name `sub/f`) is a
    /// symlink that leads out of the set's folder: a crafted `.par2` named `lnk/victim` and
    /// `repair` replaced a file outside (an outside attack), where `protect` refuses such names.
    ///
    /// ## Errors
    /// `.invalidInput` naming the file and where its folder leads.
    static func requireFolderInside(_ set: Par2RecoverySet, _ file: Par2RecoverySet.File) throws {
        guard file.name.contains("/"), let setFolder = Syscall.realPath(set.directory) else { return }
        let path = set.path(of: file)
        guard let folder = Syscall.realPath(splitPath(path).directory) else { return }
        guard !ListFolder.lies(folder, inside: setFolder) else { return }
        throw GCDCatError(
            .invalidInput, path: path,
            message:
                "a symlink on the way leads outside the set's folder, to \(folder.displayPath); nothing was "
                + "repaired")
    }

    /// Refuses, before anything is written, a file of the set that is a symlink whose target lies
    /// outside the set's folder (an archive's `x.bin -> ~/.bashrc` beside a crafted `.par2` had
    /// repair overwrite it), or is another file of the set (a file that verified OK was
    /// overwritten with this one's bytes). A symlink to a file inside the folder is repaired
    /// through; a dangling one is replaced by the rebuilt file.
    ///
    /// ## Errors
    /// `.invalidInput` naming the link and its target.
    static func requireLinkTargetInside(_ set: Par2RecoverySet, _ file: Par2RecoverySet.File, places: Places) throws {
        let path = set.path(of: file)
        guard let link = try? Syscall.statIfExists(path, followLinks: false), link.st_mode & S_IFMT == S_IFLNK,
            let target = Syscall.realPath(path), let setFolder = Syscall.realPath(set.directory)
        else { return }
        let why: String
        if !ListFolder.lies(target, inside: setFolder) {
            why = "outside the set's folder"
        } else if let other = places.otherFile(at: target, than: path) {
            why = "which is \(other.displayPath), another file of the set"
        } else {
            return
        }
        throw GCDCatError(
            .invalidInput, path: path,
            message:
                "is a symlink to \(target.displayPath), \(why); nothing was repaired. Remove the link to have "
                + "\(path.displayPath) rebuilt in its place")
    }

    /// Refuses, before anything is written, a file whose place on disk is taken by another file
    /// of the set or by the recovery set's own index or a volume, reached through a folder
    /// symlink inside the set (`sub -> .`: `sub/a.bin` is `a.bin`) or a link to a volume: repair
    /// wrote over a file that verified OK, or over the recovery data (outside attack).
    ///
    /// ## Errors
    /// `.invalidInput` naming the file and what its place is.
    static func requireOwnPlace(_ set: Par2RecoverySet, _ file: Par2RecoverySet.File, places: Places) throws {
        let path = set.path(of: file)
        guard let place = Places.onDisk(path) else { return }
        let what: String
        if let par2 = places.recovery[place] {
            what = "\(par2.displayPath), a file of the recovery set itself"
        } else if let other = places.otherFile(at: place, than: path) {
            what = "\(other.displayPath), another file of the set"
        } else {
            return
        }
        throw GCDCatError(
            .invalidInput, path: path,
            message:
                "is \(what) (through a symlink on the way); nothing was repaired. Remove the link to have "
                + "\(path.displayPath) rebuilt in its place")
    }

    /// Where the files of a set and of its recovery set lead on disk, by place: each set file's
    /// paths in the set's order, and the first `.par2` file (index or volume) there.
    struct Places {
        var files: [String: [String]] = [:]
        var recovery: [String: String] = [:]

        init(_ set: Par2RecoverySet) {
            for file in set.files {
                let path = set.path(of: file)
                if let place = Self.onDisk(path) { files[place, default: []].append(path) }
            }
            for path in [set.origin] + set.ownFiles {
                if let place = Self.onDisk(path), recovery[place] == nil { recovery[place] = path }
            }
        }

        /// The first file of the set at `place` other than `path`.
        func otherFile(at place: String, than path: String) -> String? {
            files[place]?.first { $0 != path }
        }

        /// Where `path` leads on disk: its real path, or, for a file not there, its folder's real
        /// path and its name.
        static func onDisk(_ path: String) -> String? {
            if let real = Syscall.realPath(path) { return real }
            let (folder, name) = splitPath(path)
            return Syscall.realPath(folder).map { $0 == "/" ? "/" + name : $0 + "/" + name }
        }
    }

    /// The names of the set's files and of its recovery set's own files that are hard links
    /// (more than one name), by the file they name: a damaged file's other names among them are
    /// no names left holding its damaged bytes (a set file that verified OK holds its own bytes,
    /// one repaired gets a new file), and to link them to the repaired file would destroy them.
    struct LinkedNames {
        private var names: [FileIdentity: [String]] = [:]

        init(_ set: Par2RecoverySet) {
            for path in set.files.map({ set.path(of: $0) }) + [set.origin] + set.ownFiles {
                guard let info = try? Syscall.statIfExists(path, followLinks: false), info.st_nlink > 1 else {
                    continue
                }
                names[FileIdentity(info), default: []].append(path)
            }
        }

        /// How many of the set's names other than `path` name the file `file` is now.
        func count(of file: stat, other path: String) -> Int {
            let identity = FileIdentity(file)
            return Set(names[identity] ?? []).filter { name in
                name != path
                    && (try? Syscall.statIfExists(name, followLinks: false)).flatMap { $0 }.map(FileIdentity.init)
                        == identity
            }.count
        }
    }

    /// A file on disk: its device and inode.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// The folders of `file`'s name that are missing, outermost first (`sub/deep` of a lost
    /// `sub/deep/b`): repair creates them, as par2 does. A folder on the way that exists must lie
    /// inside the set's folder, so that none is ever created outside it.
    ///
    /// ## Errors
    /// `.invalidInput` naming the file and where a folder on its way leads.
    static func missingFolders(_ set: Par2RecoverySet, _ file: Par2RecoverySet.File) throws -> [String] {
        guard file.name.contains("/"), let setFolder = Syscall.realPath(set.directory) else { return [] }
        var folder = set.directory == "." ? "" : set.directory + "/"
        var missing: [String] = []
        for component in file.name.split(separator: "/").dropLast() {
            folder += component
            defer { folder += "/" }
            guard missing.isEmpty, let info = try Syscall.statIfExists(folder) else {
                missing.append(folder)
                continue
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw GCDCatError(
                    .invalidInput, path: set.path(of: file),
                    message:
                        "cannot be restored: \(folder.displayPath) is not a folder, where the set names one; "
                        + "nothing was repaired. Move it away, then repair again")
            }
            let real = Syscall.realPath(folder) ?? folder
            guard ListFolder.lies(real, inside: setFolder) else {
                throw GCDCatError(
                    .invalidInput, path: set.path(of: file),
                    message:
                        "a symlink on the way leads outside the set's folder, to \(real.displayPath); nothing was "
                        + "repaired")
            }
        }
        return missing
    }

    /// Creates `folders` in order (``missingFolders(_:_:)``); returns those it made. A failure
    /// removes the folders it made first.
    ///
    /// ## Errors
    /// `.io` naming the folder and `mkdir`.
    @discardableResult
    static func create(_ folders: [String]) throws -> [String] {
        var made: [String] = []
        for folder in folders {
            guard PathName.withPathCString(folder, { mkdir($0, 0o777) }) != 0 else {
                made.append(folder)
                continue
            }
            let code = errno
            if code == EEXIST { continue }
            removeFolders(made)
            throw GCDCatError.syscall("mkdir", path: folder, errno: code)
        }
        return made
    }

    /// Removes `folders`, made by ``create(_:)``, innermost first; one no longer empty (another
    /// process put something there) is left.
    static func removeFolders(_ folders: [String]) {
        for folder in folders.reversed() { _ = PathName.withPathCString(folder) { rmdir($0) } }
    }

    /// Refuses to replace what is at `path` unless it is still the file the repair read (`read`:
    /// the same device and inode), or, for a file that was missing, still nothing: a file moved
    /// there while the repair ran is the user's newer version, not the damaged one.
    ///
    /// ## Errors
    /// `.inputChanged` naming the file (`shownAs`).
    static func requireUnchanged(_ path: String, read: stat?, shownAs shown: String) throws {
        let now = try Syscall.statIfExists(path, followLinks: false)
        if let read, let now, read.st_dev == now.st_dev, read.st_ino == now.st_ino { return }
        if read == nil, now == nil { return }
        throw GCDCatError(
            .inputChanged, path: shown,
            message:
                "\(read == nil ? "appeared (it was missing)" : "was replaced by another file") while the repair "
                + "ran; that file was kept, and the repaired one was not written. Check it, then repair again")
    }

    /// Writes `file` anew at `path` (through a symlink, at its target), with the damaged file's
    /// owner and mode; returns the notes for the user (``Restored/notes``). Other hard links of
    /// the damaged file keep its bytes, and a note says so, except those among `repairedLater`
    /// (`ln a c; protect a c`: c is repaired next); names of the set's or its recovery set's
    /// files (`linked`) are not counted.
    ///
    /// With `keeping` (how little of the file is the set's, and the set's file paths), the file
    /// replaced, when this is its only name, is kept under the first free name `PATH.1`,
    /// `PATH.2`… that is no file of the set, as par2 keeps every damaged file.
    private static func restore(
        _ file: Par2RecoverySet.File, path: String, sliceSize: Int, rebuilt: Par2Repairer.Rebuilt?, fsync: Bool,
        repairedLater: [String] = [], linked: LinkedNames, keeping: (Unlikeness, [String])? = nil
    ) throws -> [String] {
        let prepared = try prepare(
            file, path: path, sliceSize: sliceSize, rebuilt: rebuilt, fsync: fsync, repairedLater: repairedLater,
            linked: linked)
        var notes = prepared.notes
        var kept: String? = nil
        // A file with other hard links keeps its bytes there (the notes name those).
        if let (unlikeness, setPaths) = keeping, let read = prepared.read, read.st_nlink == 1 {
            do {
                kept = try keepReplaced(prepared.finalPath, beside: path, avoiding: setPaths, unlikeness)
            } catch {
                prepared.output.discard()
                throw error
            }
            notes.append(
                "\(unlikeness.sentence(path)) (another file, or a newer version of it?): "
                    + "the file it held is kept as \(kept!.displayPath), as par2 keeps a damaged file")
        }
        do {
            try publish(prepared, fsync: fsync)
        } catch {
            if let kept { Syscall.unlink(kept) }
            throw error
        }
        return notes
    }

    /// Links the file at `finalPath` to the first free `PATH.N` (N from 1) beside `path` that is
    /// none of `avoiding`, and returns that name.
    ///
    /// ## Errors
    /// `.io` naming the file and `link` when it cannot be linked (another file system): nothing
    /// was replaced.
    private static func keepReplaced(
        _ finalPath: String, beside path: String, avoiding: [String], _ unlikeness: Unlikeness
    ) throws -> String {
        var number = 1
        while true {
            let name = "\(path).\(number)"
            number += 1
            if avoiding.contains(where: { samePath($0, name) }) { continue }
            if link(finalPath, name) == 0 { return name }
            guard errno == EEXIST else {
                var failure = GCDCatError.syscall("link", path: name, errno: errno)
                failure.message +=
                    "; \(path.displayPath), of which \(unlikeness.clause), was kept there before it is "
                    + "replaced, so it was not repaired"
                throw failure
            }
        }
    }

    /// A repaired file written and checked, not yet named.
    struct Prepared {
        var output: AtomicOutputFile
        var path: String
        var finalPath: String
        /// What the replacement may replace (``requireUnchanged(_:read:shownAs:)``).
        var read: stat?
        var notes: [String]
    }

    /// Names `prepared`, replacing the damaged file (unless it changed meanwhile).
    private static func publish(_ prepared: Prepared, fsync: Bool) throws {
        do {
            try prepared.output.publish(fsync: fsync) {
                try requireUnchanged(prepared.finalPath, read: prepared.read, shownAs: prepared.path)
            }
        } catch {
            prepared.output.discard()
            throw error
        }
        LeftoverTemporaries.noteStale(for: [prepared.finalPath])
    }

    /// Writes `file` unnamed for `path` and checks it against its MD5 (``restore``'s first half):
    /// its bytes come from `found` (a file that holds them whole) when given, else from the
    /// damaged file and `rebuilt`.
    private static func prepare(
        _ file: Par2RecoverySet.File, path: String, sliceSize: Int, rebuilt: Par2Repairer.Rebuilt?, fsync: Bool,
        repairedLater: [String] = [], linked: LinkedNames, from found: Int32? = nil
    ) throws -> Prepared {
        let damaged: OwnedDescriptor? = try? Syscall.openRegularFile(path).takeDescriptor()
        let source = damaged.raw  // lent to the reads below, all done while `damaged` lives
        // A symlink is repaired through: its target gets the rebuilt bytes, the link stays.
        let linkInfo = (try? Syscall.statIfExists(path, followLinks: false)).flatMap { $0 }
        let isLink = linkInfo.map { $0.st_mode & S_IFMT == S_IFLNK } ?? false
        let finalPath = isLink ? Syscall.realPath(path) ?? path : path
        // What the replacement may replace: the file read, or what was there when none could be.
        let read =
            try source.map { try Syscall.fstat($0, path: path) } ?? Syscall.statIfExists(finalPath, followLinks: false)
        let output = try AtomicOutputFile(finalPath: finalPath, overwrite: true)
        var notes: [String] = []
        do {
            // The replacement keeps the damaged file's owner, then its permissions (a private file
            // stays private; chown clears set-id bits, so the mode comes after).
            if let source, let damaged = try? Syscall.fstat(source, path: path) {
                notes = try keepOwner(of: damaged, on: output.fd, path: path)
                if fchmod(output.fd, damaged.st_mode & 0o7777) != 0 {
                    throw GCDCatError.syscall("fchmod", path: path, errno: errno)
                }
                let repairedLinks = repairedLater.filter { later in
                    guard let info = try? Syscall.statIfExists(later) else { return false }
                    return info.st_dev == damaged.st_dev && info.st_ino == damaged.st_ino
                }.count
                // Said once, by the last name of the set repaired (the earlier ones' links are gone).
                let others =
                    repairedLinks == 0 && damaged.st_nlink > 1
                    ? Int(damaged.st_nlink) - 1 - linked.count(of: damaged, other: finalPath) : 0
                if others > 0 {
                    let one = others == 1
                    notes.append(
                        "\(path.displayPath) had \(others) other hard link\(one ? "" : "s") (\(one ? "a name" : "names") "
                            + "that \(one ? "is" : "are") no file of the set), which still hold\(one ? "s" : "") the "
                            + "damaged bytes: the repaired file is a new one at this name (as par2 repair's is); link "
                            + "\(one ? "that name" : "those names") to it again if \(one ? "it" : "they") should hold "
                            + "the repaired bytes")
                }
            }
            let whole = MD5Stream()
            try Par2FileBytes(sliceSize: sliceSize, path: path).forEachStretch(
                of: file, source: found ?? source, path: path, rebuilt: rebuilt
            ) { offset, bytes in
                whole.update(bytes)
                try Syscall.pwriteAll(
                    output.fd, from: bytes.baseAddress!, count: bytes.count, offset: offset, path: path)
            }
            guard whole.finalize() == file.md5 else {
                throw GCDCatError(
                    .checksumMismatch, path: path,
                    message: "the repaired file does not have the set's MD5; it was not written")
            }
            try output.finishWriting(fsync: fsync)
        } catch {
            output.discard()
            throw error
        }
        return Prepared(output: output, path: path, finalPath: finalPath, read: read, notes: notes)
    }

    /// Gives the new file `fd` the owner and group of `damaged`; when that is not permitted (a
    /// user repairing another's file), the note to give, naming both owners.
    ///
    /// ## Errors
    /// `.io` naming the file and `fchown` for any other failure.
    static func keepOwner(of damaged: stat, on fd: Int32, path: String) throws -> [String] {
        let created = try Syscall.fstat(fd, path: path)
        guard created.st_uid != damaged.st_uid || created.st_gid != damaged.st_gid else { return [] }
        guard fchown(fd, damaged.st_uid, damaged.st_gid) != 0 else { return [] }
        let code = errno
        guard code == EPERM else { throw GCDCatError.syscall("fchown", path: path, errno: code) }
        return [
            "\(path.displayPath) was owned by uid \(damaged.st_uid) gid \(damaged.st_gid); the repaired file is "
                + "owned by uid \(created.st_uid) gid \(created.st_gid), since fchown was not permitted "
                + "(\(describeErrno(code))): repair as its owner or as root to keep it"
        ]
    }
}
