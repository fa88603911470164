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
/// inode) and renamed back; one swapped in after the rename takes a name nobody unlinks. What no
/// check can close is a write through a descriptor opened before, landing after the last check,
/// or within one tick of the filesystem's clock while keeping the size (docs/notes/cow.md).
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
    /// that check and the rename (seams for tests that change or swap a part in those windows).
    ///
    /// ## Errors
    /// ``Failure`` with `.io` naming the first part whose `rename` or `unlink` failed.
    public static func remove(
        _ parts: [PartFile], beforeUnlink: (PartFile) -> Void = { _ in },
        beforeMovingAside: (PartFile) -> Void = { _ in }
    ) throws(Failure) -> Outcome {
        var outcome = Outcome()
        var firstError: GCDCatError?
        for part in parts {
            beforeUnlink(part)
            if let change = change(of: part) {
                outcome.warnings.append("\(part.path.displayPath) kept: \(change)")
                continue
            }
            beforeMovingAside(part)
            do {
                if let removed = try removeAside(part, warnings: &outcome.warnings) { outcome.removed.append(removed) }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw Failure(error: firstError, outcome: outcome) }
        return outcome
    }

    /// Renames `part` to a private name, checks it there and unlinks it; returns its path, or nil
    /// (with a warning) when the file moved aside is not the part that was read, which is then
    /// renamed back.
    private static func removeAside(_ part: PartFile, warnings: inout [String]) throws(GCDCatError) -> String? {
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
        let code = Syscall.unlink(aside)
        guard code == 0 else {
            // Back at its name, the part is what the error names; the aside name means nothing to the user.
            try? Syscall.rename(aside, to: part.path, replace: false)
            throw GCDCatError.syscall("unlink", path: part.path, errno: code)
        }
        return part.path
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
