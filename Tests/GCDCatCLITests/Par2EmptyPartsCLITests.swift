import Foundation
import GCDCatCore
import Testing

/// Empty files in PAR2 sets: `split -n 5` of 3 bytes makes two empty parts, which PAR2 cannot
/// protect (no block), and sets made elsewhere may name an empty file among their non-recovery
/// files.
///
/// Measured with par2cmdline 0.8.1 and turbo 1.4.0: both leave an empty file out of what they
/// create. An empty file in the recovery set makes par2cmdline call an intact set damaged (exit
/// 1) and its repair failed (exit 5); in the non-recovery set, turbo's repair of another file
/// ends at exit 0 without writing it. So gcdcat leaves empty parts out of PAR2's lists in the
/// sets it writes and names them in a packet of its own, which both tools skip; and it reads an
/// empty file a set does name (in either list, or in that packet), recreating it when it is
/// lost, as par2cmdline does.
@Suite struct Par2EmptyPartsCLITests {
    /// `abc` split into five parts with 50% recovery: `in.001` … `in.003` of one byte each
    /// (the set's three blocks), `in.004` and `in.005` empty, named only in gcdcat's record.
    func tinySplit(_ scratch: Scratch, _ extra: [String] = []) throws {
        try scratch.write("in", Data("abc".utf8))
        let split = try gcdcat(["split", "in", "-n", "5", "--par2", "50%", "-q"] + extra, in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("in"))
        let verify = try gcdcat(["verify", "in.par2"], in: scratch.path)
        #expect(verify.status == 0)
        #expect(verify.stderr == "gcdcat: in.par2: 5 files OK (2 recovery blocks present)\n")
    }

