import Foundation
import GCDCatCore
import Testing

@Suite struct SplitCLITests {
    @Test(arguments: MergeStrategyKind.allCases)
    func splitBySizeRejoinsWithCatAndMerge(strategy: MergeStrategyKind) throws {
        let scratch = try Scratch()
        let original = randomData(2_500_000, seed: 21)
        try scratch.write("movie.zip", original)
        let result = try gcdcat(
            ["split", "movie.zip", "--size", "1M", "--strategy", strategy.rawValue], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == "gcdcat: 3 parts: movie.zip.001, movie.zip.002, movie.zip.003; manifest movie.zip.sfv\n")
        #expect(scratch.listing() == ["movie.zip", "movie.zip.001", "movie.zip.002", "movie.zip.003", "movie.zip.sfv"])
        #expect(scratch.read("movie.zip.001")?.count == 1 << 20)
        let catted = try run(executable: "/bin/sh", ["-c", "cat movie.zip.0*"], in: scratch.path)
        #expect(catted.stdout == original)
        try FileManager.default.moveItem(atPath: scratch.file("movie.zip"), toPath: scratch.file("original"))
        let merged = try gcdcat(["merge", "movie.zip.001", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("movie.zip") == original)
        #expect(try runTool("cksfv", ["-f", "movie.zip.sfv"], in: scratch.path).status == 0)
        #expect(try runTool("rhash", ["-c", "movie.zip.sfv"], in: scratch.path).status == 0)
    }

    /// 7-Zip joins a split's parts as its own volumes (`7z e -tsplit`).
    @Test(.enabled(if: toolExists("7z"), "7z is not installed (apt-get install p7zip-full)"))
    func sevenZipJoinsTheParts() throws {
        let scratch = try Scratch()
        let original = randomData(2_500_000, seed: 21)
        try scratch.write("movie.zip", original)
        let result = try gcdcat(["split", "movie.zip", "--size", "1M", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let extracted = try runTool("7z", ["e", "-tsplit", "-so", "movie.zip.001"], in: scratch.path)
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(extracted.stdout == original)
    }

    @Test func splitByCountWithGNUNamesAndAPrefixFolder() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(1003, seed: 2))
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: false)
        let result = try gcdcat(
            ["split", "f", "-n", "4", "--suffix", "alpha", "--prefix", "out/x", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")).sorted() == [
                "x.sfv", "xaa", "xab", "xac", "xad",
            ])
        // GNU split -n 4 of 1003 bytes: 250 each, the last also the remainder.
        #expect(["xaa", "xab", "xac", "xad"].map { scratch.read("out/" + $0)!.count } == [250, 250, 250, 253])
        #expect(try gcdcat(["verify", "out/x.sfv"], in: scratch.path).status == 0)
    }

