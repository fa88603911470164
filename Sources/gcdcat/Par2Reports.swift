import FoundationEssentials
import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// What `verify NAME.par2` and `repair NAME.par2` found about one recovery set: the JSON
/// document's `sets` entries (docs/json-schema/verify-par2.json, repair.json) and the text lines.
struct Par2SetReport: Encodable {
    struct File: Encodable {
        var name: String
        var path: String
        var status: Par2FileStatus.State
        var blocks: Int
        var badBlocks: Int
        var size: Int64
        var sizeOnDisk: Int64?
        /// The file that holds its bytes whole (renamed or swapped), where repair copies them from.
        var foundIn: String?
    }

    var par2: String
    var setID: String
    var blockSize: Int
    var sourceBlocks: Int
    var recoveryBlocks: Int
    var damagedPackets: Int
    var creator: String?
    var files: [File]
    var badBlocks: Int
    var repairable: Bool
    var exitStatus: Int32
    /// What the text report prints as notes beside the verdict (``Par2Verification/notes``, and
    /// the damaged packets' lines); nil (left out) when there are none.
    var notes: [String]?

    init(par2: String, _ verification: Par2Verification) {
        let set = verification.set
        self.par2 = par2
        setID = set.setID.description
        blockSize = set.sliceSize
        sourceBlocks = set.sliceCount
        recoveryBlocks = set.recoverySlices.count
        damagedPackets = set.damagedPackets
        creator = set.creator
        files = zip(set.files, verification.files).map { file, status in
            File(
                name: file.name, path: set.path(of: file), status: status.state, blocks: file.slices.count,
                badBlocks: status.badSlices.count, size: file.length, sizeOnDisk: status.sizeOnDisk,
                foundIn: status.foundIn)
        }
        badBlocks = verification.badSliceCount
        repairable = verification.isRepairable
        exitStatus = Self.exitStatus(verification)
        let notes = verification.notes + set.damagedPacketNotes
        self.notes = notes.isEmpty ? nil : notes
    }

    /// 0 every file complete; 2 files differ from the set but its recovery blocks can mend them
    /// (par2's 1); 1 they cannot (par2's 2): data is lost, the check is as incomplete as a
    /// missing file makes any other list's.
    static func exitStatus(_ verification: Par2Verification) -> Int32 {
        verification.isComplete ? 0 : verification.isRepairable ? 2 : 1
    }

    /// One line per file: `NAME: OK`, `NAME: damaged (3 of 16 blocks bad)`, `NAME: MISSING`.
    var lines: [String] {
        files.map { file in
            let shown = file.path.displayPath
            if let found = file.foundIn {
                return
                    "\(shown): \(file.status == .missing ? "MISSING" : "DAMAGED"), found whole in \(found.displayPath)"
            }
            switch file.status {
            case .ok: return "\(shown): OK"
            case .missing: return "\(shown): MISSING (\(counted(file.blocks, "block")))"
            case .damaged: return "\(shown): DAMAGED (\(Self.damage(of: file)))"
            }
        }
    }

    /// What is wrong with a damaged file: its bad blocks, and a size that differs from the set's
    /// (as par2 says it). Bytes appended leave every block intact, and a repair writes the file
    /// at the set's length: "0 of 16 blocks bad" alone hid why it failed.
    static func damage(of file: File) -> String {
        guard let onDisk = file.sizeOnDisk, onDisk != file.size else {
            return "\(file.badBlocks) of \(counted(file.blocks, "block")) bad"
        }
        let size =
            "\(counted(abs(onDisk - file.size), "byte")) \(onDisk > file.size ? "longer" : "shorter") than the set's \(file.size)"
        guard file.badBlocks == 0 else { return "\(file.badBlocks) of \(counted(file.blocks, "block")) bad, \(size)" }
        return "\(size); every block intact, so repair trims it"
    }

    /// The verdict: complete, or how repairable.
    var verdict: String {
        if exitStatus == 0 {
            return "\(counted(files.count, "file")) OK (\(counted(recoveryBlocks, "recovery block")) present)"
        }
        if repairable {
            let found = files.filter { $0.foundIn != nil }.count
            let moved =
                found == 0
                ? ""
                : found == 1
                    ? "; 1 file found whole under another name" : "; \(found) files found whole under other names"
            return "repairable: needs \(badBlocks) of the \(counted(recoveryBlocks, "recovery block")) present\(moved)"
        }
        return
            "not repairable: \(counted(badBlocks, "block")) missing, \(counted(recoveryBlocks, "recovery block")) available"
    }
}

/// The JSON document of `verify` over .par2 files.
struct Par2VerifyDocument: Encodable {
    var command = "verify"
    var inputs: [String]
    var wallSeconds: Double
    var sets: [Par2SetReport]
    var errors: [ErrorReport.Details]
    /// The files given that belong to a set given before them, verified once (the text report's notes).
    var notes: [String]?
    var exitStatus: Int32

    enum CodingKeys: String, CodingKey {
        case schemaVersion, command, format, inputs, wallSeconds, sets, errors, notes, exitStatus
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONDocument.schemaVersion, forKey: .schemaVersion)
        try container.encode(command, forKey: .command)
        try container.encode("par2", forKey: .format)
        try container.encode(inputs, forKey: .inputs)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        try container.encode(sets, forKey: .sets)
        try container.encode(errors, forKey: .errors)
        try container.encodeIfPresent(notes, forKey: .notes)
        try container.encode(exitStatus, forKey: .exitStatus)
    }
}

/// Whether a list argument is a PAR2 file: named `.par2`, or starting with PAR2's packet magic.
func isPar2File(_ path: String) -> Bool {
    if path.lowercased().hasSuffix(".par2") { return true }
    guard path != "-", !ObjectLocation.isObjectPath(path) else { return false }
    // Non-blocking: a FIFO with no writer would hold the open (and the signals it defers) for ever.
    guard let file = try? OwnedDescriptor(opening: path, O_RDONLY | O_NONBLOCK) else { return false }
    // Only a regular file is sniffed: a read would take a pipe's first bytes from the list.
    var info = stat()
    guard fstat(file.raw, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
    var head = [UInt8](repeating: 0, count: 8)
    let got = head.withUnsafeMutableBytes { read(file.raw, $0.baseAddress!, 8) }
    return got == 8 && head == Array("PAR2\0PKT".utf8)
}
