import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `checksum` and `verify` of objects against a real RGW: every output compared byte for byte
/// with what the local command (or md5sum, cksfv) prints for the same bytes.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3ReadCLITests {
    static let mib = 1 << 20

    /// Files of 0, 1 and 20 MiB + 3 bytes (three 8 MiB ranges, joined with crc32_combine), in
    /// `scratch` and as objects under `set/` in a fresh bucket.
    func objectSet(_ label: String) throws -> (scratch: Scratch, bucket: String, names: [String]) {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket(label)
        let files = ["empty": Data(), "one": Data([0x5A]), "big.bin": randomData(20 * Self.mib + 3, seed: 14)]
        for (name, data) in files {
            try scratch.write(name, data)
            try LiveS3.put(bucket, "set/\(name)", data)
        }
        return (scratch, bucket, ["big.bin", "empty", "one"])
    }

    @Test(arguments: ["crc32", "adler32", "md5", "sha1", "sha256", "sha512"])
    func checksumPrintsWhatTheLocalCommandPrints(algorithm: String) throws {
        let (scratch, bucket, names) = try objectSet("sum-\(algorithm)")
        let objects = names.map { "s3://\(bucket)/set/\($0)" }
        for format in algorithm == "crc32" ? ["sfv", "gnu", "bsd"] : ["gnu", "bsd"] {
            let local = try gcdcat(
                ["checksum", "--algorithm", algorithm, "--format", format] + names, in: scratch.path)
            #expect(local.status == 0, "\(local.stderr)")
            let remote = try LiveS3.gcdcat(
                ["checksum", "--algorithm", algorithm, "--format", format, "--jobs", "3"] + objects, in: scratch.path)
            #expect(remote.status == 0, "\(remote.stderr)")
            // Names are printed as given; everything else is byte-identical.
            let renamed = remote.stdoutText.replacingOccurrences(of: "s3://\(bucket)/set/", with: "")
            #expect(renamed == local.stdoutText, "\(format)")
            #expect(remote.stdoutText.contains("s3://\(bucket)/set/big.bin"))
            #expect(remote.stderr == "gcdcat: 3 objects: 20.00 MiB read with ranged GETs\n", "\(remote.stderr)")
        }
    }

    @Test func md5MatchesMd5sumOfTheLocalCopy() throws {
        let (scratch, bucket, names) = try objectSet("md5")
        let remote = try LiveS3.gcdcat(
            ["checksum", "--algorithm", "md5"] + names.map { "s3://\(bucket)/set/\($0)" }, in: scratch.path)
        #expect(remote.status == 0, "\(remote.stderr)")
        let md5sum = try runTool("md5sum", names, in: scratch.path)
        #expect(md5sum.status == 0)
        #expect(remote.stdoutText.replacingOccurrences(of: "s3://\(bucket)/set/", with: "") == md5sum.stdoutText)
    }

    @Test func filesAndObjectsKeepTheirOrder() throws {
        let (scratch, bucket, _) = try objectSet("mixed")
        let mixed = try LiveS3.gcdcat(
            ["checksum", "--format", "gnu", "one", "s3://\(bucket)/set/big.bin", "empty", "s3://\(bucket)/set/one"],
            in: scratch.path)
        #expect(mixed.status == 0, "\(mixed.stderr)")
        let local = try gcdcat(["checksum", "--format", "gnu", "one", "big.bin", "empty", "one"], in: scratch.path)
        #expect(mixed.stdoutText.replacingOccurrences(of: "s3://\(bucket)/set/", with: "") == local.stdoutText)
    }

    @Test(.enabled(if: toolExists("cksfv"), "needs cksfv")) func objectSFVIsReadByCksfvAndACksfvListVerifiesObjects()
        throws
    {
        let (scratch, bucket, names) = try objectSet("cksfv")
        // gcdcat's SFV of the objects, checked by cksfv against local copies at the same names
        // (s3://b/set/x is the path s3:/b/set/x).
        let sfv = try LiveS3.gcdcat(["checksum"] + names.map { "s3://\(bucket)/set/\($0)" }, in: scratch.path)
        #expect(sfv.status == 0, "\(sfv.stderr)")
        try scratch.write("objects.sfv", sfv.stdout)
        try FileManager.default.createDirectory(
            atPath: scratch.file("s3:/\(bucket)"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("s3:/\(bucket)/set"), withDestinationPath: "../..")
        let checked = try runTool("cksfv", ["-q", "-f", "objects.sfv"], in: scratch.path)
        #expect(checked.status == 0, "\(checked.stdoutText) \(checked.stderr)")
        // cksfv's own list, as an object beside the objects: names relative to its folder.
        let made = try runTool("cksfv", names, in: scratch.path)
        #expect(made.status == 0)
        try LiveS3.put(bucket, "set/set.sfv", made.stdout)
        let verified = try LiveS3.gcdcat(["verify", "s3://\(bucket)/set/set.sfv"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdoutText == "big.bin: OK\nempty: OK\none: OK\n")
        let bytes = (20 * Self.mib + 4)
        #expect(
            verified.stderr
                == "gcdcat: s3://\(bucket)/set/set.sfv: 3 files: 3 OK, 0 FAILED, 0 MISSING; "
                + "\(ByteSize.humanReadable(Int64(bytes))) read\n")
        // The same list, local, checks the local files as it always did.
        try scratch.write("set.sfv", made.stdout)
        let local = try gcdcat(["verify", "set.sfv"], in: scratch.path)
        #expect(local.status == 0 && local.stdoutText == verified.stdoutText, "\(local.stderr)")
    }

    /// A list object joined from two tools' lists (sha256sum's and `rhash --sha3-256`'s, both 64
    /// hex digits) gets a local list's verdicts: the line that matches confirms the sha256 guess,
    /// and the lines that match as sha3-256 are UNCONFIRMED (exit 1), never FAILED (exit 2).
    @Test(.enabled(if: toolExists("rhash"), "needs rhash"))
    func aListObjectMixingTwoAlgorithmsOfOneLengthGetsTheLocalVerdicts() throws {
        let (scratch, bucket, names) = try objectSet("mixed-lengths")
        let sha256 = try runTool("sha256sum", [names[0]], in: scratch.path)
        let sha3 = try runTool("rhash", ["--sha3-256", names[1], names[2]], in: scratch.path)
        #expect(sha256.status == 0 && sha3.status == 0)
        try scratch.write("LIST", sha256.stdout + sha3.stdout)
        try LiveS3.put(bucket, "set/LIST", sha256.stdout + sha3.stdout)
        let local = try gcdcat(["verify", "LIST"], in: scratch.path)
        #expect(local.status == 1, "\(local.stderr)")
        let verified = try LiveS3.gcdcat(["verify", "s3://\(bucket)/set/LIST"], in: scratch.path)
        #expect(verified.status == 1, "\(verified.stderr)")
        #expect(verified.stdoutText == local.stdoutText)
        #expect(
            verified.stdoutText.hasPrefix("big.bin: OK\nempty: UNCONFIRMED (not sha256? "), "\(verified.stdoutText)")
        let list = "gcdcat: s3://\(bucket)/set/LIST: "
        // The first pass reads every object; the two that differ are read again as blake2b-256, then sha3-256.
        let read = ByteSize.humanReadable(Int64(20 * Self.mib + 4 + 2))
        #expect(
            verified.stderr
                == list + "64 hex digits, sha256 assumed; use --algorithm blake2b-256 or --algorithm sha3-256 if it "
                + "is another\n" + list + "3 files: 1 OK, 0 FAILED, 0 MISSING, 2 UNCONFIRMED; \(read) read\n" + list
                + "some 64-digit values match as sha256 and others as another algorithm of that length: the list "
                + "mixes algorithms (joined from two tools' lists?), so those files are UNCONFIRMED, not corrupt; "
                + "check them with --algorithm blake2b-256 or --algorithm sha3-256\n", "\(verified.stderr)")
        #expect(
            verified.stderr.replacingOccurrences(of: "s3://\(bucket)/set/", with: "")
                .replacingOccurrences(of: "; \(read) read", with: "") == local.stderr, "\(local.stderr)")
        let json = try LiveS3.gcdcat(["verify", "--json", "s3://\(bucket)/set/LIST"], in: scratch.path)
        #expect(json.status == 1)
        let document = try JSONValue.parse(json.stdout)
        #expect(try schema("verify").violations(of: document) == [], "\(json.stdoutText)")
        #expect(document["summary"]?["unconfirmed"] == .integer(2))
        #expect(document["summary"]?["failed"] == .integer(0))
    }

    @Test func aMissingObjectIsNamedAndExitsOne() throws {
        let (scratch, bucket, names) = try objectSet("miss")
        let list = try gcdcat(["checksum", "--algorithm", "sha256"] + names, in: scratch.path)
        try LiveS3.put(bucket, "set/SHA256SUMS", list.stdout)
        try LiveS3.client().delete(ObjectLocation(bucket: bucket, key: "set/one"))
        let verified = try LiveS3.gcdcat(["verify", "s3://\(bucket)/set/SHA256SUMS"], in: scratch.path)
        #expect(verified.status == 1, "\(verified.stderr)")
        #expect(verified.stdoutText == "big.bin: OK\nempty: OK\none: MISSING\n")
        // checksum names it too, and still prints the others.
        let summed = try LiveS3.gcdcat(
            ["checksum", "s3://\(bucket)/set/one", "s3://\(bucket)/set/empty"], in: scratch.path)
        #expect(summed.status == 1)
        #expect(summed.stderr.hasPrefix("gcdcat: s3://\(bucket)/set/one: No such object\n"), "\(summed.stderr)")
        #expect(summed.stdoutText.hasSuffix("s3://\(bucket)/set/empty 00000000\n"), "\(summed.stdoutText)")
        // A list object that does not exist.
        let noList = try LiveS3.gcdcat(["verify", "s3://\(bucket)/set/nope.sfv"], in: scratch.path)
        #expect(noList.status == 1)
        #expect(noList.stderr == "gcdcat: s3://\(bucket)/set/nope.sfv: No such object\n", "\(noList.stderr)")
        // A bucket that does not exist is named as such (a HEAD's 404 alone cannot tell).
        let gone = "\(bucket)-gone"
        for arguments in [
            ["checksum", "s3://\(gone)/set/one"], ["verify", "s3://\(gone)/set/SHA256SUMS"],
            ["split", "s3://\(gone)/set/one", "--size", "1", "--prefix", "p."],
        ] {
            let noBucket = try LiveS3.gcdcat(arguments, in: scratch.path)
            #expect(noBucket.status == 1, "\(arguments)")
            #expect(noBucket.stderr.contains("gcdcat: s3://\(gone)/set/"), "\(noBucket.stderr)")
            #expect(noBucket.stderr.contains(": No such bucket\n"), "\(noBucket.stderr)")
        }
    }

    /// --ignore-missing on a list object sets the missing object aside as on a local list: not
    /// listed, counted apart, exit 0; without it, MISSING, the hint, exit 1.
    @Test func ignoreMissingSetsAMissingObjectAside() throws {
        let (scratch, bucket, names) = try objectSet("ignore")
        let sums = try gcdcat(["checksum", "--algorithm", "sha256", "--format", "gnu"] + names, in: scratch.path)
        try LiveS3.put(
            bucket, "set/SHA256SUMS", sums.stdout + Data("\(String(repeating: "0", count: 64))  gone\n".utf8))
        let list = "gcdcat: s3://\(bucket)/set/SHA256SUMS: "
        let read = "\(ByteSize.humanReadable(Int64(20 * Self.mib + 4))) read"
        let ignoring = try LiveS3.gcdcat(
            ["verify", "--ignore-missing", "--algorithm", "sha256", "s3://\(bucket)/set/SHA256SUMS"], in: scratch.path)
        #expect(ignoring.status == 0, "\(ignoring.stderr)")
        #expect(ignoring.stdoutText == "big.bin: OK\nempty: OK\none: OK\n")
        #expect(ignoring.stderr == list + "3 files: 3 OK, 0 FAILED, 0 MISSING (1 missing ignored); \(read)\n")
        let quiet = try LiveS3.gcdcat(
            ["verify", "-q", "--algorithm", "sha256", "s3://\(bucket)/set/SHA256SUMS"], in: scratch.path)
        #expect(quiet.status == 1)
        #expect(quiet.stdoutText == "gone: MISSING\n")
        #expect(
            quiet.stderr
                == list + "4 files: 3 OK, 0 FAILED, 1 MISSING; \(read)\n" + list
                + "1 listed file is not here; --ignore-missing checks only the files present\n")
        let json = try LiveS3.gcdcat(
            ["verify", "--json", "--ignore-missing", "--algorithm", "sha256", "s3://\(bucket)/set/SHA256SUMS"],
            in: scratch.path)
        #expect(json.status == 0)
        let document = try JSONValue.parse(json.stdout)
        #expect(try schema("verify").violations(of: document) == [], "\(json.stdoutText)")
        #expect(document["summary"]?["ignoredMissing"] == .integer(1))
        #expect(document["summary"]?["files"] == .integer(3))
    }

    @Test func aCorruptObjectExitsTwoAndTheJSONSaysWhatWasRead() throws {
        let (scratch, bucket, names) = try objectSet("bad")
        let sfv = try gcdcat(["checksum"] + names, in: scratch.path)
        try LiveS3.put(bucket, "set/set.sfv", sfv.stdout)
        var big = try #require(scratch.read("big.bin"))
        big[9 * Self.mib] ^= 0x01
        try LiveS3.put(bucket, "set/big.bin", big)
        let expected = try #require(
            try gcdcat(["checksum", "--format", "bsd", "big.bin"], in: scratch.path).stdoutText
                .split(separator: " ").last
        ).dropLast()
        try scratch.write("big.bin", big)
        let actual = try #require(
            try gcdcat(["checksum", "--format", "bsd", "big.bin"], in: scratch.path).stdoutText
                .split(separator: " ").last
        ).dropLast()
        let verified = try LiveS3.gcdcat(["verify", "s3://\(bucket)/set/set.sfv", "--jobs", "4"], in: scratch.path)
        #expect(verified.status == 2, "\(verified.stderr)")
        #expect(verified.stdoutText == "big.bin: FAILED (expected \(expected), got \(actual))\nempty: OK\none: OK\n")
        let json = try LiveS3.gcdcat(["verify", "s3://\(bucket)/set/set.sfv", "--json"], in: scratch.path)
        #expect(json.status == 2)
        let document = try JSONValue.parse(json.stdout)
        #expect(try schema("verify").violations(of: document) == [], "\(json.stdoutText)")
        #expect(document["s3"]?["checkBytesRead"] == .integer(Int64(20 * Self.mib + 4)))
        #expect(document["s3"]?["serverChecksums"] == .integer(0))
        // Every object was read (big.bin, empty, one), none taken on trust.
        #expect(document["s3"]?["readChecksums"] == .integer(3))
        #expect(document["s3"]?["recordedChecksums"] == .integer(0))
        guard case .array(let files)? = document["files"] else {
            Issue.record("no files: \(json.stdoutText)")
            return
        }
        #expect(files.first?["source"] == .string("read"))
        #expect(files.first?["path"] == .string("s3://\(bucket)/set/big.bin"))
        let summed = try LiveS3.gcdcat(["checksum", "--json", "s3://\(bucket)/set/one"], in: scratch.path)
        let summary = try JSONValue.parse(summed.stdout)
        #expect(try schema("checksum").violations(of: summary) == [], "\(summed.stdoutText)")
        #expect(summary["s3"]?["checkBytesRead"] == .integer(1))
        #expect(summary["s3"]?["readChecksums"] == .integer(1))
        guard case .array(let summedFiles)? = summary["files"] else {
            Issue.record("no files: \(summed.stdoutText)")
            return
        }
        #expect(summedFiles.first?["source"] == .string("read"))
    }

    @Test func wrongCredentialsExitOneWithoutTheSecret() throws {
        let (scratch, bucket, _) = try objectSet("creds")
        let secret = "WRONGsecretKEYthatMUSTnotLEAK42"
        for arguments in [["checksum", "s3://\(bucket)/set/one"], ["verify", "s3://\(bucket)/set/x.sfv", "--json"]] {
            let result = try LiveS3.gcdcat(arguments, in: scratch.path, environment: ["AWS_SECRET_ACCESS_KEY": secret])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("s3://\(bucket)/set/"), "\(result.stderr)")
            #expect(result.stderr.contains("Forbidden") || result.stderr.contains("SignatureDoesNotMatch"))
            #expect(!result.stderr.contains(secret) && !result.stdoutText.contains(secret))
            #expect(!result.stderr.contains(LiveS3.secretKey) && !result.stdoutText.contains(LiveS3.secretKey))
        }
    }

    @Test func unlistedIsForLocalListsOnly() throws {
        let result = try LiveS3.gcdcat(["verify", "s3://b/x.sfv", "--unlisted", "."], in: NSTemporaryDirectory())
        #expect(result.status == 64)
        #expect(result.stderr.contains("--unlisted lists a local folder"), "\(result.stderr)")
    }
}
