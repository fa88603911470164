import Foundation
import Testing

/// CSV-style splits that repeat the input's header lines atop every part, and merges that
/// restore the original file from them: the header once, every byte checked.
@Suite struct HeaderSplitCLITests {
    static let header = "id,name,amount\n"
    static let csv = Data((header + (1...2000).map { "\($0),name \($0),\($0 * 7)\n" }.joined()).utf8)
    static let strategies = ["auto", "stream", "offsets", "dispatchdata"]

    /// Each way of cutting with a header, and whether standard input feeds it.
    static let cuts: [(flags: [String], standardInput: Bool)] = [
        (["-l", "500"], false), (["-l", "500"], true), (["--size", "8K", "--line-boundary"], false),
        (["--size", "8K", "--line-boundary"], true), (["-C", "5000"], false),
    ]

    /// Writes big.csv in `scratch` and splits it with one header line and `flags`, from the file
    /// or from standard input.
    static func splitCSV(flags: [String], standardInput: Bool, in scratch: Scratch) throws -> RunResult {
        try scratch.write("big.csv", csv)
        let arguments = flags + ["--header-lines", "1", "-q"]
        return standardInput
            ? try run(
                executable: "/bin/sh",
                ["-c", "\"$0\" split - big.csv. \"$@\" < big.csv", gcdcatPath] + arguments, in: scratch.path)
            : try gcdcat(["split", "big.csv"] + arguments, in: scratch.path)
    }

