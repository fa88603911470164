import Foundation
import Testing

/// Sets as users have them (issue 9, cases 2–7, 10, 11): every naming split and GNU split write,
/// globs that take in the manifest, lone and clashing parts, archive volumes, hostile names.
@Suite struct RealWorldSetsCLITests {
    /// Writes `whole` as parts named `names`, cut into pieces of `size` bytes.
    func writeSet(_ scratch: Scratch, _ whole: Data, size: Int, names: [String]) throws {
        for (index, name) in names.enumerated() {
            let start = index * size
            try scratch.write(name, whole.subdata(in: start..<min(whole.count, start + size)))
        }
    }

    func sh(_ script: String, in scratch: Scratch) throws -> RunResult {
        try runTool("sh", ["-c", script], in: scratch.path)
    }

    // Case 10: a prefix without a dot; the manifest split wrote (disk.sfv) is used.
    @Test func splitsPrefixWithoutADotIsFoundWithItsManifest() throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 10)
        try scratch.write("w", whole)
        #expect(try gcdcat(["split", "w", "--size", "1000", "--prefix", "disk_", "-q"], in: scratch.path).status == 0)
        #expect(scratch.listing() == ["disk.sfv", "disk_001", "disk_002", "disk_003", "w"])
        let result = try gcdcat(["disk_001", "-o", "out"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "gcdcat: 3 parts verified against disk.sfv\n")
        #expect(scratch.read("out") == whole)
    }

    // Case 4: split --suffix alpha writes orig.aa, orig.ab, orig.sfv.
    @Test func alphaSuffixSetIsFoundAndVerified() throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 11)
        try scratch.write("orig", whole)
        #expect(
            try gcdcat(["split", "orig", "--size", "1000", "--suffix", "alpha", "-q"], in: scratch.path).status == 0)
        try FileManager.default.moveItem(atPath: scratch.file("orig"), toPath: scratch.file("original"))
        let result = try gcdcat(["orig.aa"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "gcdcat: 3 parts verified against orig.sfv\n")
        #expect(scratch.read("orig") == whole)
    }

    // Case 4: GNU split's xaa (widening past yz to zaaa) and -d's x00 (widening past x89 to x9000).
    @Test(arguments: [["-b", "1"], ["-b", "10", "-d"]])
    func gnuSplitNamesAreFoundPastTheirWidening(flags: [String]) throws {
        let scratch = try Scratch()
        let whole = randomData(flags.contains("-d") ? 1000 : 700, seed: 12)
        try scratch.write("in", whole)
        #expect(try runTool("split", flags + ["in"], in: scratch.path).status == 0)
        let first = flags.contains("-d") ? "x00" : "xaa"
        #expect(scratch.listing().contains(flags.contains("-d") ? "x9000" : "xzaaa"))
        let result = try gcdcat(["merge", first, "-o", "out", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("out") == whole)
    }

    // GNU split -x's hex names (`x00` … `x09`, `x0a` … `x0f`, `x10`, widening past `xef` to
    // `xf000`): found as hex from `x00` (or a glob), where `x00` read as digits skipped `x0a` …
    // `x0f` and merged 70% of the bytes, exit 0 (outside attack, issue 22).
    @Test(arguments: [["-b", "50000"], ["-b", "4000"]])
    func gnuHexNamesAreFoundAsHex(flags: [String]) throws {
        let scratch = try Scratch()
        let whole = randomData(1_000_777, seed: 2235)
        try scratch.write("in", whole)
        #expect(try runTool("split", ["-x"] + flags + ["in"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("in"))
        let names = scratch.listing()
        #expect(names.contains("x0a"))
        let found = try gcdcat(["x00", "-o", "out", "-q"], in: scratch.path)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(scratch.read("out") == whole)
        let glob = try gcdcat(names + ["-o", "globbed", "-q"], in: scratch.path)
        #expect(glob.status == 0, "\(glob.stderr)")
        #expect(scratch.read("globbed") == whole)
    }

    // gcdcat's own hex splits, from 00 and from a start (`--hex-suffixes=1f`), merge from their
    // first part against their manifest (`out_1f` merged alone, exit 0, its manifest unread).
    @Test(arguments: [["-x"], ["--hex-suffixes=1f"]])
    func gcdcatsHexSplitsMergeFromTheFirstPartAgainstTheirManifest(flags: [String]) throws {
        let scratch = try Scratch()
        let whole = randomData(1_000_000, seed: 2236)
        try scratch.write("in", whole)
        let split = try gcdcat(["split", "in", "out_", "-b", "50000", "-q"] + flags, in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("in"))
        let first = flags == ["-x"] ? "out_00" : "out_1f"
        let merged = try gcdcat([first, "-o", "joined"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 20 parts verified against out.sfv\n")
        #expect(scratch.read("joined") == whole)
    }

    // A hex set from a later start with its manifest and its parts' marks gone (a download) is
    // refused naming its hex first part (`u_00`), not a digits one (`u_01`); with the marks its
    // split left, the set is known to start there and to be whole, and merges without a warning.
    @Test func aHexSetStartingLateWithoutItsManifestNamesItsHexFirstPart() throws {
        let scratch = try Scratch()
        let whole = randomData(1_000_000, seed: 2240)
        try scratch.write("in", whole)
        let split = try gcdcat(["split", "in", "u_", "--hex-suffixes=09", "-b", "100000", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("u.sfv"))
        let marked = try gcdcat(["u_09", "-o", "marked"], in: scratch.path)
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(marked.stderr == "gcdcat: 10 parts verified against the crc32s their split marked them with\n")
        #expect(scratch.read("marked") == whole)
        try scratch.unmark(scratch.files(startingWith: "u_"))
        let merged = try gcdcat(["u_09", "-o", "out"], in: scratch.path)
        #expect(merged.status == 1)
        #expect(
            merged.stderr
                == "gcdcat: u_09: no u_00 before it, so the set's first part may be missing. If the set really starts "
                + "here (split --start), merge it with its manifest, or list its parts with --as-given\n")
        #expect(scratch.read("out") == nil)
    }

    // Case 4: .partN and .part01 sets; the output drops the .part.
    @Test(arguments: [1, 2])
    func partNSetsAreFound(width: Int) throws {
        let scratch = try Scratch()
        let whole = randomData(25, seed: 13)
        let names = (1...3).map { "film.mkv.part" + String(repeating: "0", count: width - 1) + "\($0)" }
        try writeSet(scratch, whole, size: 10, names: names)
        let result = try gcdcat([names[0], "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("film.mkv") == whole)
    }

    // Case 5: a .000-based set merges from .000; .001 beside .000 is a clash naming .000.
    @Test func zeroBasedSetsAndTheirClash() throws {
        let scratch = try Scratch()
        let whole = randomData(25, seed: 14)
        try writeSet(scratch, whole, size: 10, names: ["x.000", "x.001", "x.002"])
        let merged = try gcdcat(["x.000", "-o", "out", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
        let clash = try gcdcat(["x.001", "-o", "clash"], in: scratch.path)
        #expect(clash.status == 1)
        #expect(
            clash.stderr
                == "gcdcat: x.001: x.000 exists too, so the set may start at either; give x.000 to merge from it, or list the parts you mean\n"
        )
        #expect(scratch.read("clash") == nil)
    }

    // Case 5: x.0003 beside x.001 and x.002 is not the widening of .999: a clash naming it.
    @Test func mixedWidthsAreAClash() throws {
        let scratch = try Scratch()
        try writeSet(scratch, randomData(25, seed: 15), size: 10, names: ["x.001", "x.002", "x.0003"])
        let result = try gcdcat(["x.001", "-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: x.0003: does not fit the numbering of x.001's set (mixed widths: x.002 is the last part found); rename or remove it\n"
        )
        #expect(scratch.read("out") == nil)
    }

    // Case 3: a lone part that is not the first names the first.
    @Test(arguments: ["movie.zip.002", "movie.zip.003"])
    func aLaterPartNamesTheFirst(part: String) throws {
        let scratch = try Scratch()
        try writeSet(
            scratch, randomData(25, seed: 16), size: 10, names: ["movie.zip.001", "movie.zip.002", "movie.zip.003"])
        let result = try gcdcat(["merge", part, "-o", "x"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: \(part): not the first part of its set, which starts at movie.zip.001; give the first part to merge the whole set\n"
        )
        #expect(scratch.read("x") == nil)
    }

    // Case 2: the glob movie.zip.* takes in movie.zip.sfv; a sha256sum list is known by content.
    @Test func checksumListsAmongThePartsAreRefused() throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 17)
        try scratch.write("movie.zip", whole)
        #expect(try gcdcat(["split", "movie.zip", "--size", "1000", "-q"], in: scratch.path).status == 0)
        let glob = try gcdcat(
            ["merge", "movie.zip.001", "movie.zip.002", "movie.zip.003", "movie.zip.sfv", "-o", "out"],
            in: scratch.path)
        #expect(glob.status == 1)
        #expect(
            glob.stderr
                == "gcdcat: movie.zip.sfv: a checksum list (sfv), not a part; a shell glob such as NAME.* takes it in. Give the first part alone (NAME.001) and the list beside it is used to verify the set\n"
        )
        #expect(try sh("sha256sum movie.zip.00* > sums", in: scratch).status == 0)
        let sniffed = try gcdcat(["merge", "movie.zip.001", "sums", "-o", "out"], in: scratch.path)
        #expect(sniffed.status == 1)
        #expect(sniffed.stderr.hasPrefix("gcdcat: sums: reads as a checksum list (gnu lines), not a part"))
        #expect(scratch.read("out") == nil)
    }

    // A GNU split of a checksum list (`split -l 3 SHA256SUMS`): the parts' names make them one
    // set, so their text is not sniffed as a list taken in by a glob (it was refused).
    @Test func aSplitChecksumListMergesByItsPartsNames() throws {
        let scratch = try Scratch()
        for index in 1...6 { try scratch.write("f\(index)", randomData(100, seed: UInt64(60 + index))) }
        #expect(try sh("sha256sum f1 f2 f3 f4 f5 f6 > SUMS && split -l 3 SUMS", in: scratch).status == 0)
        for arguments in [["merge", "xaa", "xab", "-o", "out"], ["xaa", "xab", "-o", "out"], ["xaa", "-o", "out"]] {
            let merged = try gcdcat(arguments + ["--force"], in: scratch.path)
            #expect(merged.status == 0, "\(arguments): \(merged.stderr)")
            #expect(scratch.read("out") == scratch.read("SUMS"))
        }
        // A file outside the set's numbering is still sniffed.
        let mixed = try gcdcat(["merge", "xaa", "SUMS", "-o", "other"], in: scratch.path)
        #expect(mixed.status == 1)
        #expect(
            mixed.stderr.hasPrefix("gcdcat: xaa: reads as a checksum list (gnu lines), not a part"), "\(mixed.stderr)")
    }

    // An explicit list out of numeric order is refused naming the first pair; --as-given insists.
    @Test func explicitListsMustBeInOrderUnlessAsGiven() throws {
        let scratch = try Scratch()
        try writeSet(scratch, Data("AABBCC".utf8), size: 2, names: ["m.001", "m.002", "m.003"])
        let refused = try gcdcat(["merge", "m.002", "m.001", "m.003", "-o", "out"], in: scratch.path)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "gcdcat: m.001: listed after m.002, out of numeric order for its set; give the parts in order, or use --as-given to merge them as listed\n"
        )
        let gap = try gcdcat(["merge", "m.001", "m.003", "-o", "out"], in: scratch.path)
        #expect(gap.status == 1)
        #expect(gap.stderr.hasPrefix("gcdcat: m.002: missing from the list between m.001 and m.003"))
        #expect(scratch.read("out") == nil)
        let insisted = try gcdcat(["merge", "m.002", "m.001", "-o", "out", "--as-given", "-q"], in: scratch.path)
        #expect(insisted.status == 0, "\(insisted.stderr)")
        #expect(scratch.read("out") == Data("BBAA".utf8))
    }

    // The shell sorts x.1000 before x.101: a complete set in glob order is merged in numeric order.
    @Test func aGlobOrderedCompleteSetIsSortedWithANote() throws {
        let scratch = try Scratch()
        let names = (1...1001).map { $0 < 1000 ? "g." + String(format: "%03d", $0) : "g.\($0)" }
        let whole = randomData(1001, seed: 18)
        try writeSet(scratch, whole, size: 1, names: names)
        let result = try gcdcat(["merge"] + names.sorted() + ["-o", "out", "-q"], in: scratch.path)
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "gcdcat: note: the parts were listed in the shell's order (g.1001 before g.101); merging them in numeric order\n"
                // A list gets the warning a discovered set gets: its parts are all one byte.
                + "gcdcat: warning: the last part, g.1001, is exactly as large as the others: if the set had more "
                + "parts, they are missing and the output is short. A manifest (NAME.sfv, see 'gcdcat split') would "
                + "tell.\n"
        )
        #expect(scratch.read("out") == whole)
    }

    // The same glob with a part gone names the part that is gone: the gap was looked for in the
    // shell's order, which named g.101, listed and present (outside attack a17 #11).
    @Test func aGapInAGlobOrderedSetNamesThePartThatIsGone() throws {
        let scratch = try Scratch()
        let names = (1...1001).map { $0 < 1000 ? "g." + String(format: "%03d", $0) : "g.\($0)" }
        try writeSet(scratch, randomData(1001, seed: 18), size: 1, names: names)
        #expect(unlink(scratch.file("g.500")) == 0)
        let listed = names.filter { $0 != "g.500" }.sorted()
        let result = try gcdcat(["merge"] + listed + ["-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: g.500: missing from the list between g.499 and g.501; give every part, or use --as-given "
                + "to merge the list as it is\n")
        #expect(scratch.read("out") == nil)
    }

    // GNU's letters after a name with a number in it (`disk001.img.aa`, `ubuntu-24.04.iso.aa`) are
    // the set: the number before the extension was read as the part number of a set `disk` +
    // `.img.aa`, which merged the first part alone with exit 0, or refused the set from a part
    // that never was (`ubuntu-24.05.iso.aa`: outside re-check a18 J and F). The first part lost
    // is still refused.
    @Test(arguments: ["disk001.img", "ubuntu-24.04.iso", "backup.000.tar", "img_0001.tif", "S01E02.mkv"])
    func lettersAfterANumberedNameAreTheSet(name: String) throws {
        let scratch = try Scratch()
        let whole = randomData(30_000, seed: 1813)
        try scratch.write("src", whole)
        let made = try runTool("split", ["-b", "10K", "src", name + "."], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let result = try gcdcat([name + ".aa", "-o", "out", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(name): \(result.stderr)")
        #expect(scratch.read("out") == whole, "\(name)")
        #expect(unlink(scratch.file(name + ".aa")) == 0)
        let late = try gcdcat([name + ".ab", "-o", "late"], in: scratch.path)
        #expect(late.status == 1)
        #expect(
            late.stderr.hasPrefix(
                "gcdcat: \(name).ab: no \(name).aa before it, so the set's first part may be missing"),
            "\(late.stderr)")
        #expect(scratch.read("late") == nil)
    }

    // Explicit parts of one set are verified against NAME.sfv beside them.
    @Test func explicitPartsAreVerifiedAgainstTheirManifest() throws {
        let scratch = try Scratch()
        try scratch.write("v", randomData(2500, seed: 19))
        #expect(try gcdcat(["split", "v", "--size", "1000", "-q"], in: scratch.path).status == 0)
        try scratch.write("v.002", randomData(1000, seed: 20))
        let result = try gcdcat(["merge", "v.001", "v.002", "v.003", "-o", "out"], in: scratch.path)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("gcdcat: v.002: crc32 is "))
        #expect(result.stderr.contains(", but v.sfv line 4 says "))
        #expect(scratch.read("out") == nil)
    }

    // Case 6: spanned zip and RAR volumes are refused, discovered or listed, naming the tool.
    @Test func archiveVolumesAreRefusedWithTheRightTool() throws {
        let scratch = try Scratch()
        try scratch.write("a.z01", Data([0x50, 0x4B, 0x07, 0x08]) + randomData(20, seed: 21))
        try scratch.write("a.zip", randomData(20, seed: 22))
        let zipMessage =
            "a volume of a spanned zip archive; joining its volumes end to end does not give a valid zip. Join them with: zip -s 0 a.zip --out whole.zip\n"
        let discovered = try gcdcat(["a.z01", "-o", "out"], in: scratch.path)
        #expect(discovered.status == 1)
        #expect(discovered.stderr == "gcdcat: a.z01: " + zipMessage)
        let listed = try gcdcat(["merge", "a.z01", "a.zip", "-o", "out"], in: scratch.path)
        #expect(listed.stderr == "gcdcat: a.z01: " + zipMessage)
        try scratch.write("renamed.001", Data([0x50, 0x4B, 0x07, 0x08]) + randomData(20, seed: 23))
        let bySignature = try gcdcat(["renamed.001", "-o", "out"], in: scratch.path)
        #expect(bySignature.status == 1)
        #expect(bySignature.stderr.contains("zip -s 0 NAME.zip --out whole.zip"))
        try writeSet(scratch, randomData(20, seed: 24), size: 10, names: ["m.part1.rar", "m.part2.rar"])
        let rar = try gcdcat(["m.part1.rar", "-o", "out"], in: scratch.path)
        #expect(rar.status == 1)
        #expect(
            rar.stderr
                == "gcdcat: m.part1.rar: a volume of a multi-volume RAR archive; its volumes are not parts to concatenate. Extract it with: unrar x m.part1.rar\n"
        )
        let rarListed = try gcdcat(["merge", "m.part2.rar", "-o", "out"], in: scratch.path)
        #expect(rarListed.stderr.hasSuffix("Extract it with: unrar x m.part1.rar\n"))
        #expect(scratch.read("out") == nil)
    }

    // Case 11 (merge half): the output may not be the manifest the run verifies against.
    @Test func theOutputMayNotBeTheManifestInUse() throws {
        let scratch = try Scratch()
        try scratch.write("w", randomData(2500, seed: 25))
        #expect(try gcdcat(["split", "w", "--size", "1000", "-q"], in: scratch.path).status == 0)
        let manifest = scratch.read("w.sfv")
        let result = try gcdcat(["w.001", "-o", "w.sfv", "--force"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr == "gcdcat: w.sfv: is the input file w.sfv; refusing to overwrite it\n")
        #expect(scratch.read("w.sfv") == manifest)
        let asPart = try gcdcat(["merge", "w.001", "-o", "out", "--manifest", "w.001"], in: scratch.path)
        #expect(asPart.status == 1)
        #expect(asPart.stderr == "gcdcat: w.001: is the manifest w.001 that verifies the set, not a part\n")
    }

    // Issue 10: a NAME.sfv that is a folder is skipped with a warning, not a stop.
    @Test func aManifestFolderIsSkippedWithAWarning() throws {
        let scratch = try Scratch()
        try writeSet(scratch, Data("abcde".utf8), size: 3, names: ["d.001", "d.002"])
        try FileManager.default.createDirectory(atPath: scratch.file("d.sfv"), withIntermediateDirectories: false)
        let result = try gcdcat(["d.001", "-q"], in: scratch.path)
        #expect(result.status == 0)
        #expect(result.stderr == "gcdcat: warning: d.sfv is not a regular file; not used as the set's manifest\n")
        #expect(scratch.read("d") == Data("abcde".utf8))
        let explicit = try gcdcat(["d.001", "-o", "e", "--manifest", "d.sfv"], in: scratch.path)
        #expect(explicit.status == 1)
        #expect(explicit.stderr == "gcdcat: d.sfv: Is a directory\n")
    }

    // Case 7: names split writes into its manifest are read back, by merge and by verify.
    @Test(arguments: ["new\nline", " lead", ";semi", "back\\slash", "c:colon", "tail ", "cr\rname"])
    func hostileNamesRoundTripThroughTheManifest(name: String) throws {
        let scratch = try Scratch()
        let whole = randomData(25, seed: 26)
        try scratch.write(name, whole)
        let split = try gcdcat(["split", name, "--size", "10", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.moveItem(atPath: scratch.file(name), toPath: scratch.file("original"))
        let verified = try gcdcat(["verify", name + ".sfv"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        let merged = try gcdcat([name + ".001"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 3 parts verified against \(name.messageName).sfv\n")
        #expect(scratch.read(name) == whole)
    }

    // Names: a cksfv-made SFV listing a Latin-1 name (p\xe9.001, Fixtures/cksfv-latin1) verifies
    // and merges; the names are printed escaped. The set's own list is p\xe9.sfv; its copy p.sfv
    // lists the parts too, and is named as such.
    @Test func aLatin1NameInACksfvManifestWorks() throws {
        let scratch = try Scratch()
        let fixture = fixturesPath + "/cksfv-latin1/latin1.sfv"
        let script = """
            printf 'abc' > "$(printf 'p\\351.001')" && printf 'de' > "$(printf 'p\\351.002')" \
            && cp '\(fixture)' p.sfv && cp p.sfv "$(printf 'p\\351.sfv')"
            """
        #expect(try sh(script, in: scratch).status == 0)
        let verified = try sh("\(gcdcatPath) verify p.sfv", in: scratch)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdoutText == "\\p\\xe9.001: OK\n\\p\\xe9.002: OK\n")
        let merged = try sh("\(gcdcatPath) \"$(printf 'p\\351.001')\" -o out", in: scratch)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr
                == "gcdcat: note: p.sfv beside the set also lists it, and agrees with p\\xe9.sfv about its parts\n"
                + "gcdcat: 2 parts verified against p\\xe9.sfv\n")
        #expect(scratch.read("out") == Data("abcde".utf8))
    }

    // Issue 10 UX: a BOM is skipped; a.txt and ./a.txt are one name listed twice.
    @Test func aBOMIsSkippedAndDotSlashDuplicatesAreCaught() throws {
        let scratch = try Scratch()
        try scratch.write("a.txt", Data("123456789".utf8))
        try scratch.write("bom.sfv", Data([0xEF, 0xBB, 0xBF]) + Data("a.txt CBF43926\r\n".utf8))
        let bom = try gcdcat(["verify", "bom.sfv"], in: scratch.path)
        #expect(bom.status == 0, "\(bom.stderr)")
        #expect(bom.stdoutText == "a.txt: OK\n")
        // `./a.txt` is `a.txt`: given another value, the list contradicts itself; the same line
        // again says nothing new and is read as `sha256sum -c` reads it.
        try scratch.write("dup.sfv", Data("a.txt CBF43926\n./a.txt 00000000\n".utf8))
        let dup = try gcdcat(["verify", "dup.sfv"], in: scratch.path)
        #expect(dup.status == 1)
        #expect(
            dup.stderr == "gcdcat: dup.sfv: line 2: './a.txt' is listed twice, with another value (first on line 1)\n")
        try scratch.write("same.sfv", Data("a.txt CBF43926\n./a.txt CBF43926\n".utf8))
        #expect(try gcdcat(["verify", "same.sfv", "-q"], in: scratch.path).status == 0)
    }

    // Issue 10 UX: a symlink out of the manifest's folder is REJECTED unless asked for.
    @Test func aSymlinkOutOfTheManifestsFolderIsRejected() throws {
        let scratch = try Scratch()
        let outside = try Scratch()
        try outside.write("secret", Data("123456789".utf8))
        try FileManager.default.createDirectory(atPath: scratch.file("in"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("in/root"), withDestinationPath: outside.path)
        try scratch.write("in/m.sfv", Data("root/secret CBF43926\n".utf8))
        let refused = try gcdcat(["verify", "in/m.sfv"], in: scratch.path)
        #expect(refused.status == 1)
        #expect(
            refused.stdoutText
                == "root/secret: REJECTED (a symlink leads outside the manifest's folder, to \(outside.path)/secret; not opened)\n"
        )
        let followed = try gcdcat(["verify", "in/m.sfv", "--follow-links-outside"], in: scratch.path)
        #expect(followed.status == 0)
        #expect(followed.stdoutText == "root/secret: OK\n")
    }
}

extension String {
    /// How a message names this file: control characters escaped, and backslashes doubled only
    /// when something else was.
    fileprivate var messageName: String {
        let escapes = unicodeScalars.contains { $0.value < 0x20 }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\\" where escapes: out += "\\\\"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// How verify lists this name, as `sha256sum -c` does: a name holding a backslash or a
    /// control character gets a leading backslash, with backslashes doubled and controls escaped.
    fileprivate var displayName: String {
        guard unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\\" }) else { return self }
        var out = "\\"
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\\": out += "\\\\"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

@Suite struct MergeOutputPrecheckCLITests {
    /// Issue 10 UX: a bad output fails before the parts are read for verification.
    @Test func aBadOutputFailsBeforeVerification() throws {
        let scratch = try Scratch()
        try scratch.write("w", randomData(3000, seed: 30))
        #expect(try gcdcat(["split", "w", "--size", "1000", "-q"], in: scratch.path).status == 0)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("dangling"), withDestinationPath: "nowhere/x")
        let cases: [(String, String)] = [
            (
                "nodir/out",
                "gcdcat: nodir/out: open: No such file or directory (its folder nodir does not exist; create it with mkdir -p, or name another output)\n"
            ),
            ("dangling", "gcdcat: dangling: already exists, a symlink to nothing (use --force to replace it)\n"),
        ]
        for (output, message) in cases {
            let result = try gcdcat(["w.001", "-o", output], in: scratch.path)
            #expect(result.status == 1)
            // No "parts verified" line: the output was refused first.
            #expect(result.stderr == message)
        }
    }
}

extension MergeOutputPrecheckCLITests {
    /// `-o ''` (an unset shell variable) names no output: a usage error, not a failed open.
    @Test func anEmptyOutputNameIsAUsageError() throws {
        let scratch = try Scratch()
        try scratch.write("w", randomData(3000, seed: 30))
        #expect(try gcdcat(["split", "w", "--size", "1000", "-q"], in: scratch.path).status == 0)
        for arguments in [["w.001", "-o", ""], ["merge", "-o", "", "w.001"], ["merge", "w.001", "--output", ""]] {
            let result = try gcdcat(arguments, in: scratch.path)
            #expect(result.status == 64)
            #expect(
                result.stderr.hasPrefix("Error: -o needs a file name (or a folder, or - for standard output).\n"),
                "\(result.stderr)")
        }
        #expect(scratch.listing() == ["w", "w.001", "w.002", "w.003", "w.sfv"])
    }
}

@Suite struct SetStartCLITests {
    /// Case 3's other half: with the first part gone, a later part does not merge in silence;
    /// a --start split is merged through its manifest, or from a list.
    @Test func aSetWithoutItsFirstPartIsRefusedUnlessItsManifestSaysSo() throws {
        let scratch = try Scratch()
        let whole = randomData(2500, seed: 31)
        try scratch.write("w", whole)
        #expect(try gcdcat(["split", "w", "--size", "1000", "--suffix", "alpha", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("w.aa"))
        try FileManager.default.removeItem(atPath: scratch.file("w.sfv"))
        try scratch.unmark(["w.ab", "w.ac"])
        let lost = try gcdcat(["w.ab", "-o", "out"], in: scratch.path)
        #expect(lost.status == 1)
        #expect(
            lost.stderr
                == "gcdcat: w.ab: no w.aa before it, so the set's first part may be missing. If the set really starts here (split --start), merge it with its manifest, or list its parts with --as-given\n"
        )
        #expect(scratch.read("out") == nil)
        #expect(
            try gcdcat(["split", "w", "--size", "1000", "--start", "5", "--prefix", "s.", "-q"], in: scratch.path)
                .status == 0)
        let started = try gcdcat(["s.005", "-o", "started"], in: scratch.path)
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stderr == "gcdcat: 3 parts verified against s.sfv\n")
        #expect(scratch.read("started") == whole)
        let refused = try gcdcat(["merge", "w.ab", "w.ac", "-o", "listed"], in: scratch.path)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "gcdcat: w.ab: no w.aa before it, so the set's first part may be missing. If the set really starts "
                + "here (split --start), merge it with its manifest, or give --as-given to join the list as it is\n")
        #expect(scratch.read("listed") == nil)
        let listed = try gcdcat(["merge", "w.ab", "w.ac", "-o", "listed", "-q", "--as-given"], in: scratch.path)
        #expect(listed.status == 0)
        #expect(scratch.read("listed") == whole.subdata(in: 1000..<2500))
    }
}

extension SetStartCLITests {
    /// What a split killed while naming leaves (`in.bin.002` … `.004`: the first part, the last
    /// parts and the manifest are named last), given as a glob: refused as a set found from
    /// `.002` is (it merged 3 of 6 parts, exit 0: outside attack, issue 22); a list that leaves
    /// out the first part lying beside it is refused naming it; --as-given joins either.
    @Test func aListFromAboveTheFirstPartIsRefusedAsADiscoveredOneIs() throws {
        let scratch = try Scratch()
        let whole = randomData(6000, seed: 2234)
        try scratch.write("in.bin", whole)
        #expect(try gcdcat(["split", "in.bin", "--size", "1000", "-q", "--no-manifest"], in: scratch.path).status == 0)
        let middle = ["in.bin.002", "in.bin.003", "in.bin.004"]
        let lateStart =
            "gcdcat: in.bin.002: is the first part listed, but in.bin.001 lies beside it: the list leaves out the "
            + "set's start, so the output would lack it. Merge from the first part (gcdcat merge in.bin.001), or "
            + "give --as-given to join the list as it is\n"
        let omitted = try gcdcat(["merge"] + middle + ["in.bin.005", "in.bin.006", "-o", "out"], in: scratch.path)
        #expect(omitted.status == 1)
        #expect(omitted.stderr == lateStart)
        for name in ["in.bin.001", "in.bin.005", "in.bin.006", "in.bin"] {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        let glob = try gcdcat(middle, in: scratch.path)
        #expect(glob.status == 1)
        #expect(
            glob.stderr
                == "gcdcat: in.bin.002: no in.bin.001 before it, so the set's first part may be missing. If the set "
                + "really starts here (split --start), merge it with its manifest, or give --as-given to join the "
                + "list as it is\n")
        #expect(scratch.listing() == middle)
        let given = try gcdcat(middle + ["--as-given", "-o", "out", "-q"], in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(scratch.read("out") == whole.subdata(in: 1000..<4000))
    }

    /// A word that only reads as a letters number (`six`: `s` + `ix`), given twice on purpose,
    /// is no late part of a set: the late-start refusal is for evidently numbered lists.
    @Test func aWordGivenTwiceIsNoLatePartOfASet() throws {
        let scratch = try Scratch()
        let six = randomData(6000, seed: 2241)
        try scratch.write("six", six)
        let merged = try gcdcat(["merge", "six", "six", "-o", "out", "--allow-duplicates", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == six + six)
    }

    /// A set missing a middle part, merged from the part after the gap: the message names the
    /// missing part (g/l.002), not g/l.001, which is there.
    @Test func aLatePartAfterAGapNamesTheMissingPartNotTheFirst() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("g"), withIntermediateDirectories: true)
        try scratch.write("g/l.001", randomData(100_000, seed: 35))
        try scratch.write("g/l.003", randomData(100_000, seed: 36))
        let result = try gcdcat(["merge", "g/l.003", "-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: g/l.003: no g/l.002 before it, though g/l.001 is there, so the set lacks the parts between "
                + "them; merge from g/l.001 once they are back. If the set really starts here (split --start), merge it "
                + "with its manifest, or list its parts with --as-given\n")
        #expect(scratch.read("out") == nil)
    }
}

@Suite struct LoneLatePartCLITests {
    /// Case 3: `gcdcat x.003` with nothing before it does not write x.003 alone with exit 0.
    @Test func aLonePaddedLatePartIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("x.003", Data("tail".utf8))
        let result = try gcdcat(["x.003"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: x.003: no x.001 before it, so the set's first part may be missing. If the set really starts here (split --start), merge it with its manifest, or list its parts with --as-given\n"
        )
        #expect(scratch.listing() == ["x.003"])
        // --as-given joins the lone part as it is, as the message says.
        let given = try gcdcat(["merge", "x.003", "-o", "out", "--as-given", "-q"], in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(scratch.read("out") == Data("tail".utf8))
    }

    /// What a SIGKILLed split with letters or hex names can leave: only its second part. A lone
    /// such name after a file's full name (`in.bin.ab`), a prefix ending in `_` or `-` (`p_ab`,
    /// `x_0a`) or GNU split's `x` is that leftover, refused as a lone `.002` is; a name whose stem
    /// has no extension (`configure.ac`) or no separator (`tab`) is a plain file.
    @Test func aLoneLettersLatePartIsRefusedAndAPlainFileIsNot() throws {
        let scratch = try Scratch()
        for name in ["in.bin.ab", "xac", "a.tar.gz.ac", "p_ab", "out-ac", "x_0a"] {
            try scratch.write(name, randomData(1000, seed: 2251))
            let result = try gcdcat([name, "-o", "out"], in: scratch.path)
            #expect(result.status == 1, "\(name)")
            let usual = name == "xac" ? "xaa" : String(name.dropLast(2)) + (name == "x_0a" ? "00" : "aa")
            #expect(
                result.stderr
                    == "gcdcat: \(name): no \(usual) before it, so the set's first part may be missing. If the set "
                    + "really starts here (split --start), merge it with its manifest, or list its parts with "
                    + "--as-given\n")
            #expect(scratch.read("out") == nil)
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        for name in ["configure.ac", "Makefile.am", ".bashrc.ab", "tab", "p.ab"] {
            let bytes = randomData(700, seed: 2252)
            try scratch.write(name, bytes)
            let result = try gcdcat([name, "-o", "out", "-q"], in: scratch.path)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(scratch.read("out") == bytes)
            try FileManager.default.removeItem(atPath: scratch.file("out"))
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
    }
}
