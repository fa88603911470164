import Foundation
import Testing

/// A split that repeats a header atop every part (`--header-lines`) with `--par2`: the PAR2 set
/// protects the parts as written, headers and all, so a merge that repairs from it would keep
/// every repeated header (outside attack on issue 23, item 1: wrong bytes, exit 0). It refuses,
/// and `repair` then the plain merge restore the file.
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

    static let headerRefusal =
        "gcdcat: csv.sfv: says every part after the first repeats a header that the merge drops, which a merge "
        + "repairing from csv.par2 cannot do (it rebuilds the parts as written, headers and all); nothing was "
        + "written. Mend the parts with gcdcat repair csv.par2, then merge them with gcdcat csv.001\n"

    @Test(arguments: [["csv.001", "-o", "out"], ["merge", "csv.par2", "-o", "out"], ["csv.001", "-o", "-"]])
    func aMergeRefusesToRepairASetWhosePartsRepeatAHeader(arguments: [String]) throws {
        let (scratch, whole) = try headerSet()
        let missing = scratch.read("csv.003")!
        try FileManager.default.removeItem(atPath: scratch.file("csv.003"))
        let merge = try gcdcat(arguments, in: scratch.path)
        #expect(merge.status == 1)
        #expect(merge.stderr.hasSuffix(Self.headerRefusal), "\(merge.stderr)")
        #expect(merge.stdout.isEmpty)
        #expect(scratch.read("out") == nil)
        #expect(scratch.read("csv.003") == nil, "the parts are left as they are")

        let repair = try gcdcat(["repair", "csv.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(scratch.read("csv.003") == missing)
        let again = try gcdcat(["csv.001", "-o", "out", "-q"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(scratch.read("out") == whole)
    }

    @Test func aMergeRefusesToRepairADamagedPartOfASetThatRepeatsAHeader() throws {
        let (scratch, whole) = try headerSet()
        var part = scratch.read("csv.004")!
        part[100] = UInt8(ascii: "X")
        try scratch.write("csv.004", part)
        let merge = try gcdcat(["csv.001", "-o", "out"], in: scratch.path)
        #expect(merge.status == 1)
        #expect(merge.stderr.hasSuffix(Self.headerRefusal), "\(merge.stderr)")
        #expect(scratch.read("out") == nil)
        let undamaged = try gcdcat(["repair", "csv.par2", "-q"], in: scratch.path)
        #expect(undamaged.status == 0, "\(undamaged.stderr)")
        let again = try gcdcat(["csv.001", "-o", "out", "-q"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(scratch.read("out") == whole)
    }
}
