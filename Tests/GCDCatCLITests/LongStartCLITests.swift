import Foundation
import Testing

/// `split --start` takes up to 999 999 999 999, so part numbers of 10 to 12 digits; merge read
/// at most 9, so such a set could not be merged back (a hex-looking `f.999999999a` was "missing")
/// or came out under a wrong name (`f.99`) (outside check a19 #8).
@Suite struct LongStartCLITests {
    @Test(arguments: [(9_999_999_998, 10), (999_999_999_990, 3)])
    func aSetFromALongStartMergesBackUnderItsName(start: Int, parts: Int) throws {
        let scratch = try Scratch()
        let whole = randomData(parts * 100, seed: 4201)
        try scratch.write("f", whole)
        let split = try gcdcat(["split", "f", "-b", "100", "--start", "\(start)", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("f"))
        let merged = try gcdcat(["f.\(start)"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: \(parts) parts verified against f.sfv\n")
        #expect(scratch.read("f") == whole)
    }
}
