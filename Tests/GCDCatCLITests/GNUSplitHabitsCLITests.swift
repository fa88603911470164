import Foundation
import Testing

/// GNU split's options, spelled as people type them, and the round trips they must keep.
@Suite struct GNUSplitHabitsCLITests {
    /// Each habit's arguments (after `split`), the parts it must write, and its manifest.
    static let habits: [(arguments: [String], parts: [String], manifest: String?)] = [
        (["-b", "100K", "f", "out_"], ["out_001", "out_002", "out_003"], "out.sfv"),
        (["--bytes", "100K", "f", "-d"], ["f.00", "f.01", "f.02"], "f.sfv"),
        (["-d", "-b", "100K", "f", "x"], ["x00", "x01", "x02"], "x.sfv"),
        (["--numeric-suffixes=3", "-a", "3", "-b", "100K", "f", "g"], ["g003", "g004", "g005"], "g.sfv"),
        (["-b", "100K", "--suffix", "alpha", "f", "x"], ["xaa", "xab", "xac"], "x.sfv"),
        (["-a", "4", "--suffix", "alpha", "--bytes=100K", "f", "y"], ["yaaaa", "yaaab", "yaaac"], "y.sfv"),
    ]

    @Test(arguments: habits)
    func eachHabitRoundTripsThroughMergeAndCat(arguments: [String], parts: [String], manifest: String?) throws {
        let scratch = try Scratch()
        let original = randomData(250_000, seed: 13)
        try scratch.write("f", original)
        let result = try gcdcat(["split"] + arguments + ["-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.listing() == (["f"] + parts + (manifest.map { [$0] } ?? [])).sorted())
        let catted = try run(executable: "/bin/cat", parts, in: scratch.path)
        #expect(catted.stdout == original)
        let merged = try gcdcat(["merge", parts[0], "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == original)
    }

    @Test func digitSuffixesWidenAsGNUDoes() throws {
        let scratch = try Scratch()
        let original = randomData(92_500, seed: 5)
        try scratch.write("f", original)
        let result = try gcdcat(["split", "-d", "-b", "1000", "f", "w", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let names = (0..<90).map { String(format: "w%02d", $0) } + ["w9000", "w9001", "w9002"]
        #expect(scratch.listing() == (["f", "w.sfv"] + names).sorted())
        #expect(try run(executable: "/bin/sh", ["-c", "cat w[0-9]*"], in: scratch.path).stdout == original)
        let merged = try gcdcat(["merge", "w00", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == original)
    }

    static let lines = Data((1...2500).map { "\($0)\n" }.joined().utf8)

    @Test(arguments: [false, true])
    func linesPerPartCutsAfterEveryNthLine(fromStandardInput: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("t.txt", Self.lines)
        let result =
            fromStandardInput
            ? try run(
                executable: "/bin/sh", ["-c", "\"$0\" split -l 1000 - t.txt. -q < t.txt", gcdcatPath],
                in: scratch.path)
            : try gcdcat(["split", "-l", "1000", "t.txt", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = [(1...1000), (1001...2000), (2001...2500)].map { Data($0.map { "\($0)\n" }.joined().utf8) }
        #expect(["t.txt.001", "t.txt.002", "t.txt.003"].map { scratch.read($0) } == expected)
        #expect(scratch.listing() == ["t.txt", "t.txt.001", "t.txt.002", "t.txt.003", "t.txt.sfv"])
    }

    @Test func linesPerPartKeepsAnUnterminatedLastLine() throws {
        let scratch = try Scratch()
        try scratch.write("t", Data("a\nb\nc\nd".utf8))
        let result = try gcdcat(["split", "--lines", "2", "t", "--no-manifest", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("t.001") == Data("a\nb\n".utf8))
        #expect(scratch.read("t.002") == Data("c\nd".utf8))
    }

    @Test func lineBytesIsSizeWithLineBoundary() throws {
        let scratch = try Scratch()
        try scratch.write("t.txt", Self.lines)
        let result = try gcdcat(["split", "-C", "4K", "t.txt", "c_", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let reference = try gcdcat(
            ["split", "--size", "4K", "--line-boundary", "t.txt", "--prefix", "r_", "-q"], in: scratch.path)
        #expect(reference.status == 0)
        let parts = ["c_001", "c_002", "c_003"].map { scratch.read($0) ?? Data() }
        #expect(parts == ["r_001", "r_002", "r_003"].map { scratch.read($0) ?? Data() })
        #expect(parts.allSatisfy { $0.count <= 4096 && $0.last == 0x0A })
        #expect(parts.reduce(Data(), +) == Self.lines)
    }

    @Test func verbosePrintsEachPartOnStandardOutput() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(250_000, seed: 1))
        let result = try gcdcat(["split", "-b", "100K", "-d", "--verbose", "f", "x"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            String(decoding: result.stdout, as: UTF8.self)
                == "creating file 'x00'\ncreating file 'x01'\ncreating file 'x02'\n")
    }

    @Test(arguments: [["--bogus", "100K", "f"], ["f", "--bogus"], ["--bogus=3", "f", "-n", "2", "--size", "1K"]])
    func anUnknownOptionIsReportedBeforeValidation(arguments: [String]) throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(10, seed: 1))
        let result = try gcdcat(["split"] + arguments, in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unknown option '--bogus'"), "\(result.stderr)")
        #expect(scratch.listing() == ["f"])
    }

    @Test func aPrefixGivenTwiceIsAUsageError() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(10, seed: 1))
        let result = try gcdcat(["split", "-b", "4", "f", "a_", "--prefix", "b_"], in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Give the prefix once: as the second argument or as --prefix.\n"))
        #expect(scratch.listing() == ["f"])
    }
}
