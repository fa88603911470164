import Foundation
import Testing

/// Issue 13: GNU split's `--additional-suffix`, and merge finding such sets from their first part.
@Suite struct AdditionalSuffixCLITests {
    func splitSet(_ arguments: [String]) throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 31)
        try scratch.write("big.txt", whole)
        let made = try gcdcat(["split", "big.txt"] + arguments, in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        return (scratch, whole)
    }

    @Test func gnuNamesWithASuffixRoundTrip() throws {
        let (scratch, whole) = try splitSet(["-b", "1000", "-d", "--additional-suffix=.txt", "out_", "-q"])
        #expect(scratch.listing() == ["big.txt", "out.sfv", "out_00.txt", "out_01.txt", "out_02.txt"])
        // The manifest lists the suffixed names, and cksfv-style verification finds them.
        let manifest = String(decoding: scratch.read("out.sfv")!, as: UTF8.self)
        #expect(manifest.contains("\nout_00.txt ") && manifest.contains("\nout_02.txt "))
        #expect(try gcdcat(["verify", "out.sfv"], in: scratch.path).status == 0)
        let merged = try gcdcat(["merge", "out_00.txt", "-o", "joined"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.contains("3 parts verified against out.sfv"))
        #expect(scratch.read("joined") == whole)
    }

    @Test func defaultNamesWithASuffixRoundTripToTheSuffixedWholeName() throws {
        let (scratch, whole) = try splitSet([
            "--size", "1000", "--prefix", "part.", "--additional-suffix", ".bin", "-q",
        ])
        #expect(scratch.listing() == ["big.txt", "part.001.bin", "part.002.bin", "part.003.bin", "part.sfv"])
        let merged = try gcdcat(["merge", "part.001.bin"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("part.bin") == whole)
    }

    @Test func alphaNamesWithASuffixAreFoundFromTheFirst() throws {
        let (scratch, whole) = try splitSet([
            "-b", "1000", "--suffix", "alpha", "--additional-suffix", ".tar.gz", "x", "--no-manifest", "-q",
        ])
        #expect(scratch.listing() == ["big.txt", "xaa.tar.gz", "xab.tar.gz", "xac.tar.gz"])
        let merged = try gcdcat(["merge", "xaa.tar.gz", "-o", "joined"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == whole)
    }

    @Test func aGapInASuffixedSetIsAMissingPart() throws {
        let (scratch, _) = try splitSet(["-b", "500", "-d", "--additional-suffix=.txt", "out_", "--no-manifest", "-q"])
        try FileManager.default.removeItem(atPath: scratch.file("out_02.txt"))
        let merged = try gcdcat(["merge", "out_00.txt", "-o", "joined"], in: scratch.path)
        #expect(merged.status == 1)
        #expect(merged.stderr == "gcdcat: out_02.txt: missing part: the set has out_03.txt but not this one\n")
        #expect(scratch.read("joined") == nil)
    }

    /// A suffix that discovery cannot tell from the number would have its set merged as one
    /// file (x.001.001 reads as part 1 of x.001.): refused before anything is written.
    @Test(arguments: [".001", "_part.txt", "9"])
    func aSuffixMergeCouldNotReadBackIsRefused(suffix: String) throws {
        let (scratch, _) = try splitSet(["--size", "1000", "-q", "--no-manifest"])
        let result = try gcdcat(
            ["split", "big.txt", "--size", "1000", "--prefix", "x.", "--additional-suffix", suffix], in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--additional-suffix '\(suffix)': merge could not tell the part number"))
        #expect(!scratch.listing().contains { $0.hasPrefix("x.") })
    }

    @Test func aSlashInTheSuffixIsAUsageError() throws {
        let (scratch, _) = try splitSet(["--size", "1000", "-q"])
        let result = try gcdcat(["split", "big.txt", "--size", "1000", "--additional-suffix", "a/b"], in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--additional-suffix 'a/b' contains a '/'."))
    }
}
