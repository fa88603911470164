import Foundation
import Testing

/// A merge checks a set against a checksum list lying beside it whatever the list is called
/// (`SHA256SUMS`, `MD5SUMS`, `B2SUMS`, `x.bin.sha512`, one SFV over two sets), by its real
/// algorithm; a list of other files only is not the set's (outside attack on issue 22).
@Suite struct ListsBesideSetCLITests {
    static let parts = ["x.bin.001", "x.bin.002", "x.bin.003"]

    /// `x.bin.001…003` (1000, 1000, 500 bytes) without a manifest, and the whole file's bytes.
    func set() throws -> (Scratch, Data) {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 91)
        try scratch.write("x.bin", whole)
        #expect(try gcdcat(["split", "x.bin", "--size", "1000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        try scratch.write("README.txt", Data("read me\n".utf8))
        return (scratch, whole)
    }

    func corrupt(_ name: String, in scratch: Scratch) throws {
        var bytes = scratch.read(name)!
        bytes[10] ^= 1
        try scratch.write(name, bytes)
    }

    @Test(arguments: [
        ("sha256sum", "SHA256SUMS", "sha256"), ("sha512sum", "x.bin.sha512", "sha512"),
        ("md5sum", "MD5SUMS", "md5"), ("b2sum", "B2SUMS", "blake2b"), ("sha1sum", "checksums.sha1", "sha1"),
    ])
    func aListOfThePartsBesideTheSetChecksEachPart(tool: String, list: String, algorithm: String) throws {
        let (scratch, whole) = try set()
        // The list covers the download folder: the parts and a README.
        try scratch.write(list, try runTool(tool, Self.parts + ["README.txt"], in: scratch.path).stdout)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: \(list) also lists README.txt, no part of the set; not checked here (gcdcat verify "
                + "\(list) checks every file it lists)\ngcdcat: 3 parts verified against \(list)\n")
        #expect(scratch.read("x.bin") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        try corrupt("x.bin.002", in: scratch)
        let bad = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.contains("gcdcat: x.bin.002: \(algorithm) is "), "\(bad.stderr)")
        #expect(bad.stderr.contains(", but \(list) line 2 says "), "\(bad.stderr)")
        #expect(scratch.read("x.bin") == nil)
        // --no-verify still skips every list.
        let unchecked = try gcdcat(["x.bin.001", "--no-verify"], in: scratch.path)
        #expect(unchecked.status == 0)
        #expect(unchecked.stderr == "")
    }

    /// A list beside the set that gives a part two values cannot say which is right: as the only
    /// list about the set it stops the merge (a corrupt part would pass unchecked), and as the
    /// set's own list it is said once, not also as a list beside the set.
    @Test func aListGivingAPartTwoValuesStopsTheMerge() throws {
        let (scratch, whole) = try set()
        let listed = try gcdcat(["checksum"] + Self.parts, in: scratch.path).stdout
        let conflicting = listed + Data("x.bin.002 00000000\n".utf8)
        let lines = String(decoding: listed, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let first = lines.firstIndex { $0.hasPrefix("x.bin.002 ") }! + 1
        let last = lines.count
        try scratch.write("download.sfv", conflicting)
        try corrupt("x.bin.002", in: scratch)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 1)
        #expect(
            merged.stderr
                == "gcdcat: download.sfv: line \(last): 'x.bin.002' is listed twice, with another value (first on line "
                + "\(first)); it is the list beside the set that names its parts, so nothing was merged: correct the "
                + "list, name another with --manifest, or merge unchecked with --no-verify\n")
        #expect(scratch.read("x.bin") == nil)
        try FileManager.default.moveItem(atPath: scratch.file("download.sfv"), toPath: scratch.file("x.bin.sfv"))
        let own = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(own.status == 1)
        #expect(
            own.stderr
                == "gcdcat: x.bin.sfv: line \(last): 'x.bin.002' is listed twice, with another value (first on line "
                + "\(first))\n")
        #expect(scratch.read("x.bin") == nil)
        let unchecked = try gcdcat(["x.bin.001", "--no-verify", "-o", "out"], in: scratch.path)
        #expect(unchecked.status == 0)
        #expect(scratch.read("out")?.count == whole.count)
    }

    /// A list of the parts alone (no line for the whole file) vouches for each part, not for the
    /// set's end: with the last part and its line gone, the short set is still warned of.
    @Test func aListOfThePartsAloneDoesNotHideAShortSet() throws {
        let scratch = try Scratch()
        try scratch.write("m.bin", randomData(5000, seed: 2271))
        #expect(try gcdcat(["split", "m.bin", "--size", "1000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("m.bin"))
        let kept = ["m.bin.001", "m.bin.002", "m.bin.003", "m.bin.004"]
        // Parts that came without their split's marks (PartMarkCLITests), as downloads do.
        try scratch.unmark(kept)
        try scratch.write("SHA256SUMS", try runTool("sha256sum", kept, in: scratch.path).stdout)
        try FileManager.default.removeItem(atPath: scratch.file("m.bin.005"))
        let merged = try gcdcat(["m.bin.001", "--json"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        let warning =
            "the last part, m.bin.004, is exactly as large as the others: if the set had more parts, they are missing "
            + "and the output is short. A manifest (NAME.sfv, see 'gcdcat split') would tell."
        #expect(merged.stderr == "gcdcat: 4 parts verified against SHA256SUMS\ngcdcat: warning: \(warning)\n")
        let report = try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any]
        #expect(report?["warnings"] as? [String] == [warning])
    }

    @Test func aListOfTheWholeFileChecksTheOutputBeforeItIsPublished() throws {
        let (scratch, whole) = try set()
        try scratch.write("x.bin", whole)
        try scratch.write("SHA512SUMS", try runTool("sha512sum", ["README.txt", "x.bin"], in: scratch.path).stdout)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        let merged = try gcdcat(["x.bin.001", "--json"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.hasSuffix("gcdcat: 3 parts verified against SHA512SUMS\n"))
        let report = try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any]
        #expect(report?["manifest"] as? String == "SHA512SUMS")
        #expect(scratch.read("x.bin") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        try corrupt("x.bin.003", in: scratch)
        let bad = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.contains("gcdcat: SHA512SUMS: line 2 gives x.bin sha512 "), "\(bad.stderr)")
        #expect(bad.stderr.hasSuffix("a part is corrupt or missing\n"), "\(bad.stderr)")
        #expect(scratch.read("x.bin") == nil)
    }

    @Test func aListOfOtherFilesOnlyIsNotTheSetsAndIsPassedOver() throws {
        let (scratch, whole) = try set()
        try scratch.write("other.iso", Data("another download\n".utf8))
        try scratch.write("SHA256SUMS", try runTool("sha256sum", ["README.txt", "other.iso"], in: scratch.path).stdout)
        let merged = try gcdcat(["x.bin.001", "--json"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        // No list in use: the marks its split left check every part.
        #expect(merged.stderr == "gcdcat: 3 parts verified against the crc32s their split marked them with\n")
        let report = try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any]
        #expect(report?["manifest"] is NSNull)
        #expect(scratch.read("x.bin") == whole)
    }

    @Test func withSeveralListsTheFirstByNameIsUsedAndTheOthersAreNamed() throws {
        let (scratch, _) = try set()
        try scratch.write("SHA256SUMS", try runTool("sha256sum", Self.parts, in: scratch.path).stdout)
        try scratch.write("MD5SUMS", try runTool("md5sum", Self.parts, in: scratch.path).stdout)
        // One named after the output comes first.
        try scratch.write("x.bin.b2", try runTool("b2sum", Self.parts, in: scratch.path).stdout)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: MD5SUMS, SHA256SUMS beside the set also list it, and agree with x.bin.b2 about "
                + "its parts\ngcdcat: 3 parts verified against x.bin.b2\n")
    }

    @Test func oneSFVOverTwoSetsChecksEachSetByItsOwnLines() throws {
        let (scratch, whole) = try set()
        let other = randomData(1500, seed: 92)
        try scratch.write("y.bin", other)
        #expect(try gcdcat(["split", "y.bin", "--size", "1000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("y.bin"))
        try scratch.write(
            "all.sfv", try runTool("cksfv", ["-b"] + Self.parts + ["y.bin.001", "y.bin.002"], in: scratch.path).stdout)
        let note =
            "gcdcat: note: all.sfv also lists y.bin.001, y.bin.002, no part of the set; not checked here (gcdcat verify "
            + "all.sfv checks every file it lists)\n"
        // The list alone names two sets: each is merged to its own output, by its own lines.
        let yNote =
            "gcdcat: note: all.sfv also lists x.bin.001, x.bin.002, x.bin.003, no part of the set; not checked here "
            + "(gcdcat verify all.sfv checks every file it lists)\n"
        let both = try gcdcat(["all.sfv"], in: scratch.path)
        #expect(both.status == 0, "\(both.stderr)")
        #expect(
            both.stderr
                == note + "gcdcat: 3 parts verified against all.sfv\n" + yNote
                + "gcdcat: 2 parts verified against all.sfv\ngcdcat: 2 of 2 sets merged (x.bin, y.bin)\n")
        #expect(scratch.read("x.bin") == whole)
        #expect(scratch.read("y.bin") == other)
        let oneFile = try gcdcat(["all.sfv", "-o", "one"], in: scratch.path)
        #expect(oneFile.status == 64)
        #expect(
            oneFile.stderr.hasPrefix("Error: -o one names one file, but the parts are 2 sets (x.bin.001, y.bin.001)"))
        for name in ["x.bin", "y.bin"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        // Found beside the set, and named with --manifest.
        for arguments in [["x.bin.001"], ["x.bin.001", "--manifest", "all.sfv", "--force"]] {
            let merged = try gcdcat(arguments, in: scratch.path)
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stderr == note + "gcdcat: 3 parts verified against all.sfv\n")
            #expect(scratch.read("x.bin") == whole)
        }
        let second = try gcdcat(["y.bin.001"], in: scratch.path)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.hasSuffix("gcdcat: 2 parts verified against all.sfv\n"))
        #expect(scratch.read("y.bin") == other)
        try corrupt("y.bin.002", in: scratch)
        let bad = try gcdcat(["y.bin.001", "--force"], in: scratch.path)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.contains("gcdcat: y.bin.002: crc32 is "), "\(bad.stderr)")
        #expect(bad.stderr.contains(", but all.sfv line "), "\(bad.stderr)")
        #expect(scratch.read("y.bin") == other)
    }

    @Test(arguments: ["garbage line", "Total: 3 files", "0123  ", "MD5 (x) = 0"])
    func aMalformedLineDoesNotHideTheListFromTheMerge(line: String) throws {
        let (scratch, whole) = try set()
        let list = try runTool("sha256sum", Self.parts, in: scratch.path).stdout + Data("\(line)\n".utf8)
        try scratch.write("SHA256SUMS", list)
        try corrupt("x.bin.002", in: scratch)
        let bad = try gcdcat(["x.bin.001", "--json"], in: scratch.path)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.contains("gcdcat: x.bin.002: sha256 is "), "\(bad.stderr)")
        #expect(bad.stderr.contains("SHA256SUMS also has a malformed line, not checked: line 4: "), "\(bad.stderr)")
        #expect(scratch.read("x.bin") == nil)
        // Sound parts: the valid lines match, but the line gcdcat cannot read keeps the verdict unclean.
        try scratch.write("x.bin.002", whole[1000..<2000])
        let unread = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(unread.status == 1, "\(unread.stderr)")
        #expect(unread.stderr.hasPrefix("gcdcat: SHA256SUMS: line 4: "), "\(unread.stderr)")
        #expect(
            unread.stderr.hasSuffix(
                ": a line gcdcat cannot read may be about this set, so it is not verified and nothing was written; its "
                    + "other lines match. Fix or remove the line, or merge with --no-verify\n"), "\(unread.stderr)")
        #expect(scratch.read("x.bin") == nil)
    }

    @Test func aMalformedLineIsSaidAsALineOfTheListsAlgorithm() throws {
        let (scratch, _) = try set()
        let list = try runTool("sha256sum", Self.parts, in: scratch.path).stdout + Data("garbage line\n".utf8)
        try scratch.write("SHA256SUMS", list)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "gcdcat: SHA256SUMS: line 4: 'garbage line' is not a sha256 line ('HEX  NAME' or 'SHA256 (NAME) = HEX')"
            ),
            "\(merged.stderr)")
    }

    @Test(.enabled(if: toolExists("rhash"), "needs rhash (apt-get install rhash)"))
    func aListInAnAlgorithmGCDCatCannotReadIsSaidNotPassedOver() throws {
        let (scratch, whole) = try set()
        try scratch.write("CHECKSUMS", try runTool("rhash", ["--tiger"] + Self.parts, in: scratch.path).stdout)
        let merged = try gcdcat(["x.bin.001", "--json"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr.hasPrefix(
                "gcdcat: warning: CHECKSUMS beside the set names its parts, but gcdcat cannot read it (line 1: "),
            "\(merged.stderr)")
        #expect(
            merged.stderr.contains(
                "the parts were not checked against it (gcdcat verify CHECKSUMS says why)"), "\(merged.stderr)")
        // Not against the list: the marks its split left checked every part instead.
        #expect(
            merged.stderr.hasSuffix("gcdcat: 3 parts verified against the crc32s their split marked them with\n"),
            "\(merged.stderr)")
        let report = try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any]
        #expect(report?["verified"] as? Bool == true)
        #expect(report?["manifest"] is NSNull)
        #expect(scratch.read("x.bin") == whole)
    }

    /// Two lists beside a set that disagree about a part (the set's own SFV made after the part
    /// changed, an older SHA256SUMS): the merge checks the other list's lines for the parts too,
    /// and stops naming the part, both lists and the line (it said "verified", exit 0, checking
    /// the SFV only: outside attack). Lists that agree are said to.
    @Test func twoListsThatDisagreeAboutAPartStopTheMerge() throws {
        let (scratch, _) = try set()
        try scratch.write("SHA256SUMS", try runTool("sha256sum", Self.parts, in: scratch.path).stdout)
        try scratch.write("x.bin.sfv", try gcdcat(["checksum"] + Self.parts, in: scratch.path).stdout)
        let agreeing = try gcdcat(["x.bin.001", "-o", "agreeing"], in: scratch.path)
        #expect(agreeing.status == 0, "\(agreeing.stderr)")
        #expect(
            agreeing.stderr
                == "gcdcat: note: SHA256SUMS beside the set also lists it, and agrees with x.bin.sfv about its parts\n"
                + "gcdcat: 3 parts verified against x.bin.sfv\n")
        let listed = try runTool("sha256sum", ["x.bin.002"], in: scratch.path).stdoutText.prefix(64)
        try corrupt("x.bin.002", in: scratch)
        let changed = try runTool("sha256sum", ["x.bin.002"], in: scratch.path).stdoutText.prefix(64)
        try scratch.write("x.bin.sfv", try gcdcat(["checksum"] + Self.parts, in: scratch.path).stdout)
        let merged = try gcdcat(["x.bin.001", "--json"], in: scratch.path)
        #expect(merged.status == 2)
        #expect(
            merged.stderr
                == "gcdcat: x.bin.002: sha256 is \(changed), but SHA256SUMS line 2 says \(listed), and x.bin.sfv, the "
                + "list the merge checks against, lists it too: the lists disagree, or a part changed since one of "
                + "them was made, so nothing was merged. gcdcat verify on each list says which holds; name the one to "
                + "trust with --manifest\n")
        let report = try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any]
        #expect((report?["error"] as? [String: Any])?["code"] as? String == "checksumMismatch")
        #expect(!scratch.listing().contains("x.bin"))
    }

    /// Release notes atop the only list beside the set (more lines than a file that is no list
    /// is read for) do not hide its lines: a corrupt part is exit 2 (it merged with exit 0 and a
    /// warning that the list could not be read: outside attack).
    @Test func proseAtopTheListDoesNotHideItsLines() throws {
        let (scratch, _) = try set()
        try scratch.unmark(Self.parts)
        let prose = (1...150).map { "Release notes, line \($0)\n" }.joined()
        try scratch.write(
            "SHA256SUMS", Data(prose.utf8) + (try runTool("sha256sum", Self.parts, in: scratch.path).stdout))
        try corrupt("x.bin.002", in: scratch)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(merged.stderr.hasPrefix("gcdcat: x.bin.002: sha256 is "), "\(merged.stderr)")
        #expect(merged.stderr.contains(", but SHA256SUMS line 152 says "), "\(merged.stderr)")
        #expect(scratch.read("x.bin") == nil)
    }

    /// `gcdcat *.sfv` over each set's own list and a list of both (`all.sfv`): every set is
    /// merged once, exit 0 (all.sfv was counted a failed set, exit 1: outside attack).
    @Test func aListOfSeveralSetsAmongTheirOwnListsMergesEachSetOnce() throws {
        let scratch = try Scratch()
        let a = randomData(1000, seed: 2311)
        let b = randomData(1000, seed: 2312)
        try scratch.write("a.bin", a)
        try scratch.write("b.bin", b)
        for name in ["a.bin", "b.bin"] {
            #expect(try gcdcat(["split", name, "-b", "300", "-q"], in: scratch.path).status == 0)
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        let both = (scratch.read("a.bin.sfv") ?? Data()) + (scratch.read("b.bin.sfv") ?? Data())
        try scratch.write("all.sfv", both)
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: false)
        let merged = try gcdcat(["a.bin.sfv", "all.sfv", "b.bin.sfv", "-o", "out/", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out/a.bin") == a)
        #expect(scratch.read("out/b.bin") == b)
        #expect(scratch.listing().filter { $0.hasPrefix("out") } == ["out"])
    }

    /// One line of prose atop the only list beside the set, or 150, are one rule: its other lines
    /// are checked (a corrupt part exits 2, naming the malformed lines too), and when they all
    /// match the merge exits 1 with nothing written (150 lines were a warning, exit 0, the parts
    /// not checked: outside attack).
    @Test(arguments: [1, 150])
    func proseAtopTheOnlyListIsOneRuleHoweverLong(lines: Int) throws {
        let (scratch, _) = try set()
        try scratch.unmark(Self.parts)
        let prose = (1...lines).map { "Release notes, line \($0)\n" }.joined()
        try scratch.write(
            "SHA256SUMS", Data(prose.utf8) + (try runTool("sha256sum", Self.parts, in: scratch.path).stdout))
        let unread = "line 1: 'Release notes, line 1' is not a sha256 line ('HEX  NAME' or 'SHA256 (NAME) = HEX')"
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: SHA256SUMS: \(unread): a line gcdcat cannot read may be about this set, so it is not "
                + "verified and nothing was written; its other lines match"
                + (lines > 1 ? " (\(lines - 1) more malformed lines: gcdcat verify SHA256SUMS)" : "")
                + ". Fix or remove the line, or merge with --no-verify\n")
        #expect(scratch.read("x.bin") == nil)
        try corrupt("x.bin.002", in: scratch)
        let bad = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("gcdcat: x.bin.002: sha256 is "), "\(bad.stderr)")
        #expect(
            bad.stderr.hasSuffix(
                ": the part is corrupt; SHA256SUMS also has \(lines == 1 ? "a malformed line" : "\(lines) malformed lines"), "
                    + "not checked: \(unread)\n"), "\(bad.stderr)")
        #expect(bad.stderr.contains(", but SHA256SUMS line \(lines + 2) says "), "\(bad.stderr)")
        #expect(scratch.read("x.bin") == nil)
    }

    /// A list beside the set too large for a merge to load (over 64 MiB) that names its parts
    /// is warned of, not passed over in silence (a corrupt part merged with exit 0 and no word:
    /// outside attack); the warning names the two ways that do read it, `verify` and
    /// `--manifest` (it said "gcdcat verify SHA256SUMS says why", and verify says nothing of a cap).
    @Test func aListTooLargeToLoadIsSaidNotPassedOver() throws {
        let (scratch, whole) = try set()
        try scratch.unmark(Self.parts)
        var list = try runTool("sha256sum", Self.parts, in: scratch.path).stdout
        let filler = Data(String(repeating: String(repeating: "0", count: 64) + "  other\n", count: 1000).utf8)
        while list.count <= 64 << 20 { list.append(filler) }
        try scratch.write("SHA256SUMS", list)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: warning: SHA256SUMS beside the set names its parts, but it is over 64 MiB, more than a "
                + "merge loads beside a set, so the parts were not checked against it; check them with gcdcat verify "
                + "SHA256SUMS, or give it with --manifest SHA256SUMS\n")
        #expect(scratch.read("x.bin") == whole)
        // Given with --manifest, it is read whole: a corrupt part is exit 2, naming its line.
        try corrupt("x.bin.002", in: scratch)
        let given = try gcdcat(["x.bin.001", "-o", "given", "--manifest", "SHA256SUMS"], in: scratch.path)
        #expect(given.status == 2, "\(given.stderr)")
        #expect(given.stderr.hasPrefix("gcdcat: x.bin.002: sha256 is "), "\(given.stderr)")
        #expect(given.stderr.contains(", but SHA256SUMS line 2 says "), "\(given.stderr)")
        #expect(scratch.read("given") == nil)
    }

    /// Another list's line for the whole file is checked on the parts joined; another list with
    /// a malformed line, or whose guessed algorithm matched nothing, is not said to agree
    /// (outside attack).
    @Test func anotherListsWholeLineAndMalformedLinesAndGuessesAreHeeded() throws {
        let (scratch, whole) = try set()
        try scratch.write("x.bin.sfv", try gcdcat(["checksum"] + Self.parts, in: scratch.path).stdout)
        try scratch.write("x.bin", whole)
        let right = try runTool("sha256sum", ["x.bin"], in: scratch.path).stdoutText
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        let digest = String(right.prefix(64))
        let wrong = (digest.first == "0" ? "1" : "0") + digest.dropFirst()
        try scratch.write("SHA256SUMS", Data("\(wrong)  x.bin\n".utf8))
        let joined = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(joined.status == 2)
        #expect(
            joined.stderr
                == "gcdcat: SHA256SUMS: the parts joined give sha256 \(digest), but SHA256SUMS line 1 says \(wrong) for "
                + "x.bin, the whole file, and x.bin.sfv, the list the merge checks against, lists the parts: a part "
                + "changed since one of them was made, or SHA256SUMS is of another file, so nothing was merged. Name the "
                + "list to trust with --manifest (--manifest SHA256SUMS checks the parts joined against it)\n")
        let sums = try runTool("sha256sum", Self.parts, in: scratch.path).stdout
        try scratch.write("SHA256SUMS", sums + Data("garbage line\n".utf8))
        let malformed = try gcdcat(["x.bin.001", "-o", "malformed"], in: scratch.path)
        #expect(malformed.status == 0, "\(malformed.stderr)")
        #expect(
            malformed.stderr
                == "gcdcat: note: SHA256SUMS beside the set also lists it, but gcdcat cannot read all of it (line 4: "
                + "'garbage line' is not a sha256 line ('HEX  NAME' or 'SHA256 (NAME) = HEX')); its other lines were "
                + "checked\ngcdcat: 3 parts verified against x.bin.sfv\n")
        try FileManager.default.removeItem(atPath: scratch.file("SHA256SUMS"))
        var lines = String(decoding: sums, as: UTF8.self).split(separator: "\n").map(String.init)
        lines[1] = (lines[1].first == "0" ? "1" : "0") + lines[1].dropFirst()
        try scratch.write("checksums.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let guessed = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(guessed.status == 0, "\(guessed.stderr)")
        #expect(
            guessed.stderr
                == "gcdcat: note: checksums.txt beside the set also lists it, but some of its values match nothing "
                + "under the algorithm their length suggests; gcdcat verify checksums.txt says more\n"
                + "gcdcat: 3 parts verified against x.bin.sfv\n")
        #expect(scratch.read("x.bin") == whole)
    }

    /// What a merge says of the other lists beside the set (a line it cannot read, guessed values
    /// that match nothing, that they agree) is in the `--json` report's `notes` too, word for word
    /// (it was on standard error only: outside attack).
    @Test func notesAboutOtherListsAreInTheJSONReport() throws {
        let (scratch, whole) = try set()
        try scratch.write("x.bin.sfv", try gcdcat(["checksum"] + Self.parts, in: scratch.path).stdout)
        let sums = try runTool("sha256sum", Self.parts, in: scratch.path).stdout
        try scratch.write("SHA256SUMS", sums + Data("garbage line\n".utf8))
        var lines = String(decoding: sums, as: UTF8.self).split(separator: "\n").map(String.init)
        lines[1] = (lines[1].first == "0" ? "1" : "0") + lines[1].dropFirst()
        try scratch.write("checksums.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let merged = try gcdcat(["x.bin.001", "--json", "--strategy", "stream"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        let notes = [
            "SHA256SUMS beside the set also lists it, but gcdcat cannot read all of it (line 4: 'garbage line' is not "
                + "a sha256 line ('HEX  NAME' or 'SHA256 (NAME) = HEX')); its other lines were checked",
            "checksums.txt beside the set also lists it, but some of its values match nothing under the algorithm "
                + "their length suggests; gcdcat verify checksums.txt says more",
        ]
        #expect(
            merged.stderr
                == notes.map { "gcdcat: note: \($0)\n" }.joined() + "gcdcat: 3 parts verified against x.bin.sfv\n")
        let report = try #require(try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any])
        #expect(report["notes"] as? [String] == notes, "\(merged.stdoutText)")
        #expect(report["warnings"] as? [String] == [])
        #expect(report["verified"] as? Bool == true)
        #expect(scratch.read("x.bin") == whole)
        // Lists that agree: the note that says so is in the report too.
        try scratch.write("SHA256SUMS", sums)
        try FileManager.default.removeItem(atPath: scratch.file("checksums.txt"))
        let agreeing = try gcdcat(["x.bin.001", "-o", "agreeing", "--json", "--strategy", "stream"], in: scratch.path)
        #expect(agreeing.status == 0, "\(agreeing.stderr)")
        let agrees = "SHA256SUMS beside the set also lists it, and agrees with x.bin.sfv about its parts"
        #expect(agreeing.stderr == "gcdcat: note: \(agrees)\ngcdcat: 3 parts verified against x.bin.sfv\n")
        let agreed = try #require(try JSONSerialization.jsonObject(with: agreeing.stdout) as? [String: Any])
        #expect(agreed["notes"] as? [String] == [agrees])
    }

    @Test func aListAmongThePartsIsRefusedBeforeAnythingIsWritten() throws {
        let (scratch, _) = try set()
        try scratch.write("x.bin.sha256", try runTool("sha256sum", Self.parts, in: scratch.path).stdout)
        let merged = try gcdcat(Self.parts + ["x.bin.sha256"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: x.bin.sha256: a checksum list (sha256), not a part; a shell glob such as NAME.* takes it in. "
                + "Give the first part alone (NAME.001) and the list beside it is used to verify the set\n")
        #expect(scratch.read("x.bin") == nil)
    }

    @Test func aListOfFewerPartsSaysHowManyItLists() throws {
        let (scratch, _) = try set()
        try scratch.write("SHA256SUMS", try runTool("sha256sum", ["x.bin.001"], in: scratch.path).stdout)
        let merged = try gcdcat(["x.bin.001", "--manifest", "SHA256SUMS"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: SHA256SUMS: lists only 1 of the set's 3 parts (x.bin.001), so it cannot vouch for the set "
                + "and nothing was written; merge with --no-verify to join the parts without it, or give a list of "
                + "every part with --manifest\n")
    }

    @Test func theOutputsLineBesideThePartsLinesIsCheckedToo() throws {
        let (scratch, whole) = try set()
        let wrong = String(repeating: "0", count: 64)
        let list = try runTool("sha256sum", Self.parts, in: scratch.path).stdout + Data("\(wrong)  x.bin\n".utf8)
        try scratch.write("SHA256SUMS", list)
        let bad = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(
            bad.stderr.hasPrefix("gcdcat: SHA256SUMS: line 4 gives x.bin sha256 \(wrong), but the 3 parts join to "),
            "\(bad.stderr)")
        #expect(scratch.read("x.bin") == nil)
        // A list of the first part and the whole file: the whole line vouches for every part.
        try scratch.write("x.bin", whole)
        let some = try runTool("sha256sum", ["x.bin.001", "x.bin"], in: scratch.path).stdout
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        try scratch.write("SHA256SUMS", some)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against SHA256SUMS\n")
        #expect(scratch.read("x.bin") == whole)
    }

    // Split's manifests of two sets in one SFV: each set is checked against its own whole (and
    // header) record, the one above its lines.
    @Test func oneSFVOfTwoSplitsChecksEachSetAgainstItsOwnWholeRecord() throws {
        let scratch = try Scratch()
        let a = randomData(2500, seed: 93)
        try scratch.write("a.bin", a)
        try scratch.write("b.csv", Data((0..<200).map { "row \($0),\($0 * 7)\n" }.joined().utf8))
        let csv = scratch.read("b.csv")!
        #expect(try gcdcat(["split", "a.bin", "-b", "1000", "-q"], in: scratch.path).status == 0)
        #expect(
            try gcdcat(
                ["split", "b.csv", "-b", "1000", "--line-boundary", "--header-lines", "1", "-q"], in: scratch.path
            )
            .status == 0)
        try scratch.write("all.sfv", scratch.read("a.bin.sfv")! + scratch.read("b.csv.sfv")!)
        for name in ["a.bin.sfv", "b.csv.sfv", "a.bin", "b.csv"] {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        for (first, whole, name) in [("a.bin.001", a, "a.bin"), ("b.csv.001", csv, "b.csv")] {
            let merged = try gcdcat([first], in: scratch.path)
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stderr.hasSuffix(" verified against all.sfv\n"), "\(merged.stderr)")
            #expect(scratch.read(name) == whole)
        }
    }

    // A split's records say nothing of the lines of another set that follow them in one SFV
    // (`cat b.csv.sfv y.sfv`, the second by cksfv): b.csv's header and whole records were applied
    // to y's parts, and a good y was corrupt, exit 2 (outside attack, issue 22). In either order.
    @Test(arguments: [true, false])
    func aSplitsRecordsAreNotAppliedToTheLinesOfAnotherSet(splitFirst: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("b.csv", Data((0..<200).map { "row \($0),\($0 * 7)\n" }.joined().utf8))
        let csv = scratch.read("b.csv")!
        let y = randomData(2500, seed: 2232)
        for index in 0..<3 {
            try scratch.write("y.00\(index + 1)", y.subdata(in: index * 1000..<min(2500, (index + 1) * 1000)))
        }
        let split = try gcdcat(
            ["split", "b.csv", "-b", "1000", "--line-boundary", "--header-lines", "1", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let cksfv = try runTool("cksfv", ["-b", "y.001", "y.002", "y.003"], in: scratch.path)
        #expect(cksfv.status == 0, "\(cksfv.stderr)")
        let own = scratch.read("b.csv.sfv")!
        try scratch.write("all.sfv", splitFirst ? own + cksfv.stdout : cksfv.stdout + own)
        for name in ["b.csv.sfv", "b.csv"] { try FileManager.default.removeItem(atPath: scratch.file(name)) }
        for (first, whole, name) in [("y.001", y, "y"), ("b.csv.001", csv, "b.csv")] {
            let merged = try gcdcat([first], in: scratch.path)
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stderr.hasSuffix(" 3 parts verified against all.sfv\n"), "\(merged.stderr)")
            #expect(scratch.read(name) == whole)
        }
    }

    // An md5/sha list has no order: one written in the folder's order (`find -exec sha256sum`)
    // checks the set as a sorted one does, and a corrupt part is still named; a list of some
    // parts only is refused as such (both were "is part 1, but SHA256SUMS line 1 lists
    // ./x.bin.002 there", exit 1: outside attack, issue 22).
    @Test func anMD5OrSHAListIsReadInAnyOrderAndOneOfSomePartsIsSaidToBeOne() throws {
        let (scratch, whole) = try set()
        let listed = try runTool("sha256sum", ["./x.bin.002", "./x.bin.003", "./x.bin.001"], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        try scratch.write("SHA256SUMS", listed.stdout)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against SHA256SUMS\n")
        #expect(scratch.read("x.bin") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin"))
        try corrupt("x.bin.003", in: scratch)
        let corrupt = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(corrupt.status == 2, "\(corrupt.stderr)")
        #expect(corrupt.stderr.hasPrefix("gcdcat: x.bin.003: sha256 is "), "\(corrupt.stderr)")
        #expect(scratch.read("x.bin") == nil)
        let some = try runTool("sha256sum", ["x.bin.002"], in: scratch.path)
        try scratch.write("SHA256SUMS", some.stdout)
        let partial = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(partial.status == 1)
        #expect(
            partial.stderr
                == "gcdcat: SHA256SUMS: lists only 1 of the set's 3 parts (x.bin.002), so it cannot vouch for the set "
                + "and nothing was written; merge with --no-verify to join the parts without it, or give a list of "
                + "every part with --manifest\n")
        #expect(scratch.read("x.bin") == nil)
    }

    // A line that repeats another whole (`sha256sum` run twice into one list) says nothing new,
    // as `sha256sum -c` reads it: the list still checks the set, and a corrupt part is named
    // (the list was unreadable, so the corrupt part was merged, exit 0: outside attack, issue 22).
    @Test func aListRepeatingALineWholeStillChecksTheSet() throws {
        let (scratch, _) = try set()
        let listed = try runTool("sha256sum", Self.parts + ["x.bin.002"], in: scratch.path)
        try scratch.write("SHA256SUMS", listed.stdout)
        let verified = try gcdcat(["verify", "SHA256SUMS"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        try corrupt("x.bin.003", in: scratch)
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == 2, "\(merged.stderr)")
        #expect(merged.stderr.hasPrefix("gcdcat: x.bin.003: sha256 is "), "\(merged.stderr)")
        #expect(scratch.read("x.bin") == nil)
    }

    @Test func aListWhoseFirstPartIsMissingSaysItNamesIt() throws {
        let (scratch, _) = try set()
        try scratch.write("x.bin.sfv", try gcdcat(["checksum"] + Self.parts, in: scratch.path).stdout)
        try FileManager.default.removeItem(atPath: scratch.file("x.bin.001"))
        let merged = try gcdcat(["x.bin.sfv"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: x.bin.001: missing part: x.bin.sfv names it as the set's first part, but it does not exist\n"
        )
        #expect(scratch.read("x.bin") == nil)
    }
}

extension ListsBesideSetCLITests {
    /// The set's own list when it is empty (`: > x.bin.sfv`, or only comments) is said as verify
    /// says it, with the way on, exit 1 as verify's, nothing written. (It said only "no entries:
    /// nothing to verify", which reads as nothing to do: outside attack, issue 22.)
    @Test(arguments: ["x.bin.sfv", "x.bin.sha256"], ["", "; made by hand\n"])
    func anEmptyOwnListSaysSoAndTheWayOn(list: String, content: String) throws {
        let (scratch, whole) = try set()
        try scratch.write(list, Data(content.utf8))
        let verified = try gcdcat(["verify", list], in: scratch.path)
        #expect(verified.status == 1)
        #expect(verified.stderr == "gcdcat: \(list): no entries: nothing to verify\n")
        let before = scratch.listing()
        let merged = try gcdcat(["x.bin.001"], in: scratch.path)
        #expect(merged.status == verified.status)
        #expect(
            merged.stderr
                == "gcdcat: \(list): no entries: an empty checksum list cannot verify the parts, so nothing was "
                + "written; delete it, or merge with --no-verify\n")
        #expect(scratch.listing() == before)
        let unchecked = try gcdcat(["x.bin.001", "--no-verify"], in: scratch.path)
        #expect(unchecked.status == 0, "\(unchecked.stderr)")
        #expect(scratch.read("x.bin") == whole)
    }
}

extension ListsBesideSetCLITests {
    /// `v2.sfv` of gcdcat's split `--prefix v2` beside the set `v1001` …: its names read as
    /// later parts of `v` + four digits, none there, and it was said to "also list" the set and
    /// agree with `v1.sfv` (outside check a28 F5). It checked nothing, and is not named.
    @Test func aListOfAnotherSetIsNotSaidToAgree() throws {
        let scratch = try Scratch()
        let whole = randomData(1_000, seed: 4801)
        try scratch.write("orig", whole)
        try scratch.write("b", randomData(450, seed: 4802))
        #expect(try gcdcat(["split", "orig", "--prefix", "v1", "-b", "100", "-q"], in: scratch.path).status == 0)
        #expect(try gcdcat(["split", "b", "--prefix", "v2", "-b", "100", "-q"], in: scratch.path).status == 0)
        let merged = try gcdcat(["v1001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 10 parts verified against v1.sfv\n")
        #expect(scratch.read("out") == whole)
    }
}
