import Foundation
import GCDCatCore
import Testing

/// The mark a split leaves on each part (`user.gcdcat.part`: which split, which part, how many)
/// tells what names cannot: a part left alone by a killed split (`p.ab` reads like
/// `configure.ac`), a set that ends before its count, the parts of two splits side by side.
@Suite struct PartMarkCLITests {
    struct Case: CustomTestStringConvertible, Sendable {
        var prefix: String
        var suffix: String
        /// What a kill at the second naming step leaves: the second part.
        var left: String
        var first: String
        var testDescription: String { left }
    }

    static let cases: [Case] = [
        Case(prefix: "p.", suffix: "--suffix alpha", left: "p.ab", first: "p.aa"),
        Case(prefix: "p", suffix: "--suffix alpha", left: "pab", first: "paa"),
        Case(prefix: "ab.", suffix: "--suffix alpha", left: "ab.ab", first: "ab.aa"),
        Case(prefix: "my file.", suffix: "--suffix alpha", left: "my file.ab", first: "my file.aa"),
        Case(prefix: "p", suffix: "--hex-suffixes=09", left: "p0a", first: "p09"),
        Case(prefix: "p.", suffix: "--hex-suffixes=09", left: "p.0a", first: "p.09"),
    ]

    /// A split killed at its second naming step leaves its second part alone (the first part is
    /// named last). Its name reads as a plain file's, yet a merge of it is refused, naming the
    /// set's real first part (`p09` for hex from 09, not `p00`); --as-given joins it as it is.
    @Test(arguments: cases)
    func aKilledSplitsLonePartIsRefusedWhateverItsName(_ test: Case) throws {
        let scratch = try Scratch()
        let input = randomData(700_000, seed: 2301)
        try scratch.write("in.bin", input)
        _ = try shell(
            "strace -f -o /dev/null -e trace=linkat -e inject=linkat:signal=KILL:when=2 "
                + "\(gcdcatPath) split in.bin '\(test.prefix)' --size 100K -q \(test.suffix)",
            in: scratch.path)
        #expect(scratch.listing() == ["in.bin", test.left].sorted())
        let merged = try gcdcat([test.left, "-o", "out"], in: scratch.path)
        #expect(merged.status == 1)
        #expect(
            merged.stderr
                == "gcdcat: \(test.left): no \(test.first) before it: the split that made it marked it part 2 of 7, so "
                + "the set's first part is missing (a split stopped while naming its parts leaves later ones alone). "
                + "Put the missing parts back, or give --as-given to join what is here\n")
        #expect(scratch.read("out") == nil)
        let given = try gcdcat(["merge", test.left, "-o", "out", "--as-given", "-q"], in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(scratch.read("out") == input.subdata(in: 102_400..<204_800))
    }

