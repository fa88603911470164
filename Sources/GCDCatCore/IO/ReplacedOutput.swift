import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What `split --force` finds of an older set at one of its names, and removes, the same way
/// for a file and an object: the rule of ``PublishOrder`` (which old names go, in which order)
/// is written once, over this.
extension OutputTarget {
    /// Whether an older output is at this name: a regular file (a symlink or a device is never
    /// removed), or an object.
    ///
    /// ## Errors
    /// `lstat`'s errors other than ENOENT; the store's HeadObject errors.
    func holdsOlderOutput() throws -> Bool {
        switch self {
        case .path(let path):
            guard let info = try Syscall.statIfExists(path, followLinks: false) else { return false }
            return info.st_mode & S_IFMT == S_IFREG
        case .object(let target):
            return try target.store.head(target.location) != nil
        case .standardOutput:
            return false
        }
    }

    /// Removes the older output at this name; one already gone is fine.
    ///
    /// ## Errors
    /// `unlink`'s errors other than ENOENT, naming the path; the store's DeleteObject errors.
    func removeOlderOutput() throws {
        switch self {
        case .path(let path):
            let code = Syscall.unlink(path)
            if code != 0 && code != ENOENT { throw GCDCatError.syscall("unlink", path: path, errno: code) }
        case .object(let target):
            try target.store.delete(target.location)
        case .standardOutput:
            return
        }
    }
}
