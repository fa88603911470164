import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Deletes the parts of a finished merge (`merge --remove-parts`).
///
/// The caller runs it only after the output is committed, checked against a verified manifest
/// and fsynced. Right before each `unlink`, the path is `lstat`ed again and must still name the
/// regular file that was read, unchanged: the same device and inode (not a symlink to it), the
/// same size, modification time and status-change time. A part written to, truncated, touched,
/// replaced or swapped for a link since it was read is kept, with a warning: its bytes are not
/// the ones the output holds. The manifest is no part and stays.
///
/// The unlink does not go by the name that was checked: the part is first renamed to a private
/// name beside it (`renameat2(RENAME_NOREPLACE)`), checked again there, and only then unlinked.
/// A file swapped in at the part's name between the check and the rename is so caught (another
/// inode) and renamed back; one swapped in after the rename takes a name nobody unlinks. The part
/// is held open across its `unlink`: a write through a descriptor opened before (a downloader
/// still appending) that lands after the last check is seen on it afterwards, and the part's
/// bytes, new ones and all, are written back at its name. What no check can close is a write
/// landing after that, or within one tick of the filesystem's clock while keeping the size
/// (docs/notes/cow.md).
public enum PartRemoval {
    /// What a removal did.
    public struct Outcome: Sendable, Equatable {
        /// The parts unlinked, in order.
        public var removed: [String] = []
        /// One line per part kept because it changed since it was read.
        public var warnings: [String] = []
    }

    /// A removal that failed part-way: the first `unlink` error, and what was done before and
    /// after it (the other parts are still tried).
    public struct Failure: Error, Sendable {
        public var error: GCDCatError
        public var outcome: Outcome
    }

    /// Unlinks every part that is still, unchanged, the file that was read; warns of the others.
    ///
    /// `beforeUnlink` runs just before each part's first check, `beforeMovingAside` between
    /// that check and the rename, `afterLastCheck` between the check aside and the `unlink`
    /// (seams for tests that change or swap a part in those windows).
    ///
    /// ## Errors
    /// ``Failure`` with `.io` naming the first part whose `rename` or `unlink` failed.
    public static func remove(
        _ parts: [PartFile], beforeUnlink: (PartFile) -> Void = { _ in },
        beforeMovingAside: (PartFile) -> Void = { _ in }, afterLastCheck: (PartFile) -> Void = { _ in }
    ) throws(Failure) -> Outcome {
        var outcome = Outcome()
        var firstError: GCDCatError?
        let registry = CleanupRegistry.shared
        // Files this loop renamed or unlinked a name of: a part that is another name of one (a
        // hard link joined with --allow-duplicates) had its ctime changed by gcdcat itself.
        var touched: Set<[UInt64]> = []
        for part in parts {
            // A signal waits for the part being removed and stops the rest; its sweep names the
            // parts removed (CleanupRegistry.removedParts).
            guard registry.beginRemovingPart() else { break }
            var removed: String?
            beforeUnlink(part)
            let file = [part.device, part.inode]
            if let change = change(of: part, comparingChangeTime: !touched.contains(file)) {
                outcome.warnings.append("\(part.path.displayPath) kept: \(change)")
            } else {
                beforeMovingAside(part)
                touched.insert(file)
                do {
                    removed = try removeAside(part, warnings: &outcome.warnings, afterLastCheck: afterLastCheck)
                } catch {
                    firstError = firstError ?? error
                }
            }
            if let removed { outcome.removed.append(removed) }
            if registry.endRemovingPart(removed) { InterruptHandler.awaitSweep() }
        }
        if let firstError { throw Failure(error: firstError, outcome: outcome) }
        return outcome
    }

    /// What a run stopped during `--remove-parts` (a failed `unlink`, a signal) says of the
    /// parts it removed before; nil when it removed none.
    public static func removedNote(_ removed: [String]) -> String? {
        guard !removed.isEmpty else { return nil }
        let names = removed.map(\.displayPath)
        let list =
            names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        return "--remove-parts removed \(list) before it stopped"
    }

