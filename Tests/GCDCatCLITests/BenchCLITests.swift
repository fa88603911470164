import Foundation
import Testing

@Suite struct BenchCLITests {
    @Test func aSmallBenchWritesATableJSONAndAChartThatRenders() throws {
        let scratch = try Scratch()
        let result = try gcdcat(
            [
                "bench", "--size", "8M", "--parts", "3", "--repeat", "1", "--high-water", "64K,1M",
                "--json", "b.json", "--svg", "b.svg",
            ], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        for row in [
            "merge     cat", "merge     auto", "merge     stream", "merge     offsets", "merge     dispatchdata",
            "split     split (GNU)", "split     gcdcat split", "checksum  rhash --crc32", "checksum  gcdcat crc32",
        ] {
            #expect(result.stdoutText.contains(row), "missing row \(row)")
        }
        #expect(!result.stdoutText.contains("WRONG"))
        let json = try JSONSerialization.jsonObject(with: scratch.read("b.json") ?? Data()) as? [String: Any]
        let results = json?["results"] as? [[String: Any]] ?? []
        let names = Set(results.compactMap { ($0["cell"] as? [String: Any])?["name"] as? String })
        #expect(names.isSuperset(of: ["cat", "auto", "stream", "offsets", "dispatchdata"]))
        #expect(results.allSatisfy { ($0["medianSeconds"] as? Double ?? 0) > 0 })
        let machine = (json?["report"] as? [String: Any])?["machine"] as? [String: Any]
        #expect((machine?["cores"] as? Int ?? 0) >= 1)
        #expect(machine?["filesystem"] as? String != nil)
        #expect(toolExists("rsvg-convert"), "rsvg-convert is not installed (apt-get install librsvg2-bin)")
        let png = try runTool("rsvg-convert", ["b.svg", "-o", "b.png"], in: scratch.path)
        #expect(png.status == 0, "\(png.stderr)")
        #expect((scratch.read("b.png")?.count ?? 0) > 1000)
        // The data went to a temporary folder that is gone again.
        #expect(scratch.listing() == ["b.json", "b.png", "b.svg"])
    }

    @Test(arguments: [
        (["--size", "0"], "--size"),
        (["--repeat", "0"], "--repeat"),
        (["--strategies", "auto,warp"], "unknown strategy 'warp'"),
        (["--high-water", "1M,zero"], "--high-water"),
    ])
    func badOptionsAreUsageErrors(flags: [String], mention: String) throws {
        let result = try gcdcat(["bench"] + flags)
        #expect(result.status == 64)
        #expect(result.stderr.contains(mention), "\(result.stderr)")
    }

    @Test func notEnoughSpaceIsCheckedBeforeGenerating() throws {
        let scratch = try Scratch()
        let result = try gcdcat(["bench", "--size", "100T", "--dir", scratch.path], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("statvfs: needs "), "\(result.stderr)")
        #expect(scratch.listing().isEmpty)
    }
}

/// Cases an outside tester found with only the README and the binary.
extension BenchCLITests {
    /// The JSON contract's attacker: each of these printed something other than exactly one
    /// JSON document on standard output, or trapped.
    @Test func anUnwritableJSONFileFailsBeforeTheBenchmarkWithOneErrorObject() throws {
        let result = try gcdcat([
            "bench", "--size", "1M", "--parts", "2", "--repeat", "1", "--json", "--json-file",
            "/nonexistent-dir/x.json",
        ])
        #expect(result.status == 1)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["syscall"] as? String == "open")
        #expect(error?["path"] as? String == "/nonexistent-dir/x.json")
        #expect(!result.stderr.contains("round 1/1"), "the benchmark ran before the file was checked")
    }

    @Test func aHugeBenchSizeIsAUsageErrorNotATrap() throws {
        for size in ["4611686018427387904", "9223372036854775807"] {
            let result = try gcdcat(["bench", "--size", size, "--json"])
            #expect(result.status == 64, "--size \(size): \(result.stderr.prefix(200))")
            let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            #expect((object?["error"] as? [String: Any])?["code"] as? String == "usage")
        }
    }
}