    /// A first part whose set's other parts are gone is refused, lone (`p.aa` has no neighbour
    /// to read its name by) or found as a set of one (`q.001`).
    @Test func aFirstPartWithoutTheRestIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("in.bin", randomData(3000, seed: 2302))
        for (prefix, suffix) in [("p.", "--suffix=alpha"), ("q.", "--suffix=numeric")] {
            let split = try gcdcat(
                ["split", "in.bin", prefix, "--size", "1000", "--no-manifest", suffix, "-q"], in: scratch.path)
            #expect(split.status == 0, "\(split.stderr)")
        }
        for name in ["p.ab", "p.ac", "q.002", "q.003"] {
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        let lone = try gcdcat(["p.aa", "-o", "out"], in: scratch.path)
        #expect(lone.status == 1)
        #expect(
            lone.stderr
                == "gcdcat: p.aa: no p.ab beside it: the split that made it marked it part 1 of 3, so the set's other "
                + "parts are missing. Put the missing parts back, or give --as-given to join what is here\n")
        let found = try gcdcat(["q.001", "-o", "out"], in: scratch.path)
        #expect(found.status == 1)
        #expect(
            found.stderr
                == "gcdcat: q.002: missing part: the split that made q.001 marked it part 1 of 3, so the set goes on "
                + "past q.001. Put the missing parts back, or give --as-given to join what is here\n")
        #expect(scratch.read("out") == nil)
    }

    /// A set without its manifest whose last parts are gone: the marks say how many there were
    /// (the first part's count, or, when the first part was rewritten since, the last's place).
    /// A whole set needs no warning that its last part may be missing.
    @Test func aSetEndingBeforeItsMarkedCountIsRefused() throws {
        let scratch = try Scratch()
        let input = randomData(5000, seed: 2303)
        try scratch.write("in.bin", input)
        #expect(try gcdcat(["split", "in.bin", "--size", "1000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        let whole = try gcdcat(["in.bin.001", "-o", "whole"], in: scratch.path)
        #expect(whole.status == 0)
        #expect(whole.stderr == "gcdcat: 5 parts verified against the crc32s their split marked them with\n")
        #expect(scratch.read("whole") == input)
        try FileManager.default.removeItem(atPath: scratch.file("in.bin.005"))
        let short = try gcdcat(["in.bin.001", "-o", "out"], in: scratch.path)
        #expect(short.status == 1)
        #expect(
            short.stderr
                == "gcdcat: in.bin.005: missing part: the split that made in.bin.001 marked it part 1 of 5, so the set "
                + "goes on past in.bin.004. Put the missing parts back, or give --as-given to join what is here\n")
        try scratch.unmark(["in.bin.001"])
        let byLast = try gcdcat(["in.bin.001", "-o", "out"], in: scratch.path)
        #expect(byLast.status == 1)
        #expect(
            byLast.stderr
                == "gcdcat: in.bin.005: missing part: the split that made in.bin.002 marked it part 2 of 5, so the set "
                + "goes on past in.bin.004. Put the missing parts back, or give --as-given to join what is here\n")
        #expect(scratch.read("out") == nil)
        let given = try gcdcat(["in.bin.001", "-o", "out", "--as-given", "-q"], in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(scratch.read("out") == input.prefix(4000))
    }

    /// Parts of two splits side by side: a part of another split after the set's last (copied
    /// with its mark), or files past the count the first part's mark gives, are refused.
    @Test func aSetJoiningTwoSplitsIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(3000, seed: 2304))
        try scratch.write("b", randomData(4000, seed: 2305))
        for (input, prefix) in [("a", "q."), ("b", "r.")] {
            let split = try gcdcat(
                ["split", input, prefix, "--size", "1000", "--no-manifest", "-q"], in: scratch.path)
            #expect(split.status == 0, "\(split.stderr)")
        }
        #expect(try shell("cp -a r.004 q.004", in: scratch.path).status == 0)
        let mixed = try gcdcat(["q.001", "-o", "out"], in: scratch.path)
        #expect(mixed.status == 1)
        #expect(
            mixed.stderr
                == "gcdcat: q.004: was made by another split than q.001 (the marks each split left on its parts "
                + "differ), so the set found from q.001 would join two splits' parts; keep the parts of one split, or give "
                + "--as-given to join them as they are\n")
        try scratch.unmark(["q.004"])
        let extra = try gcdcat(["q.001", "-o", "out"], in: scratch.path)
        #expect(extra.status == 1)
        #expect(
            extra.stderr
                == "gcdcat: q.004: is not one of the 3 parts the split that made q.001 marked, so the set found from "
                + "q.001 would join other files to them; remove it and those after it, or give --as-given to join them "
                + "as they are\n")
        #expect(scratch.read("out") == nil)
    }

    /// A mark counts only while the file holds what the split wrote: a part rewritten since (here
    /// appended to) carries a stale mark, which is ignored.
    @Test func aRewrittenPartsMarkIsIgnored() throws {
        let scratch = try Scratch()
        let input = randomData(2000, seed: 2306)
        try scratch.write("in.bin", input)
        #expect(
            try gcdcat(
                ["split", "in.bin", "p.", "--size", "1000", "--suffix=alpha", "--no-manifest", "-q"], in: scratch.path
            ).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("p.aa"))
        #expect(try shell("printf x >> p.ab", in: scratch.path).status == 0)
        let merged = try gcdcat(["p.ab", "-o", "out", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == input.suffix(1000) + Data("x".utf8))
    }
    /// A list or a glob (`gcdcat p.00*`) is held to the marks as a set found from its first
    /// part is: parts of two splits, a set short of its count, files past it (they merged with
    /// exit 0: outside attack).
    @Test func aListOrGlobIsHeldToTheMarks() throws {
        let scratch = try Scratch()
        try scratch.write("A", randomData(1000, seed: 2307))
        try FileManager.default.createDirectory(atPath: scratch.file("q"), withIntermediateDirectories: false)
        try scratch.write("q/B", randomData(950, seed: 2308))
        #expect(
            try shell(
                "\(gcdcatPath) split A -b 200 --no-manifest -q p. && cd q && \(gcdcatPath) split B -b 200 --no-manifest -q p. && cp -a p.005 ../p.005",
                in: scratch.path
            ).status == 0)
        let list = ["merge", "p.001", "p.002", "p.003", "p.004", "p.005", "-o", "out"]
        let mixed = try gcdcat(list, in: scratch.path)
        #expect(mixed.status == 1)
        #expect(
            mixed.stderr
                == "gcdcat: p.005: was made by another split than p.001 (the marks each split left on its parts "
                + "differ), so the parts given would join two splits' parts; keep the parts of one split, or give "
                + "--as-given to join them as they are\n")
        try FileManager.default.removeItem(atPath: scratch.file("p.005"))
        let short = try gcdcat(Array(list.prefix(5)) + ["-o", "out"], in: scratch.path)
        #expect(short.status == 1)
        #expect(
            short.stderr
                == "gcdcat: p.005: missing part: the split that made p.001 marked it part 1 of 5, so the set goes on "
                + "past p.004. Put the missing parts back, or give --as-given to join what is here\n")
        #expect(scratch.read("out") == nil)
    }

    /// GNU split run again over a marked set's names rewrites the first parts in place (their
    /// marks stay, no longer current) and leaves the old last parts: a merge refuses to join
    /// them (it gave the old tail after the new bytes, exit 0, silent: outside attack).
    @Test func anotherSplitOverTheSameNamesIsRefused() throws {
        let scratch = try Scratch()
        let old = randomData(9000, seed: 2309)
        let new = randomData(6000, seed: 2310)
        try scratch.write("old.bin", old)
        try scratch.write("new.bin", new)
        #expect(
            try gcdcat(["split", "old.bin", "-d", "-b", "2000", "--no-manifest", "-q", "x"], in: scratch.path).status
                == 0)
        #expect(try runTool("split", ["-d", "-b", "2000", "new.bin", "x"], in: scratch.path).status == 0)
        let merged = try gcdcat(["x00", "-o", "out"], in: scratch.path)
        #expect(merged.status == 2)
        #expect(
            merged.stderr
                == "gcdcat: x00: was changed since the split that made x03 marked it (its crc32 is \(crc32Hex(new.prefix(2000))), "
                + "the mark says \(crc32Hex(old.prefix(2000)))), while x03 is as that split wrote it, so the set found from "
                + "x00 would join two writes' parts (another split over the same names, or a damaged part?); split "
                + "again with --force, or give --as-given to join them as they are\n")
        #expect(scratch.read("out") == nil)
        // A list made over the files as they now are vouches for each one's bytes, not for one
        // split having written them all (it merged new first parts and the old tail: outside attack).
        // "verified" is said only of a set the marks let through (before, it read as a contradiction).
        #expect(try shell("sha256sum x0* > SHA256SUMS", in: scratch.path).status == 0)
        let listed = try gcdcat(["x00", "-o", "out"], in: scratch.path)
        #expect(listed.status == 2)
        #expect(listed.stderr.hasPrefix("gcdcat: x00: was changed since the split that made x03 "))
        #expect(!listed.stderr.contains("verified"), "\(listed.stderr)")
        #expect(scratch.read("out") == nil)
    }

    /// A set whose list checked every part and whose marks then let it through (one part touched,
    /// so read for its crc32) is said verified, once.
    @Test func aListAndMovedMarksSayVerifiedAfterBoth() throws {
        let scratch = try Scratch()
        let input = randomData(40_000, seed: 2322)
        try scratch.write("q", input)
        #expect(try gcdcat(["split", "q", "-b", "10000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        #expect(
            try shell("touch q.002 && sha256sum q.00* > SHA256SUMS && mv q q.orig", in: scratch.path).status == 0)
        let merged = try gcdcat(["q.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0)
        #expect(merged.stderr == "gcdcat: 4 parts verified against SHA256SUMS\n")
        #expect(scratch.read("out") == input)
    }

    /// A newer version's parts put in by a rename (`mv`, a download, `rsync` without -X) carry
    /// no mark, beside an older set's last parts whose marks are current: the marks' crc32s
    /// tell (it joined new bytes to the old tail, exit 0: outside attack). The first part, or
    /// one in the middle.
    @Test func partsMovedInBesideAnOlderSetAreRefused() throws {
        let scratch = try Scratch()
        let old = randomData(9000, seed: 2311)
        try scratch.write("old.bin", old)
        try scratch.write("new.bin", randomData(6000, seed: 2312))
        #expect(
            try gcdcat(["split", "old.bin", "-b", "2000", "--no-manifest", "-q", "p."], in: scratch.path).status == 0)
        #expect(
            try shell(
                "mkdir new && cd new && split -b 2000 --numeric-suffixes=1 -a 3 ../new.bin p. && mv p.* ..",
                in: scratch.path
            ).status == 0)
        let refusal =
            "gcdcat: p.001: carries no mark of the split that made p.004 (2 other parts here carry none either), "
            + "and the parts' crc32s do not add up to the set that split marked, so the set found from p.001 would "
            + "join two writes' parts (a newer version's part moved in beside an older set's?); put back the parts "
            + "of one split, or give --as-given to join them as they are\n"
        let found = try gcdcat(["p.001", "-o", "out"], in: scratch.path)
        #expect(found.status == 1)
        #expect(found.stderr == refusal)
        let glob = try shell("\(gcdcatPath) p.00* -o out", in: scratch.path)
        #expect(glob.status == 1)
        #expect(glob.stderr == refusal.replacingOccurrences(of: "the set found from p.001", with: "the parts given"))
        #expect(scratch.read("out") == nil)
        // One part in the middle, replaced by a file of its size.
        #expect(
            try shell("rm p.* && \(gcdcatPath) split old.bin -b 3000 --no-manifest -q p.", in: scratch.path).status == 0
        )
        try scratch.write("n", randomData(3000, seed: 2313))
        #expect(try shell("mv n p.002", in: scratch.path).status == 0)
        let middle = try gcdcat(["p.001", "-o", "out"], in: scratch.path)
        #expect(middle.status == 1)
        #expect(middle.stderr.hasPrefix("gcdcat: p.002: carries no mark of the split that made p.001, and the parts' "))
        #expect(scratch.read("out") == nil)
        // The split's own part, copied back without its mark, adds up: the set joins.
        try scratch.write("p.002", old.subdata(in: 3000..<6000))
        let restored = try gcdcat(["p.001", "-o", "out"], in: scratch.path)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stderr == "gcdcat: 3 parts verified against the crc32s their split marked them with\n")
        #expect(scratch.read("out") == old)
    }

    /// A part whose time alone changed (`touch`, a plain `cp` back from a backup) still has the
    /// crc32 its mark records: the set joins (it was refused as changed: outside attack).
    /// `--no-verify` reads nothing and joins a changed part as it is.
    @Test func aPartWhoseTimeAloneChangedJoins() throws {
        let scratch = try Scratch()
        let input = randomData(10_000, seed: 2314)
        try scratch.write("in.bin", input)
        #expect(
            try gcdcat(["split", "in.bin", "-b", "3000", "--no-manifest", "-q", "p."], in: scratch.path).status == 0)
        #expect(try shell("touch p.002 && cp p.003 k && cp k p.003", in: scratch.path).status == 0)
        let merged = try gcdcat(["p.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 4 parts verified against the crc32s their split marked them with\n")
        #expect(scratch.read("out") == input)
        #expect(try shell("printf X | dd of=p.002 bs=1 seek=5 conv=notrunc status=none", in: scratch.path).status == 0)
        let damaged = try gcdcat(["p.001", "-o", "out2"], in: scratch.path)
        #expect(damaged.status == 2)
        #expect(
            damaged.stderr.hasPrefix(
                "gcdcat: p.002: was changed since the split that made p.001 marked it (its crc32 is "))
        let unchecked = try gcdcat(["p.001", "-o", "out2", "--no-verify", "-q"], in: scratch.path)
        #expect(unchecked.status == 0, "\(unchecked.stderr)")
        var expected = input
        expected[3005] = UInt8(ascii: "X")
        #expect(scratch.read("out2") == expected)
    }

    /// When no part's time is the mark's any more (`touch p.*`, a copy to a file system of whole
    /// seconds), each part of the mark's size is read: one whose crc32 is still its mark's is as
    /// the split wrote it, so a damaged part or a file past the count is still refused (both
    /// merged with exit 0: outside attack).
    @Test func marksWhoseTimesAllMovedAreCheckedByTheirBytes() throws {
        let scratch = try Scratch()
        let input = randomData(10_000, seed: 2315)
        try scratch.write("in.bin", input)
        #expect(
            try gcdcat(["split", "in.bin", "-b", "2500", "--no-manifest", "-q", "p."], in: scratch.path).status == 0)
        #expect(try shell("touch -d '2020-01-01 00:00:00' p.00*", in: scratch.path).status == 0)
        let touched = try gcdcat(["p.001", "-o", "out"], in: scratch.path)
        #expect(touched.status == 0, "\(touched.stderr)")
        #expect(touched.stderr == "gcdcat: 4 parts verified against the crc32s their split marked them with\n")
        #expect(scratch.read("out") == input)
        try scratch.write("p.005", randomData(100, seed: 2316))
        let past = try gcdcat(["p.001", "-o", "out2"], in: scratch.path)
        #expect(past.status == 1)
        #expect(past.stderr.hasPrefix("gcdcat: p.005: is not one of the 4 parts the split that made p.001 marked"))
        try FileManager.default.removeItem(atPath: scratch.file("p.005"))
        #expect(
            try shell("printf X | dd of=p.003 bs=1 seek=77 conv=notrunc status=none; touch p.00*", in: scratch.path)
                .status == 0)
        let damaged = try gcdcat(["p.001", "-o", "out2"], in: scratch.path)
        #expect(damaged.status == 2)
        #expect(
            damaged.stderr.hasPrefix(
                "gcdcat: p.003: was changed since the split that made p.001 marked it (its crc32 is "))
        #expect(scratch.read("out2") == nil)
    }

    /// With no list beside the set, the marks' crc32s check every part's bytes, as its SFV would:
    /// an edit with the time put back (`touch -r`) keeps the part's size, time and edges, so the
    /// mark alone vouched for it and the edited bytes merged with exit 0 (a blind spot the
    /// README owned to). Every strategy and standard output refuse it with exit 2 and write
    /// nothing; `--no-verify` joins it as it is, and an intact set says it was verified.
    @Test func anEditWithItsTimePutBackIsCaughtByTheMarks() throws {
        let scratch = try Scratch()
        let input = randomData(300_000, seed: 2330)
        try scratch.write("in.bin", input)
        #expect(
            try gcdcat(["split", "in.bin", "-b", "100000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        let clean = try gcdcat(["in.bin.001", "-o", "clean", "--json"], in: scratch.path)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stderr == "gcdcat: 3 parts verified against the crc32s their split marked them with\n")
        let report = try JSONSerialization.jsonObject(with: clean.stdout) as? [String: Any]
        #expect(report?["verified"] as? Bool == true)
        #expect(report?["manifest"] is NSNull)
        #expect(report?["crc32"] as? String == crc32Hex(input))
        #expect(scratch.read("clean") == input)
        #expect(
            try shell(
                "cp -p in.bin.002 k && printf QQ | dd of=in.bin.002 bs=1 seek=50000 conv=notrunc status=none "
                    + "&& touch -r k in.bin.002 && rm k",
                in: scratch.path
            ).status == 0)
        var edited = input
        edited.replaceSubrange(150_000..<150_002, with: Data("QQ".utf8))
        let refusal =
            "gcdcat: in.bin.002: crc32 is \(crc32Hex(edited.subdata(in: 100_000..<200_000))), but the mark its split "
            + "left on it says \(crc32Hex(input.subdata(in: 100_000..<200_000))), though its size and time are as that "
            + "split wrote them: its bytes were changed with the time put back (touch -r, or a tool that keeps times) "
            + "or went bad on disk, so nothing was written; put back the part its split wrote, or give --no-verify to "
            + "join the parts as they are\n"
        for strategy in ["auto", "stream", "offsets", "dispatchdata"] {
            let merged = try gcdcat(["in.bin.001", "-o", "out", "--strategy", strategy], in: scratch.path)
            #expect(merged.status == 2, "\(strategy)")
            #expect(merged.stderr == refusal, "\(strategy)")
            #expect(scratch.read("out") == nil, "\(strategy)")
        }
        let piped = try shell("\(gcdcatPath) in.bin.001 -o - | wc -c", in: scratch.path)
        #expect(piped.stdoutText == "0\n")
        #expect(piped.stderr == refusal)
        let unchecked = try gcdcat(["in.bin.001", "-o", "out", "--no-verify"], in: scratch.path)
        #expect(unchecked.status == 0, "\(unchecked.stderr)")
        #expect(unchecked.stderr == "")
        #expect(scratch.read("out") == edited)
        #expect(scratch.listing() == ["clean", "in.bin", "in.bin.001", "in.bin.002", "in.bin.003", "out"])
    }

    /// The marks that check every part of a set with no list meet `--verify` and `--remove-parts`
    /// as a list would: one meaning of "verified" (the merge said verified, and both options
    /// refused the set as having no manifest: outside attack a22d B1). A damaged part still
    /// keeps every part.
    @Test func theMarksMeetVerifyAndRemoveParts() throws {
        let scratch = try Scratch()
        let input = randomData(30_000, seed: 2332)
        try scratch.write("p", input)
        #expect(try gcdcat(["split", "p", "-b", "10000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("p"))
        let verified = try gcdcat(["p.001", "-o", "a", "--verify"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr == "gcdcat: 3 parts verified against the crc32s their split marked them with\n")
        #expect(scratch.read("a") == input)
        #expect(
            try shell(
                "cp -p p.002 k && printf Z | dd of=p.002 bs=1 seek=77 conv=notrunc status=none && touch -r k p.002 "
                    + "&& mv k keep",
                in: scratch.path
            ).status == 0)
        let damaged = try gcdcat(["p.001", "-o", "b", "--remove-parts", "-q"], in: scratch.path)
        #expect(damaged.status == 2)
        #expect(damaged.stderr.hasPrefix("gcdcat: p.002: "), "\(damaged.stderr)")
        #expect(scratch.listing() == ["a", "keep", "p.001", "p.002", "p.003"])
        #expect(try shell("mv keep p.002", in: scratch.path).status == 0)
        let removed = try gcdcat(["p.001", "-o", "b", "--remove-parts", "--json"], in: scratch.path)
        #expect(removed.status == 0, "\(removed.stderr)")
        let report = try JSONSerialization.jsonObject(with: removed.stdout) as? [String: Any]
        #expect(report?["removedParts"] as? [String] == ["p.001", "p.002", "p.003"])
        #expect(report?["verified"] as? Bool == true)
        #expect(scratch.listing() == ["a", "b"])
        #expect(scratch.read("b") == input)
    }

    /// A list made over the parts after one was edited with its time put back vouches for the
    /// edit, while the part's current mark records the split's bytes: the two disagree, so the
    /// merge refuses (exit 2) before "verified" and `--remove-parts` keeps every part. It merged
    /// the edit, said "4 parts verified" and removed the parts (outside attack a22d A1).
    @Test func aListMadeAfterAnEditDoesNotOutrankTheMark() throws {
        let scratch = try Scratch()
        let input = randomData(40_000, seed: 2331)
        try scratch.write("p", input)
        #expect(try gcdcat(["split", "p", "-b", "10000", "--no-manifest", "-q"], in: scratch.path).status == 0)
        #expect(
            try shell(
                "rm p && cp -p p.003 k && printf Z | dd of=p.003 bs=1 seek=4321 conv=notrunc status=none "
                    + "&& touch -r k p.003 && rm k",
                in: scratch.path
            ).status == 0)
        let edited = scratch.read("p.003")!
        for (list, make) in [
            ("p.sfv", "\(gcdcatPath) checksum p.00* > p.sfv"), ("SHA256SUMS", "sha256sum p.00* > SHA256SUMS"),
        ] {
            #expect(try shell(make, in: scratch.path).status == 0)
            for strategy in ["auto", "stream"] {
                let merged = try gcdcat(
                    ["p.001", "-o", "out", "--remove-parts", "--strategy", strategy], in: scratch.path)
                #expect(merged.status == 2, "\(list) \(strategy)")
                #expect(
                    merged.stderr
                        == "gcdcat: p.003: matches \(list), but its crc32 \(crc32Hex(edited)) is not the "
                        + "\(crc32Hex(input.subdata(in: 20_000..<30_000))) the mark its split left on it records, "
                        + "though its size and time are as that split wrote them: its bytes were changed with the "
                        + "time put back before \(list) was made, so nothing was written; put back the part its "
                        + "split wrote, or give --no-verify to join the parts as they are\n", "\(list) \(strategy)")
                #expect(scratch.read("out") == nil)
                #expect(scratch.listing() == ["p.001", "p.002", "p.003", "p.004", list].sorted())
            }
            try FileManager.default.removeItem(atPath: scratch.file(list))
        }
    }

    /// `cp -p` of one part over another of the same size keeps the target's mark and gives it
    /// the source's time, which is the mark's when both were written in one clock tick: the
    /// first and last 4 KiB, which the mark records too, tell (it merged: outside attack).
    @Test func aPartOverwrittenWithAnotherOfItsTimeIsRead() throws {
        let scratch = try Scratch()
        let input = randomData(40_000, seed: 2317)
        try scratch.write("in.bin", input)
        #expect(
            try gcdcat(["split", "in.bin", "-b", "10000", "--no-manifest", "-q", "p."], in: scratch.path).status == 0)
        // p.002's bytes under p.004's mark, with p.004's time: what `cp -p` leaves when they match.
        #expect(
            try shell("cp p.002 k && touch -r p.004 k && cat k > p.004 && touch -r k p.004", in: scratch.path).status
                == 0)
        let merged = try gcdcat(["p.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 2)
        #expect(
            merged.stderr.hasPrefix(
                "gcdcat: p.004: was changed since the split that made p.001 marked it (its crc32 is "))
        #expect(scratch.read("out") == nil)
    }

    /// Parts a second run of the same split wrote over the same input are the same set: joined
    /// with the first run's, read or not (`--no-verify` refused them: outside attack). A part
    /// saved under another name is refused without a first part invented for it.
    @Test func aSecondRunsPartsJoinAndAPartUnderAnotherNameIsNotGivenAFirst() throws {
        let scratch = try Scratch()
        let input = randomData(10_000, seed: 2318)
        try scratch.write("in.bin", input)
        for folder in ["d1", "d2"] {
            try FileManager.default.createDirectory(atPath: scratch.file(folder), withIntermediateDirectories: false)
            #expect(
                try gcdcat(
                    ["split", "in.bin", "--prefix", "\(folder)/in.bin.", "-b", "3000", "--no-manifest", "-q"],
                    in: scratch.path
                ).status == 0)
        }
        #expect(try shell("cp -a d2/in.bin.002 d1/ && cp -a d1/in.bin.003 backup.img", in: scratch.path).status == 0)
        for flags in [[], ["--no-verify"]] {
            let merged = try gcdcat(["d1/in.bin.001", "-o", "out"] + flags + ["--force", "-q"], in: scratch.path)
            #expect(merged.status == 0, "\(flags): \(merged.stderr)")
            #expect(scratch.read("out") == input)
        }
        let lone = try gcdcat(["merge", "backup.img", "-o", "x"], in: scratch.path)
        #expect(lone.status == 1)
        #expect(
            lone.stderr
                == "gcdcat: backup.img: no first part before it: the split that made it marked it part 3 of 4, so the "
                + "set's first part is missing (a split stopped while naming its parts leaves later ones alone). Put "
                + "the missing parts back, or give --as-given to join what is here\n")
    }

    /// A round-robin split's parts do not join back to its input: refused unless --as-given.
    /// Header parts whose manifest is gone keep the header in every part: said (both merged in
    /// silence: outside attack). A newer manifest with a whole-file record proves the set it
    /// describes: its parts taken beside an older set's join.
    @Test func theMarksSayHowTheSetJoins() throws {
        let scratch = try Scratch()
        try scratch.write("f.txt", Data((1...3000).map { "\($0)\n" }.joined().utf8))
        #expect(try gcdcat(["split", "-n", "r/3", "f.txt", "-q"], in: scratch.path).status == 0)
        let dealt = try gcdcat(["f.txt.001", "-o", "out"], in: scratch.path)
        #expect(dealt.status == 1)
        #expect(
            dealt.stderr
                == "gcdcat: f.txt.001: is part 1 of 3 of a round-robin split (-n r/3), which deals out its input's "
                + "lines in turn: joined, its parts are not the input. Give --as-given to join them as they are\n")
        #expect(try gcdcat(["merge", "f.txt.001", "-o", "out", "--as-given", "-q"], in: scratch.path).status == 0)
        try scratch.write("d.csv", Data(("id,val\n" + (1...1000).map { "\($0),x\n" }.joined()).utf8))
        #expect(
            try gcdcat(["split", "d.csv", "-l", "250", "--header-lines", "1", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("d.csv.sfv"))
        let headed = try gcdcat(["d.csv.001", "-o", "joined.csv"], in: scratch.path)
        #expect(headed.status == 0)
        #expect(
            headed.stderr
                == "gcdcat: warning: the split that made d.csv.001 repeated its input's header lines atop every part, "
                + "and no manifest beside the set records the header, so the output repeats it in each part (a "
                + "manifest of that split records it, unless it was split with --no-manifest: give it with "
                + "--manifest)\n"
                + "gcdcat: 4 parts verified against the crc32s their split marked them with\n")
        let old = randomData(8000, seed: 2319)
        var new = old
        new[5000] ^= 0xFF
        try scratch.write("old.bin", old)
        try FileManager.default.createDirectory(atPath: scratch.file("n"), withIntermediateDirectories: false)
        try scratch.write("n/old.bin", new)
        #expect(
            try shell(
                "\(gcdcatPath) split old.bin -b 2000 -q && cd n && \(gcdcatPath) split old.bin -b 2000 -q && "
                    + "cp old.bin.003 old.bin.sfv .. && cd .. && rm old.bin",
                in: scratch.path
            ).status == 0)
        let newer = try gcdcat(["old.bin.001", "-o", "whole", "-q"], in: scratch.path)
        #expect(newer.status == 0, "\(newer.stderr)")
        #expect(scratch.read("whole") == new)
    }

    /// Parts whose marks moved are read once the merge knows it will run: an existing output is
    /// refused after a read of the first part alone (which places the set), not of every part;
    /// the run that goes on reads the others once each (a changed one was read twice).
    @Test(.enabled(if: toolExists("strace"), "strace -y counts the bytes read from each part"))
    func movedMarksAreReadAfterTheOutputCheck() throws {
        let scratch = try Scratch()
        let input = randomData(4 << 20, seed: 2320)
        try scratch.write("in.bin", input)
        #expect(
            try gcdcat(["split", "in.bin", "-b", "1M", "--no-manifest", "-q", "p."], in: scratch.path).status == 0)
        #expect(try shell("touch p.00* && echo old > out", in: scratch.path).status == 0)
        func bytesRead(_ arguments: [String]) throws -> (result: RunResult, bytes: [String: Int]) {
            let result = try runTool(
                "strace",
                ["-f", "-qq", "-y", "-o", "trace", "-e", "trace=read,pread64", gcdcatPath] + arguments,
                in: scratch.path)
            var bytes: [String: Int] = [:]
            for line in (scratch.read("trace").map { String(decoding: $0, as: UTF8.self) } ?? "").split(
                separator: "\n")
            {
                guard let name = line.firstMatch(of: /<[^>]*\/(p\.00[0-9])>/)?.1,
                    let count = line.firstMatch(of: /= ([0-9]+)$/)?.1
                else { continue }
                bytes[String(name), default: 0] += Int(count)!
            }
            return (result, bytes)
        }
        let refused = try bytesRead(["p.001", "-o", "out"])
        #expect(refused.result.status == 1)
        #expect(refused.result.stderr == "gcdcat: out: already exists (use --force to replace it)\n")
        #expect((1 << 20...(1 << 20) + 8192).contains(refused.bytes["p.001", default: 0]))
        #expect(["p.002", "p.003", "p.004"].allSatisfy { refused.bytes[$0, default: 0] <= 8192 }, "\(refused.bytes)")
        #expect(try shell("printf X | dd of=p.003 bs=1 seek=9 conv=notrunc status=none", in: scratch.path).status == 0)
        let damaged = try bytesRead(["p.001", "-o", "out", "--force", "--strategy", "stream"])
        #expect(damaged.result.status == 2)
        #expect(
            damaged.result.stderr.hasPrefix(
                "gcdcat: p.003: was changed since the split that made p.001 marked it (its crc32 is "))
        #expect(["p.001", "p.002", "p.003"].allSatisfy { damaged.bytes[$0, default: 0] <= (1 << 20) + 8192 })
        #expect(scratch.read("out") == Data("old\n".utf8))
    }

    /// A mark that cannot be written (setxattr fails with ENOSPC) leaves its part unmarked, with a
    /// warning naming it (it was silent: outside attack); the set still merges, that part read.
    @Test(.enabled(if: toolExists("strace"), "strace fails the second setxattr"))
    func aMarkThatCannotBeWrittenIsSaid() throws {
        let scratch = try Scratch()
        let input = randomData(30_000, seed: 2321)
        try scratch.write("in.bin", input)
        let split = try runTool(
            "strace",
            [
                "-f", "-qq", "-o", "/dev/null", "-e", "trace=setxattr", "-e", "inject=setxattr:error=ENOSPC:when=2",
                gcdcatPath, "split", "in.bin", "-b", "10000", "--no-manifest", "-q",
            ], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            split.stderr
                == "gcdcat: warning: in.bin.002: not marked as part 2 of its set (setxattr user.gcdcat.part: No space "
                + "left on device); a merge reads it to check it\n")
        try FileManager.default.removeItem(atPath: scratch.file("in.bin"))
        let merged = try gcdcat(["in.bin.001", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("in.bin") == input)
    }
}

