import Foundation
import GCDCatCore
import Testing

/// `s3://BUCKET/KEY?versionId=ID` against a real RGW with versioning on: merge, checksum and
/// verify read the version named, not the key's latest; a set is never completed with guessed
/// versions. Versions are made and named with awscli, an oracle gcdcat's client does not share.
@Suite(
    .enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"),
    .enabled(if: AWSCLI.isAvailable, "needs awscli (aws) to turn versioning on and learn version IDs"))
struct S3VersionedInputCLITests {
    /// Two generations of one set, `f.001` (6 MiB: copied on the server) + `f.002` + `f.sfv`,
    /// in a bucket with versioning on; the newer is the latest.
    struct TwoGenerations {
        let scratch: Scratch
        let bucket: String
        let old: Data
        let new: Data
        /// The version ID of each key's older and newer version.
        let oldVersions: [String: String]
        let newVersions: [String: String]

        func name(_ key: String, _ versions: [String: String]) -> String {
            "s3://\(bucket)/\(key)?versionId=\(versions[key]!)"
        }
    }

    static func putVersion(_ scratch: Scratch, _ bucket: String, _ key: String, _ data: Data) throws -> String {
        try scratch.write("body", data)
        let put = try AWSCLI.s3api(
            LiveS3.endpoint!, ["put-object", "--bucket", bucket, "--key", key, "--body", scratch.file("body")])
        let version = try #require(put.json["VersionId"] as? String, "put-object: \(put.json)")
        #expect(put.status == 0 && !version.isEmpty && version != "null")
        return version
    }

    func twoGenerations(_ label: String) throws -> TwoGenerations {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket(label)
        let versioning = try AWSCLI.s3api(
            LiveS3.endpoint!,
            ["put-bucket-versioning", "--bucket", bucket, "--versioning-configuration", "Status=Enabled"])
        try #require(versioning.status == 0)
        var versions: [[String: String]] = [[:], [:]]
        var wholes: [Data] = []
        for (generation, seed) in [(0, UInt64(41)), (1, UInt64(42))] {
            let first = randomData(6 << 20, seed: seed)
            let second = randomData(1000 + generation, seed: seed + 100)
            try scratch.write("f.001", first)
            try scratch.write("f.002", second)
            let sfv = try gcdcat(["checksum", "f.001", "f.002"], in: scratch.path)
            try #require(sfv.status == 0, "\(sfv.stderr)")
            for (key, data) in [("f.001", first), ("f.002", second), ("f.sfv", sfv.stdout)] {
                versions[generation][key] = try Self.putVersion(scratch, bucket, key, data)
            }
            wholes.append(first + second)
        }
        try FileManager.default.removeItem(atPath: scratch.file("f.001"))
        try FileManager.default.removeItem(atPath: scratch.file("f.002"))
        try FileManager.default.removeItem(atPath: scratch.file("body"))
        return TwoGenerations(
            scratch: scratch, bucket: bucket, old: wholes[0], new: wholes[1], oldVersions: versions[0],
            newVersions: versions[1])
    }

