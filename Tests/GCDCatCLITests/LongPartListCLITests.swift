import Foundation
import Testing

/// `gcdcat merge p.00001 … p.20000`: swift-argument-parser parses merge's words in quadratic
/// time (20,000 parts took about 3 minutes before the merge began), so long runs of parts are
/// taken out before it parses and put back after (PositionalRuns). These check that every word
/// comes back, in order, wherever the run stands among the options.
@Suite struct LongPartListCLITests {
    static let count = 20_000

    /// p.00001 … p.20000, each holding its own number, and what they join to.
    func makeParts(_ scratch: Scratch) throws -> (names: [String], whole: Data) {
        var whole = Data()
        var names: [String] = []
        for number in 1...Self.count {
            let name = String(format: "p.%05d", number)
            let bytes = Data("\(number),".utf8)
            try bytes.write(to: URL(fileURLWithPath: scratch.file(name)))
            names.append(name)
            whole += bytes
        }
        return (names, whole)
    }

    @Test func twentyThousandPartsMergeInOrder() throws {
        let scratch = try Scratch()
        let (names, whole) = try makeParts(scratch)
        for (arguments, output) in [
            (["merge"] + names + ["-o", "out1", "-q"], "out1"),
            (["merge", "-q", "-o", "out2"] + names, "out2"),
            (names + ["--strategy", "stream", "-o", "out3", "-q"], "out3"),
            (["merge", "-o", "out4", "-q", "--"] + names, "out4"),
        ] {
            let result = try gcdcat(arguments, in: scratch.path)
            #expect(result.status == 0, "\(arguments.prefix(4)): \(result.stderr.prefix(500))")
            #expect(scratch.read(output) == whole, "\(arguments.prefix(4))")
        }
    }

    /// The words are still checked as parts: one out of order among them is named.
    @Test func aLongListIsStillCheckedAsASet() throws {
        let scratch = try Scratch()
        var (names, _) = try makeParts(scratch)
        names.swapAt(100, 101)
        let result = try gcdcat(["merge"] + names + ["-o", "out"], in: scratch.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("p.00101") || result.stderr.contains("p.00102"), "\(result.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// `xargs gcdcat checksum` hands it thousands of names: they are taken out before parsing
    /// too, and every name comes back in order, wherever it stands among the options.
    @Test(.enabled(if: toolExists("sha256sum"), "needs coreutils' sha256sum"))
    func checksumOfTwentyThousandFilesPrintsEachInOrderAsSha256sum() throws {
        let scratch = try Scratch()
        let (names, _) = try makeParts(scratch)
        let expected = try runTool("sha256sum", names, in: scratch.path).stdoutText
        for arguments in [
            ["checksum", "--algorithm", "sha256"] + names, ["checksum"] + names + ["--algorithm", "sha256"],
            ["checksum", "--algorithm", "sha256", "--"] + names,
        ] {
            let result = try gcdcat(arguments, in: scratch.path)
            #expect(result.status == 0, "\(arguments.prefix(4)): \(result.stderr.prefix(500))")
            #expect(result.stdoutText == expected, "\(arguments.prefix(4))")
        }
    }
}
