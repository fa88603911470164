import Foundation
import Testing

/// A two-digit set starts at `00`, as GNU `split -d` numbers it: one found or listed from `01`
/// with nothing before it has lost its first part, and is refused as `xab` without `xaa` is
/// (outside attack a17 #5: `gcdcat x01` merged the rest with exit 0, no word). A download
/// manager's `.part01` starts a set, and a split that started at `01` vouches for it by its
/// marks or its manifest.
@Suite struct TwoDigitFirstPartCLITests {
    /// GNU `split -d` parts (no marks) of 40000 bytes, 10240 each, with the first removed.
    func dashDSetWithoutItsFirst(_ scratch: Scratch, prefix: String) throws -> Data {
        let whole = randomData(40_000, seed: 1705)
        try scratch.write("o", whole)
        let made = try runTool("split", ["-d", "-b", "10K", "o"] + (prefix == "x" ? [] : [prefix]), in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file(prefix + "00"))
        return whole
    }

    @Test(arguments: ["x", "part_"])
    func aDashDSetFromZeroOneIsRefused(prefix: String) throws {
        let scratch = try Scratch()
        let whole = try dashDSetWithoutItsFirst(scratch, prefix: prefix)
        let parts = ["01", "02", "03"].map { prefix + $0 }
        let before = scratch.listing()
        let found = try gcdcat([parts[0], "-o", "out"], in: scratch.path)
        #expect(found.status == 1)
        #expect(
            found.stderr
                == "gcdcat: \(prefix)01: no \(prefix)00 before it, so the set's first part may be missing. If the set "
                + "really starts here (split --start), merge it with its manifest, or list its parts with --as-given\n")
        let globbed = try gcdcat(parts + ["-o", "out2"], in: scratch.path)
        #expect(globbed.status == 1)
        #expect(
            globbed.stderr
                == "gcdcat: \(prefix)01: no \(prefix)00 before it, so the set's first part may be missing. If the set "
                + "really starts here (split --start), merge it with its manifest, or give --as-given to join the list "
                + "as it is\n")
        #expect(scratch.listing() == before)
        for (index, name) in parts.enumerated() {
            #expect(
                scratch.read(name) == whole.subdata(in: (index + 1) * 10_240..<min(whole.count, (index + 2) * 10_240)))
        }
        let given = try gcdcat(parts + ["-o", "out", "--as-given", "-q"], in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(scratch.read("out") == whole.subdata(in: 10_240..<whole.count))
    }

    /// The whole GNU `split -d` set merges from `x00`; `.part01` starts its set.
    @Test func aSetFromZeroZeroAndAPartZeroOneSetStillMerge() throws {
        let scratch = try Scratch()
        let whole = randomData(40_000, seed: 1706)
        try scratch.write("o", whole)
        #expect(try runTool("split", ["-d", "-b", "10K", "o"], in: scratch.path).status == 0)
        let dashD = try gcdcat(["x00", "-o", "out", "-q"], in: scratch.path)
        #expect(dashD.status == 0, "\(dashD.stderr)")
        #expect(scratch.read("out") == whole)
        for (index, name) in ["film.mkv.part01", "film.mkv.part02"].enumerated() {
            try scratch.write(name, whole.subdata(in: index * 30_000..<min(whole.count, (index + 1) * 30_000)))
        }
        let partN = try gcdcat(["film.mkv.part01"], in: scratch.path)
        #expect(partN.status == 0, "\(partN.stderr)")
        #expect(partN.stderr == "")
        #expect(scratch.read("film.mkv") == whole)
    }

    /// gcdcat's own split from `01` (`--numeric-suffixes=1`): its marks vouch for the start, and
    /// so does its manifest's whole record once a plain copy dropped the marks.
    @Test func aSplitFromZeroOneMergesByItsMarksOrItsManifest() throws {
        let scratch = try Scratch()
        let whole = randomData(40_000, seed: 1707)
        try scratch.write("o", whole)
        let split = try gcdcat(["split", "o", "--numeric-suffixes=1", "-b", "10K", "-q", "x"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(scratch.listing() == ["o", "x.sfv", "x01", "x02", "x03", "x04"])
        let marked = try gcdcat(["x01", "-o", "one"], in: scratch.path)
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(marked.stderr == "gcdcat: 4 parts verified against x.sfv\n")
        #expect(scratch.read("one") == whole)
        try scratch.unmark(["x01", "x02", "x03", "x04"])
        let byManifest = try gcdcat(["x01", "-o", "two"], in: scratch.path)
        #expect(byManifest.status == 0, "\(byManifest.stderr)")
        #expect(byManifest.stderr == "gcdcat: 4 parts verified against x.sfv\n")
        #expect(scratch.read("two") == whole)
    }

    /// Digits inside a name, before an extension, are no GNU `-d` suffix (which ends the name):
    /// a lone `movie01.mkv` is its own first part and merges, as it did before the rule above
    /// (outside re-check a18 C); a lone `x01` is refused as the set above is.
    @Test func digitsBeforeAnExtensionAreNoGNUSuffix() throws {
        let scratch = try Scratch()
        let data = randomData(30_000, seed: 1811)
        try scratch.write("movie01.mkv", data)
        let lone = try gcdcat(["movie01.mkv", "-o", "out", "-q"], in: scratch.path)
        #expect(lone.status == 0, "\(lone.stderr)")
        #expect(scratch.read("out") == data)
        try scratch.write("x01", data)
        let gnu = try gcdcat(["x01", "-o", "out2"], in: scratch.path)
        #expect(gnu.status == 1)
        #expect(gnu.stderr.hasPrefix("gcdcat: x01: no x00 before it, so the set's first part may be missing."))
    }
}
