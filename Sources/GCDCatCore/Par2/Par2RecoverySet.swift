#if canImport(Glibc)
    import Glibc
#endif

/// What a PAR2 recovery set says, from packets whose hashes checked out: the slice size, the
/// files in the main packet's order (the order of the input slices), each file's hashes and
/// per-slice checksums, and where the usable recovery slices lie.
public struct Par2RecoverySet: Sendable {
    public struct SliceChecksum: Sendable, Equatable {
        public var md5: Par2Hash
        public var crc32: UInt32
    }

    public struct File: Sendable {
        public var id: Par2Hash
        /// Relative to the set's folder, checked to stay inside it (lossless, see ``PathName``).
        public var name: String
        public var length: Int64
        public var md5: Par2Hash
        public var md5First16K: Par2Hash
        public var slices: [SliceChecksum]
        /// The global index of the file's first input slice.
        public var firstSlice: Int
    }

    /// PAR2 can give at most this many input slices a distinct constant (2^n with n coprime to
    /// 65535: φ(65535) = 32768).
    public static let maximumSlices = 32768
    /// A slice is held in memory for every block a repair rebuilds, and once per recovery block
    /// by create: larger slices are refused before anything is allocated.
    public static let maximumSliceSize = 1 << 30
    /// The most files a set may name: PAR2's main packet can list more, but no set gcdcat reads
    /// or writes needs them (a split makes at most 50 000 parts).
    public static let maximumFiles = 65536

    public var setID: Par2Hash
    public var sliceSize: Int
    public var files: [File]
    /// One per exponent, in exponent order.
    public var recoverySlices: [Par2RecoverySliceLocation]
    public var creator: String?
    /// Packets skipped because their hash failed or their length was impossible.
    public var damagedPackets: Int
    /// Where each of them lies (filled by ``load(indexPath:)``), for ``damagedPacketNotes``.
    public var damagedPacketSites: [Par2DamagedPacket] = []
    /// The folder that the files' names are relative to.
    public var directory: String
    /// The .par2 file the set was read from, for messages.
    public var origin: String
    /// Volumes beside `origin`, named as its own, whose packets are all of another set: ignored.
    public var foreignVolumes: [String] = []
    /// The .par2 files read (`origin` and the volumes beside it) that hold packets of this set.
    public var ownFiles: [String] = []
    /// Files named as volumes of the set that hold no PAR2 packet at all (junk under a
    /// volume's name): ignored, and named by ``notPar2Notes``.
    public var notPar2Files: [String] = []
    /// Notes on entries at volume names that are no regular file (a folder, a FIFO): skipped.
    public var skippedEntries: [String] = []
    /// The header every file after the first repeats (a `split --header-lines` set), from
    /// gcdcat's record (``Par2SetRecord``); a merge drops it from each of them.
    public var header: Par2SetRecord.Header?

    public var sliceCount: Int { files.last.map { $0.firstSlice + $0.slices.count } ?? 0 }

    /// What to tell the user about ``foreignVolumes``.
    public var foreignVolumeNotes: [String] {
        skippedEntries
            + foreignVolumes.map {
                "\($0.displayPath) is a volume of another recovery set (its set id is not \(origin.displayPath)'s); ignored"
            }
    }

    /// The path of `file` on disk (its bare name when the set is in the current folder).
    public func path(of file: File) -> String { directory == "." ? file.name : directory + "/" + file.name }
}