    /// The split's set without gcdcat's record, as `protect` of the non-empty parts alone makes
    /// it (or another tool): the empty parts are named nowhere in it.
    func withoutTheRecord(_ scratch: Scratch) throws {
        let protect = try gcdcat(
            ["protect", "in.001", "in.002", "in.003", "-o", "in.par2", "--par2", "50%", "--force", "-q"],
            in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        let verify = try gcdcat(["verify", "in.par2"], in: scratch.path)
        #expect(verify.stderr == "gcdcat: in.par2: 3 files OK (2 recovery blocks present)\n")
    }

    static let emptyPartsNote =
        "gcdcat: note: in.004 … in.005 past in.003 are empty, so in.par2 does not list them (PAR2 lists no empty "
        + "file); they add nothing to the output\n"

    /// Without a manifest, the empty parts past the index's last made the merge of an intact
    /// set refuse ("lies beside the set, but in.par2 lists its parts only up to in.003"). A set
    /// with gcdcat's record lists them (``aLostOrFilledEmptyPartIsMendedByTheRecord()``); this is
    /// one without it.
    @Test func emptyPartsPastTheIndexsLastDoNotStopAMergeCheckedByIt() throws {
        let scratch = try Scratch()
        try tinySplit(scratch, ["--no-manifest"])
        try withoutTheRecord(scratch)
        let merged = try gcdcat(["in.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == Self.emptyPartsNote + "gcdcat: 3 parts verified against in.par2\n")
        #expect(scratch.read("in") == Data("abc".utf8))
        // A damaged part is rebuilt as before.
        try FileManager.default.removeItem(atPath: scratch.file("in"))
        try scratch.write("in.002", Data("X".utf8))
        let repaired = try gcdcat(["in.001"], in: scratch.path)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(
            repaired.stderr
                == Self.emptyPartsNote
                + "gcdcat: note: rebuilding in.002 (damaged, 1 block) from in.par2's recovery blocks; the part itself "
                + "is left as it is\n")
        #expect(scratch.read("in") == Data("abc".utf8))
    }

    /// With the split's SFV, the empty parts sent a damaged part to the SFV alone: exit 2,
    /// nothing rebuilt, though the recovery blocks sufficed.
    @Test func aDamagedPartBesideEmptyPartsIsRebuiltByTheMerge() throws {
        let scratch = try Scratch()
        try tinySplit(scratch)
        try scratch.write("in.002", Data("X".utf8))
        let merged = try gcdcat(["in.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: in.002: crc32 is b7b2364b, but in.sfv line 4 says 71beeff9: the part is corrupt; "
                + "checking the set against in.par2 to repair it\n"
                + "gcdcat: note: rebuilding in.002 (damaged, 1 block) from in.par2's recovery blocks; the part itself "
                + "is left as it is\n")
        #expect(scratch.read("in") == Data("abc".utf8))
        #expect(scratch.read("in.002") == Data("X".utf8))
        // repair mends the part itself; the empty ones are left as they are.
        let repair = try gcdcat(["repair", "in.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(scratch.read("in.002") == Data("b".utf8))
        #expect(scratch.read("in.004") == Data() && scratch.read("in.005") == Data())
    }

    /// A lost empty part was no file of the PAR2 set: verify said every file OK, repair did
    /// nothing, and a merge was refused. gcdcat's record names it: verify reports it missing
    /// (repairable, with no block), repair recreates it empty, and a merge goes on, from the
    /// `.par2` alone too. One that now holds bytes is damaged, and a merge leaves them out with a
    /// note, never silently.
    @Test func aLostOrFilledEmptyPartIsMendedByTheRecord() throws {
        let scratch = try Scratch()
        try tinySplit(scratch)
        try FileManager.default.removeItem(atPath: scratch.file("in.004"))
        let verify = try gcdcat(["verify", "in.par2"], in: scratch.path)
        #expect(verify.status == 2)
        #expect(verify.stdoutText.contains("in.004: MISSING (0 blocks)\n"), "\(verify.stdoutText)")
        #expect(verify.stderr == "gcdcat: in.par2: repairable: needs 0 of the 2 recovery blocks present\n")
        let lostNote =
            "gcdcat: note: in.004 is missing, but in.par2 records it as an empty part: it adds nothing to the output\n"
        let merged = try gcdcat(["in.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == lostNote)
        #expect(scratch.read("out") == Data("abc".utf8))
        try FileManager.default.removeItem(atPath: scratch.file("in.sfv"))
        let byIndex = try gcdcat(["in.par2", "-o", "out2"], in: scratch.path)
        #expect(byIndex.status == 0, "\(byIndex.stderr)")
        #expect(byIndex.stderr == lostNote)
        #expect(scratch.read("out2") == Data("abc".utf8))
        #expect(scratch.read("in.004") == nil, "a merge leaves the parts as they are")
        let repair = try gcdcat(["repair", "in.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr.hasSuffix("gcdcat: in.004: repaired (0 blocks rebuilt)\n"), "\(repair.stderr)")
        #expect(scratch.read("in.004") == Data())

        try scratch.write("in.005", Data("zz".utf8))
        let filled = try gcdcat(["verify", "in.par2"], in: scratch.path)
        #expect(filled.status == 2)
        #expect(
            filled.stdoutText.contains(
                "in.005: DAMAGED (2 bytes longer than the set's 0; every block intact, so repair trims it)\n"),
            "\(filled.stdoutText)")
        let trimmed = try gcdcat(["in.par2", "-o", "out3"], in: scratch.path)
        #expect(trimmed.status == 0, "\(trimmed.stderr)")
        #expect(
            trimmed.stderr
                == "gcdcat: note: trimming in.005 to the 0 bytes in.par2 gives it (damaged: 2 bytes longer, every "
                + "block intact): the output leaves the 2 bytes out; the part itself is left as it is\n")
        #expect(scratch.read("out3") == Data("abc".utf8))
        let mended = try gcdcat(["repair", "in.par2", "-q"], in: scratch.path)
        #expect(mended.status == 0, "\(mended.stderr)")
        #expect(scratch.read("in.005") == Data())
    }

    /// par2cmdline and turbo skip gcdcat's record: they verify the split's set, and repair a
    /// damaged part from it.
    @Test(Par2Tool.cmdline.required)
    func par2cmdlineSkipsTheRecord() throws {
        try toolSkipsTheRecord(.cmdline)
    }

    @Test(Par2Tool.turbo.required)
    func par2cmdlineTurboSkipsTheRecord() throws {
        try toolSkipsTheRecord(.turbo)
    }

    func toolSkipsTheRecord(_ tool: Par2Tool) throws {
        let scratch = try Scratch()
        try tinySplit(scratch)
        let verified = try tool.execute(["verify", "in.par2"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stdoutText)")
        try scratch.write("in.002", Data("X".utf8))
        let repaired = try tool.execute(["repair", "in.par2"], in: scratch.path)
        #expect(repaired.status == 0, "\(repaired.stdoutText)")
        #expect(scratch.read("in.002") == Data("b".utf8))
        let verify = try gcdcat(["verify", "in.par2", "-q"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    /// `protect` over the five parts leaves the empty ones out too (a note says so), and the
    /// merge repairs from its set alike.
    @Test func protectOfASetWithEmptyPartsRepairsLikeTheSplits() throws {
        let scratch = try Scratch()
        try tinySplit(scratch)
        for name in scratch.listing() where name.hasSuffix(".par2") {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        let names = (1...5).map { "in.00\($0)" }
        let protect = try gcdcat(["protect", "--par2", "50%"] + names, in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        #expect(
            protect.stderr.hasPrefix(
                ["in.004", "in.005"].map {
                    "gcdcat: note: \($0) is empty: PAR2 lists no 0-byte file (par2 create leaves them out), so in.par2 "
                        + "names it in a packet of gcdcat's own, which gcdcat verify and repair check (par2 does not)\n"
                }.joined()), "\(protect.stderr)")
        // As the note says (it said "left out of the set"): a lost one is reported.
        try FileManager.default.removeItem(atPath: scratch.file("in.005"))
        let verify = try gcdcat(["verify", "in.par2"], in: scratch.path)
        #expect(verify.status == 2)
        #expect(verify.stdoutText.contains("in.005: MISSING (0 blocks)\n"), "\(verify.stdoutText)")
        try scratch.write("in.005", Data())
        try scratch.write("in.003", Data("X".utf8))
        let merged = try gcdcat(["in.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == Data("abc".utf8))
    }

    /// A set that names an empty file among its non-recovery files (as other tools write them):
    /// gcdcat ignored it, so a lost one was neither reported nor recreated. It is a file of the
    /// set now, with no block: verify says it is missing, repair recreates it (par2cmdline does
    /// too, when it repairs), and a merge writes it as nothing.
    @Test func anEmptyNonRecoveryFileIsVerifiedAndRecreated() throws {
        let scratch = try Scratch()
        try scratch.write("in.001", randomData(10_000, seed: 2301))
        try scratch.write("in.002", Data())
        let protect = try gcdcat(
            ["protect", "in.001", "-o", "in.par2", "--par2-block-size", "4K", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try addEmptyNonRecoveryFile("in.002", in: scratch)
        let intact = try gcdcat(["verify", "in.par2"], in: scratch.path)
        #expect(intact.status == 0, "\(intact.stderr)")
        #expect(Set(intact.stdoutText.split(separator: "\n")) == ["in.001: OK", "in.002: OK"])
        for tool in Par2Tool.allCases.filter(\.isInstalled) {
            let verified = try tool.execute(["verify", "in.par2"], in: scratch.path)
            #expect(verified.status == 0, "\(tool): \(verified.stdoutText)")
        }
        try FileManager.default.removeItem(atPath: scratch.file("in.002"))
        let lost = try gcdcat(["verify", "in.par2"], in: scratch.path)
        #expect(lost.status == 2)
        #expect(lost.stdoutText.contains("in.002: MISSING (0 blocks)\n"), "\(lost.stdoutText)")
        #expect(lost.stderr == "gcdcat: in.par2: repairable: needs 0 of the 1 recovery block present\n")
        let merged = try gcdcat(["in.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == scratch.read("in.001"))
        let repair = try gcdcat(["repair", "in.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr.hasSuffix("in.002: MISSING (0 blocks)\ngcdcat: in.002: repaired (0 blocks rebuilt)\n"))
        #expect(scratch.read("in.002") == Data())
    }
}

/// Rewrites every `.par2` file of `scratch` to name `name`, an empty file, in the main
/// packet's non-recovery set (with its description packet), under the new set id.
func addEmptyNonRecoveryFile(_ name: String, in scratch: Scratch) throws {
    func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    func packet(_ setID: [UInt8], _ type: [UInt8], _ body: [UInt8]) -> [UInt8] {
        Array("PAR2\0PKT".utf8) + little(UInt64(64 + body.count)) + Par2Hash.md5(setID + type + body).bytes + setID
            + type + body
    }
    let files = scratch.listing().filter { $0.hasSuffix(".par2") }
    var packets: [String: [(type: [UInt8], body: [UInt8])]] = [:]
    for file in files {
        let data = [UInt8](scratch.read(file)!)
        var offset = 0
        while offset + 64 <= data.count {
            let length = data[(offset + 8)..<(offset + 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
            packets[file, default: []].append(
                (Array(data[(offset + 48)..<(offset + 64)]), Array(data[(offset + 64)..<(offset + length)])))
            offset += length
        }
    }
    let mainType = Array("PAR 2.0\0Main\0\0\0\0".utf8)
    let main = try #require(packets.values.joined().first { $0.type == mainType }).body
    let empty = Par2Hash.md5([UInt8]()).bytes
    let id = Par2Hash.md5(empty + little(UInt64(0)) + Array(name.utf8)).bytes
    var nameBytes = Array(name.utf8)
    while nameBytes.count % 4 != 0 { nameBytes.append(0) }
    let description = id + empty + empty + little(UInt64(0)) + nameBytes
    let newMain = main + id
    let setID = Par2Hash.md5(newMain).bytes
    for file in files {
        var out: [UInt8] = []
        for (type, body) in packets[file]! {
            if type == mainType {
                out += packet(setID, type, newMain)
                out += packet(setID, Array("PAR 2.0\0FileDesc".utf8), description)
            } else {
                out += packet(setID, type, body)
            }
        }
        try scratch.write(file, Data(out))
    }
}