    /// Renames `part` to a private name, checks it there and unlinks it; returns its path, or nil
    /// (with a warning) when the file moved aside is not the part that was read, which is then
    /// renamed back.
    private static func removeAside(
        _ part: PartFile, warnings: inout [String], afterLastCheck: (PartFile) -> Void
    ) throws(GCDCatError) -> String? {
        let aside = asideName(for: part.path)
        try Syscall.rename(part.path, to: aside, replace: false)
        // A rename changes the ctime; the first check compared it.
        if let change = change(of: part, at: aside, comparingChangeTime: false) {
            do {
                try Syscall.rename(aside, to: part.path, replace: false)
                warnings.append("\(part.path.displayPath) kept: \(change)")
            } catch {
                warnings.append(
                    "\(part.path.displayPath) kept as \(aside.displayPath): \(change), and its name was taken again "
                        + "meanwhile")
            }
            return nil
        }
        let held = try? OwnedDescriptor(opening: aside, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        afterLastCheck(part)
        let code = Syscall.unlink(aside)
        guard code == 0 else {
            // Back at its name, the part is what the error names; the aside name means nothing to the user.
            try? Syscall.rename(aside, to: part.path, replace: false)
            throw GCDCatError.syscall("unlink", path: part.path, errno: code)
        }
        // The unlink changed the ctime; a write since the check changed the size or the mtime.
        guard let held, let info = try? Syscall.fstat(held.raw, path: aside),
            UInt64(info.st_ino) == part.inode,
            Int64(info.st_size) != part.size || nanoseconds(info.st_mtim) != part.modifiedNanoseconds
        else { return part.path }
        do {
            let restored = try restore(held.raw, size: Int64(info.st_size), mode: info.st_mode & 0o7777, to: part.path)
            warnings.append(
                "\(part.path.displayPath) kept: it was written to while it was being removed (now "
                    + "\(info.st_size) bytes); its bytes were written back "
                    + (restored == part.path
                        ? "at its name" : "as \(restored.displayPath), since a new file took its name meanwhile"))
        } catch {
            throw GCDCatError(
                .io, path: part.path, syscall: error.syscall, errno: error.errno,
                message:
                    "was written to while it was being removed, and its bytes could not be written back (\(error.message)); "
                    + "they are lost unless the writer still has them")
        }
        return nil
    }

    /// Writes the `size` bytes of the unlinked part open at `fd` to a new file at `path` (beside
    /// it first, then renamed; never over a file that took the name meanwhile, when they stay at
    /// `path.rescued`, or else at the name beside). Returns where they are.
    private static func restore(_ fd: Int32, size: Int64, mode: mode_t, to path: String) throws(GCDCatError)
        -> String
    {
        let temporary = asideName(for: path) + ".restoring"
        let output = try OwnedDescriptor(opening: temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode)
        do throws(GCDCatError) {
            var offset: Int64 = 0
            while offset < size {
                let copied = Syscall.copyFileRange(
                    from: fd, at: &offset, to: output.raw, at: nil, count: Int(min(size - offset, 1 << 30)),
                    paths: (path, temporary))
                if copied < 0 { throw GCDCatError.syscall("copy_file_range", path: temporary, errno: errno) }
                if copied == 0 { break }
            }
            try Syscall.fsync(output.raw, path: temporary)
        } catch {
            _ = Syscall.unlink(temporary)
            throw error
        }
        for name in [path, path + ".rescued"] {
            if (try? Syscall.rename(temporary, to: name, replace: false)) != nil { return name }
        }
        return temporary
    }

    /// A name beside `path` that no set and no other run uses: hidden, with this process's id.
    static func asideName(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return "\(folder).\(name).gcdcat-removing.\(getpid())"
    }

    /// How the file at `path` (the part's own by default) differs from the part that was read,
    /// or nil when it is the same regular file with the same size, mtime and (when compared) ctime.
    static func change(of part: PartFile, at path: String? = nil, comparingChangeTime: Bool = true) -> String? {
        let path = path ?? part.path
        guard let info = try? Syscall.statIfExists(path, followLinks: false) else {
            return "it is gone or cannot be examined"
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return "it is a symlink or no longer the file that was read" }
        let now = PartFile(path: path, info: info)
        guard now.device == part.device, now.inode == part.inode else {
            return "it was replaced by another file since it was read"
        }
        guard now.size == part.size else {
            return "its size changed from \(part.size) to \(now.size) bytes since it was read"
        }
        guard now.modifiedNanoseconds == part.modifiedNanoseconds,
            !comparingChangeTime || now.changedNanoseconds == part.changedNanoseconds
        else { return "it was modified since it was read (its mtime or ctime changed)" }
        return nil
    }
}