extension Par2RecoverySet {
    /// The set described by `indexPath` (`NAME.par2` or any of its volumes) and every
    /// `NAME.volNN+MM.par2` beside it, as par2cmdline gathers them.
    ///
    /// ## Errors
    /// `.io` when a .par2 file cannot be read; `.malformedManifest` naming `indexPath` when no
    /// usable set can be assembled (see ``assemble(_:damaged:directory:origin:)``).
    public static func load(indexPath: String) throws -> Par2RecoverySet {
        let (directory, name) = splitPath(indexPath)
        var paths = [indexPath]
        let base = volumeBase(name)
        let entries: [String]
        do { entries = try directoryEntries(directory) } catch let error as GCDCatError { throw error } catch {
            throw GCDCatError(.io, path: directory, message: "\(error)")
        }
        var skipped: [String] = []
        for entry in entries.sorted() where entry != name && entry.hasPrefix(base + ".") && isVolumeName(entry) {
            // Spelt as the index is (`s.vol00+01.par2` beside `s.par2`, not `./s.vol00+01.par2`).
            guard volumeBase(entry) == base else { continue }
            let path = Par2PartList.folderPrefix(of: indexPath) + entry
            // A folder or FIFO at a volume's name holds no packet: skipped, as par2 does.
            if let info = try? Syscall.statIfExists(path), info.st_mode & S_IFMT != S_IFREG {
                skipped.append(
                    "\(path.displayPath): \(Syscall.notRegularReason(info.st_mode)), so no volume of the set; skipped")
                continue
            }
            paths.append(path)
        }
        guard try Syscall.statIfExists(indexPath) != nil || paths.count == 1 else {
            throw missingIndex(indexPath, volumes: Array(paths.dropFirst()))
        }
        var packets: [Par2ScannedPacket] = []
        var damaged: [Par2DamagedPacket] = []
        var notPar2: [String] = []
        var setIDs: [(path: String, ids: Set<Par2Hash>)] = []
        for path in paths {
            let scanned = try Par2PacketReader.scan(path: path)
            packets += scanned.packets
            damaged += scanned.damaged
            if scanned.packets.isEmpty && scanned.damaged.isEmpty { notPar2.append(path) }
            setIDs.append((path, Set(scanned.packets.map(\.setID))))
        }
        var set = try assemble(
            packets, damaged: damaged.count, directory: directory, origin: indexPath,
            volumes: Array(paths.dropFirst()))
        set.damagedPacketSites = damaged
        set.notPar2Files = notPar2
        // A volume left from an earlier set of the same name: par2 ignores it too, but silently.
        set.foreignVolumes = setIDs.filter { !$0.ids.isEmpty && !$0.ids.contains(set.setID) }.map(\.path)
        set.ownFiles = setIDs.filter { $0.ids.contains(set.setID) }.map(\.path)
        set.skippedEntries = skipped
        // A set that protects its own index or a volume: a repair would write over the file it
        // reads the recovery blocks from.
        let own = Set([name] + paths.dropFirst().map { splitPath($0).name })
        if let file = set.files.first(where: { own.contains($0.name) }) {
            throw GCDCatError(
                .malformedManifest, path: indexPath,
                message:
                    "protects \(file.name.displayPath), which is this set's own index or recovery volume, so it "
                    + "cannot be used: a repair would write over the recovery data it reads")
        }
        return set
    }

    /// The error for a missing index beside `volumes`: it names a volume to give instead, one
    /// that holds a PAR2 packet (a junk file under a volume's name would only mislead), or says
    /// that none does.
    private static func missingIndex(_ indexPath: String, volumes: [String]) -> GCDCatError {
        let usable = volumes.first { path in
            guard let file = try? Syscall.openRegularFile(path) else { return false }
            return (try? Par2PacketReader.findMagic(file.raw, path: path, from: 0, size: file.size)) != nil
        }
        let message =
            usable.map {
                "not found, but \(volumes.count) recovery volumes of its set lie beside it, and each holds the set's "
                    + "description: give one instead (gcdcat verify \($0.displayPath))"
            }
            ?? "not found, and \(volumes.count == 1 ? "the file" : "none of the \(volumes.count) files") named as "
            + "its recovery volume\(volumes.count == 1 ? "" : "s") beside it (\(volumes[0].displayPath)"
            + "\(volumes.count == 1 ? "" : ", …")) \(volumes.count == 1 ? "is not" : "is") a PAR2 file (no PAR2 "
            + "packet in it): the set cannot be read"
        return GCDCatError(.missingPart, path: indexPath, syscall: "open", errno: ENOENT, message: message)
    }

    /// `NAME` for `NAME.par2` and `NAME.vol03+04.par2`.
    static func volumeBase(_ name: String) -> String {
        var base = Substring(name)
        if base.lowercased().hasSuffix(".par2") { base = base.dropLast(5) }
        guard let dot = base.lastIndex(of: ".") else { return String(base) }
        let tail = base[base.index(after: dot)...]
        guard tail.hasPrefix("vol") else { return String(base) }
        let pieces = tail.dropFirst(3).split(separator: "+", omittingEmptySubsequences: false)
        let numeric = pieces.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        return pieces.count == 2 && numeric ? String(base[..<dot]) : String(base)
    }

    static func isVolumeName(_ name: String) -> Bool {
        name.lowercased().hasSuffix(".par2") && volumeBase(name) != String(name.dropLast(5))
    }
}
