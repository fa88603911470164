import Foundation
import GCDCatCore
import Testing

/// An SFV that names the whole file, as cksfv writes it of the file before its split (`cksfv -q
/// movie.zip > movie.zip.sfv`, alone or with the parts), checks the set: its crc32 is the parts'
/// combined, as a sha256 list's whole line is checked on the parts joined. It was "belongs to
/// another set (movie)" (outside attack a17 #8), its line beside the parts' lines "no part of the
/// set; not checked here", and it did not vouch for a set that starts late (a18 H).
@Suite(.enabled(if: toolExists("cksfv"), "needs cksfv (apt-get install cksfv)"))
struct WholeFileSFVCLITests {
    /// `movie.zip` (300000 bytes) listed by cksfv as `list`, then split by GNU split into
    /// `movie.zip.001` … `.003` (no marks) and moved away: the outsider's folder.
    func splitAfterItsList(_ scratch: Scratch, list: String = "movie.zip.sfv", withParts: Bool = false) throws
        -> Data
    {
        let whole = randomData(300_000, seed: 1708)
        try scratch.write("movie.zip", whole)
        let split = try runTool(
            "split", ["-b", "100K", "-a", "3", "--numeric-suffixes=1", "movie.zip", "movie.zip."], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let listed = withParts ? "movie.zip movie.zip.00?" : "movie.zip"
        let made = try runTool("sh", ["-c", "cksfv -q \(listed) > \(list)"], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.moveItem(atPath: scratch.file("movie.zip"), toPath: scratch.file("orig"))
        return whole
    }

    /// The 1-based line of `list` that names `name`.
    func line(naming name: String, in list: Data) -> Int {
        let lines = String(decoding: list, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.firstIndex { $0.hasPrefix(name + " ") } ?? -1) + 1
    }

    /// Found from the first part, given alone, and under another name beside the set: merged and
    /// verified, the output the original.
    @Test(arguments: ["movie.zip.sfv", "checks.sfv"])
    func anSFVOfTheWholeFileChecksTheSet(list: String) throws {
        let scratch = try Scratch()
        let whole = try splitAfterItsList(scratch, list: list)
        let found = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stderr == "gcdcat: 3 parts verified against \(list)\n")
        #expect(scratch.read("movie.zip") == whole)
        let alone = try gcdcat([list, "-o", "two"], in: scratch.path)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stderr == "gcdcat: 3 parts verified against \(list)\n")
        #expect(scratch.read("two") == whole)
        let streamed = try gcdcat(["movie.zip.001", "-o", "-", "--strategy", "stream"], in: scratch.path)
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(streamed.stdout == whole)
    }

    /// A part changed, or the last part gone with no line of its own to miss: the parts join to
    /// another crc32 than the list's, exit 2, nothing written.
    @Test func aSetThatDoesNotJoinToTheListedCRCIsRefused() throws {
        let scratch = try Scratch()
        let whole = try splitAfterItsList(scratch)
        let list = try #require(scratch.read("movie.zip.sfv"))
        let number = line(naming: "movie.zip", in: list)
        var part = try #require(scratch.read("movie.zip.002"))
        part[50] ^= 0x20
        try scratch.write("movie.zip.002", part)
        let before = scratch.listing()
        let corrupt = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(corrupt.status == 2)
        var joined = whole
        joined[102_400 + 50] ^= 0x20
        #expect(
            corrupt.stderr
                == "gcdcat: movie.zip.sfv: line \(number) gives movie.zip crc32 \(crc32Hex(whole)), but the 3 parts "
                + "join to \(crc32Hex(joined)): a part is corrupt or missing\n")
        #expect(scratch.listing() == before)
        let checkedFirst = try gcdcat(["movie.zip.sfv", "-o", "out", "--strategy", "stream"], in: scratch.path)
        #expect(checkedFirst.status == 2)
        #expect(checkedFirst.stderr == corrupt.stderr)
        #expect(scratch.listing() == before)
        part[50] ^= 0x20
        try scratch.write("movie.zip.002", part)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.003"))
        let short = try gcdcat(["movie.zip.001", "-o", "out"], in: scratch.path)
        #expect(short.status == 2)
        #expect(
            short.stderr
                == "gcdcat: movie.zip.sfv: line \(number) gives movie.zip crc32 \(crc32Hex(whole)), but the 2 parts "
                + "join to \(crc32Hex(whole.prefix(204_800))): a part is corrupt or missing\n")
        #expect(scratch.read("out") == nil)
    }

    /// `cksfv -q movie.zip movie.zip.00?`: the whole line is checked too, not "no part of the
    /// set"; a wrong one stops the merge though every part matches its line.
    @Test func theWholeLineBesideThePartsLinesIsChecked() throws {
        let scratch = try Scratch()
        let whole = try splitAfterItsList(scratch, withParts: true)
        let merged = try gcdcat(["movie.zip.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against movie.zip.sfv\n")
        #expect(scratch.read("movie.zip") == whole)
        var list = String(decoding: try #require(scratch.read("movie.zip.sfv")), as: UTF8.self)
        let number = line(naming: "movie.zip", in: Data(list.utf8))
        let listed = "movie.zip \(crc32Hex(whole).uppercased())"
        list = list.replacingOccurrences(of: listed, with: "movie.zip 0BADC0DE")
        try scratch.write("movie.zip.sfv", Data(list.utf8))
        let wrong = try gcdcat(["movie.zip.001", "-o", "out"], in: scratch.path)
        #expect(wrong.status == 2)
        #expect(
            wrong.stderr
                == "gcdcat: movie.zip.sfv: line \(number) gives movie.zip crc32 0badc0de, but the 3 parts join to "
                + "\(crc32Hex(whole)): a part is corrupt or missing\n")
        #expect(scratch.read("out") == nil)
    }

    /// a18 H: a set that starts at `in.002` (GNU split --numeric-suffixes=2), listed by cksfv
    /// with the whole file: the whole line vouches for the start, as sha256sum's does.
    @Test func aWholeLineVouchesForALateStart() throws {
        let scratch = try Scratch()
        let whole = randomData(300_000, seed: 1809)
        try scratch.write("in", whole)
        let split = try runTool(
            "split", ["-b", "100K", "-a", "3", "--numeric-suffixes=2", "in", "in."], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(try runTool("sh", ["-c", "cksfv -q in in.0* > in.sfv"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("in"))
        let merged = try gcdcat(["in.002", "-o", "o"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against in.sfv\n")
        #expect(scratch.read("o") == whole)
        // Without the whole line, the list of the parts alone still does not vouch for the start.
        #expect(try runTool("sh", ["-c", "cksfv -q in.0* > in.sfv"], in: scratch.path).status == 0)
        let partsOnly = try gcdcat(["in.002", "-o", "p"], in: scratch.path)
        #expect(partsOnly.status == 1)
        #expect(
            partsOnly.stderr
                == "gcdcat: in.002: no in.001 before it, and in.sfv lists the set only from in.002, so the set's first "
                + "part may be missing; nothing was written. If the set really starts here, list its parts with "
                + "--as-given\n")
        #expect(scratch.read("p") == nil)
    }
}

/// The crc32 of `bytes`, as gcdcat's messages write it.
private func crc32Hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    var checksum = Checksum(.crc32)
    checksum.update(bytes)
    return hex8(checksum.value)
}
