import Foundation
import Testing

/// `merge --remove-parts`: the parts go only after a verified, committed, durable output.
@Suite struct RemovePartsCLITests {
    /// Splits 250 000 random bytes into `f.001`…`f.003` with `f.sfv`, and moves `f` aside.
    func splitSet(in scratch: Scratch) throws -> Data {
        let original = randomData(250_000, seed: 17)
        try scratch.write("f", original)
        let split = try gcdcat(["split", "-b", "100K", "f", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.moveItem(atPath: scratch.file("f"), toPath: scratch.file("original"))
        return original
    }

    @Test func thePartsGoAfterAVerifiedMergeAndTheManifestStays() throws {
        let scratch = try Scratch()
        let original = try splitSet(in: scratch)
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("f") == original)
        #expect(scratch.listing() == ["f", "f.sfv", "original"])
    }

    @Test func aCorruptPartKeepsEveryPart() throws {
        let scratch = try Scratch()
        _ = try splitSet(in: scratch)
        var corrupt = scratch.read("f.002")!
        corrupt[5] ^= 0xFF
        try scratch.write("f.002", corrupt)
        let before = ["f.001", "f.002", "f.003", "f.sfv"].map { scratch.read($0) }
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("gcdcat: f.002: crc32 is "), "\(result.stderr)")
        #expect(scratch.listing() == ["f.001", "f.002", "f.003", "f.sfv", "original"])
        #expect(["f.001", "f.002", "f.003", "f.sfv"].map { scratch.read($0) } == before)
    }

    @Test func withoutAManifestNothingIsMergedOrRemoved() throws {
        let scratch = try Scratch()
        _ = try splitSet(in: scratch)
        try FileManager.default.removeItem(atPath: scratch.file("f.sfv"))
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 1)
        #expect(scratch.listing() == ["f.001", "f.002", "f.003", "original"])
    }

    @Test(arguments: [["-o", "-"], ["--no-verify"]])
    func contradictoryOptionsAreUsageErrors(extra: [String]) throws {
        let scratch = try Scratch()
        _ = try splitSet(in: scratch)
        let result = try gcdcat(["merge", "f.001", "--remove-parts"] + extra, in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: --remove-parts needs "), "\(result.stderr)")
        #expect(scratch.listing() == ["f.001", "f.002", "f.003", "f.sfv", "original"])
    }

    @Test func aPartReplacedBySymlinkIsKept() throws {
        let scratch = try Scratch()
        let original = try splitSet(in: scratch)
        // The set is read through the link; removing the link would not free the part's bytes.
        try FileManager.default.moveItem(atPath: scratch.file("f.003"), toPath: scratch.file("third"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("f.003"), withDestinationPath: "third")
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("f") == original)
        #expect(result.stderr == "gcdcat: warning: f.003 is a symlink or no longer the file that was read; kept\n")
        #expect(scratch.listing() == ["f", "f.003", "f.sfv", "original", "third"])
    }

    /// An outside tester found the merge done and then refused; it is refused before writing.
    @Test func aDigestListIsRefusedBeforeAnythingIsWritten() throws {
        let scratch = try Scratch()
        let original = try splitSet(in: scratch)
        try FileManager.default.removeItem(atPath: scratch.file("f.sfv"))
        let listed = try run(executable: "/bin/sh", ["-c", "sha256sum f.001 f.002 f.003 > f.sha256"], in: scratch.path)
        #expect(listed.status == 0)
        let result = try gcdcat(["merge", "f.001", "--remove-parts", "-q"], in: scratch.path)
        // The output would have no crc32 to meet: nothing is written and the parts stay.
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: f.sha256: not an SFV manifest, so the merged output could not be checked against a crc32 "
                + "before the parts are removed; nothing was written (give an SFV with --manifest)\n"
        )
        #expect(scratch.read("original") == original)
        #expect(scratch.listing() == ["f.001", "f.002", "f.003", "f.sha256", "original"])
    }
}