    @Test(arguments: cuts)
    func everyPartStartsWithTheHeaderAndMergeRestoresTheFile(flags: [String], standardInput: Bool) throws {
        let scratch = try Scratch()
        let result = try Self.splitCSV(flags: flags, standardInput: standardInput, in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let parts = scratch.listing().filter { $0.hasPrefix("big.csv.0") }
        #expect(parts.count >= 4)
        for part in parts {
            #expect(scratch.read(part)?.starts(with: Data(Self.header.utf8)) == true, "\(part)")
        }
        let manifest = String(decoding: scratch.read("big.csv.sfv") ?? Data(), as: UTF8.self)
        #expect(manifest.contains("; gcdcat-header: \(Self.header.utf8.count) "), "\(manifest)")
        #expect(manifest.contains("; gcdcat-whole: \(Self.csv.count) "), "\(manifest)")
        for strategy in Self.strategies {
            let merged = try gcdcat(
                ["merge", "big.csv.001", "-o", "restored-\(strategy)", "--strategy", strategy], in: scratch.path)
            #expect(merged.status == 0, "\(strategy): \(merged.stderr)")
            #expect(merged.stderr.contains("verified"), "\(strategy): \(merged.stderr)")
            #expect(scratch.read("restored-\(strategy)") == Self.csv, "\(strategy)")
        }
    }

    /// Other tools still read a header split's SFV: its header record is a comment.
    @Test(
        .enabled(if: toolExists("cksfv") && toolExists("rhash"), "needs cksfv and rhash (apt-get install cksfv rhash)"),
        arguments: cuts)
    func otherToolsCheckTheSFVOfAHeaderSplit(flags: [String], standardInput: Bool) throws {
        let scratch = try Scratch()
        let result = try Self.splitCSV(flags: flags, standardInput: standardInput, in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let manifest = String(decoding: scratch.read("big.csv.sfv") ?? Data(), as: UTF8.self)
        #expect(manifest.contains("; gcdcat-header: \(Self.header.utf8.count) "), "\(manifest)")
        let cksfv = try runTool("cksfv", ["-q", "-f", "big.csv.sfv"], in: scratch.path)
        #expect(cksfv.status == 0, "\(cksfv.stdoutText)\(cksfv.stderr)")
        let rhash = try runTool("rhash", ["--skip-ok", "-c", "big.csv.sfv"], in: scratch.path)
        #expect(rhash.status == 0, "\(rhash.stdoutText)\(rhash.stderr)")
    }

    @Test func linesPerPartCountTheLinesAfterTheHeader() throws {
        let scratch = try Scratch()
        try scratch.write("t.csv", Data("h\n1\n2\n3\n4\n5".utf8))
        let result = try gcdcat(["split", "-l", "2", "t.csv", "--header-lines", "1", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            ["t.csv.001", "t.csv.002", "t.csv.003"].map { scratch.read($0) }
                == ["h\n1\n2\n", "h\n3\n4\n", "h\n5"].map { Data($0.utf8) })
        #expect(scratch.listing() == ["t.csv", "t.csv.001", "t.csv.002", "t.csv.003", "t.csv.sfv"])
    }

    /// A manifest that lost its header record (an older gcdcat, a hand edit) describes a file
    /// the parts do not join to: merge refuses, exit 2, and writes nothing.
    @Test(arguments: strategies)
    func aMergeWithoutTheHeaderRecordIsNeverVerified(strategy: String) throws {
        let scratch = try Scratch()
        try scratch.write("big.csv", Self.csv)
        let result = try gcdcat(
            ["split", "big.csv", "--size", "8K", "--line-boundary", "--header-lines", "1", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let manifest = String(decoding: scratch.read("big.csv.sfv")!, as: UTF8.self)
        let stripped = manifest.split(separator: "\n").filter { !$0.contains("gcdcat-header:") }.joined(separator: "\n")
        try scratch.write("big.csv.sfv", Data((stripped + "\n").utf8))
        let merged = try gcdcat(["merge", "big.csv.001", "-o", "out", "--strategy", strategy], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(merged.stderr.contains("but the manifest records \(Self.csv.count) bytes"), "\(merged.stderr)")
        #expect(!merged.stderr.contains("verified"))
        #expect(scratch.read("out") == nil)
    }

    /// A header record that lies about the header's bytes is caught by the whole record.
    @Test func aWrongHeaderRecordIsACorruptSet() throws {
        let scratch = try Scratch()
        try scratch.write("big.csv", Self.csv)
        _ = try gcdcat(["split", "big.csv", "-l", "700", "--header-lines", "1", "-q"], in: scratch.path)
        let manifest = String(decoding: scratch.read("big.csv.sfv")!, as: UTF8.self)
        let forged = manifest.replacingOccurrences(
            of: "; gcdcat-header: \(Self.header.utf8.count) ", with: "; gcdcat-header: \(Self.header.utf8.count - 1) ")
        #expect(forged != manifest)
        try scratch.write("big.csv.sfv", Data(forged.utf8))
        let merged = try gcdcat(["merge", "big.csv.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// A header record written by hand, with no whole record to catch it, drops only bytes that
    /// are the header it describes: its crc32 is checked at the head of every part it drops from
    /// (it cut 10 bytes of each later part unchecked, exit 0: outside attack, issue 22).
    @Test(arguments: ["auto", "stream"])
    func aHandMadeHeaderRecordIsCheckedAtTheHeadOfEachPart(strategy: String) throws {
        let scratch = try Scratch()
        let whole = randomData(3000, seed: 2231)
        for index in 0..<3 {
            try scratch.write("x.bin.00\(index + 1)", whole.subdata(in: index * 1000..<(index + 1) * 1000))
        }
        let listed = try gcdcat(["checksum", "x.bin.001", "x.bin.002", "x.bin.003"], in: scratch.path)
        try scratch.write("x.bin.sfv", Data("; gcdcat-header: 10 12345678\n".utf8) + listed.stdout)
        try scratch.write("head", whole.subdata(in: 1000..<1010))
        let head = try gcdcat(["checksum", "head"], in: scratch.path)
        let crc = String(head.stdoutText.split(separator: "\n").last!.suffix(8)).lowercased()
        try FileManager.default.removeItem(atPath: scratch.file("head"))
        let merged = try gcdcat(["merge", "x.bin.001", "-o", "out", "--strategy", strategy], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(
            merged.stderr.hasSuffix(
                "gcdcat: x.bin.002: its first 10 bytes have crc32 \(crc), but x.bin.sfv says every part after the "
                    + "first repeats a 10-byte header with 12345678: the header record does not describe this set, so "
                    + "nothing was dropped or written\n"), "\(merged.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// Without a manifest nothing records the header, so the split says that a merge repeats
    /// it (a merge checked by `--checksum`'s list said "verified" over the repeated headers,
    /// silently: outside attack).
    @Test func aHeaderSplitWithoutAManifestSaysAMergeRepeatsTheHeader() throws {
        let scratch = try Scratch()
        try scratch.write("big.csv", Self.csv)
        let split = try gcdcat(
            ["split", "big.csv", "-l", "700", "--header-lines", "1", "--checksum", "sha256", "--no-manifest"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            split.stderr.contains(
                "no manifest records the header, so merging these parts repeats it in each of them; "
                    + "drop --no-manifest to have merge restore big.csv exactly"), "\(split.stderr)")
        let quiet = try gcdcat(
            ["split", "big.csv", "-l", "700", "--header-lines", "1", "--manifest", "m.sfv", "--force"],
            in: scratch.path)
        #expect(!quiet.stderr.contains("no manifest records the header"), "\(quiet.stderr)")
    }

    /// `--no-verify` skips the check, not the restoration: the header the SFV beside the parts
    /// records is dropped from every part after the first, as a verified merge drops it (it was
    /// joined again atop every part, exit 0, without a word).
    @Test(arguments: ["auto", "stream"])
    func noVerifyStillDropsTheRecordedHeader(strategy: String) throws {
        let scratch = try Scratch()
        try scratch.write("big.csv", Self.csv)
        let split = try gcdcat(["split", "big.csv", "-l", "500", "--header-lines", "1", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("big.csv"))
        let merged = try gcdcat(["big.csv.001", "--no-verify", "--strategy", strategy], in: scratch.path)
        #expect(merged.status == 0)
        #expect(merged.stderr == "")
        #expect(scratch.read("big.csv") == Self.csv)
        // From the list too, and from a list of the parts.
        let fromList = try gcdcat(["big.csv.sfv", "--no-verify", "-o", "from-list"], in: scratch.path)
        #expect(fromList.status == 0)
        #expect(fromList.stderr == "")
        #expect(scratch.read("from-list") == Self.csv)
        let parts = scratch.files(startingWith: "big.csv.0")
        let listed = try gcdcat(["merge"] + parts + ["--no-verify", "-o", "listed"], in: scratch.path)
        #expect(listed.status == 0)
        #expect(listed.stderr == "")
        #expect(scratch.read("listed") == Self.csv)
    }

    /// An SFV beside the parts that cannot be read, or whose header record the parts do not start
    /// with, drops nothing under `--no-verify`: the parts are joined whole, and a warning says why.
    @Test func noVerifySaysWhenTheHeaderRecordCannotBeUsed() throws {
        let scratch = try Scratch()
        try scratch.write("t.csv", Data("h\n1\n2\n3\n4\n5".utf8))
        let split = try gcdcat(["split", "-l", "2", "t.csv", "--header-lines", "1", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let manifest = String(decoding: try #require(scratch.read("t.csv.sfv")), as: UTF8.self)
        let joined = Data("h\n1\n2\nh\n3\n4\nh\n5".utf8)
        try scratch.write("t.csv.sfv", Data((manifest + "not a line\n").utf8))
        let unreadable = try gcdcat(["t.csv.001", "--no-verify", "-o", "a"], in: scratch.path)
        #expect(unreadable.status == 0)
        #expect(
            unreadable.stderr
                == "gcdcat: warning: t.csv.sfv beside the set cannot be read (line 7: 'line' is not a CRC32 of 8 hex "
                + "digits), so a header it may record (split --header-lines) was not dropped: if every part repeats "
                + "one, so does the output\n")
        #expect(scratch.read("a") == joined)
        let other = manifest.replacingOccurrences(of: "; gcdcat-header: 2 ", with: "; gcdcat-header: 3 ")
        #expect(other != manifest)
        try scratch.write("t.csv.sfv", Data(other.utf8))
        let mismatched = try gcdcat(["t.csv.001", "--no-verify", "-o", "b"], in: scratch.path)
        #expect(mismatched.status == 0)
        #expect(
            mismatched.stderr
                == "gcdcat: warning: t.csv.sfv records a 3-byte header that every part after the first repeats, but "
                + "t.csv.002 does not start with it, so no header was dropped and the parts are joined whole\n")
        #expect(scratch.read("b") == joined)
    }
}
