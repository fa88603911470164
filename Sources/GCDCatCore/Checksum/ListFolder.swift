import CSystemShim
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The folder a checksum list's names are relative to, opened once per pass, so that a listed
/// file costs one `openat2` that also refuses a symlink leading out of the folder.
///
/// ## Implementation details
/// `openat2(folder, name, RESOLVE_BENEATH)` resolves the name inside the kernel and fails with
/// EXDEV when a symlink on the way is absolute or leads out: no `lstat` and no realpath(3) per
/// file (100,000 files spent a third of their system time in the `lstat`). Only then is the
/// name resolved with realpath(3), as before: an absolute symlink may still lead inside (it is
/// opened), and the message names where one leads outside. Where `openat2` is missing (Linux
/// before 5.6: ENOSYS) or the folder cannot be opened, each name is checked as before
/// (``linkRejection(_:name:realFolder:)``), then opened by its path.
final class ListFolder: Sendable {
    /// What a name's path starts with: the list's folder and a slash, or nothing for a list in
    /// the current folder (as ``ChecksumListVerifier/resolve(_:listPath:)`` gives it).
    private let prefix: String
    /// The folder's real path; nil when symlinks may lead anywhere (`--follow-links-outside`).
    let realPath: String?
    /// The folder, open with `O_PATH`; nil when confinement is off or it could not be opened.
    private let folder: OwnedDescriptor?
    /// `folder`'s number, lent to `openat2` (an optional noncopyable cannot be read in place).
    private let descriptor: Int32?
    /// `openat2` failed with ENOSYS once: the kernel has none.
    private let withoutOpenat2 = Atomic<Bool>(false)

    init(listPath: String, followLinksOutside: Bool) {
        prefix = ChecksumListVerifier.resolve("", listPath: listPath)
        realPath = followLinksOutside ? nil : Syscall.realPath(listPath == "-" ? "." : splitPath(listPath).directory)
        let fd = realPath.map { path in PathName.withPathCString(path) { gcdcat_open_folder($0) } } ?? -1
        descriptor = fd >= 0 ? fd : nil
        folder = fd >= 0 ? OwnedDescriptor(adopting: fd) : nil
    }

    /// The path `name` stands for, as messages and the JSON name it.
    func path(of name: String) -> String {
        prefix.isEmpty ? name : prefix + name
    }

    /// What opening a listed name gave: the file, or why it must not be opened.
    enum Opened: ~Copyable {
        case file(OwnedDescriptor)
        case rejected(String)
    }

    /// Opens `name` (whose path is `path`) for reading, without following a symlink out of
    /// the folder unless confinement is off.
    ///
    /// ## Errors
    /// `.missingPart` when nothing is there; `.io` naming `openat2` (or `open`) otherwise.
    func open(_ name: String, path: String) throws(GCDCatError) -> Opened {
        guard let realPath else { return .file(try Self.openPath(path)) }
        if let descriptor, !withoutOpenat2.load(ordering: .relaxed) {
            if let fd = try openBeneath(descriptor, name: name, path: path) {
                return .file(OwnedDescriptor(adopting: fd))
            }
            if let why = Self.outsideRejection(path, realFolder: realPath) { return .rejected(why) }
        } else if let why = Self.linkRejection(path, name: name, realFolder: realPath) {
            return .rejected(why)
        }
        return .file(try Self.openPath(path))
    }

    /// `openat2(folder, name, O_RDONLY | O_NONBLOCK | O_NOATIME, RESOLVE_BENEATH)` (without
    /// `O_NOATIME` for a file of another owner): the descriptor, or nil when the name must be
    /// resolved the slow way (EXDEV: a symlink leads out or is absolute; ENOSYS: no openat2;
    /// EAGAIN: a rename raced the lookup).
    private func openBeneath(_ folder: Int32, name: String, path: String) throws(GCDCatError) -> Int32? {
        var flags = O_RDONLY | O_NONBLOCK | PartFile.noAccessTimeFlag
        while true {
            let fd = Syscall.seam(.openat2, count: 0, paths: (path, nil)) { _ in
                Int(PathName.withPathCString(name) { gcdcat_open_beneath(folder, $0, flags) })
            }
            if fd >= 0 { return Int32(fd) }
            switch gcdcat_errno() {
            case EINTR: continue
            case EPERM where flags & PartFile.noAccessTimeFlag != 0: flags &= ~PartFile.noAccessTimeFlag
            case ENOSYS:
                withoutOpenat2.store(true, ordering: .relaxed)
                return nil
            case EXDEV, EAGAIN: return nil
            case ENOENT: throw PartFile.missing(path)
            case let code: throw GCDCatError.syscall("openat2", path: path, errno: code)
            }
        }
    }

    /// `open(path)`, as ``PartFile/openValidated(_:noAccessTime:)`` opens a part.
    private static func openPath(_ path: String) throws(GCDCatError) -> OwnedDescriptor {
        try PartFile.openForReading(path, noAccessTime: true)
    }

    /// Without `openat2`: one `lstat` of `path` (`name` in the folder), and realpath(3) only for
    /// a symlink or a name with folders (a plain name that is no symlink lies in the folder).
    private static func linkRejection(_ path: String, name: String, realFolder: String) -> String? {
        guard let info = try? Syscall.statIfExists(path, followLinks: false) else { return nil }
        guard info.st_mode & S_IFMT == S_IFLNK || name.contains("/") else { return nil }
        return outsideRejection(path, realFolder: realFolder)
    }

    /// Why `path` must not be opened: its real path lies outside the list's real `folder`,
    /// because a symlink on the way leads out. Nil when it is inside or does not resolve.
    private static func outsideRejection(_ path: String, realFolder folder: String) -> String? {
        guard let target = Syscall.realPath(path) else { return nil }
        return lies(target, inside: folder)
            ? nil : "a symlink leads outside the manifest's folder, to \(target.displayPath)"
    }

    /// Whether the real path `target` is the real path `folder` or lies under it. The folder
    /// itself (a listed `.`) is inside: opening it fails as a folder, not as an escape.
    static func lies(_ target: String, inside folder: String) -> Bool {
        target == folder || (folder == "/" ? target.hasPrefix("/") : target.hasPrefix(folder + "/"))
    }
}
