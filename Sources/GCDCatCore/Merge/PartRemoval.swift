#if canImport(Glibc)
    import Glibc
#endif

/// Deletes the parts of a finished merge (`merge --remove-parts`).
///
/// The caller runs it only after the output is committed, checked against a verified manifest
/// and fsynced. A path is deleted only while it still names the regular file that was read (the
/// same device and inode, not a symlink to it): a part replaced or swapped for a link since it
/// was read is kept, with a warning. The manifest is no part and stays.
public enum PartRemoval {
    /// Unlinks every part that is still the file that was read; returns the warnings for those
    /// kept.
    ///
    /// ## Errors
    /// `.io` naming the first part whose `unlink` failed (the others are still tried).
    public static func remove(_ parts: [PartFile]) throws -> [String] {
        var warnings: [String] = []
        var firstError: GCDCatError?
        for part in parts {
            let info = try? Syscall.statIfExists(part.path, followLinks: false)
            guard let info, info.st_mode & S_IFMT == S_IFREG, UInt64(info.st_dev) == part.device,
                UInt64(info.st_ino) == part.inode
            else {
                warnings.append("\(part.path.displayPath) is a symlink or no longer the file that was read; kept")
                continue
            }
            let code = Syscall.unlink(part.path)
            if code != 0 && firstError == nil {
                firstError = GCDCatError.syscall("unlink", path: part.path, errno: code)
            }
        }
        if let firstError { throw firstError }
        return warnings
    }
}
