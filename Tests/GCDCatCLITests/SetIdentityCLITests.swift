import Foundation
import Testing

/// A set is an identity (issue 22): a glob over several downloads merges each to its own
/// output against its own manifest, a list that mixes sets is refused, a checksum list names
/// the set to merge, a manifest of another set is said to be one, and names are bytes.
@Suite struct SetIdentityCLITests {
    /// Two downloads in one folder, as 7-Zip or HJSplit leave them: `a.bin.001…005` with
    /// `a.bin.sfv`, `b.bin.001…005` with `b.bin.sfv` (written by cksfv). Returns the wholes.
    func twoDownloads(_ scratch: Scratch) throws -> (a: Data, b: Data) {
        // The last parts are shorter: a set of equal parts is warned of as maybe cut short.
        let a = randomData(4500, seed: 2201)
        let b = randomData(4700, seed: 2202)
        for (name, whole) in [("a.bin", a), ("b.bin", b)] {
            let parts = (1...5).map { "\(name).00\($0)" }
            for (index, part) in parts.enumerated() {
                try scratch.write(part, whole.subdata(in: index * 1000..<min(whole.count, (index + 1) * 1000)))
            }
            let sfv = try runTool("cksfv", ["-b"] + parts, in: scratch.path)
            #expect(sfv.status == 0, "\(sfv.stderr)")
            try scratch.write("\(name).sfv", sfv.stdout)
        }
        return (a, b)
    }

    func parts(_ name: String) -> [String] { (1...5).map { "\(name).00\($0)" } }

    @Test(arguments: [
        ["a.bin.001", "b.bin.001"], ["merge", "a.bin.001", "b.bin.001"],
        (1...5).map { "a.bin.00\($0)" } + (1...5).map { "b.bin.00\($0)" },
    ])
    func aGlobOverTwoSetsMergesEachToItsOwnOutput(arguments: [String]) throws {
        let scratch = try Scratch()
        let (a, b) = try twoDownloads(scratch)
        let result = try gcdcat(arguments, in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: 5 parts verified against a.bin.sfv\ngcdcat: 5 parts verified against b.bin.sfv\n"
                + "gcdcat: 2 of 2 sets merged (a.bin, b.bin)\n")
        #expect(scratch.read("a.bin") == a)
        #expect(scratch.read("b.bin") == b)
    }

