import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

extension Par2RecoverySet {
    /// The regular files at the names of a recovery set at `index` (`NAME.par2`) and its volumes
    /// (`NAME.volNN+MM.par2`, in any numbering width), whatever they hold.
    static func filesAtSetNames(index: String) throws -> [String] {
        let (folder, name) = splitPath(index)
        let prefix = index.contains("/") ? folder + "/" : ""
        let base = volumeBase(name)
        let volumes = try directoryEntries(folder).sorted().filter {
            isVolumeName($0) && volumeBase($0) == base
        }.map { prefix + $0 }
        return try ([index] + volumes).filter { path in
            guard let info = try Syscall.statIfExists(path, followLinks: false) else { return false }
            return info.st_mode & S_IFMT == S_IFREG
        }
    }

    /// The files of an older recovery set at `index` and its volumes, less those in `written`:
    /// what a `--force` that writes a new set there must remove, since an old volume left beside
    /// the new set would "mend" the files back into the old contents once the index is gone.
    /// Only PAR2 files go: the index when it is one, and the volumes of its recovery set (with no
    /// index, each volume of a single set). A file that merely has such a name (a user's notes
    /// at `f.bin.vol7+3.par2`) is no set's, and is left alone.
    static func staleFiles(index: String, keeping written: [String]) throws -> [String] {
        let files = try filesAtSetNames(index: index)
        let indexIDs = try files.first.flatMap { samePath($0, index) ? try setIDs(ofFileAt: $0) : nil }
        return try files.filter { path in
            guard !written.contains(where: { samePath($0, path) }), let ids = try setIDs(ofFileAt: path) else {
                return false
            }
            if samePath(path, index) { return true }
            return ids.count == 1 && (indexIDs.map { $0.count != 1 || $0 == ids } ?? true)
        }
    }

    /// The recovery set ids of the valid packets in `path`, or nil when it is no PAR2 file: it
    /// does not start with a packet's magic (every PAR2 file does), or holds no valid packet.
    static func setIDs(ofFileAt path: String) throws -> Set<Par2Hash>? {
        let file = try Syscall.openRegularFile(path)
        var magic = [UInt8](repeating: 0, count: Par2Packet.magic.count)
        let got = try magic.withUnsafeMutableBytes { (buffer) throws -> Int in
            try Syscall.pread(file.raw, into: buffer.baseAddress!, count: buffer.count, offset: 0, path: path)
        }
        guard got == magic.count, magic == Par2Packet.magic else { return nil }
        let ids = Set(try Par2PacketReader.scan(path: path).packets.map(\.setID))
        return ids.isEmpty ? nil : ids
    }
}
