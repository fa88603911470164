import Foundation
import Testing

/// `gcdcat repair` writes each repaired file anew and names it in place of the damaged one: the
/// new file takes the damaged file's owner and mode, and a note says when the damaged file had
/// other hard links (they keep the old inode, as they keep par2 repair's `f.1`).
@Suite struct Par2RepairOwnershipCLITests {
    func damage(_ scratch: Scratch) throws {
        var bytes = scratch.read("f")!
        bytes[100] ^= 0xFF
        try scratch.write("f", bytes)
    }

    func status(_ path: String) throws -> (mode: Int, uid: Int, gid: Int, links: Int) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (
            (attributes[.posixPermissions] as! NSNumber).intValue,
            (attributes[.ownerAccountID] as! NSNumber).intValue,
            (attributes[.groupOwnerAccountID] as! NSNumber).intValue,
            (attributes[.referenceCount] as! NSNumber).intValue
        )
    }

    @Test func aRepairedFileKeepsItsModeAndOwner() throws {
        let scratch = try Scratch()
        let whole = try protectedFile(scratch)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: scratch.file("f"))
        let root = getuid() == 0
        if root {
            #expect(chown(scratch.file("f"), 1234, 2345) == 0)
        }
        try damage(scratch)
        let repair = try gcdcat(["repair", "f.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr.hasSuffix("gcdcat: f: repaired (1 block rebuilt)\n"), "\(repair.stderr)")
        #expect(scratch.read("f") == whole)
        let after = try status(scratch.file("f"))
        #expect(after.mode == 0o640)
        if root {
            #expect(after.uid == 1234 && after.gid == 2345, "\(after)")
        }
    }

    @Test func aRepairNotesTheDamagedFilesOtherHardLinks() throws {
        let scratch = try Scratch()
        let whole = try protectedFile(scratch)
        try damage(scratch)
        let damaged = scratch.read("f")!
        try FileManager.default.linkItem(atPath: scratch.file("f"), toPath: scratch.file("g"))
        let repair = try gcdcat(["repair", "f.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(
            repair.stderr.hasSuffix(
                "gcdcat: f: repaired (1 block rebuilt)\n"
                    + "gcdcat: note: f had 1 other hard link (a name that is no file of the set), which still holds the "
                    + "damaged bytes: the repaired file is a new one at this name (as par2 repair's is); link that "
                    + "name to it again if it should hold the repaired bytes\n"),
            "\(repair.stderr)")
        #expect(scratch.read("f") == whole)
        #expect(scratch.read("g") == damaged)
        #expect(try status(scratch.file("f")).links == 1)
        // --json carries the note with the file.
        try damage(scratch)
        try FileManager.default.removeItem(atPath: scratch.file("g"))
        try FileManager.default.linkItem(atPath: scratch.file("f"), toPath: scratch.file("g"))
        let json = try gcdcat(["repair", "f.par2", "--json"], in: scratch.path)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try schema("repair").violations(of: JSONValue.parse(json.stdout)) == [])
        let document = try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any]
        let repaired = document["repaired"] as! [[String: Any]]
        #expect(
            repaired.first?["notes"] as? [String] == [
                "f had 1 other hard link (a name that is no file of the set), which still holds the damaged bytes: "
                    + "the repaired file is a new one at this name (as par2 repair's is); link that name to it again "
                    + "if it should hold the repaired bytes"
            ])
    }

    /// A user who may write the folder but not chown: the new file is theirs, and a note names
    /// both owners (setpriv runs gcdcat as uid 1234 on a file of uid 4321).
    @Test(.enabled(if: getuid() == 0 && toolExists("setpriv"), "needs root and setpriv to repair as another user"))
    func anOwnerThatCannotBeKeptIsNamedInANote() throws {
        let scratch = try Scratch()
        let whole = try protectedFile(scratch)
        #expect(chown(scratch.file("f"), 4321, 4321) == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: scratch.path)
        try damage(scratch)
        let repair = try runTool(
            "setpriv", ["--reuid", "1234", "--regid", "1234", "--clear-groups", gcdcatPath, "repair", "f.par2"],
            in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(
            repair.stderr.hasSuffix(
                "gcdcat: f: repaired (1 block rebuilt)\n"
                    + "gcdcat: note: f was owned by uid 4321 gid 4321; the repaired file is owned by uid 1234 gid "
                    + "1234, since fchown was not permitted (Operation not permitted): repair as its owner or as root "
                    + "to keep it\n"), "\(repair.stderr)")
        #expect(scratch.read("f") == whole)
        let after = try status(scratch.file("f"))
        #expect(after.uid == 1234 && after.mode == 0o644, "\(after)")
    }

    /// Both names of one file in the set (`ln f g; protect f g`): each is repaired, so no link
    /// keeps the damaged bytes, and the note that one did was wrong. A link outside the set is
    /// still named.
    @Test func aHardLinkThatIsRepairedTooDrawsNoNote() throws {
        let scratch = try Scratch()
        let whole = randomData(250_000, seed: 62)
        try scratch.write("f", whole)
        try FileManager.default.linkItem(atPath: scratch.file("f"), toPath: scratch.file("g"))
        let protect = try gcdcat(
            ["protect", "f", "g", "-o", "s.par2", "--par2", "20", "--par2-block-size", "4K", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try damage(scratch)
        let repair = try gcdcat(["repair", "s.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        // The set lists its files by id: g comes first.
        #expect(
            repair.stderr.hasSuffix("gcdcat: g: repaired (1 block rebuilt)\ngcdcat: f: repaired (1 block rebuilt)\n"),
            "\(repair.stderr)")
        #expect(!repair.stderr.contains("hard link"), "\(repair.stderr)")
        #expect(scratch.read("f") == whole && scratch.read("g") == whole)
        // A third name, outside the set, keeps the damaged bytes: that one is named, once, by the
        // set's last name repaired.
        try FileManager.default.removeItem(atPath: scratch.file("g"))
        try FileManager.default.linkItem(atPath: scratch.file("f"), toPath: scratch.file("g"))
        try FileManager.default.linkItem(atPath: scratch.file("f"), toPath: scratch.file("h"))
        try damage(scratch)
        let again = try gcdcat(["repair", "s.par2"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.hasSuffix(
                "gcdcat: g: repaired (1 block rebuilt)\n"
                    + "gcdcat: f: repaired (1 block rebuilt)\n"
                    + "gcdcat: note: f had 1 other hard link (a name that is no file of the set), which still holds the "
                    + "damaged bytes: the repaired file is a new one at this name (as par2 repair's is); link that "
                    + "name to it again if it should hold the repaired bytes\n"),
            "\(again.stderr)")
        #expect(scratch.read("h") != whole)
    }

    /// A damaged file hard-linked to another file of the set that verifies (`ln a.bin x.bin`):
    /// the note said the other link held the damaged bytes and told the user to link it to the
    /// repaired file again, which would have destroyed the good `a.bin`. Names of the set, and
    /// of its recovery set, are not counted; a name outside both still is.
    @Test func aHardLinkThatIsAnotherFileOfTheSetIsNotNamed() throws {
        let scratch = try Scratch()
        let a = randomData(5000, seed: 2501)
        let x = randomData(5000, seed: 2502)
        try scratch.write("a.bin", a)
        try scratch.write("x.bin", x)
        let protect = try gcdcat(
            ["protect", "a.bin", "x.bin", "-o", "s.par2", "--par2", "100%", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        try FileManager.default.linkItem(atPath: scratch.file("a.bin"), toPath: scratch.file("x.bin"))
        let repair = try gcdcat(["repair", "s.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(!repair.stderr.contains("hard link"), "\(repair.stderr)")
        #expect(scratch.read("a.bin") == a && scratch.read("x.bin") == x)
        // A link to a volume is no name holding damaged bytes either; one outside the set is.
        let volume = try #require(scratch.listing().filter { $0.hasPrefix("s.vol") }.last)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        try FileManager.default.linkItem(atPath: scratch.file(volume), toPath: scratch.file("x.bin"))
        try FileManager.default.linkItem(atPath: scratch.file(volume), toPath: scratch.file("keep"))
        let again = try gcdcat(["repair", "s.par2", "--json"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        let document = try JSONSerialization.jsonObject(with: again.stdout) as! [String: Any]
        let repaired = document["repaired"] as! [[String: Any]]
        #expect(
            repaired.first?["notes"] as? [String] == [
                "x.bin had 1 other hard link (a name that is no file of the set), which still holds the damaged "
                    + "bytes: the repaired file is a new one at this name (as par2 repair's is); link that name to "
                    + "it again if it should hold the repaired bytes"
            ])
        #expect(scratch.read("x.bin") == x && scratch.read("keep") == scratch.read(volume))
    }

    /// A file of which not one block is the set's is another file at its name (a newer version):
    /// repair replaced it without a copy, where par2 keeps it as `NAME.1`. It is kept so now, with
    /// a note, also through a symlink (its target's bytes), and a name of the set is never taken
    /// for it (outside attack a17 #3). A file with a damaged block or two is still replaced.
    @Test func aFileWithNotOneBlockOfTheSetsIsKeptBesideTheRepairedOne() throws {
        let scratch = try Scratch()
        let a = randomData(300_000, seed: 2601)
        let b = randomData(200_000, seed: 2602)
        try scratch.write("a.dat", a)
        try scratch.write("b.dat", b)
        try scratch.write("b.dat.2", Data("someone's".utf8))
        let protect = try gcdcat(
            ["protect", "a.dat", "b.dat", "b.dat.2", "-o", "s.par2", "--par2", "200%", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        let newer = randomData(250_000, seed: 2603)
        try scratch.write("b.dat", newer)
        var damaged = a
        damaged[50] ^= 0xFF
        try scratch.write("a.dat", damaged)
        try scratch.write("b.dat.1", Data("taken".utf8))
        #expect(unlink(scratch.file("b.dat.2")) == 0)
        let repair = try gcdcat(["repair", "s.par2", "--json"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        let document = try JSONSerialization.jsonObject(with: repair.stdout) as! [String: Any]
        let notes = Dictionary(
            uniqueKeysWithValues: (document["repaired"] as! [[String: Any]]).map {
                ($0["path"] as! String, $0["notes"] as? [String] ?? [])
            })
        #expect(
            notes == [
                "a.dat": [], "b.dat.2": [],
                "b.dat": [
                    "not one block of b.dat was the set's (another file, or a newer version of it?): the file it "
                        + "held is kept as b.dat.3, as par2 keeps a damaged file"
                ],
            ])
        #expect(scratch.read("a.dat") == a && scratch.read("b.dat") == b && scratch.read("b.dat.3") == newer)
        #expect(scratch.read("b.dat.1") == Data("taken".utf8) && scratch.read("b.dat.2") == Data("someone's".utf8))
        #expect(!scratch.listing().contains("a.dat.1"))

        // Through a symlink to a file that is no file of the set: the target's bytes are kept.
        let other = randomData(200_000, seed: 2604)
        #expect(unlink(scratch.file("b.dat")) == 0)
        try scratch.write("b-newer.dat", other)
        #expect(symlink("b-newer.dat", scratch.file("b.dat")) == 0)
        let linked = try gcdcat(["repair", "s.par2", "-q"], in: scratch.path)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(scratch.read("b.dat") == b && scratch.read("b.dat.4") == other)
    }
    /// A newer version at a file's name that shares a few blocks with the old one (the same
    /// 4 KiB header) is another file too: repair replaced it without a copy. A file of which
    /// fewer than half the blocks are the set's is kept as `NAME.1`, with a note saying how many
    /// were; one of which half or more are is a damaged copy, replaced (outside re-check a18 E).
    @Test func aFileSharingOnlyAFewBlocksWithTheSetsIsKeptAsWell() throws {
        let scratch = try Scratch()
        let a = randomData(100_000, seed: 2611)
        let b = randomData(100_000, seed: 2612)
        try scratch.write("a.dat", a)
        try scratch.write("b.dat", b)
        let protect = try gcdcat(
            ["protect", "a.dat", "b.dat", "-o", "s.par2", "--par2", "150%", "--par2-block-size", "4096", "-q"],
            in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        // 25 blocks each (the last one short): the newer a.dat keeps the first; b.dat has 12 of 25 bad.
        var newer = randomData(100_000, seed: 2613)
        newer.replaceSubrange(0..<4096, with: a[0..<4096])
        try scratch.write("a.dat", newer)
        var damaged = b
        for block in 0..<12 { damaged[block * 8192] ^= 0xFF }
        try scratch.write("b.dat", damaged)
        let repair = try gcdcat(["repair", "s.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(
            repair.stderr.contains(
                "note: only 1 of 25 blocks of a.dat was the set's (another file, or a newer version of it?): the "
                    + "file it held is kept as a.dat.1, as par2 keeps a damaged file\n"), "\(repair.stderr)")
        #expect(scratch.read("a.dat") == a && scratch.read("a.dat.1") == newer && scratch.read("b.dat") == b)
        #expect(!scratch.listing().contains("b.dat.1"))
    }
}