    /// `--force` over a longer set: the old parts past the new set's last are removed (and said),
    /// from a file and from standard input; left, a merge without a manifest joined them.
    @Test(arguments: [false, true])
    func aForcedSplitRemovesTheOldSetsLaterParts(fromStandardInput: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("old.bin", randomData(260_000, seed: 31))
        try scratch.write("f.bin", randomData(100_000, seed: 32))
        let first = try gcdcat(
            ["split", "old.bin", "f.bin.", "--size", "20000", "-q", "--no-manifest"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let input = fromStandardInput ? ["-", "--prefix", "f.bin."] : ["f.bin"]
        let again = try run(
            executable: "/bin/sh",
            ["-c", "exec \"$0\" \"$@\" < f.bin", gcdcatPath, "split"] + input
                + ["--size", "20000", "--force", "--no-manifest"],
            in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains(
                "gcdcat: warning: removed 8 old part(s) past the new set's last, of the set it replaced: f.bin.006 … f.bin.013"
            ),
            "\(again.stderr)")
        #expect(
            scratch.listing() == ["f.bin", "f.bin.001", "f.bin.002", "f.bin.003", "f.bin.004", "f.bin.005", "old.bin"])
        let merged = try gcdcat(["merge", "f.bin.001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("f.bin"))
    }

    /// The input is an old part past the new set's last (`q.bin.009` of ten, split again into
    /// one part): --force would remove it with the old set's tail, its bytes lost if the split
    /// then failed. Refused before anything is written or removed, as an input the new set
    /// would overwrite is.
    @Test func aForcedSplitRefusesAnInputAmongTheOldPartsItWouldRemove() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("lq"), withIntermediateDirectories: false)
        try scratch.write("A.bin", randomData(300_000, seed: 35))
        let first = try gcdcat(["split", "A.bin", "--size", "30000", "--prefix", "lq/q.bin.", "-q"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.file("lq")).sorted()
        let ninth = scratch.read("lq/q.bin.009")
        let again = try gcdcat(
            ["split", "lq/q.bin.009", "--size", "1M", "--prefix", "lq/q.bin.", "--force"], in: scratch.path)
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "gcdcat: lq/q.bin.009: is the input file lq/q.bin.009, an old part past the new set's last that "
                + "--force would remove; choose another --prefix\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("lq")).sorted() == before)
        #expect(scratch.read("lq/q.bin.009") == ninth)
        let merged = try gcdcat(["merge", "lq/q.bin.001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("A.bin"))
    }

    /// The same with the old part as standard input (`split - --prefix q.bin. --force <
    /// q.bin.009`): the count is known only once the stream ends, so the refusal comes then, with
    /// nothing published or removed (it was removed with the old tail: outside attack, issue 22).
    @Test func aForcedSplitOfStandardInputRefusesToRemoveTheOldPartItReads() throws {
        let scratch = try Scratch()
        try scratch.write("A.bin", randomData(300_000, seed: 36))
        let first = try gcdcat(["split", "A.bin", "--size", "30000", "--prefix", "q.bin.", "-q"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let before = scratch.listing()
        let ninth = scratch.read("q.bin.009")
        let again = try shell(
            "'\(gcdcatPath)' split - --size 1M --prefix q.bin. --force < q.bin.009", in: scratch.path)
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "gcdcat: q.bin.009: is the input file standard input, an old part past the new set's last that "
                + "--force would remove; choose another --prefix\n")
        #expect(scratch.listing() == before)
        #expect(scratch.read("q.bin.009") == ninth)
        let merged = try gcdcat(["merge", "q.bin.001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("A.bin"))
    }

    /// An input that is a PAR2 file of the set `--force` replaces (named, or as standard input)
    /// is refused before anything is written or removed: it went with the old set's PAR2 files
    /// (outside attack, issue 23).
    @Test(arguments: [false, true])
    func aForcedSplitRefusesAnInputAmongTheOldSetsPar2Files(standardInput: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("o.bin", randomData(500_000, seed: 37))
        let first = try gcdcat(
            ["split", "o.bin", "--size", "100K", "--prefix", "s.", "--par2", "10", "-q"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let before = scratch.listing()
        let input = standardInput ? "s.par2" : "s.vol015+16.par2"
        let again =
            standardInput
            ? try shell("'\(gcdcatPath)' split - s. --size 200K --force < s.par2", in: scratch.path)
            : try gcdcat(["split", input, "s.", "--size", "200K", "--force"], in: scratch.path)
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "gcdcat: \(input): is the input file \(standardInput ? "standard input" : input), a PAR2 file of the "
                + "set it replaces that --force would remove; choose another --prefix\n")
        #expect(scratch.listing() == before)
    }

    /// Files at `.005` and `.006` with nothing at `.001` … `.004`: no set there for a split of
    /// four parts to replace, so even --force leaves them; as they would join the new set in a
    /// merge without its manifest, the split names them, with --force or without.
    @Test(arguments: [false, true])
    func aSplitNamesForeignPartsAfterItsLastAndForceLeavesThem(force: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("C.bin", randomData(120_000, seed: 36))
        try scratch.write("uf.bin.005", Data("u5\n".utf8))
        try scratch.write("uf.bin.006", Data("u6\n".utf8))
        let result = try gcdcat(
            ["split", "C.bin", "--size", "30000", "--prefix", "uf.bin."] + (force ? ["--force"] : []), in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: warning: uf.bin.005 … uf.bin.006 follow the new set's last part but belong to no set "
                + "this split replaced, so they were left: a merge without the manifest would join them to the new "
                + "set; move them away\n"
                + "gcdcat: 4 parts: uf.bin.001, uf.bin.002, uf.bin.003, uf.bin.004; manifest uf.bin.sfv\n")
        #expect(scratch.read("uf.bin.005") == Data("u5\n".utf8))
        #expect(scratch.read("uf.bin.006") == Data("u6\n".utf8))
    }

    /// `--force --no-manifest` over a set split with a manifest and a checksum list: the old
    /// lists go with the set they describe (and are named); left, they called the new parts
    /// corrupt (a set as long) or missing (a shorter one) in every merge from `.001`.
    @Test(arguments: [250_000, 150_000])
    func aForcedSplitWithoutListsRemovesTheReplacedSetsLists(newSize: Int) throws {
        let scratch = try Scratch()
        try scratch.write("a.bin", randomData(250_000, seed: 33))
        let first = try gcdcat(["split", "a.bin", "-b", "100000", "-q", "--checksum", "sha256"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(scratch.read("a.bin.sfv") != nil && scratch.read("a.bin.sha256") != nil)
        try scratch.write("a.bin", randomData(newSize, seed: 34))
        let again = try gcdcat(["split", "a.bin", "-b", "100000", "--force", "--no-manifest"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains(
                "gcdcat: warning: removed the manifest and checksum lists of the set it replaced (this split writes "
                    + "none there): a.bin.sfv, a.bin.sha256"), "\(again.stderr)")
        let parts = newSize == 250_000 ? ["a.bin.001", "a.bin.002", "a.bin.003"] : ["a.bin.001", "a.bin.002"]
        #expect(scratch.listing() == ["a.bin"] + parts)
        let merged = try gcdcat(["merge", "a.bin.001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("a.bin"))
    }

    /// `--no-manifest` without `--force`, beside an earlier set's list whose parts were deleted:
    /// the list stays (it is not this split's to remove) and the split says so, since a merge
    /// checks the new parts against it (it called them corrupt, and the split was silent: outside
    /// attack a22d B2).
    @Test func aListOfAnEarlierSetLeftBesideTheNewPartsIsSaid() throws {
        let scratch = try Scratch()
        try scratch.write("p", randomData(250_000, seed: 35))
        #expect(try gcdcat(["split", "p", "-b", "100000", "-q"], in: scratch.path).status == 0)
        #expect(try shell("rm p.00* && cp p.sfv old.sfv", in: scratch.path).status == 0)
        let new = randomData(250_000, seed: 36)
        try scratch.write("p", new)
        let again = try gcdcat(["split", "p", "-b", "100000", "--no-manifest"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains(
                "gcdcat: warning: p.sfv beside the new parts is an earlier set's (this split writes no list there), "
                    + "and a merge checks the parts against it: remove it, or split again with --force, which does\n"),
            "\(again.stderr)")
        #expect(scratch.read("p.sfv") == scratch.read("old.sfv"))
        let quiet = try gcdcat(["split", "p", "-b", "100000", "--no-manifest", "--force", "-q"], in: scratch.path)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(scratch.read("p.sfv") == nil)
    }

    @Test func standardInputUsesTheStreamPath() throws {
        let scratch = try Scratch()
        let original = randomData(300_000, seed: 3)
        try scratch.write("in", original)
        let result = try run(
            executable: "/bin/sh", ["-c", "\"$0\" split - --size 100K --json < in", gcdcatPath], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.listing() == ["in", "x.001", "x.002", "x.003", "x.sfv"])
        let report = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(report?["strategy"] as? String == "stream")
        #expect(report?["parts"] as? Int == 3)
        let merged = try gcdcat(["merge", "x.001", "-o", "-"], in: scratch.path)
        #expect(merged.stdout == original)
    }

    @Test(arguments: [
        (["--size", "0"], "--size"),
        (["--parts", "0"], "--parts"),
        (["--size", "1M", "--parts", "2"], "one of --size, --parts, --lines or --line-bytes"),
        ([], "--size, --parts, --lines or --line-bytes"),
        (["--size", "1X"], "--size"),
        (["--parts", "2", "--line-boundary"], "--line-boundary needs --size"),
    ])
    func usageErrors(flags: [String], mention: String) throws {
        let scratch = try Scratch()
        try scratch.write("f", Data("abc".utf8))
        let result = try gcdcat(["split", "f"] + flags, in: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains(mention), "\(result.stderr)")
        #expect(scratch.listing() == ["f"])
    }

    /// Refused before any credentials or network are looked at: the parts of an object split into
    /// objects are copied on the server and never pass through gcdcat to be hashed.
    @Test func aDigestListOfAnObjectSplitOnTheServerIsAUsageError() throws {
        let scratch = try Scratch()
        let result = try gcdcat(
            ["split", "s3://b/big", "--size", "8M", "--checksum", "sha256", "--prefix", "s3://b/p."], in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: --checksum sha256: an object split into objects is copied on the server, so its parts never "
                    + "pass through gcdcat to be hashed; the SFV checks them (or split to local files).\n"),
            "\(result.stderr)")
        #expect(scratch.listing() == [])
    }

    @Test func badInputsLeaveNothingBehind() throws {
        let scratch = try Scratch()
        let missing = try gcdcat(["split", "nope", "--size", "1K"], in: scratch.path)
        #expect(missing.status == 1)
        #expect(missing.stderr == "gcdcat: nope: open: No such file or directory\n")
        try FileManager.default.createDirectory(atPath: scratch.file("d"), withIntermediateDirectories: false)
        let directory = try gcdcat(["split", "d", "--size", "1K"], in: scratch.path)
        #expect(directory.stderr == "gcdcat: d: Is a directory\n")
        try scratch.write("f", randomData(5000, seed: 1))
        let exhausted = try gcdcat(["split", "f", "--size", "100", "--suffix-length", "1"], in: scratch.path)
        #expect(exhausted.status == 1)
        #expect(
            exhausted.stderr
                == "gcdcat: f.: suffixes exhausted: 50 parts need more than 1 digits (raise --suffix-length)\n")
        try scratch.write("f.002", Data("keep".utf8))
        let existing = try gcdcat(["split", "f", "--size", "1K"], in: scratch.path)
        #expect(existing.stderr == "gcdcat: f.002: already exists (use --force to replace it)\n")
        #expect(scratch.listing() == ["d", "f", "f.002"])
        #expect(scratch.read("f.002") == Data("keep".utf8))
        let forced = try gcdcat(["split", "f", "--size", "1K", "--force", "-q"], in: scratch.path)
        #expect(forced.status == 0)
        #expect(scratch.read("f.002")?.count == 1024)
    }

    @Test func anEmptyInputIsDocumentedAndHandled() throws {
        let scratch = try Scratch()
        try scratch.write("e", Data())
        let result = try gcdcat(["split", "e", "--size", "1K"], in: scratch.path)
        #expect(result.status == 0)
        #expect(result.stderr == "gcdcat: 0 parts; manifest e.sfv\n")
        #expect(scratch.listing() == ["e", "e.sfv"])
        let verified = try gcdcat(["verify", "e.sfv"], in: scratch.path)
        #expect(verified.status == 0)
        let help = try gcdcat(["split", "--help"])
        #expect(help.stdoutText.contains("An empty input gives no parts"))
        #expect(help.stdoutText.contains("cut at SIZE"))
    }
}

/// Cases an outside tester found with only the README and the binary.
extension SplitCLITests {
    /// `split --json` named no copyMethod (null) although it moved every byte with one.
    @Test func splitJSONNamesHowTheBytesMoved() throws {
        let scratch = try Scratch()
        try scratch.write("f", randomData(300_000, seed: 5))
        let result = try gcdcat(["split", "f", "--size", "100K", "--json", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let method = report?["copyMethod"] as? String
        #expect(["clone", "copy_file_range", "sendfile", "read/write"].contains(method ?? ""), "\(method ?? "nil")")
        let moved = (report?["clonedBytes"] as? Int ?? -1) + (report?["copiedBytes"] as? Int ?? -1)
        #expect(moved == 300_000)
    }
}
