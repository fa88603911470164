import Foundation
import Testing

/// A checksum list made of the whole file before its split names it by its own name (`sha256sum
/// orig > SHA256SUMS`, `cksfv -q orig > orig.sfv`), which GNU split's `xaa`, `xab` do not say.
/// Merged with `-o orig`, that list is the whole file's: it was passed over, and a set short of
/// parts or with a corrupt part merged with exit 0 (outside check a25 C4, M3).
@Suite struct WholeListUnderOutputNameCLITests {
    /// One list layout each: the command that makes it from `orig`, and the name it has.
    static let layouts: [(make: String, list: String)] = [
        ("sha256sum orig > SHA256SUMS", "SHA256SUMS"),
        ("sha256sum orig > orig.sha256", "orig.sha256"),
        ("cksfv -q orig > orig.sfv", "orig.sfv"),
        ("md5sum orig > checksums.md5", "checksums.md5"),
    ]

    /// The whole set checks out against the list and merges; a corrupt part is refused with
    /// exit 2 naming the list, and nothing is written.
    @Test(arguments: layouts)
    func aListOfTheWholeFileChecksTheSetMergedUnderItsName(make: String, list: String) throws {
        let scratch = try Scratch()
        let whole = randomData(550, seed: 4701)
        try scratch.write("orig", whole)
        #expect(try shell("split -b 100 orig && \(make) && rm orig", in: scratch.path).status == 0)
        let merged = try gcdcat(["xaa", "-o", "orig"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 6 parts verified against \(list)\n")
        #expect(scratch.read("orig") == whole)

        #expect(
            try shell("rm orig && printf Z | dd of=xab bs=1 seek=5 conv=notrunc 2>/dev/null", in: scratch.path).status
                == 0)
        let corrupt = try gcdcat(["xaa", "-o", "orig"], in: scratch.path)
        #expect(corrupt.status == 2, "\(corrupt.stderr)")
        #expect(corrupt.stderr.hasPrefix("gcdcat: \(list): line "), "\(corrupt.stderr)")
        #expect(corrupt.stderr.hasSuffix(": a part is corrupt or missing\n"), "\(corrupt.stderr)")
        #expect(scratch.read("orig") == nil)
    }

    /// A set of one size throughout checked by the whole file's list is proved whole: no warning
    /// that its last part may not be its last (a30 F9).
    @Test func aWholeFileListProvesTheEnd() throws {
        let scratch = try Scratch()
        let whole = randomData(1_000, seed: 4707)
        try scratch.write("orig", whole)
        #expect(try shell("split -b 100 orig && sha256sum orig > SHA256SUMS && rm orig", in: scratch.path).status == 0)
        let merged = try gcdcat(["xaa", "-o", "orig"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 10 parts verified against SHA256SUMS\n")
        #expect(scratch.read("orig") == whole)
    }

    /// `x.sfv` of the whole file (`cksfv -q orig > x.sfv`) is the set's own list by its name,
    /// but names no part: the refusal now says how to use it, and that way checks the set (a29 M2).
    @Test func aWholeFileListUnderTheSetsNameSaysToNameTheOutput() throws {
        let scratch = try Scratch()
        let whole = randomData(550, seed: 4708)
        try scratch.write("orig", whole)
        #expect(try shell("cksfv -q orig > x.sfv && split -b 100 orig && rm orig", in: scratch.path).status == 0)
        let refused = try gcdcat(["xaa"], in: scratch.path)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(
            refused.stderr
                == "gcdcat: x.sfv: belongs to another set: it lists none of the parts being merged (line 5 names orig, "
                + "not xaa); give this set's own list with --manifest, or merge without one (--no-verify); if it is "
                + "the whole file's list, name the output after it (-o orig)\n")
        let merged = try gcdcat(["xaa", "-o", "orig"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 6 parts verified against x.sfv\n")
        #expect(scratch.read("orig") == whole)
    }

    /// The first part alone, the others lost: it was written alone with exit 0.
    @Test(arguments: layouts)
    func aLoneFirstPartIsShortOfTheWholeList(make: String, list: String) throws {
        let scratch = try Scratch()
        try scratch.write("orig", randomData(550, seed: 4702))
        #expect(
            try shell("split -b 100 orig && \(make) && rm orig xab xac xad xae xaf", in: scratch.path).status == 0)
        let merged = try gcdcat(["xaa", "-o", "orig"], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(merged.stderr.hasPrefix("gcdcat: \(list): line "), "\(merged.stderr)")
        #expect(merged.stderr.contains("but the one part"), "\(merged.stderr)")
        #expect(scratch.read("orig") == nil)
        #expect(try shell("ls", in: scratch.path).stdoutText == "\(list)\nxaa\n")
    }

    /// The parts in a folder of their own, the output elsewhere under the list's name: the list
    /// beside the parts still checks them.
    @Test func theOutputMayLieElsewhere() throws {
        let scratch = try Scratch()
        let whole = randomData(550, seed: 4703)
        try scratch.write("orig", whole)
        #expect(
            try shell(
                "split -d -b 100 orig && sha256sum orig > SHA256SUMS && mkdir dl out && mv x0* SHA256SUMS dl/ && rm orig",
                in: scratch.path
            ).status == 0)
        let merged = try gcdcat(["dl/x00", "-o", "out/orig"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 6 parts verified against dl/SHA256SUMS\n")
        #expect(scratch.read("out/orig") == whole)
        #expect(
            try shell("rm out/orig && printf Z | dd of=dl/x03 bs=1 seek=5 conv=notrunc 2>/dev/null", in: scratch.path)
                .status == 0)
        let corrupt = try gcdcat(["dl/x00", "-o", "out/orig"], in: scratch.path)
        #expect(corrupt.status == 2, "\(corrupt.stderr)")
        #expect(scratch.read("out/orig") == nil)
    }

    /// cksfv's whole-file SFV named with `--manifest` was "another set's" (a25 M3), the way the
    /// message of `gcdcat orig.sfv` pointed.
    @Test func aWholeFileSFVGivenWithManifestChecksTheSet() throws {
        let scratch = try Scratch()
        let whole = randomData(550, seed: 4704)
        try scratch.write("orig", whole)
        #expect(try shell("split -b 100 orig && cksfv -q orig > orig.sfv && rm orig", in: scratch.path).status == 0)
        let merged = try gcdcat(["xaa", "--manifest", "orig.sfv", "-o", "orig"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 6 parts verified against orig.sfv\n")
        #expect(scratch.read("orig") == whole)
        #expect(try shell("rm orig xae", in: scratch.path).status == 0)
        let short = try gcdcat(["xaa", "--manifest", "orig.sfv", "-o", "orig"], in: scratch.path)
        #expect(short.status == 1, "\(short.stderr)")
        #expect(short.stderr == "gcdcat: xae: missing part: the set has xaf but not this one\n")
        #expect(scratch.read("orig") == nil)
    }

    /// A list naming another file than the output is no list of this set's: the set merges as
    /// before, with a list that names `notes.txt` left alone.
    @Test func aListOfAnotherFileIsLeftAlone() throws {
        let scratch = try Scratch()
        let whole = randomData(550, seed: 4705)
        try scratch.write("orig", whole)
        try scratch.write("notes.txt", Data("hello\n".utf8))
        #expect(
            try shell("split -b 100 orig && sha256sum notes.txt > SHA256SUMS && rm orig", in: scratch.path).status
                == 0)
        let merged = try gcdcat(["xaa", "-o", "orig"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(!merged.stderr.contains("verified"), "\(merged.stderr)")
        #expect(scratch.read("orig") == whole)
    }
}

/// The advice for a list of `split -a 3 -d`'s middle parts names the set's first part,
/// `x000`, not `x001` (outside check a28).
@Suite struct ListStoppingShortAdviceCLITests {
    @Test func theAdviceNamesPartZero() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(300, seed: 4706))
        #expect(try shell("split -a 3 -d -b 10 f x", in: scratch.path).status == 0)
        let merged = try gcdcat(["merge", "x010", "x011", "-o", "o"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: x012: lies beside the listed parts but is not in the list, which stops at x011: the output "
                + "would lack 18 parts (x012 … x029). Give every part (or the first alone: gcdcat merge x000), or use "
                + "--as-given to merge the list as it is\n")
        #expect(scratch.read("o") == nil)
    }
}
