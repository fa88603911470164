import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

extension Par2RecoverySet {
    /// The regular files of an older recovery set at `index` (`NAME.par2`) and its volumes
    /// (`NAME.volNN+MM.par2`, in any numbering width), less those in `written`: what a `--force`
    /// that writes a new set there must remove, since an old volume left beside the new set
    /// would "mend" the files back into the old contents once the index is gone.
    static func staleFiles(index: String, keeping written: [String]) throws -> [String] {
        let (folder, name) = splitPath(index)
        let prefix = index.contains("/") ? folder + "/" : ""
        let base = volumeBase(name)
        let volumes = try directoryEntries(folder).sorted().filter {
            isVolumeName($0) && volumeBase($0) == base
        }.map { prefix + $0 }
        return try ([index] + volumes).filter { path in
            guard let info = try Syscall.statIfExists(path, followLinks: false), info.st_mode & S_IFMT == S_IFREG
            else { return false }
            return !written.contains { samePath($0, path) }
        }
    }
}