    @Test func aMergeOfPartsNamedAtVersionsReadsThoseVersionsCheckedByTheManifestVersion() throws {
        let set = try twoGenerations("ver-merge")
        let parts = [set.name("f.001", set.oldVersions), set.name("f.002", set.oldVersions)]
        let manifest = ["--manifest", set.name("f.sfv", set.oldVersions)]
        let local = try LiveS3.gcdcat(["merge"] + parts + manifest + ["-o", "old", "--json"], in: set.scratch.path)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: set.scratch.file("old"))) == set.old)
        // --manifest names the list: the note that the latest one beside is not used is moot.
        #expect(!local.stderr.contains("is not used"), "\(local.stderr)")
        let json = try LiveS3.json(local)
        #expect(json["inputs"] as? [String] == parts, "\(json)")
        #expect(json["verified"] as? Bool == true, "\(json)")
        // On the server: both parts are UploadPartCopys (the small last one after a copy too)
        // whose sources name the versions.
        let onServer = try LiveS3.gcdcat(
            ["merge"] + parts + manifest + ["-o", "s3://\(set.bucket)/whole", "--json"], in: set.scratch.path)
        #expect(onServer.status == 0, "\(onServer.stderr)")
        #expect(try LiveS3.bytes(set.bucket, "whole") == set.old)
        let facts = try LiveS3.json(onServer)["s3"] as? [String: Any]
        #expect(facts?["copyParts"] as? Int == 2, "\(String(describing: facts))")
        #expect(facts?["copiedBytes"] as? Int == set.old.count, "\(String(describing: facts))")
        // The latest set is still what the key alone names.
        let latest = try LiveS3.gcdcat(["merge", "s3://\(set.bucket)/f.001", "-o", "new"], in: set.scratch.path)
        #expect(latest.status == 0, "\(latest.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: set.scratch.file("new"))) == set.new)
    }

    @Test func partsNamedAtVersionsAreNotCheckedAgainstTheLatestManifestBesideThem() throws {
        let set = try twoGenerations("ver-beside")
        let parts = [set.name("f.001", set.oldVersions), set.name("f.002", set.oldVersions)]
        let merged = try LiveS3.gcdcat(["merge"] + parts + ["-o", "old"], in: set.scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: set.scratch.file("old"))) == set.old)
        #expect(
            merged.stderr.contains(
                "note: s3://\(set.bucket)/f.sfv is not used to verify parts named at a version: its latest version "
                    + "need not describe them; name the one that does with --manifest "
                    + "s3://\(set.bucket)/f.sfv?versionId=ID"), "\(merged.stderr)")
    }

    @Test func aVersionedFirstPartOfALongerSetIsRefusedNamingTheOtherParts() throws {
        let set = try twoGenerations("ver-first")
        let first = set.name("f.001", set.oldVersions)
        let result = try LiveS3.gcdcat(["merge", first, "-o", "out"], in: set.scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: \(first): names one version, but its set has (or had) more parts "
                + "(s3://\(set.bucket)/f.002), and no listing tells which of their versions go with it; "
                + "name every part with its ?versionId= "
                + "(aws s3api list-object-versions --bucket \(set.bucket) --prefix f. lists them), or drop "
                + "?versionId= to merge the latest set\n")
        #expect(set.scratch.listing() == [])
    }

    /// The latest set has one part, but the version named had later parts, which only
    /// ListObjectVersions shows: merging that version alone would pass a third of a file.
    @Test func aVersionedFirstPartWhoseOldSetHadMorePartsIsRefusedThoughTheLatestSetHasOne() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("ver-shrunk")
        let versioning = try AWSCLI.s3api(
            LiveS3.endpoint!,
            ["put-bucket-versioning", "--bucket", bucket, "--versioning-configuration", "Status=Enabled"])
        try #require(versioning.status == 0)
        let old = try ["g.bin.001", "g.bin.002", "g.bin.003"].map {
            try Self.putVersion(scratch, bucket, $0, randomData(1000, seed: 9))
        }
        _ = try Self.putVersion(scratch, bucket, "g.bin.001", randomData(500, seed: 10))
        for key in ["g.bin.002", "g.bin.003"] { try LiveS3.client().delete(ObjectLocation(bucket: bucket, key: key)) }
        try FileManager.default.removeItem(atPath: scratch.file("body"))
        let first = "s3://\(bucket)/g.bin.001?versionId=\(old[0])"
        let result = try LiveS3.gcdcat(["merge", first, "-o", "out"], in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: \(first): names one version, but its set has (or had) more parts "
                + "(s3://\(bucket)/g.bin.002, s3://\(bucket)/g.bin.003), and no listing tells which of their versions "
                + "go with it; name every part with its ?versionId= (aws s3api list-object-versions --bucket "
                + "\(bucket) --prefix g.bin. lists them), or drop ?versionId= to merge the latest set\n")
        #expect(scratch.listing() == [])
    }

    /// A list of parts at their versions that stops where the latest set stops, but the
    /// versions named had a third part, which only ListObjectVersions shows: merged, it passed
    /// two thirds of a file with exit 0. The version listing decides for a list as for a lone
    /// first part.
    @Test func aListAtVersionsWhoseOldSetHadMorePartsIsRefusedNamingThem() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("ver-short-list")
        let versioning = try AWSCLI.s3api(
            LiveS3.endpoint!,
            ["put-bucket-versioning", "--bucket", bucket, "--versioning-configuration", "Status=Enabled"])
        try #require(versioning.status == 0)
        let old = try ["f.bin.001", "f.bin.002", "f.bin.003"].map {
            try Self.putVersion(scratch, bucket, $0, randomData(1000, seed: 11))
        }
        for key in ["f.bin.001", "f.bin.002"] {
            _ = try Self.putVersion(scratch, bucket, key, randomData(800, seed: 12))
        }
        try LiveS3.client().delete(ObjectLocation(bucket: bucket, key: "f.bin.003"))
        try FileManager.default.removeItem(atPath: scratch.file("body"))
        let parts = ["s3://\(bucket)/f.bin.001?versionId=\(old[0])", "s3://\(bucket)/f.bin.002?versionId=\(old[1])"]
        let result = try LiveS3.gcdcat(["merge"] + parts + ["-o", "out"], in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: \(parts[1]): is the last of 2 parts named at their versions, but their set has (or had) "
                + "more parts (s3://\(bucket)/f.bin.003), and no listing tells which of their versions go with them; "
                + "name every part with its ?versionId= (aws s3api list-object-versions --bucket \(bucket) --prefix "
                + "f.bin. lists them), or drop ?versionId= to merge the latest set\n")
        #expect(scratch.listing() == [])
    }

    @Test func aLoneObjectNamedAtAVersionMergesAndChecksumsThatVersion() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("ver-lone")
        let versioning = try AWSCLI.s3api(
            LiveS3.endpoint!,
            ["put-bucket-versioning", "--bucket", bucket, "--versioning-configuration", "Status=Enabled"])
        try #require(versioning.status == 0)
        let old = randomData(3000, seed: 7)
        let version = try Self.putVersion(scratch, bucket, "solo.bin", old)
        _ = try Self.putVersion(scratch, bucket, "solo.bin", randomData(3000, seed: 8))
        try FileManager.default.removeItem(atPath: scratch.file("body"))
        let name = "s3://\(bucket)/solo.bin?versionId=\(version)"
        let merged = try LiveS3.gcdcat(["merge", name, "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.file("out"))) == old)
        let summed = try LiveS3.gcdcat(
            ["checksum", "--format", "gnu", "--algorithm", "sha256", name], in: scratch.path)
        #expect(summed.status == 0, "\(summed.stderr)")
        let local = try runTool("sha256sum", ["out"], in: scratch.path)
        #expect(summed.stdoutText == local.stdoutText.replacingOccurrences(of: "out", with: name))
        let missing = try LiveS3.gcdcat(
            ["checksum", "s3://\(bucket)/solo.bin?versionId=NoSuchVersion0"], in: scratch.path)
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(
            missing.stderr.hasPrefix(
                "gcdcat: s3://\(bucket)/solo.bin?versionId=NoSuchVersion0: No such version of this key (a delete "
                    + "marker's ID names no bytes either)\n"), "\(missing.stderr)")
        // The parts are named by the key: the version says which bytes, not what they are called.
        let split = try LiveS3.gcdcat(["split", name, "--size", "1000", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(scratch.listing() == ["out", "solo.bin.001", "solo.bin.002", "solo.bin.003", "solo.bin.sfv"])
        #expect(
            ["solo.bin.001", "solo.bin.002", "solo.bin.003"].compactMap { scratch.read($0) }.reduce(Data(), +) == old)
    }

    @Test func twoVersionsOfOneKeyAreRefusedNamingBoth() throws {
        let set = try twoGenerations("ver-twice")
        let old = set.name("f.001", set.oldVersions)
        let new = set.name("f.001", set.newVersions)
        let result = try LiveS3.gcdcat(["merge", old, new, "-o", "out"], in: set.scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr
                == "gcdcat: \(new): the same key as \(old), at another version; a set holds one version of each part\n")
    }

    @Test func verifyReadsTheListAtTheVersionNamedAndItsPartsAtTheirLatest() throws {
        let set = try twoGenerations("ver-verify")
        let current = try LiveS3.gcdcat(["verify", set.name("f.sfv", set.newVersions)], in: set.scratch.path)
        #expect(current.status == 0, "\(current.stderr)")
        // The older list's crc32s are not those of the latest parts.
        let older = try LiveS3.gcdcat(["verify", set.name("f.sfv", set.oldVersions)], in: set.scratch.path)
        #expect(older.status == 2, "\(older.stderr)")
        #expect(older.stdoutText.hasPrefix("f.001: FAILED (expected "), "\(older.stdoutText)")
    }
}

/// `?versionId=` names a version to read; on anything written it is a usage error (64)
/// before any request (the endpoint refuses connections, so reaching it would exit 1).
@Suite struct S3VersionedOutputUsageCLITests {
    @Test(arguments: [
        (["merge", "in.001", "-o", "s3://b/out?versionId=v1"], "s3://b/out?versionId=v1"),
        (["merge", "s3://b/in.001", "-o", "s3://b/out?versionId=v1"], "s3://b/out?versionId=v1"),
        (["split", "in", "--size", "1", "--prefix", "s3://b/p.?versionId=v1"], "s3://b/p.?versionId=v1"),
        (["split", "in", "--size", "1", "--manifest", "s3://b/p.sfv?versionId=v1"], "s3://b/p.sfv?versionId=v1"),
    ])
    func aVersionOnAnOutputIsAUsageError(arguments: [String], name: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", Data("data".utf8))
        try scratch.write("in.001", Data("data".utf8))
        let result = try gcdcat(arguments + S3UsageCLITests.unreachable, in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: \(name): ?versionId= names a version to read, but this is written: S3 makes every write the "
                    + "key's newest version; name the key alone\nUsage: gcdcat \(arguments[0])"), "\(result.stderr)")
        #expect(scratch.listing() == ["in", "in.001"])
    }

    @Test(arguments: [
        ("s3://b/k?versionId=", "''"), ("s3://b/k?versionId=a/b", "'a/b'"), ("s3://b/k?versionId=a b", "'a b'"),
    ])
    func aMalformedVersionIDIsAUsageError(name: String, shown: String) throws {
        let result = try gcdcat(["checksum", name] + S3UsageCLITests.unreachable)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: \(name): \(shown) is not a version ID: name a version as s3://BUCKET/KEY?versionId=ID\n"),
            "\(result.stderr)")
    }

    @Test func uploadsOfAVersionAreAUsageError() throws {
        let result = try gcdcat(["uploads", "s3://b/p?versionId=v1"] + S3UsageCLITests.unreachable)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: s3://b/p?versionId=v1: ?versionId= names a version of an object; an unfinished upload has "
                    + "none yet: give s3://BUCKET/PREFIX\n"), "\(result.stderr)")
    }
}
