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
/// What no check can close is the moment between that `lstat` and the `unlink`, and a write
/// that lands within one tick of the filesystem's clock and keeps the size
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
    /// `beforeUnlink` runs just before each part's last check (a seam for tests that change a
    /// part in that window).
    ///
    /// ## Errors
    /// ``Failure`` with `.io` naming the first part whose `unlink` failed.
    public static func remove(_ parts: [PartFile], beforeUnlink: (PartFile) -> Void = { _ in }) throws(Failure)
        -> Outcome
    {
        var outcome = Outcome()
        var firstError: GCDCatError?
        for part in parts {
            beforeUnlink(part)
            if let change = change(of: part) {
                outcome.warnings.append("\(part.path.displayPath) kept: \(change)")
                continue
            }
            let code = Syscall.unlink(part.path)
            if code == 0 {
                outcome.removed.append(part.path)
            } else if firstError == nil {
                firstError = GCDCatError.syscall("unlink", path: part.path, errno: code)
            }
        }
        if let firstError { throw Failure(error: firstError, outcome: outcome) }
        return outcome
    }

    /// How the file at `part.path` differs from the part that was read, or nil when it is the
    /// same regular file with the same size, mtime and ctime.
    static func change(of part: PartFile) -> String? {
        guard let info = try? Syscall.statIfExists(part.path, followLinks: false) else {
            return "it is gone or cannot be examined"
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return "it is a symlink or no longer the file that was read" }
        let now = PartFile(path: part.path, info: info)
        guard now.device == part.device, now.inode == part.inode else {
            return "it was replaced by another file since it was read"
        }
        guard now.size == part.size else {
            return "its size changed from \(part.size) to \(now.size) bytes since it was read"
        }
        guard now.modifiedNanoseconds == part.modifiedNanoseconds, now.changedNanoseconds == part.changedNanoseconds
        else { return "it was modified since it was read (its mtime or ctime changed)" }
        return nil
    }
}
