import Foundation
import Testing

/// A split that repeats a header atop every part (`--header-lines`) with `--par2`: the PAR2 set
/// protects the parts as written, headers and all. A merge that repaired from it kept every
/// repeated header (outside attack on issue 23: wrong bytes, exit 0), and with the SFV lost, a
/// merge checked by the set alone said "verified" of the same wrong bytes. gcdcat's record in
/// the set says how long the header is, so such a merge drops it from every part after the
/// first and restores the file exactly; a set without the record (protected after the split)
/// is still refused while its SFV records a header.
extension Par2MergeCLITests {
    /// `csv`: the lines 1 … 30000, split into parts of 7000 lines, each repeating line 1.
    func headerSet() throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = Data((1...30000).map { "\($0)\n" }.joined().utf8)
        try scratch.write("csv", whole)
        let split = try gcdcat(
            ["split", "csv", "-l", "7000", "--header-lines", "1", "--par2", "30", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("csv"))
        return (scratch, whole)
    }

    func headerParts(_ scratch: Scratch) -> [String] {
        scratch.listing().filter { $0.hasPrefix("csv.0") }.sorted()
    }

    @Test(arguments: [["csv.001", "-o", "out"], ["merge", "csv.par2", "-o", "out"], ["csv.001", "-o", "-"]])
    func aMergeRepairingASetWhosePartsRepeatAHeaderDropsIt(arguments: [String]) throws {
        let (scratch, whole) = try headerSet()
        try FileManager.default.removeItem(atPath: scratch.file("csv.003"))
        let merge = try gcdcat(arguments, in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(
            merge.stderr
                == "gcdcat: note: rebuilding csv.003 (missing, 478 blocks) from csv.par2's recovery blocks; the part "
                + "itself is left as it is\n")
        #expect((arguments.last == "-" ? merge.stdout : scratch.read("out")) == whole)
        #expect(scratch.read("csv.003") == nil, "the parts are left as they are")
    }

    @Test func aDamagedPartOfASetThatRepeatsAHeaderIsRebuiltWithoutIt() throws {
        let (scratch, whole) = try headerSet()
        var part = scratch.read("csv.004")!
        part[100] = UInt8(ascii: "X")
        try scratch.write("csv.004", part)
        let merge = try gcdcat(["csv.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(
            merge.stderr.hasSuffix(
                "gcdcat: note: rebuilding csv.004 (damaged, 1 block) from csv.par2's "
                    + "recovery blocks; the part itself is left as it is\n"), "\(merge.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// With the SFV lost, the set alone checks the parts: "verified", and the file restored.
    @Test func aMergeByTheSetAloneDropsTheRepeatedHeader() throws {
        let (scratch, whole) = try headerSet()
        let parts = headerParts(scratch)
        try FileManager.default.removeItem(atPath: scratch.file("csv.sfv"))
        let merge = try gcdcat(["csv.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stderr == "gcdcat: \(parts.count) parts verified against csv.par2\n")
        #expect(scratch.read("out") == whole)
        let piped = try gcdcat(["csv.par2", "-o", "-", "-q"], in: scratch.path)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == whole)
    }

    /// `protect` over the parts after the split writes no header record: a merge repairing from
    /// that set is refused as before, and `repair` then the plain merge restore the file.
    @Test func aSetProtectedAfterTheSplitIsRefusedWhileItsSFVRecordsAHeader() throws {
        let (scratch, whole) = try headerSet()
        let parts = headerParts(scratch)
        let protect = try gcdcat(
            ["protect"] + parts + ["-o", "csv.par2", "--par2", "30", "--force", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        let missing = scratch.read("csv.003")!
        try FileManager.default.removeItem(atPath: scratch.file("csv.003"))
        let merge = try gcdcat(["csv.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 1)
        #expect(
            merge.stderr.hasSuffix(
                "gcdcat: csv.sfv: says every part after the first repeats a header that the merge drops, which a "
                    + "merge repairing from csv.par2 cannot do (it rebuilds the parts as written, headers and all); "
                    + "nothing was written. Mend the parts with gcdcat repair csv.par2, then merge them with gcdcat "
                    + "csv.001\n"), "\(merge.stderr)")
        #expect(scratch.read("out") == nil)
        let repair = try gcdcat(["repair", "csv.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(scratch.read("csv.003") == missing)
        let again = try gcdcat(["csv.001", "-o", "out", "-q"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(scratch.read("out") == whole)
    }
}
