import Foundation
import Testing

@testable import GCDCatCore

@Suite struct RunReportTests {
    func report() throws -> RunReport {
        RunReport(
            operation: "merge", strategy: "auto", parts: 2, bytes: 1_000_000,
            limits: try ChunkLimits(), chunks: 3, jobs: 2,
            time: (wall: 0.0014419999999999997, user: 0.000_123_456_7, system: 0),
            memory: MemorySample(), copyMethod: "copy_file_range", crc32: 0xCBF4_3926,
            inputs: ["p.001", "p.002"], output: "p")
    }

    @Test func theJSONIsVersionedNamesItsPathsAndRoundsItsNumbers() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(try report()), as: UTF8.self)
        #expect(text.contains(#""schemaVersion":2"#))
        #expect(text.contains(#""inputs":["p.001","p.002"]"#))
        #expect(text.contains(#""output":"p""#))
        #expect(text.contains(#""wallSeconds":0.001442"#), "\(text)")
        #expect(text.contains(#""userSeconds":0.000123"#), "\(text)")
        // 1,000,000 bytes in 0.001442 s, to the byte per second.
        #expect(text.contains(#""throughputBytesPerSecond":693481276"#), "\(text)")
        #expect(text.contains(#""crc32":"cbf43926""#))
    }

    @Test func absentValuesAreNullNotMissing() throws {
        var report = try report()
        report.output = nil
        report.copyMethod = nil
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any]
        #expect(object?["output"] is NSNull)
        #expect(object?["copyMethod"] is NSNull)
        #expect(object?["lowWater"] is NSNull)
    }

    @Test func itReadsBackAsItWasWritten() throws {
        let report = try report()
        #expect(try JSONDecoder().decode(RunReport.self, from: JSONEncoder().encode(report)) == report)
    }
}
