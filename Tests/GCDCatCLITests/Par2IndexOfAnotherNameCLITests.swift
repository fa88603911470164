import Foundation
import Testing

/// A `.par2` named after the release rather than the set (`movie.par2` beside `movie.7z.001` …,
/// as Usenet posts name it: `par2 create movie.par2 movie.7z.0*`) was not found, so a damaged
/// part was joined with exit 0 (outside attack a17 #4). An index in the set's folder whose files
/// are the set's parts is found as a checksum list of any name that names them is; another set's
/// `.par2` there is passed over, and one that cannot be read is named in a note.
@Suite struct Par2IndexOfAnotherNameCLITests {
    /// `movie.7z.001` … `.004` (300 KiB each, the last 78 400 bytes of 1 000 000), as GNU split
    /// leaves them (no marks, no SFV), and `movie.par2` (10%) over them, by gcdcat or by par2.
    static func release(par2Tool: Bool = false) throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(1_000_000, seed: 1704)
        let parts = (1...4).map { "movie.7z.00\($0)" }
        for (number, part) in parts.enumerated() {
            try scratch.write(part, whole[(number * 307_200)..<min(whole.count, (number + 1) * 307_200)])
        }
        let protect =
            par2Tool
            ? try runTool("par2", ["create", "-q", "-q", "-r10", "movie.par2"] + parts, in: scratch.path)
            : try gcdcat(["protect"] + parts + ["-o", "movie.par2", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        return (scratch, whole)
    }

    static func damage(_ name: String, in scratch: Scratch) throws {
        var data = try #require(scratch.read(name))
        data.replaceSubrange(50..<52, with: Data("QQ".utf8))
        try scratch.write(name, data)
    }

    static let rebuilding =
        "gcdcat: note: rebuilding movie.7z.002 (damaged, 1 block) from movie.par2's recovery blocks; the part itself "
        + "is left as it is\n"

    @Test func aDamagedPartIsRepairedFromTheReleasesPar2() throws {
        try checkRepair(par2Tool: false)
    }

    /// The outsider's case: the index made by par2cmdline.
    @Test(.enabled(if: toolExists("par2"), "par2 is not installed (apt-get install par2)"))
    func aDamagedPartIsRepairedFromAPar2cmdlineIndex() throws {
        try checkRepair(par2Tool: true)
    }

    /// From the first part and from every part listed: the part rebuilt into the output.
    func checkRepair(par2Tool: Bool) throws {
        let (scratch, whole) = try Self.release(par2Tool: par2Tool)
        try Self.damage("movie.7z.002", in: scratch)
        let before = scratch.listing()
        let merged = try gcdcat(["movie.7z.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == Self.rebuilding)
        #expect(scratch.read("movie.7z") == whole)
        let listed = try gcdcat(
            ["movie.7z.001", "movie.7z.002", "movie.7z.003", "movie.7z.004", "-o", "out"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr == Self.rebuilding)
        #expect(scratch.read("out") == whole)
        #expect(scratch.listing() == (before + ["movie.7z", "out"]).sorted())
    }

    /// The intact set is verified against it; a part missing and not repairable is refused.
    @Test func theIntactSetIsVerifiedAgainstIt() throws {
        let (scratch, whole) = try Self.release()
        let merged = try gcdcat(["movie.7z.001", "--verify"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 4 parts verified against movie.par2\n")
        #expect(scratch.read("movie.7z") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("movie.7z.003"))
        let missing = try gcdcat(["movie.7z.001", "-o", "out"], in: scratch.path)
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("gcdcat: movie.par2: not repairable: "), "\(missing.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// A `.par2` of another set in the folder is passed over without a word; a broken one (junk
    /// under a `.par2` name) with a note, and neither stops the merge nor stands in for the
    /// set's own.
    @Test func anotherSetsPar2OrABrokenOneIsPassedOver() throws {
        let (scratch, whole) = try Self.release()
        try scratch.write("other.bin", randomData(5000, seed: 1705))
        let protect = try gcdcat(["protect", "other.bin", "-o", "other.par2", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try scratch.write("broken.par2", Data("not a par2 file\n".utf8))
        try Self.damage("movie.7z.002", in: scratch)
        let merged = try gcdcat(["movie.7z.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: broken.par2 is not a PAR2 index gcdcat can read (not a PAR2 file (no PAR2 packet in "
                + "it)); passed over\n" + Self.rebuilding)
        #expect(scratch.read("out") == whole)
        // Without the set's own .par2, the others protect nothing of it: merged as it is.
        for name in scratch.files(startingWith: "movie.") where name.hasSuffix(".par2") {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        try scratch.write("movie.7z.002", whole[307_200..<614_400])
        let plain = try gcdcat(["movie.7z.001", "-o", "plain"], in: scratch.path)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(
            plain.stderr
                == "gcdcat: note: broken.par2 is not a PAR2 index gcdcat can read (not a PAR2 file (no PAR2 packet in "
                + "it)); passed over\n")
        #expect(scratch.read("plain") == whole)
    }
}
