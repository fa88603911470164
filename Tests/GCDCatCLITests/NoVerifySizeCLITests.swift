import Foundation
import Testing

/// `--no-verify` reads no part, but a part whose size is not the one its split's mark records is
/// told by a stat (outside attack a17 #6: `truncate -s 100000 b.bin.002` was joined silently,
/// exit 0, a short output). Refused, naming the part, its size and the marked one; without
/// marks, a size that does not add up to the SFV's `; gcdcat-whole:` record draws a warning.
@Suite struct NoVerifySizeCLITests {
    /// `b.bin` of 100000 bytes split into 30 KiB parts (its SFV beside them), `b.bin.002` then
    /// cut to 10000 bytes.
    func setWithAShortPart(_ scratch: Scratch) throws -> Data {
        let whole = randomData(100_000, seed: 1930)
        try scratch.write("b.bin", whole)
        let split = try gcdcat(["split", "b.bin", "--size", "30K", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("b.bin"))
        let truncated = try runTool("truncate", ["-s", "10000", "b.bin.002"], in: scratch.path)
        #expect(truncated.status == 0, "\(truncated.stderr)")
        return whole
    }

    let refusal =
        "gcdcat: b.bin.002: is 10000 bytes, but the split that made b.bin.001 marked it 30720 bytes: it was cut "
        + "short, appended to or rewritten since, so the set found from b.bin.001 would not join to what that split "
        + "read, and nothing was written; put back the part its split wrote, or give --as-given to join the parts as "
        + "they are\n"

    @Test func aPartCutShortIsRefusedByItsMark() throws {
        let scratch = try Scratch()
        let whole = try setWithAShortPart(scratch)
        let withManifest = try gcdcat(["b.bin.001", "--no-verify", "-o", "out"], in: scratch.path)
        #expect(withManifest.status == 2)
        #expect(withManifest.stderr == refusal)
        try FileManager.default.moveItem(atPath: scratch.file("b.bin.sfv"), toPath: scratch.file("s"))
        let alone = try gcdcat(["b.bin.001", "--no-verify", "-o", "out"], in: scratch.path)
        #expect(alone.status == 2)
        #expect(alone.stderr == refusal)
        #expect(scratch.read("out") == nil)
        let given = try gcdcat(
            ["merge", "b.bin.001", "b.bin.002", "b.bin.003", "b.bin.004", "--no-verify", "--as-given", "-o", "out"],
            in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(given.stderr == "")
        #expect(scratch.read("out") == whole.subdata(in: 0..<40_720) + whole.subdata(in: 61_440..<100_000))
    }

    /// Parts without their marks (a plain copy), the SFV beside them: its whole record draws a
    /// warning naming the bytes the output lacks; the parts are joined as they are, as asked.
    @Test func partsThatDoNotAddUpToTheWholeRecordDrawAWarning() throws {
        let scratch = try Scratch()
        let whole = try setWithAShortPart(scratch)
        try scratch.unmark(["b.bin.001", "b.bin.002", "b.bin.003", "b.bin.004"])
        let merged = try gcdcat(["b.bin.001", "--no-verify", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: warning: b.bin.sfv records 100000 bytes for b.bin, but its parts join to 79280 as they are "
                + "now, so the output is 20720 bytes short of it (a part cut short, missing or grown since?)\n")
        #expect(scratch.read("out") == whole.subdata(in: 0..<40_720) + whole.subdata(in: 61_440..<100_000))
    }
}