/// The crc32 of `bytes`, as gcdcat's messages write it.
private func crc32Hex(_ bytes: Data) -> String {
    var checksum = Checksum(.crc32)
    checksum.update(bytes)
    return hex8(checksum.value)
}

extension PartMarkCLITests {
    /// A `--no-manifest` split with `--additional-suffix` killed while naming (its first part,
    /// named last, absent): a glob of the rest was merged short with exit 0, since two digits
    /// before a tail were taken to start at 01 too. Refused: they start at 00, as `split -d`
    /// numbers them (outside re-checks a19 #3 and #4).
    @Test func aGlobOfAKilledSplitWithATailIsRefusedByItsMarks() throws {
        let scratch = try Scratch()
        let input = randomData(45_000, seed: 1903)
        try scratch.write("f", input)
        let split = try gcdcat(
            ["split", "f", "-b", "10000", "-d", "--no-manifest", "-q", "--prefix", "out_", "--additional-suffix=.dat"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(unlink(scratch.file("out_00.dat")) == 0)
        let merge = try gcdcat(
            ["merge", "out_01.dat", "out_02.dat", "out_03.dat", "out_04.dat", "-o", "o"], in: scratch.path)
        #expect(merge.status == 1)
        #expect(
            merge.stderr
                == "gcdcat: out_01.dat: no out_00.dat before it, so the set's first part may be missing. If the set "
                + "really starts here (split --start), merge it with its manifest, or give --as-given to join the "
                + "list as it is\n")
        #expect(!scratch.listing().contains("o"))
        let asGiven = try gcdcat(
            ["merge", "out_01.dat", "out_02.dat", "out_03.dat", "out_04.dat", "-o", "o", "--as-given", "-q"],
            in: scratch.path)
        #expect(asGiven.status == 0, "\(asGiven.stderr)")
        #expect(scratch.read("o") == input.dropFirst(10_000))
    }
}
