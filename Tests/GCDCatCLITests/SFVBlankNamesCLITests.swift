import Foundation
import Testing

/// cksfv writes a name that starts or ends with a blank as it is (` lead F6C7F2C4`,
/// `trail  EFDCC385`: the name is all before the last space), and reads it so. gcdcat trims an SFV
/// line's name, so `verify` called both files MISSING where cksfv says OK (outside attack a17
/// #12). Where only the untrimmed name is a file, that one is read; lines with a CR or blanks
/// after the CRC, or blanks between the name and the CRC, read as before.
@Suite(.enabled(if: toolExists("cksfv"), "needs cksfv (apt-get install cksfv)"))
struct SFVBlankNamesCLITests {
    @Test func namesWithLeadingOrTrailingBlanksAreReadAsCksfvReadsThem() throws {
        let scratch = try Scratch()
        try scratch.write(" lead", Data("b\n".utf8))
        try scratch.write("trail ", Data("c\n".utf8))
        let made = try runTool("sh", ["-c", "cksfv -q ' lead' 'trail ' > a.sfv"], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(
            String(decoding: try #require(scratch.read("a.sfv")), as: UTF8.self).hasSuffix(
                "\n lead F6C7F2C4\ntrail  EFDCC385\n"))
        #expect(try runTool("cksfv", ["-f", "a.sfv"], in: scratch.path).status == 0)
        let verified = try gcdcat(["verify", "a.sfv"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdoutText == " lead: OK\ntrail : OK\n")
        #expect(verified.stderr == "gcdcat: a.sfv: 2 files: 2 OK, 0 FAILED, 0 MISSING\n")
        try scratch.write("trail ", Data("changed\n".utf8))
        let failed = try gcdcat(["verify", "a.sfv"], in: scratch.path)
        #expect(failed.status == 2)
        #expect(failed.stdoutText == " lead: OK\ntrail : FAILED (expected efdcc385, got 6f1ceeac)\n")
    }

    /// cksfv's line for `trail ` beside a file named `trail`: the trimmed look-alike was
    /// checked, so a corrupt `trail ` was OK with exit 0, and an intact ` lead` FAILED beside an
    /// unrelated `lead` (outside check a20 F2). Both now read as `cksfv -f` does.
    @Test func aBlankEndedNameIsCheckedEvenWithATrimmedLookAlikeBeside() throws {
        let scratch = try Scratch()
        let made = try shell(
            "echo trail > 'trail ' && echo lead > ' lead' && cksfv -q 'trail ' ' lead' > s.sfv && echo trail > trail "
                + "&& echo other > lead && echo CORRUPT > 'trail '",
            in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try runTool("cksfv", ["-f", "s.sfv"], in: scratch.path).status != 0)
        let verify = try gcdcat(["verify", "s.sfv"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stdoutText) \(verify.stderr)")
        #expect(verify.stdoutText == "trail : FAILED (expected 4f62f0a7, got dd8b8ace)\n lead: OK\n")
    }

    /// A set whose parts' names start with a blank (` x.001`, ` x.002`), beside cksfv's list of
    /// them (` x.sfv`): merged from its first part, checked against the list.
    @Test func aCksfvListOfPartsWithALeadingBlankChecksTheMerge() throws {
        let scratch = try Scratch()
        let whole = randomData(3000, seed: 1712)
        try scratch.write(" x.001", whole.prefix(2000))
        try scratch.write(" x.002", whole.suffix(1000))
        #expect(try runTool("sh", ["-c", "cksfv -q ' x.001' ' x.002' > ' x.sfv'"], in: scratch.path).status == 0)
        let merged = try gcdcat([" x.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 2 parts verified against  x.sfv\n")
        #expect(scratch.read("out") == whole)
    }

    /// The trimmed reading stays where its file is there: a CR or a blank after the CRC, several
    /// blanks or a tab between the name and the CRC. ` a` when both ` a` and `a` are there is
    /// ` a`, as `cksfv -f` reads it. gcdcat's own escaping of such names still reads back.
    @Test func theTrimmedReadingStaysWhereItsFileIsThere() throws {
        let scratch = try Scratch()
        try scratch.write("a", Data("b\n".utf8))
        try scratch.write(" a", Data("c\n".utf8))
        try scratch.write("c d", Data("b\n".utf8))
        try scratch.write("x.sfv", Data("a   F6C7F2C4 \r\nc d\tF6C7F2C4\r\n".utf8))
        let verified = try gcdcat(["verify", "x.sfv"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdoutText == "a: OK\nc d: OK\n")
        try scratch.write("y.sfv", Data(" a F6C7F2C4\n".utf8))
        let both = try gcdcat(["verify", "y.sfv"], in: scratch.path)
        #expect(both.status == 2, "\(both.stderr)")
        #expect(both.stdoutText == " a: FAILED (expected f6c7f2c4, got efdcc385)\n")
        try scratch.write("trail ", Data("c\n".utf8))
        let listed = try gcdcat(["checksum", " a", "trail "], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        try scratch.write("own.sfv", listed.stdout)
        let own = try gcdcat(["verify", "own.sfv"], in: scratch.path)
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdoutText == "./ a: OK\ntrail : OK\n")
    }
}
