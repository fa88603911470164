import Foundation
import GCDCatCore
import Testing

/// The report names how the bytes moved, and a verified merge still refuses a corrupt part with
/// exit 2 and nothing left, whichever strategy runs it.
@Suite struct CloneReportCLITests {
    /// A 300 001-byte file split into 64 KiB parts with a manifest, in a fresh scratch folder.
    func splitSet() throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let data = randomData(300_001, seed: 42)
        try scratch.write("w", data)
        let split = try gcdcat(["split", "--size", "64K", "w", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        return (scratch, data)
    }

    @Test func theJSONReportNamesTheMethodAndTheBytesClonedAndCopied() throws {
        let (scratch, data) = try splitSet()
        let result = try gcdcat(["merge", "w.001", "-o", "out", "--json"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("out") == data)
        let report = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        var crc = Checksum(.crc32)
        crc.update(Array(data))
        #expect(report?["crc32"] as? String == hex8(crc.value))
        // 64 KiB parts are block-aligned: cloned where /tmp can clone, copied where not; no note either way.
        let cloned = report?["clonedBytes"] as? Int ?? -1
        let copied = report?["copiedBytes"] as? Int ?? -1
        #expect(cloned + copied == data.count)
        #expect(report?["notes"] as? [String] == [])
        #expect(["clone", "copy_file_range"].contains(report?["copyMethod"] as? String ?? ""))
        #expect(result.stderr == "gcdcat: 5 parts verified against w.sfv\n")
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func aCorruptPartExitsTwoWithNothingLeft(strategy: MergeStrategyKind) throws {
        let (scratch, _) = try splitSet()
        var bytes = scratch.read("w.004")!
        bytes[bytes.count - 1] ^= 0x80
        try scratch.write("w.004", bytes)
        let before = scratch.listing()
        let result = try gcdcat(["merge", "w.001", "-o", "out", "--strategy", strategy.rawValue], in: scratch.path)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("gcdcat: w.004: crc32 is "))
        let (line, crc) = try manifestLine(scratch, naming: "w.004")
        #expect(result.stderr.hasSuffix("w.sfv line \(line) says \(crc.lowercased()): the part is corrupt\n"))
        #expect(scratch.listing() == before)
    }

    /// The line number (comments count) and crc32 of `name`'s line in w.sfv.
    func manifestLine(_ scratch: Scratch, naming name: String) throws -> (Int, String) {
        let text = String(decoding: scratch.read("w.sfv") ?? Data(), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.hasPrefix(name + " ") })
        return (index + 1, String(lines[index].split(separator: " ").last ?? ""))
    }
}