    // Each set is checked against its own manifest; one failing does not stop the other, and the
    // worst status wins: a missing part (1) over a corrupt one (2).
    @Test func eachSetIsCheckedAloneAndTheWorstStatusWins() throws {
        let scratch = try Scratch()
        let (a, _) = try twoDownloads(scratch)
        try scratch.write("b.bin.002", randomData(1000, seed: 2203))
        let corrupt = try gcdcat(["a.bin.001", "b.bin.001", "-q"], in: scratch.path)
        #expect(corrupt.status == 2)
        #expect(corrupt.stderr.contains("gcdcat: b.bin.002: crc32 is "))
        #expect(corrupt.stderr.hasSuffix("gcdcat: 1 of 2 sets merged (a.bin); failed: b.bin\n"))
        #expect(scratch.read("a.bin") == a)
        #expect(scratch.read("b.bin") == nil)
        try FileManager.default.removeItem(atPath: scratch.file("a.bin"))
        try FileManager.default.removeItem(atPath: scratch.file("a.bin.005"))
        let worst = try gcdcat(["a.bin.001", "b.bin.001", "-q"], in: scratch.path)
        #expect(worst.status == 1)
        #expect(
            worst.stderr.contains(
                "gcdcat: a.bin.005: missing part: a.bin.sfv lists it (line 13) but it does not exist\n"))
        #expect(worst.stderr.hasSuffix("gcdcat: 0 of 2 sets merged; failed: a.bin, b.bin\n"))
        #expect(scratch.read("a.bin") == nil)
    }

    // --json prints one document: each set's own report or error object, and the exit status.
    @Test func severalSetsPrintOneJSONDocument() throws {
        let scratch = try Scratch()
        _ = try twoDownloads(scratch)
        try scratch.write("b.bin.003", randomData(1000, seed: 2204))
        let result = try gcdcat(["a.bin.001", "b.bin.001", "--json", "-q"], in: scratch.path)
        #expect(result.status == 2)
        let document = try JSONValue.parse(result.stdout)
        #expect(try schema("merge-sets").violations(of: document) == [])
        guard case .object(let top) = document, case .array(let sets)? = top["sets"] else {
            Issue.record("no sets: \(result.stdoutText)")
            return
        }
        #expect(top["exitStatus"] == .integer(2))
        #expect(sets.count == 2)
        #expect(try schema("merge").violations(of: sets[0]) == [])
        #expect(try schema("error").violations(of: sets[1]) == [])
        guard case .object(let report) = sets[0], case .object(let failure) = sets[1],
            case .object(let error)? = failure["error"]
        else { return }
        #expect(report["output"] == .string("a.bin"))
        #expect(error["code"] == .string("checksumMismatch"))
        #expect(error["path"] == .string("b.bin.003"))
    }

    /// A signal that stops a run over several sets after one was published: the `--json`
    /// document still lists that set's report (its output stays) and the set it stopped, as an
    /// `interrupted` error object, exit 130. (It printed the bare `interrupted` object, hiding the
    /// published set: outside attack, issue 22.)
    @Test(.enabled(if: toolExists("strace"), "strace sends the SIGINT as the second set opens a part"))
    func anInterruptedRunOverSeveralSetsListsThePublishedOne() throws {
        let scratch = try Scratch()
        let (a, _) = try twoDownloads(scratch)
        let result = try runTool(
            "strace",
            [
                "-f", "-qq", "-o", "/dev/null", "-P", "b.bin.002", "-e", "trace=openat", "-e",
                "inject=openat:signal=INT:when=1", "env", "--default-signal=INT", gcdcatPath, "a.bin.001", "b.bin.001",
                "--json", "-q",
            ], in: scratch.path)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("gcdcat: interrupted by SIGINT; b.bin was not created\n"), "\(result.stderr)")
        #expect(scratch.read("a.bin") == a)
        #expect(scratch.read("b.bin") == nil)
        let document = try JSONValue.parse(result.stdout)
        #expect(try schema("merge-sets").violations(of: document) == [])
        #expect(document["exitStatus"] == .integer(130))
        guard case .array(let sets)? = document["sets"], sets.count == 2 else {
            Issue.record("not two sets: \(result.stdoutText)")
            return
        }
        #expect(try schema("merge").violations(of: sets[0]) == [])
        #expect(sets[0]["output"] == .string("a.bin"))
        #expect(sets[0]["verified"] == .bool(true))
        #expect(try schema("error").violations(of: sets[1]) == [])
        #expect(
            sets[1]["error"]
                == .object([
                    "code": .string("interrupted"), "exitStatus": .integer(130), "path": .string("b.bin"),
                    "syscall": .null, "errno": .integer(Int64(SIGINT)),
                    "message": .string("b.bin: interrupted by SIGINT while it was merged"),
                ]))
    }

    /// Each set's document carries its own warnings (they were printed but left out of the
    /// several-sets document: outside attack).
    @Test func eachSetsDocumentCarriesItsOwnWarnings() throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(30_000, seed: 2210))
        try scratch.write("b.bin", randomData(25_000, seed: 2211))
        for name in ["a.bin", "b.bin"] {
            let split = try gcdcat(["split", name, "-b", "10000", "--no-manifest", "-q"], in: scratch.path)
            #expect(split.status == 0, "\(split.stderr)")
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        // Downloaded parts carry no marks to say the set is whole (PartMarkCLITests).
        try scratch.unmark(scratch.files(startingWith: "a.bin.0"))
        let result = try gcdcat(["a.bin.001", "b.bin.001", "--json", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSONValue.parse(result.stdout)
        #expect(try schema("merge-sets").violations(of: document) == [])
        guard case .object(let top) = document, case .array(let sets)? = top["sets"], sets.count == 2,
            case .object(let a) = sets[0], case .object(let b) = sets[1],
            case .array(let aWarnings)? = a["warnings"], case .array(let bWarnings)? = b["warnings"]
        else {
            Issue.record("no sets with warnings: \(result.stdoutText)")
            return
        }
        // a.bin's last part is as large as the others: the set may be cut short; b.bin's is not.
        #expect(aWarnings.count == 1, "\(aWarnings)")
        guard case .string(let warning)? = aWarnings.first else { return }
        #expect(result.stderr.contains("gcdcat: warning: \(warning)\n"), "\(result.stderr)")
        #expect(bWarnings.isEmpty, "\(bWarnings)")
    }

    // -o with several sets: a folder takes each set; a file name is a usage error naming the sets.
    @Test func severalSetsNeedAFolderAsTheirOutput() throws {
        let scratch = try Scratch()
        let (a, b) = try twoDownloads(scratch)
        let file = try gcdcat(["a.bin.001", "b.bin.001", "-o", "out"], in: scratch.path)
        #expect(file.status == 64)
        #expect(
            file.stderr.hasPrefix(
                "Error: -o out names one file, but the parts are 2 sets (a.bin.001, b.bin.001); give a folder (-o DIR/) "
                    + "to merge each set into it, or --as-given to join the list as it is\n"))
        let manifest = try gcdcat(["a.bin.001", "b.bin.001", "--manifest", "a.bin.sfv"], in: scratch.path)
        #expect(manifest.status == 64)
        #expect(manifest.stderr.hasPrefix("Error: --manifest a.bin.sfv is one set's list, but the parts are 2 sets"))
        #expect(!scratch.listing().contains("out"))
        try FileManager.default.createDirectory(atPath: scratch.file("into"), withIntermediateDirectories: false)
        let merged = try gcdcat(["merge"] + parts("a.bin") + parts("b.bin") + ["-o", "into", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("into/a.bin") == a)
        #expect(scratch.read("into/b.bin") == b)
    }

    // Two sets that would be merged into one name (`m.zip.001` and `m.zip.part1`) are refused.
    @Test func twoSetsOfOneNameAreRefused() throws {
        let scratch = try Scratch()
        try scratch.write("m.zip.001", Data("one".utf8))
        try scratch.write("m.zip.part1", Data("two".utf8))
        let result = try gcdcat(["m.zip.001", "m.zip.part1"], in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: m.zip.001 and m.zip.part1 are two sets that would both be merged into m.zip; merge them one at "
                    + "a time, with -o\n"))
        #expect(scratch.listing() == ["m.zip.001", "m.zip.part1"])
    }

    // One set given in two spellings (`a.bin.001 ./a.bin.001`, or through a symlinked folder) is
    // one set: refused before anything is written, not merged twice.
    @Test func oneSetGivenInTwoSpellingsIsRefusedAsGivenTwice() throws {
        let scratch = try Scratch()
        _ = try twoDownloads(scratch)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("here"), withDestinationPath: ".")
        for second in ["./a.bin.001", "here/a.bin.001"] {
            let result = try gcdcat(["a.bin.001", second], in: scratch.path)
            #expect(result.status == 64, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "Error: a.bin.001 and \(second) are one file: the same set is given twice; give it once\n"),
                "\(result.stderr)")
            #expect(!scratch.listing().contains("a.bin"))
        }
    }

    // `merge a.bin.001 a.bin.001` is said as a part given twice, not as a short list.
    @Test func aPartGivenTwiceIsSaidAsSuch() throws {
        let scratch = try Scratch()
        _ = try twoDownloads(scratch)
        let result = try gcdcat(["a.bin.001", "a.bin.001"], in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: a.bin.001: is given twice, so the list stops short of the set (a.bin.002 lies beside it). "
                + "Give each part once (or the first alone: gcdcat merge a.bin.001); --allow-duplicates joins a part "
                + "twice on purpose, with every part listed\n")
        #expect(!scratch.listing().contains("a.bin"))
    }

    // A list whose parts belong to two sets is refused naming the odd part; --as-given joins it.
    @Test func aListMixingSetsIsRefusedNamingTheOddPart() throws {
        let scratch = try Scratch()
        let (a, b) = try twoDownloads(scratch)
        let mixed = ["merge", "a.bin.001", "a.bin.002", "b.bin.003", "a.bin.004", "a.bin.005", "-o", "out"]
        let refused = try gcdcat(mixed, in: scratch.path)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "gcdcat: b.bin.003: belongs to the set of b.bin, but is listed among the parts of a.bin (after "
                + "a.bin.002, before a.bin.004); list the parts of one set, or use --as-given if the list is meant to "
                + "be joined as it is\n")
        #expect(scratch.read("out") == nil)
        let joined = try gcdcat(mixed + ["--as-given", "--no-verify", "-q"], in: scratch.path)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(scratch.read("out") == a.prefix(2000) + b.subdata(in: 2000..<3000) + a.suffix(from: 3000))
    }

    // An explicit list with mixed widths is refused, as discovery refuses it.
    @Test func anExplicitListWithMixedWidthsIsRefused() throws {
        let scratch = try Scratch()
        for (name, text) in [("x.001", "aa"), ("x.002", "bb"), ("x.0003", "cc")] {
            try scratch.write(name, Data(text.utf8))
        }
        let result = try gcdcat(["merge", "x.001", "x.002", "x.0003", "-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: x.0003: does not fit the numbering of x.001 … x.002 (mixed widths: 3 digits there); rename "
                + "or remove it, or use --as-given to merge the list as it is\n")
        #expect(scratch.read("out") == nil)
    }

    // A checksum list names the set to merge, and is the manifest it is checked against.
    @Test(arguments: [
        ("m.zip.sfv", "cksfv -b m.zip.00* > m.zip.sfv"),
        ("m.zip.md5", "md5sum m.zip.00* > m.zip.md5"),
        ("SHA256SUMS", "sha256sum m.zip.00* > SHA256SUMS"),
        ("m.zip.sha256", "sha256sum orig | sed 's/orig$/m.zip/' > m.zip.sha256"),
        ("sums", "sha1sum m.zip.00* > sums"),
    ])
    func aChecksumListNamesTheSetToMerge(list: String, make: String) throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 2205)
        try scratch.write("orig", whole)
        #expect(
            try gcdcat(["split", "orig", "--size", "1000", "--prefix", "m.zip.", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("m.zip.sfv"))
        #expect(try runTool("sh", ["-c", make], in: scratch.path).status == 0)
        let result = try gcdcat(list == "sums" ? [list] : ["merge", list], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "gcdcat: 3 parts verified against \(list)\n")
        #expect(scratch.read("m.zip") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("m.zip"))
        try scratch.write("m.zip.002", randomData(1000, seed: 2206))
        let corrupt = try gcdcat([list, "-q"], in: scratch.path)
        #expect(corrupt.status == 2, "\(corrupt.stderr)")
        #expect(scratch.read("m.zip") == nil)
    }

    // A manifest of another set says so, instead of reporting a missing part.
    @Test func aManifestOfAnotherSetIsSaidToBeOne() throws {
        let scratch = try Scratch()
        let (a, _) = try twoDownloads(scratch)
        let explicit = try gcdcat(["a.bin.001", "--manifest", "b.bin.sfv", "-o", "out"], in: scratch.path)
        #expect(explicit.status == 1)
        #expect(
            explicit.stderr
                == "gcdcat: b.bin.sfv: belongs to another set (b.bin): it lists none of the parts being merged (line 9 "
                + "names b.bin.001, not a.bin.001); give this set's own list with --manifest, or merge without one "
                + "(--no-verify)\n")
        try scratch.write("a.bin.sfv", Data("x.001 01234567\nx.002 89abcdef\n".utf8))
        let beside = try gcdcat(["a.bin.001", "-o", "out"], in: scratch.path)
        #expect(beside.status == 1)
        #expect(
            beside.stderr
                == "gcdcat: a.bin.sfv: belongs to another set (x): it lists none of the parts being merged (line 1 names "
                + "x.001, not a.bin.001); give this set's own list with --manifest, or merge without one (--no-verify)\n"
        )
        #expect(scratch.read("out") == nil)
        let unverified = try gcdcat(["a.bin.001", "-o", "out", "--no-verify", "-q"], in: scratch.path)
        #expect(unverified.status == 0)
        #expect(scratch.read("out") == a)
    }

    // The `cp` habit, `merge A.001 OUT`, is told to name the output with -o.
    @Test func anOutputGivenAsCpTakesItIsToldToUseO() throws {
        let scratch = try Scratch()
        try scratch.write("A.001", Data("one".utf8))
        try scratch.write("A.002", Data("two".utf8))
        let result = try gcdcat(["merge", "A.001", "OUT"], in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: OUT does not exist and is not a part of A.001's set. To write the merge to it, name it with -o: "
                    + "gcdcat merge A.001 -o OUT\n"))
        #expect(scratch.listing() == ["A.001", "A.002"])
        // A missing number of the set, or a name that is itself a part's, is still a missing part.
        for last in ["A.003", "B.001"] {
            let missing = try gcdcat(["merge", "A.001", "A.002", last, "-q"], in: scratch.path)
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("gcdcat: \(last): open: No such file or directory\n"), "\(missing.stderr)")
        }
    }

    // Names are bytes: `café.002` in NFD is not part 2 of `café.001` in NFC's set, and the
    // missing part is named with its real bytes.
    @Test func namesInAnotherNormalisationAreOtherFiles() throws {
        let scratch = try Scratch()
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // as Swift Strings; not as names
        try scratch.write(nfc + ".001", Data("A".utf8))
        try scratch.write(nfd + ".002", Data("B".utf8))
        try scratch.write(nfc + ".003", Data("C".utf8))
        let result = try gcdcat([nfc + ".001", "-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        // Compared as bytes: a String's == would take either spelling for the other.
        let expected =
            "gcdcat: \(nfc).002: missing part: the set has \(nfc).003 but not this one; \(nfd).002 looks the same "
            + "but is spelt with other bytes (another Unicode normalisation), so it is another file: rename it to "
            + "match the set\n"
        #expect(Array(result.stderr.utf8) == Array(expected.utf8), "\(result.stderr)")
        let listed = try gcdcat(["merge", nfc + ".001", nfd + ".002", "-o", "out"], in: scratch.path)
        #expect(listed.status == 64)
        #expect(listed.stderr.hasPrefix("Error: -o out names one file, but the parts are 2 sets"))
        // A later part missing from a list, or given in the other spelling, gets the same note.
        let note =
            "; \(nfd).002 looks the same but is spelt with other bytes (another Unicode normalisation), so it is "
            + "another file: rename it to match the set\n"
        let gap = try gcdcat(["merge", nfc + ".001", nfc + ".003", "-o", "out"], in: scratch.path)
        #expect(gap.status == 1)
        let gapMessage =
            "gcdcat: \(nfc).002: missing from the list between \(nfc).001 and \(nfc).003; give every part, or use "
            + "--as-given to merge the list as it is" + note
        #expect(Array(gap.stderr.utf8) == Array(gapMessage.utf8), "\(gap.stderr)")
        let typed = try gcdcat(["merge", nfc + ".001", nfc + ".002", nfc + ".003", "-o", "out"], in: scratch.path)
        #expect(typed.status == 1)
        let typedMessage = "gcdcat: \(nfc).002: open: No such file or directory" + note
        #expect(Array(typed.stderr.utf8) == Array(typedMessage.utf8), "\(typed.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// `m.iso.001…003` (1000, 1000, 500 bytes) split by gcdcat with `m.iso.sfv` beside them, the
    /// whole moved to `orig`, and files that are no parts: `backup.iso`, `empty`, `extra`.
    func isoSet(_ scratch: Scratch) throws -> Data {
        let whole = randomData(2500, seed: 2210)
        try scratch.write("orig", whole)
        #expect(
            try gcdcat(["split", "orig", "--size", "1000", "--prefix", "m.iso.", "-q"], in: scratch.path).status == 0)
        try scratch.write("backup.iso", Data("old\n".utf8))
        try scratch.write("empty", Data())
        try scratch.write("extra", Data("extra\n".utf8))
        return whole
    }

    // A file that is no numbered part, listed with a set's parts, would be joined into the output
    // and turn off the set's checks (order, gaps, its manifest): refused, naming it; --as-given
    // joins the list as it is.
    @Test(arguments: [
        ["merge", "m.iso.001", "backup.iso"],
        ["merge", "m.iso.001", "m.iso.002", "empty", "-o", "out"],
        ["merge", "m.iso.001", "m.iso.003", "extra", "-o", "out"],
        ["merge", "m.iso.003", "m.iso.002", "m.iso.001", "extra", "-o", "out"],
    ])
    func aListMixingPartsWithOtherFilesIsRefused(arguments: [String]) throws {
        let scratch = try Scratch()
        _ = try isoSet(scratch)
        let stray = arguments.first { !$0.hasPrefix("m.iso.") && $0 != "merge" && $0 != "-o" && $0 != "out" }!
        let before = scratch.listing()
        let result = try gcdcat(arguments, in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: \(stray): is not a numbered part of m.iso, yet it is listed with its parts (not parts: "
                + "\(stray)); joined, it would end up in the output. List only the set's parts; use --as-given to join "
                + "the files exactly as listed\n")
        #expect(scratch.listing() == before)
        let joined = try gcdcat(
            ["merge", "m.iso.001", "backup.iso", "-o", "out", "--as-given", "-q"], in: scratch.path)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(scratch.read("out") == scratch.read("m.iso.001")! + Data("old\n".utf8))
    }

    // `gcdcat movie.zip.*` over one set and its .nfo and .torrent: 7-Zip's `7z x movie.zip.001`
    // ignores them; gcdcat names them and the command that merges the set. With a part
    // missing, the set is not complete and only the strays are named. Plain files still join.
    @Test func aGlobOverOneSetAndOtherFilesNamesThemAndTheFirstPart() throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 2211)
        for index in 0..<3 {
            try scratch.write(
                "movie.zip.00\(index + 1)", whole.subdata(in: index * 1000..<min(2500, (index + 1) * 1000)))
        }
        try scratch.write("movie.zip.nfo", Data("release notes\n".utf8))
        try scratch.write("movie.zip.torrent", Data("d8:announce0:e".utf8))
        let glob = ["movie.zip.001", "movie.zip.002", "movie.zip.003", "movie.zip.nfo", "movie.zip.torrent"]
        let refused = try gcdcat(glob, in: scratch.path)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "gcdcat: movie.zip.nfo: is not a numbered part of movie.zip, yet it is listed with its parts (not "
                + "parts: movie.zip.nfo, movie.zip.torrent); joined, they would end up in the output. To merge the set, "
                + "give its first part alone (gcdcat merge movie.zip.001); use --as-given to join the files exactly as "
                + "listed\n")
        #expect(scratch.read("movie.zip") == nil)
        let first = try gcdcat(["movie.zip.001", "-q"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(scratch.read("movie.zip") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip"))
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.002"))
        let gap = try gcdcat(glob.filter { $0 != "movie.zip.002" }, in: scratch.path)
        #expect(gap.status == 1)
        #expect(gap.stderr.contains("List only the set's parts; use --as-given"), "\(gap.stderr)")
        #expect(scratch.read("movie.zip") == nil)
        let plain = try gcdcat(["merge", "movie.zip.nfo", "movie.zip.torrent", "-o", "all", "-q"], in: scratch.path)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(scratch.read("all") == Data("release notes\nd8:announce0:e".utf8))
    }

    /// `c.001…003`, three equal parts and no manifest; the same for `d.bin`.
    func equalParts(_ scratch: Scratch, _ name: String, seed: UInt64) throws -> Data {
        let whole = randomData(3000, seed: seed)
        for index in 0..<3 {
            try scratch.write("\(name).00\(index + 1)", whole.subdata(in: index * 1000..<(index + 1) * 1000))
        }
        return whole
    }

    // A list that stops before the set's last parts, lying beside it, would be a short output:
    // refused, naming them. The whole list merges, with the warning a discovered set gets.
    @Test func aListLeavingOutTheLastPartsIsRefused() throws {
        let scratch = try Scratch()
        let whole = try equalParts(scratch, "c", seed: 2212)
        let short = try gcdcat(["merge", "c.001", "c.002", "-o", "z"], in: scratch.path)
        #expect(short.status == 1)
        #expect(
            short.stderr
                == "gcdcat: c.003: lies beside the listed parts but is not in the list, which stops at c.002: the "
                + "output would lack this part. Give every part (or the first alone: gcdcat merge c.001), or use "
                + "--as-given to merge the list as it is\n")
        #expect(scratch.read("z") == nil)
        let all = try gcdcat(["merge", "c.001", "c.002", "c.003", "-o", "z", "-q"], in: scratch.path)
        #expect(all.status == 0)
        #expect(
            all.stderr
                == "gcdcat: warning: the last part, c.003, is exactly as large as the others: if the set had more "
                + "parts, they are missing and the output is short. A manifest (NAME.sfv, see 'gcdcat split') would "
                + "tell.\n")
        #expect(scratch.read("z") == whole)
        let asGiven = try gcdcat(["merge", "c.001", "c.002", "-o", "y", "--as-given", "-q"], in: scratch.path)
        #expect(asGiven.status == 0)
        #expect(scratch.read("y") == whole.prefix(2000))
        // A glob over two sets, the second cut short: each set on its own, the worst status.
        let b = try equalParts(scratch, "b.bin", seed: 2213)
        let a = try equalParts(scratch, "a.bin", seed: 2214)
        try FileManager.default.createDirectory(atPath: scratch.file("d"), withIntermediateDirectories: false)
        let sets = try gcdcat(
            ["a.bin.001", "a.bin.002", "a.bin.003", "b.bin.001", "b.bin.002", "-o", "d/", "-q"], in: scratch.path)
        #expect(sets.status == 1)
        #expect(
            sets.stderr.contains(
                "gcdcat: b.bin.003: lies beside the listed parts but is not in the list, which stops at b.bin.002"))
        #expect(sets.stderr.hasSuffix("gcdcat: 1 of 2 sets merged (d/a.bin); failed: b.bin\n"), "\(sets.stderr)")
        #expect(scratch.read("d/a.bin") == a)
        #expect(scratch.read("d/b.bin") == nil)
        _ = b
    }

    // A list whose algorithm is only assumed from its length (b2sum's 128 digits, read as
    // sha512) that no part matches: the assumption is wrong, not the parts (exit 1, as verify
    // says UNCONFIRMED), and --algorithm names the real one.
    @Test(arguments: [
        "b2sum m.iso.00? > checksums.txt", "b2sum orig | sed 's/orig$/m.iso/' > checksums.txt",
    ])
    func aListOfAnAssumedAlgorithmIsNotCalledCorrupt(make: String) throws {
        let scratch = try Scratch()
        let whole = try isoSet(scratch)
        #expect(try runTool("sh", ["-c", make], in: scratch.path).status == 0)
        let guessed = try gcdcat(["checksums.txt", "-o", "out"], in: scratch.path)
        #expect(guessed.status == 1)
        #expect(
            guessed.stderr.hasSuffix(
                "gcdcat: checksums.txt: no part matched its 128-digit values as sha512, which was only assumed from "
                    + "the length: the list is probably of another algorithm, not the parts corrupt; nothing was "
                    + "written. Try --algorithm blake2b or --algorithm sha3-512\n"), "\(guessed.stderr)")
        #expect(scratch.read("out") == nil)
        let named = try gcdcat(["checksums.txt", "-o", "out", "--algorithm", "blake2b", "-q"], in: scratch.path)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(scratch.read("out") == whole)
    }

    // A checksum list of an algorithm gcdcat does not read (tiger) is still a list: refused as
    // one, never joined as a part.
    @Test func aListOfAnUnreadAlgorithmIsNeverJoined() throws {
        let scratch = try Scratch()
        _ = try isoSet(scratch)
        #expect(try runTool("sh", ["-c", "rhash --tiger m.iso.00? > checksums.txt"], in: scratch.path).status == 0)
        let result = try gcdcat(["merge", "checksums.txt", "-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("gcdcat: checksums.txt: reads as a checksum list, but not one gcdcat can read ("),
            "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                "), so it names no set to merge; it is not joined as data. Give the set's first part (with "
                    + "--no-verify, or --manifest and a list gcdcat reads), or --as-given to join this file itself\n"))
        #expect(scratch.read("out") == nil)
    }

    // A SHA256SUMS over a release lists its README.txt too: the set it names is merged, checked
    // against its lines, and the other file is said to be left to verify.
    @Test func aListNamingOtherFilesMergesItsSet() throws {
        let scratch = try Scratch()
        let whole = try isoSet(scratch)
        try scratch.write("README.txt", Data("read me\n".utf8))
        let make = "sha256sum m.iso.001 README.txt m.iso.002 m.iso.003 > SHA256SUMS"
        #expect(try runTool("sh", ["-c", make], in: scratch.path).status == 0)
        let result = try gcdcat(["merge", "SHA256SUMS", "-o", "out"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: note: SHA256SUMS also lists README.txt, no part of the set; not checked here (gcdcat "
                + "verify SHA256SUMS checks every file it lists)\ngcdcat: 3 parts verified against SHA256SUMS\n")
        #expect(scratch.read("out") == whole)
    }

    // cksfv over GNU split's `xaa xab xac` and a README.txt: the set's parts are checked
    // against their lines and the README is said, not joined, whichever way the merge starts.
    @Test(arguments: ["auto", "stream"])
    func anSFVNamingOtherFilesChecksItsSetsParts(strategy: String) throws {
        let scratch = try Scratch()
        let whole = randomData(5000, seed: 31)
        try scratch.write("data", whole)
        try scratch.write("README.txt", Data("read me\n".utf8))
        let make = "split -b 2000 data x && cksfv xaa xab README.txt xac > x.sfv"
        #expect(try runTool("sh", ["-c", make], in: scratch.path).status == 0)
        let note =
            "gcdcat: note: x.sfv also lists README.txt, no part of the set; not checked here (gcdcat verify x.sfv "
            + "checks every file it lists)\ngcdcat: 3 parts verified against x.sfv\n"
        for (arguments, output) in [
            (["merge", "--manifest", "x.sfv", "xaa", "-o", "out"], "out"), (["x.sfv"], "x"), (["merge", "xaa"], "x"),
        ] {
            let result = try gcdcat(arguments + ["--strategy", strategy], in: scratch.path)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr == note, "\(arguments)")
            #expect(scratch.read(output) == whole, "\(arguments)")
            try FileManager.default.removeItem(atPath: scratch.file(output))
        }
        // The parts are still checked: a changed part fails, a missing one is named.
        var changed = try #require(scratch.read("xab"))
        changed[7] ^= 1
        try scratch.write("xab", changed)
        var result = try gcdcat(["merge", "xaa", "--strategy", strategy], in: scratch.path)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("xab: crc32 is"), "\(result.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("xac"))
        result = try gcdcat(["merge", "--manifest", "x.sfv", "xaa", "xab", "-o", "out"], in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("xac: missing part: x.sfv lists it (line "), "\(result.stderr)")
        #expect(scratch.read("out") == nil && scratch.read("x") == nil)
    }

    // `merge xaa xab xac README.txt` is refused with a hint; following it merges the set.
    @Test func theHintForAnOtherFileAmongGNUPartsWorks() throws {
        let scratch = try Scratch()
        let whole = randomData(5000, seed: 32)
        try scratch.write("data", whole)
        try scratch.write("README.txt", Data("read me\n".utf8))
        let make = "split -b 2000 data x && cksfv xaa xab xac README.txt > x.sfv"
        #expect(try runTool("sh", ["-c", make], in: scratch.path).status == 0)
        let refused = try gcdcat(["merge", "xaa", "xab", "xac", "README.txt", "-o", "out"], in: scratch.path)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("To merge the set, give its first part alone (gcdcat merge xaa)"),
            "\(refused.stderr)")
        let followed = try gcdcat(["merge", "xaa", "-o", "out"], in: scratch.path)
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(scratch.read("out") == whole)
    }

    // A list named by its algorithm (`*.sha3-256`) is a list, not part 256 of a set.
    @Test(arguments: ["sha3-256", "sha3-512"])
    func aListNamedBySHA3IsAList(algorithm: String) throws {
        let scratch = try Scratch()
        let whole = try isoSet(scratch)
        let list = "m.iso.\(algorithm)"
        #expect(try runTool("sh", ["-c", "rhash --\(algorithm) m.iso.00? > \(list)"], in: scratch.path).status == 0)
        let result = try gcdcat(["merge", list, "-o", "out"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "gcdcat: 3 parts verified against \(list)\n")
        #expect(scratch.read("out") == whole)
    }

    // `merge m.iso.001 dir`, with dir a folder: told to give it with -o.
    @Test func aFolderGivenAsCpTakesItIsToldToUseO() throws {
        let scratch = try Scratch()
        _ = try isoSet(scratch)
        try FileManager.default.createDirectory(atPath: scratch.file("dir"), withIntermediateDirectories: false)
        let result = try gcdcat(["merge", "m.iso.001", "dir"], in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: dir is a folder, not a part. To write the merge into it, name it with -o: gcdcat merge "
                    + "m.iso.001 -o dir/\n"), "\(result.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: scratch.file("dir"))) == [])
    }

    /// A set's part named like a checksum list by its numbering (`in.b2` of a hex set, `in.crc`
    /// and `in.sfv` of a three-letter one) is a part: merged from the first part, from the set's
    /// list, or from a glob of its marked parts (all were refused as "a checksum list, not a
    /// part": outside attack). A glob that takes in a real list is still refused.
    @Test func aPartNamedLikeAListByItsNumberIsAPart() throws {
        let scratch = try Scratch()
        let hex = randomData(200, seed: 2320)
        try scratch.write("in", hex)
        #expect(try gcdcat(["split", "in", "-b", "1", "-x", "-q"], in: scratch.path).status == 0)
        #expect(scratch.read("in.b2") == hex.subdata(in: 178..<179))
        try FileManager.default.removeItem(atPath: scratch.file("in"))
        for from in ["in.00", "in.sfv"] {
            let merged = try gcdcat([from, "-o", "out", "--force", "-q"], in: scratch.path)
            #expect(merged.status == 0, "\(from): \(merged.stderr)")
            #expect(scratch.read("out") == hex, "\(from)")
        }
        // A glob of the parts takes in.b2 in with them; its mark says it is a part.
        let glob = try shell("\(gcdcatPath) merge in.[0-9a-f][0-9a-f] -o globbed -q", in: scratch.path)
        #expect(glob.status == 0, "\(glob.stderr)")
        #expect(scratch.read("globbed") == hex)
        let letters = randomData(12_400, seed: 2321)
        try FileManager.default.createDirectory(atPath: scratch.file("a"), withIntermediateDirectories: false)
        try scratch.write("a/in", letters)
        #expect(
            try gcdcat(
                ["split", "in", "-b", "1", "--suffix", "alpha", "-a", "3", "--manifest", "m.sfv", "-q"],
                in: scratch.file("a")
            ).status == 0)
        #expect(scratch.read("a/in.sfv") != nil)
        for arguments in [["in.aaa", "--manifest", "m.sfv"], ["m.sfv"]] {
            let merged = try gcdcat(arguments + ["-o", "out", "--force", "-q"], in: scratch.file("a"))
            #expect(merged.status == 0, "\(arguments): \(merged.stderr)")
            #expect(scratch.read("a/out") == letters, "\(arguments)")
        }
        let withList = try gcdcat(["merge", "in.00", "in.01", "in.sfv", "-o", "g"], in: scratch.path)
        #expect(withList.status == 1)
        #expect(
            withList.stderr.hasPrefix("gcdcat: in.sfv: a checksum list (sfv), not a part; a shell glob such as NAME.*"))
    }
}
