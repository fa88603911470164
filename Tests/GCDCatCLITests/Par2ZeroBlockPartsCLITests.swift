import Foundation
import Testing

/// Files of a set whose verdict involves no block: a part with bytes appended (every block
/// intact, the extra bytes trimmed), and a dangling symlink at a file's name (no file there).
extension Par2MergeCLITests {
    /// A merge said `rebuilding f.005 (damaged, 0 blocks)` of a part with bytes appended, which
    /// it trims, rebuilding nothing: the note says what it does.
    @Test func aPartWithBytesAppendedIsSaidToBeTrimmed() throws {
        let scratch = try Scratch()
        let whole = randomData(250_000, seed: 2302)
        try scratch.write("f", whole)
        let split = try gcdcat(
            ["split", "f", "--size", "50000", "--par2", "10", "--no-manifest", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("f"))
        try scratch.write("f.005", scratch.read("f.005")! + Data("XYZ".utf8))
        let merge = try gcdcat(["f.001"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(
            merge.stderr
                == "gcdcat: note: trimming f.005 to the 50000 bytes f.par2 gives it (damaged: 3 bytes longer, every "
                + "block intact): the output leaves the 3 bytes out; the part itself is left as it is\n")
        #expect(scratch.read("f") == whole)
        #expect(scratch.read("f.005")?.count == 50_003)
    }

    /// A dangling symlink at a protected file's name is no file: verify said `f: open: No such
    /// file or directory` (exit 1) where the file is missing.
    @Test func aDanglingSymlinkAtAFilesNameIsMissing() throws {
        let scratch = try Scratch()
        _ = try protectedFile(scratch)
        try FileManager.default.removeItem(atPath: scratch.file("f"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("f"), withDestinationPath: "nowhere")
        let verify = try gcdcat(["verify", "f.par2"], in: scratch.path)
        #expect(verify.status == 1)
        #expect(verify.stdoutText == "f: MISSING (62 blocks)\n")
        #expect(verify.stderr == "gcdcat: f.par2: not repairable: 62 blocks missing, 6 recovery blocks available\n")
    }
}
