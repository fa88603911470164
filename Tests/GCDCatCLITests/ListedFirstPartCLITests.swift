import Foundation
import Testing

/// A checksum list of the parts alone, made while the set's first part was absent, says no more
/// of where the set starts than the parts' names do: a merge by it is refused as one without it
/// is (outside attack a17 #2: "3 parts verified against movie.zip.sfv", exit 0, the output short
/// of its first 102400 bytes). A list that records the whole file, and marks, still vouch.
@Suite struct ListedFirstPartCLITests {
    /// `movie.zip.001` … `.004` as GNU split writes them (no marks), `.001` then moved away.
    func setWithoutItsFirst(_ scratch: Scratch) throws -> Data {
        let whole = randomData(400_000, seed: 1702)
        try scratch.write("movie.orig", whole)
        let made = try runTool(
            "split", ["-b", "100K", "-a", "3", "--numeric-suffixes=1", "movie.orig", "movie.zip."], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.001"))
        return whole
    }

    let parts = ["movie.zip.002", "movie.zip.003", "movie.zip.004"]

    func refusal(_ list: String, listed: Bool) -> String {
        "gcdcat: movie.zip.002: no movie.zip.001 before it, and \(list) lists the set only from movie.zip.002, so "
            + "the set's first part may be missing; nothing was written. If the set really starts here, "
            + (listed ? "give --as-given to join the list as it is\n" : "list its parts with --as-given\n")
    }

    /// gcdcat checksum's SFV (README's recipe) and sha256sum's list, each of `.002` … `.004`:
    /// the part found, the glob and the list given alone are refused, nothing written, the parts
    /// as they were; --as-given joins them, checked by the list.
    @Test(arguments: ["movie.zip.sfv", "SHA256SUMS"])
    func aListOfThePartsAloneDoesNotVouchForTheStart(list: String) throws {
        let scratch = try Scratch()
        let whole = try setWithoutItsFirst(scratch)
        let made =
            list == "SHA256SUMS"
            ? try runTool("sh", ["-c", "sha256sum movie.zip.00[234] > SHA256SUMS"], in: scratch.path)
            : try runTool("sh", ["-c", "\(gcdcatPath) checksum movie.zip.0* > movie.zip.sfv"], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let before = scratch.listing()
        let found = try gcdcat(["movie.zip.002"], in: scratch.path)
        #expect(found.status == 1)
        #expect(found.stderr == refusal(list, listed: false))
        let globbed = try gcdcat(["merge"] + parts, in: scratch.path)
        #expect(globbed.status == 1)
        #expect(globbed.stderr == refusal(list, listed: true))
        if list == "movie.zip.sfv" {
            let alone = try gcdcat([list], in: scratch.path)
            #expect(alone.status == 1)
            #expect(alone.stderr == refusal(list, listed: false))
        }
        let json = try gcdcat(["movie.zip.002", "--json"], in: scratch.path)
        #expect(json.status == 1)
        #expect(json.stdoutText.contains("\"code\" : \"missingPart\""))
        #expect(json.stdoutText.contains("\"published\" : null"))
        #expect(scratch.listing() == before)
        for (index, name) in parts.enumerated() {
            #expect(
                scratch.read(name) == whole.subdata(in: (index + 1) * 102_400..<min(whole.count, (index + 2) * 102_400))
            )
        }
        let given = try gcdcat(["merge", "--as-given"] + parts + ["-o", "tail"], in: scratch.path)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(given.stderr == "gcdcat: 3 parts verified against \(list)\n")
        #expect(scratch.read("tail") == whole.subdata(in: 102_400..<whole.count))
    }

    /// The same list while the first part lies beside the set, or with a part missing between
    /// it and the list's first: refused as without a list, naming what is there.
    @Test func aListFromAfterAPartBesideTheSetIsRefusedNamingIt() throws {
        let scratch = try Scratch()
        let whole = randomData(400_000, seed: 1703)
        try scratch.write("movie.orig", whole)
        #expect(
            try runTool(
                "split", ["-b", "100K", "-a", "3", "--numeric-suffixes=1", "movie.orig", "movie.zip."],
                in: scratch.path
            ).status == 0)
        #expect(
            try runTool("sh", ["-c", "sha256sum movie.zip.00[234] > SHA256SUMS"], in: scratch.path).status == 0)
        let listed = try gcdcat(["merge"] + parts + ["-o", "out"], in: scratch.path)
        #expect(listed.status == 1)
        #expect(
            listed.stderr
                == "gcdcat: movie.zip.002: is the first part listed, but movie.zip.001 lies beside it: the list leaves "
                + "out the set's start, so the output would lack it. Merge from the first part (gcdcat merge "
                + "movie.zip.001), or give --as-given to join the list as it is\n")
        try FileManager.default.removeItem(atPath: scratch.file("movie.zip.002"))
        #expect(
            try runTool("sh", ["-c", "sha256sum movie.zip.00[34] > SHA256SUMS"], in: scratch.path).status == 0)
        let gap = try gcdcat(["movie.zip.003", "-o", "out"], in: scratch.path)
        #expect(gap.status == 1)
        #expect(
            gap.stderr
                == "gcdcat: movie.zip.003: no movie.zip.002 before it, though movie.zip.001 is there, so the set lacks "
                + "the parts between them; merge from movie.zip.001 once they are back. If the set really starts here "
                + "(split --start), merge it with its manifest, or list its parts with --as-given\n")
        #expect(scratch.read("out") == nil)
    }

    /// What vouches for a late start still does: a `--start` split's manifest (its `gcdcat-whole`
    /// record) on parts that lost their marks, a list with a line for the whole file, and the
    /// marks of a split that started there beside a list of the parts alone.
    @Test func aWholeRecordAWholeLineOrMarksStillVouch() throws {
        let scratch = try Scratch()
        let whole = randomData(3000, seed: 1704)
        try scratch.write("w", whole)
        let split = try gcdcat(
            ["split", "w", "--size", "1000", "--start", "2", "--prefix", "s.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let names = ["s.002", "s.003", "s.004"]
        try scratch.unmark(names)
        let byRecord = try gcdcat(["s.002", "-o", "one"], in: scratch.path)
        #expect(byRecord.status == 0, "\(byRecord.stderr)")
        #expect(byRecord.stderr == "gcdcat: 3 parts verified against s.sfv\n")
        #expect(scratch.read("one") == whole)
        try FileManager.default.removeItem(atPath: scratch.file("s.sfv"))
        try scratch.write("s", whole)
        #expect(try runTool("sh", ["-c", "sha256sum s.00[234] s > SHA256SUMS"], in: scratch.path).status == 0)
        let byLine = try gcdcat(["s.002", "-o", "two"], in: scratch.path)
        #expect(byLine.status == 0, "\(byLine.stderr)")
        #expect(byLine.stderr == "gcdcat: 3 parts verified against SHA256SUMS\n")
        #expect(scratch.read("two") == whole)
        let marked = try Scratch()
        try marked.write("w", whole)
        #expect(
            try gcdcat(
                ["split", "w", "--size", "1000", "--start", "2", "--prefix", "s.", "-q", "--no-manifest"],
                in: marked.path
            )
            .status == 0)
        #expect(try runTool("sh", ["-c", "sha256sum s.00[234] > SHA256SUMS"], in: marked.path).status == 0)
        let byMarks = try gcdcat(["s.002", "-o", "three"], in: marked.path)
        #expect(byMarks.status == 0, "\(byMarks.stderr)")
        #expect(byMarks.stderr == "gcdcat: 3 parts verified against SHA256SUMS\n")
        #expect(marked.read("three") == whole)
    }
}
