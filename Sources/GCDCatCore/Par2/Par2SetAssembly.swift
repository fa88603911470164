extension Par2RecoverySet {
    /// The recovery set that `packets` describe, every count and size checked before use.
    ///
    /// ## Errors
    /// `.malformedManifest` naming `origin` when there is no intact main packet, a file's description or slice checksums are all damaged, a name
    /// would leave the set's folder, or a count or size is out of PAR2's bounds.
    ///
    /// `volumes` are the recovery volumes read besides `origin`, which messages count.
    public static func assemble(
        _ packets: [Par2ScannedPacket], damaged: Int, directory: String, origin: String, volumes: [String] = []
    ) throws -> Par2RecoverySet {
        func fail(_ message: String) -> GCDCatError { GCDCatError(.malformedManifest, path: origin, message: message) }
        let mains = packets.filter { $0.type == .main && Par2Hash.md5($0.body) == $0.setID }
        guard let main = mains.first else {
            guard !packets.isEmpty || damaged > 0 else { throw fail("not a PAR2 file (no PAR2 packet in it)") }
            // PAR2 repeats the main packet in every volume: say whether another copy was there.
            let copies =
                volumes.isEmpty
                ? "and no recovery volume (NAME.volNN+MM.par2) lies beside it with another copy"
                : "in it and in all \(volumes.count) recovery volumes beside it"
            throw fail(
                "the main packet is damaged or missing \(copies) (\(packets.count) intact, \(damaged) damaged "
                    + "packets): the set cannot be read")
        }
        // Packets of another set (an old volume left beside a re-created set) are ignored: the
        // set is the one whose main packet comes first, the given file's own when it has one.
        let body = main.body[...]
        guard body.count >= 12, (body.count - 12) % 16 == 0 else { throw fail("main packet has a bad length") }
        let sliceSize = readLittleEndian(UInt64.self, body, at: 0)
        let fileCount = Int(readLittleEndian(UInt32.self, body, at: 8))
        guard sliceSize > 0, sliceSize % 4 == 0, sliceSize <= UInt64(maximumSliceSize) else {
            throw fail("slice size \(sliceSize) is out of bounds (a multiple of 4, at most \(maximumSliceSize))")
        }
        guard fileCount <= (body.count - 12) / 16 else { throw fail("main packet counts more files than it lists") }
        let mine = packets.filter { $0.setID == main.setID }
        var files: [File] = []
        var names = Set<String>()
        for index in 0..<fileCount {
            let id = Par2Hash(body[(body.startIndex + 12 + 16 * index)...].prefix(16))
            var file = try describe(id, in: mine, sliceSize: Int(sliceSize), fail: fail)!
            guard names.insert(file.name).inserted else { throw fail("names \(file.name.displayPath) twice") }
            file.firstSlice = files.last.map { $0.firstSlice + $0.slices.count } ?? 0
            guard file.firstSlice + file.slices.count <= maximumSlices else {
                throw fail("more than \(maximumSlices) input slices")
            }
            files.append(file)
        }
        // The non-recovery set: its empty files (a split's empty parts) have no block to check
        // or rebuild, but are files of the set, recreated when lost. Others, not protected by
        // the recovery blocks, are left aside as before.
        let sliceCount = files.last.map { $0.firstSlice + $0.slices.count } ?? 0
        for index in fileCount..<((body.count - 12) / 16) {
            let id = Par2Hash(body[(body.startIndex + 12 + 16 * index)...].prefix(16))
            guard var file = try describe(id, in: mine, sliceSize: Int(sliceSize), fail: fail, required: false),
                file.length == 0, names.insert(file.name).inserted
            else { continue }
            file.firstSlice = sliceCount
            files.append(file)
        }
        // gcdcat's record (``Par2SetRecord``): the set's empty files, which PAR2 cannot list,
        // are files of it with no block, as an empty non-recovery file is; and its repeated header.
        let record = mine.lazy.filter { $0.type == .gcdcatRecord }.compactMap { Par2SetRecord.decode($0.body) }.first
        for rawName in record?.emptyFiles ?? [] {
            let localName = Par2Backslash.asSeparators(rawName)
            let name = PathName.decode(localName)
            if let why = unsafeNameReason(localName) { throw fail("file name \(name.displayPath) \(why)") }
            guard names.insert(name).inserted else { continue }
            guard files.count < maximumFiles else { throw fail("more than \(maximumFiles) files") }
            let empty = Par2Hash.md5([])
            files.append(
                File(
                    id: Par2Hash.md5(empty.bytes + littleEndian(UInt64(0)) + rawName), name: name, length: 0,
                    md5: empty, md5First16K: empty, slices: [], firstSlice: sliceCount))
        }
        var recovery: [Int: Par2RecoverySliceLocation] = [:]
        for packet in mine {
            guard let slice = packet.recovery, slice.length == Int(sliceSize), slice.exponent < GaloisField16.order
            else { continue }
            if recovery[slice.exponent] == nil { recovery[slice.exponent] = slice }
        }
        let creator = mine.first { $0.type == .creator }.map {
            String(decoding: $0.body.prefix { $0 != 0 }, as: UTF8.self)
        }
        return Par2RecoverySet(
            setID: main.setID, sliceSize: Int(sliceSize), files: files,
            recoverySlices: recovery.keys.sorted().map { recovery[$0]! }, creator: creator,
            damagedPackets: damaged, directory: directory, origin: origin, header: record?.header)
    }

    /// The file `id` from its first intact description and slice-checksum packets; nil when
    /// no description is intact and it is not `required`.
    private static func describe(
        _ id: Par2Hash, in packets: [Par2ScannedPacket], sliceSize: Int, fail: (String) -> GCDCatError,
        required: Bool = true
    ) throws -> File? {
        var file: File?
        for packet in packets where packet.type == .fileDescription && packet.body.count >= 56 {
            let body = packet.body[...]
            guard Par2Hash(body.prefix(16)) == id else { continue }
            // Another copy that gives the file another MD5 under the same id (the id covers only
            // its first 16 KiB, length and name): volumes of another version of the set lie beside
            // this one, and mixing them would rebuild old bytes.
            if let file {
                guard Par2Hash(body[16..<32]) == file.md5 else {
                    throw fail(
                        "its volumes describe two versions of \(file.name.displayPath) (two MD5s for one file): "
                            + "recovery volumes of an older set of these names lie beside it; remove them, or move "
                            + "the set's own .par2 files to a folder of their own with the parts")
                }
                continue
            }
            let rawName = Array(body[56...].reversed().drop { $0 == 0 }.reversed())
            let length = readLittleEndian(UInt64.self, body, at: 48)
            // The id is the MD5 of (MD5 of the first 16 KiB, length, name): a description that
            // disagrees with its own id is not this file's.
            guard Par2Hash.md5(Array(body[32..<48]) + littleEndian(length) + rawName) == id else { continue }
            guard length <= UInt64(Int64.max) else { throw fail("file length \(length) is out of bounds") }
            // A `\` is a folder separator, as par2cmdline and turbo read it (``Par2Backslash``).
            let localName = Par2Backslash.asSeparators(rawName)
            let name = PathName.decode(localName)
            if let why = unsafeNameReason(localName) { throw fail("file name \(name.displayPath) \(why)") }
            file = File(
                id: id, name: name, length: Int64(length), md5: Par2Hash(body[16..<32]),
                md5First16K: Par2Hash(body[32..<48]), slices: [], firstSlice: 0)
        }
        guard var file else {
            guard required else { return nil }
            throw fail("every copy of file \(id)'s description is damaged or missing")
        }
        let expected = Int((file.length + Int64(sliceSize) - 1) / Int64(sliceSize))
        guard expected <= maximumSlices else {
            throw fail("\(file.name.displayPath) has more than \(maximumSlices) slices")
        }
        for packet in packets where packet.type == .sliceChecksums && packet.body.count >= 16 {
            let body = packet.body[...]
            guard Par2Hash(body.prefix(16)) == id, body.count == 16 + 20 * expected else { continue }
            file.slices = (0..<expected).map { slice in
                let start = body.startIndex + 16 + 20 * slice
                return SliceChecksum(
                    md5: Par2Hash(body[start..<start + 16]),
                    crc32: readLittleEndian(UInt32.self, body, at: 16 + 20 * slice + 16))
            }
            return file
        }
        if expected == 0 { return file }
        throw fail("every copy of \(file.name.displayPath)'s slice checksums is damaged or missing")
    }

    /// Why a name from a .par2 may not be used, or nil: it must stay inside the set's folder.
    static func unsafeNameReason(_ name: [UInt8]) -> String? {
        if name.isEmpty { return "is empty" }
        if name.contains(0) { return "contains a NUL byte" }
        if name.first == UInt8(ascii: "/") { return "is absolute" }
        let components = name.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.contains(where: { $0.elementsEqual("..".utf8) }) { return "contains '..'" }
        if components.contains(where: \.isEmpty) { return "has an empty component" }
        // `./a.bin` beside `a.bin` would name one file twice, each with its own bytes.
        if components.contains(where: { $0.elementsEqual(".".utf8) }) { return "has a '.' component" }
        // No file system takes such a name (NAME_MAX): verify called the file missing and repairable,
        // and repair failed after it had made the file's folder.
        if components.contains(where: { $0.count > 255 }) { return "has a component longer than 255 bytes" }
        if name.count >= 4096 { return "is longer than 4095 bytes" }
        return nil
    }
}
