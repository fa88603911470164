import Foundation
import Testing

/// Habits people bring from cp, coreutils and git.
@Suite struct GNUHabitsCLITests {
    @Test(arguments: ["out/", "out"])
    func anOutputFolderReceivesTheDerivedName(output: String) throws {
        let scratch = try Scratch()
        let whole = randomData(5000, seed: 3)
        try scratch.write("w.001", whole.prefix(2000))
        try scratch.write("w.002", whole.dropFirst(2000))
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: false)
        let result = try gcdcat(["w.001", "-o", output, "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("out/w") == whole)
        // The folder is not replaced, and a second run refuses to overwrite what it wrote.
        let again = try gcdcat(["w.001", "-o", output, "-q"], in: scratch.path)
        #expect(again.status == 1)
        #expect(again.stderr == "gcdcat: out/w: already exists (use --force to replace it)\n")
    }

    // Parts with no numbered name give no name to put in the folder: -o is what to change.
    @Test(arguments: ["out/", "out"])
    func aFolderForPartsWithNoSetNameIsToldToNameTheFileInFull(output: String) throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(10, seed: 1))
        try scratch.write("b", randomData(10, seed: 2))
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: false)
        let result = try gcdcat(["merge", "a", "b", "-o", output, "-q"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr == "gcdcat: \(output): name the file in full\n")
        #expect(scratch.listing() == ["a", "b", "out"])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: scratch.file("out"))) == [])
    }

    @Test func aTrailingSlashOnAMissingFolderIsAnError() throws {
        let scratch = try Scratch()
        try scratch.write("w.001", randomData(10, seed: 1))
        let result = try gcdcat(["w.001", "-o", "nowhere/", "-q"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: nowhere/w: open: No such file or directory (its folder nowhere does not exist; create it "
                + "with mkdir -p, or name another output)\n")
        #expect(scratch.listing() == ["w.001"])
    }

    @Test(arguments: [("spilt", "split"), ("verfy", "verify"), ("chcksum", "checksum"), ("bnech", "bench")])
    func aMistypedCommandIsAUsageErrorWithASuggestion(typed: String, meant: String) throws {
        let scratch = try Scratch()
        try scratch.write("movie.zip", randomData(10, seed: 1))
        let result = try gcdcat([typed, "movie.zip"], in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unknown command '\(typed)'. Did you mean '\(meant)'?\n"))
        #expect(scratch.listing() == ["movie.zip"])
    }

    @Test func aFileNamedLikeATypoIsStillMerged() throws {
        let scratch = try Scratch()
        try scratch.write("spilt", randomData(10, seed: 1))
        let result = try gcdcat(["spilt", "-o", "copy", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("copy") == randomData(10, seed: 1))
    }
}

/// Cases an outside tester found with only the README and the binary.
extension GNUHabitsCLITests {
    @Test(
        arguments: [
            (["split", "x", "--size", "-q"], "'-q' is not a size"),
            (["split", "x", "--size", "1K", "--high-water", "-1"], "'-1' is negative; a size must be positive"),
            (["merge", "x", "--low-water", "-5"], "'-5' is negative; a size must be positive"),
        ])
    func aDashValueIsReadAsTheValueAndNamed(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let result = try gcdcat(arguments, in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(scratch.listing().isEmpty)
    }
}
