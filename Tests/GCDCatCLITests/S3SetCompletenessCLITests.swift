import Foundation
import GCDCatCore
import Testing

/// An object set that is not whole is refused as the same set on disk is, with the same
/// message (the rules are written once: ``PartArguments``): each case runs on local files and
/// on objects of the same names, and the object run's stderr, its `s3://BUCKET/` taken out,
/// must be the local one.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3SetCompletenessCLITests {
    /// The objects `names` (100 000 random bytes each) in a fresh bucket and as files in a
    /// scratch folder; returns both.
    private func sameSet(_ label: String, _ names: [String]) throws -> (Scratch, String) {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket(label)
        for (index, name) in names.enumerated() {
            let data = randomData(100_000, seed: 60 + UInt64(index))
            if name.contains("/") {
                try FileManager.default.createDirectory(
                    atPath: scratch.file(String(name.prefix { $0 != "/" })), withIntermediateDirectories: true)
            }
            try scratch.write(name, data)
            try LiveS3.put(bucket, name, data)
        }
        return (scratch, bucket)
    }

    /// Runs `merge` over `parts` locally, then as objects into a file and into an object:
    /// each exits 1 with the local message, and writes nothing.
    private func expectRefusedAlike(
        _ parts: [String], scratch: Scratch, bucket: String, message: String
    ) throws {
        let local = try gcdcat(["merge"] + parts + ["-o", "out"], in: scratch.path)
        #expect(local.status == 1)
        #expect(local.stderr == message)
        let objects = parts.map { "s3://\(bucket)/\($0)" }
        for output in ["objects.out", "s3://\(bucket)/joined"] {
            let remote = try LiveS3.gcdcat(["merge"] + objects + ["-o", output], in: scratch.path)
            #expect(remote.status == 1, "\(output): \(remote.stderr)")
            #expect(remote.stderr.replacingOccurrences(of: "s3://\(bucket)/", with: "") == message, "\(output)")
        }
        #expect(scratch.read("out") == nil && scratch.read("objects.out") == nil)
        #expect(try LiveS3.bytes(bucket, "joined") == nil)
    }

    /// The manifest is matched to the parts as on disk (``MergeVerification/matchEntries``, by
    /// key): a reordered `--as-given` list, a part given twice and another set's `--manifest`
    /// exit 1 naming the part and the line, where objects said exit 2, "the parts join to …",
    /// and called good parts corrupt. Into a file and into an object (on the server).
    @Test(arguments: [
        (
            ["a.bin.002", "a.bin.001", "a.bin.003", "--as-given"],
            "gcdcat: a.bin.002: is part 1, but a.bin.sfv line 3 lists a.bin.001 there; give the parts it lists, in "
                + "its order, or add --no-verify to join them as given, unchecked\n"
        ),
        (
            ["a.bin.001", "a.bin.002", "a.bin.003", "a.bin.003", "--allow-duplicates"],
            "gcdcat: a.bin.003: is not listed in a.bin.sfv, which lists 3 parts\n"
        ),
        (
            ["a.bin.001", "a.bin.002", "a.bin.003", "--manifest", "c.bin.sfv"],
            "gcdcat: c.bin.sfv: belongs to another set (c.bin): it lists none of the parts being merged (line 3 "
                + "names c.bin.001, not a.bin.001); give this set's own list with --manifest, or merge without one "
                + "(--no-verify)\n"
        ),
    ])
    func aManifestThatDoesNotMatchTheListedObjectsIsRefusedAsForFiles(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("match")
        try scratch.write("a.bin", randomData(300_000, seed: 70))
        try scratch.write("c.bin", randomData(120_000, seed: 71))
        for (name, size) in [("a.bin", "100000"), ("c.bin", "1M")] {
            let split = try gcdcat(["split", name, "--size", size, "-q"], in: scratch.path)
            try #require(split.status == 0, "\(split.stderr)")
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        for name in scratch.listing() { try LiveS3.put(bucket, name, try #require(scratch.read(name))) }
        let local = try gcdcat(["merge"] + arguments + ["-o", "out"], in: scratch.path)
        #expect(local.status == 1)
        #expect(local.stderr == message)
        let objects = arguments.map { $0.hasPrefix("-") ? $0 : "s3://\(bucket)/\($0)" }
        for output in ["objects.out", "s3://\(bucket)/joined"] {
            let remote = try LiveS3.gcdcat(["merge"] + objects + ["-o", output], in: scratch.path)
            #expect(remote.status == 1, "\(output): \(remote.stderr)")
            #expect(remote.stderr.replacingOccurrences(of: "s3://\(bucket)/", with: "") == message, "\(output)")
        }
        #expect(scratch.read("out") == nil && scratch.read("objects.out") == nil)
        #expect(try LiveS3.bytes(bucket, "joined") == nil)
    }

    @Test func aListOfObjectsThatStopsShortOfTheSetIsRefused() throws {
        let (scratch, bucket) = try sameSet("short", ["x.001", "x.002", "x.003"])
        try expectRefusedAlike(
            ["x.001", "x.002"], scratch: scratch, bucket: bucket,
            message:
                "gcdcat: x.003: lies beside the listed parts but is not in the list, which stops at x.002: the output "
                + "would lack this part. Give every part (or the first alone: gcdcat merge x.001), or use --as-given "
                + "to merge the list as it is\n")
    }

    @Test func aLateObjectPartWithoutTheFirstIsRefused() throws {
        let (scratch, bucket) = try sameSet("late", ["y/y.002", "y/y.003"])
        try expectRefusedAlike(
            ["y/y.002"], scratch: scratch, bucket: bucket,
            message:
                "gcdcat: y/y.002: no y/y.001 before it, so the set's first part may be missing. If the set really "
                + "starts here (split --start), merge it with its manifest, or list its parts with --as-given\n")
    }

    @Test func anObjectPartAfterAGapNamesTheMissingPart() throws {
        let (scratch, bucket) = try sameSet("gap", ["g/l.001", "g/l.003"])
        try expectRefusedAlike(
            ["g/l.003"], scratch: scratch, bucket: bucket,
            message:
                "gcdcat: g/l.003: no g/l.002 before it, though g/l.001 is there, so the set lacks the parts between "
                + "them; merge from g/l.001 once they are back. If the set really starts here (split --start), merge "
                + "it with its manifest, or list its parts with --as-given\n")
    }

    /// A manifest that lists a part no longer there: said so, as on disk, not "not among the
    /// parts being merged".
    @Test func aPartTheManifestListsThatIsGoneIsSaidToNotExist() throws {
        let (scratch, bucket) = try sameSet("gone", [])
        try scratch.write("f.bin", randomData(250_000, seed: 64))
        #expect(try gcdcat(["split", "f.bin", "-b", "100000", "-q"], in: scratch.path).status == 0)
        let uploaded = try LiveS3.gcdcat(
            ["split", "f.bin", "-b", "100000", "-q", "--prefix", "s3://\(bucket)/f.bin."], in: scratch.path)
        #expect(uploaded.status == 0, "\(uploaded.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("f.bin.003"))
        // Objects carry no split marks (PartMarkCLITests); the files are made alike.
        try scratch.unmark(["f.bin.001", "f.bin.002"])
        try LiveS3.client().delete(ObjectLocation(bucket: bucket, key: "f.bin.003"))
        try expectRefusedAlike(
            ["f.bin.001"], scratch: scratch, bucket: bucket,
            message: "gcdcat: f.bin.003: missing part: f.bin.sfv lists it (line 5) but it does not exist\n")
    }

    /// One wording for a part given twice, from the shared step (``RepeatedParts``).
    @Test func anObjectGivenTwiceIsRefusedInTheLocalWords() throws {
        let (scratch, bucket) = try sameSet("twice", ["d.001", "d.002"])
        let local = try gcdcat(["merge", "d.001", "d.001", "d.002", "-o", "out"], in: scratch.path)
        #expect(local.status == 1)
        #expect(
            local.stderr
                == "gcdcat: d.001: is the same file as d.001, given earlier (use --allow-duplicates if you mean it)\n")
        let objects = ["d.001", "d.001", "d.002"].map { "s3://\(bucket)/\($0)" }
        let remote = try LiveS3.gcdcat(["merge"] + objects + ["-o", "out"], in: scratch.path)
        #expect(remote.status == 1)
        #expect(
            remote.stderr
                == "gcdcat: s3://\(bucket)/d.001: is the same object as s3://\(bucket)/d.001, given earlier (use "
                + "--allow-duplicates if you mean it)\n")
        #expect(scratch.read("out") == nil)
    }
}
