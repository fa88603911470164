import Foundation
import Testing

/// A checksum list kept in another folder than the files it names (`sums/` beside `parts/`).
/// Its names are relative to its folder; `sha256sum -c`, cksfv and `rhash -c` read them from the
/// current folder. `verify ../sums/SHA256SUMS` run in `parts/` said every file MISSING, and
/// `merge parts/a.bin.001 --manifest sums/a.bin.sfv` called the list another set's, advising
/// `--manifest` (outside attack a17 #9). When the list's folder holds none of its names and the
/// current folder (verify) or the parts' folder (`--manifest`) holds some, they are read from
/// there, with a note; the two folders are never mixed.
@Suite(.enabled(if: toolExists("cksfv"), "needs cksfv (apt-get install cksfv)"))
struct ListInAnotherFolderCLITests {
    /// `parts/a.bin.001` … `.003` (GNU split), `sums/a.bin.sfv` (cksfv) and `sums/SHA256SUMS`,
    /// each made in `parts/`, as the outsider made them.
    func folders(_ scratch: Scratch) throws -> Data {
        let whole = randomData(300_000, seed: 1713)
        try FileManager.default.createDirectory(atPath: scratch.file("parts"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.file("sums"), withIntermediateDirectories: true)
        try scratch.write("orig", whole)
        let made = try runTool(
            "sh",
            [
                "-c",
                "split -b 100K -a 3 --numeric-suffixes=1 orig parts/a.bin. && cd parts && "
                    + "cksfv -q a.bin.0* > ../sums/a.bin.sfv && sha256sum a.bin.0* > ../sums/SHA256SUMS",
            ], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        return whole
    }

    func note(_ list: String, folder: String) -> String {
        "gcdcat: note: none of the files \(list) lists is in its folder, \(folder), but some are in the current "
            + "folder: they are read from there, as sha256sum -c reads them\n"
    }

    @Test(arguments: ["SHA256SUMS", "a.bin.sfv"])
    func verifyReadsTheNamesFromTheCurrentFolderWhenNoneIsBesideTheList(list: String) throws {
        let scratch = try Scratch()
        _ = try folders(scratch)
        let parts = scratch.file("parts")
        let verified = try gcdcat(["verify", "../sums/\(list)"], in: parts)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdoutText == "a.bin.001: OK\na.bin.002: OK\na.bin.003: OK\n")
        #expect(
            verified.stderr
                == note("../sums/\(list)", folder: "../sums")
                + "gcdcat: ../sums/\(list): 3 files: 3 OK, 0 FAILED, 0 MISSING\n")
        // A corrupt file there is FAILED, exit 2, as sha256sum -c says.
        var part = try #require(scratch.read("parts/a.bin.002"))
        part[7] ^= 1
        try scratch.write("parts/a.bin.002", part)
        let failed = try gcdcat(["verify", "../sums/\(list)", "-q"], in: parts)
        #expect(failed.status == 2)
        #expect(failed.stdoutText.hasPrefix("a.bin.002: FAILED"))
    }

    /// One name beside the list: the list's folder is the one, as before (the others MISSING),
    /// and from a folder holding none of the names either, every file is MISSING, as before.
    @Test func theListsFolderStaysWhereItHoldsANameOrTheCurrentFolderHoldsNone() throws {
        let scratch = try Scratch()
        _ = try folders(scratch)
        try scratch.write("sums/a.bin.001", try #require(scratch.read("parts/a.bin.001")))
        let beside = try gcdcat(["verify", "../sums/SHA256SUMS"], in: scratch.file("parts"))
        #expect(beside.status == 1)
        #expect(beside.stdoutText == "a.bin.001: OK\na.bin.002: MISSING\na.bin.003: MISSING\n")
        #expect(!beside.stderr.contains("note:"))
        try FileManager.default.removeItem(atPath: scratch.file("sums/a.bin.001"))
        let nowhere = try gcdcat(["verify", "sums/SHA256SUMS"], in: scratch.path)
        #expect(nowhere.status == 1)
        #expect(nowhere.stdoutText == "a.bin.001: MISSING\na.bin.002: MISSING\na.bin.003: MISSING\n")
        #expect(!nowhere.stderr.contains("note:"))
    }

    /// `--manifest` in another folder than the parts: read against the parts' folder, with a
    /// note; the set merged and checked; a corrupt part refused.
    @Test(arguments: ["a.bin.sfv", "SHA256SUMS"])
    func aManifestInAnotherFolderIsReadAgainstThePartsFolder(list: String) throws {
        let scratch = try Scratch()
        let whole = try folders(scratch)
        let merged = try gcdcat(["parts/a.bin.001", "--manifest", "sums/\(list)", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: none of the files sums/\(list) lists is in its folder, sums, but some are in the "
                + "parts' folder, parts: they are read from there\ngcdcat: 3 parts verified against sums/\(list)\n")
        #expect(scratch.read("out") == whole)
        var part = try #require(scratch.read("parts/a.bin.003"))
        part[7] ^= 1
        try scratch.write("parts/a.bin.003", part)
        let corrupt = try gcdcat(
            ["parts/a.bin.001", "--manifest", "sums/\(list)", "-o", "out2", "-q"], in: scratch.path)
        #expect(corrupt.status == 2)
        let said =
            list == "a.bin.sfv"
            ? "crc32 is 1f691fd0, but sums/a.bin.sfv line 9 says 28edfd57"
            : "sha256 is 2d6b0de3847f6796ad18fe065be33229e1ec16e77f60530e43129fd8d916b6ed, but sums/SHA256SUMS line 3 "
                + "says 6972731caf2ae1327aaf1ec095ebafb340871558bf34aa7e97824f9e6af90b17"
        #expect(
            corrupt.stderr
                == "gcdcat: note: none of the files sums/\(list) lists is in its folder, sums, but some are in the "
                + "parts' folder, parts: they are read from there\ngcdcat: parts/a.bin.003: \(said): the part is "
                + "corrupt\n")
        #expect(scratch.read("out2") == nil)
    }
}
