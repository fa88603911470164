import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A live RGW for CLI tests: `GCDCAT_S3_ENDPOINT` (set by scripts/test.sh when it starts one)
/// and the test keys; every test makes its own bucket.
enum LiveS3 {
    static var endpoint: String? {
        guard let value = ProcessInfo.processInfo.environment["GCDCAT_S3_ENDPOINT"], !value.isEmpty else { return nil }
        return value
    }

    static var isAvailable: Bool { endpoint != nil }

    static let accessKey = ProcessInfo.processInfo.environment["AWS_ACCESS_KEY_ID"] ?? "TESTACCESSKEY"
    static let secretKey = ProcessInfo.processInfo.environment["AWS_SECRET_ACCESS_KEY"] ?? "TESTSECRETKEY0123456789"

    static func client() throws -> S3Client {
        S3Client(
            configuration: S3Configuration(
                endpoint: try S3Endpoint(parsing: endpoint ?? "http://127.0.0.1:1"), region: "us-east-1",
                credentials: S3Credentials(accessKeyID: accessKey, secretAccessKey: secretKey)))
    }

    /// A bucket no other test or run uses.
    static func freshBucket(_ label: String) throws -> String {
        let bucket = "cli-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try client().createBucket(bucket)
        return bucket
    }

    /// The environment gcdcat runs with: the test keys, region, and `overrides`.
    static func environment(_ overrides: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_ACCESS_KEY_ID"] = accessKey
        environment["AWS_SECRET_ACCESS_KEY"] = secretKey
        environment["AWS_DEFAULT_REGION"] = "us-east-1"
        environment["AWS_ENDPOINT_URL"] = nil
        for (key, value) in overrides { environment[key] = value }
        return environment
    }

    /// Runs gcdcat with `--endpoint-url` appended.
    static func gcdcat(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws
        -> RunResult
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = arguments + ["--endpoint-url", endpoint ?? ""]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = Self.environment(environment)
        return try collect(process)
    }

    /// An object's bytes, read back with one GET.
    static func bytes(_ bucket: String, _ key: String) throws -> Data? {
        let client = try client()
        let location = ObjectLocation(bucket: bucket, key: key)
        guard let info = try client.head(location) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.size))
        if info.size > 0 {
            try bytes.withUnsafeMutableBytes { try client.get(location, range: 0..<info.size, into: $0) }
        }
        return Data(bytes)
    }

    static func put(_ bucket: String, _ key: String, _ data: Data) throws {
        try [UInt8](data).withUnsafeBytes {
            try client().put(ObjectLocation(bucket: bucket, key: key), body: $0, ifNoneMatch: false)
        }
    }

    static func keys(_ bucket: String) throws -> [String] {
        try client().list(bucket: bucket, prefix: "").map(\.location.key)
    }

    static func uploads(_ bucket: String) throws -> [MultipartUpload] {
        try client().listMultipartUploads(bucket: bucket, prefix: "")
    }

    /// `count` random bytes in `name` (from /dev/urandom: fast for 64-200 MiB).
    static func randomFile(_ scratch: Scratch, _ name: String, _ count: Int) throws -> Data {
        let result = try runTool("head", ["-c", "\(count)", "/dev/urandom"])
        try scratch.write(name, result.stdout)
        return result.stdout
    }

    static func json(_ result: RunResult) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
    }
}

/// The round trips and failures against a real RGW: split to S3, merge on the server,
/// S3 → local, local → S3, each read back and byte-compared.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3MergeCLITests {
    static let mib = 1 << 20

    @Test func splitToS3ThenMergeOnTheServerThenDownload() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("trip")
        let input = try LiveS3.randomFile(scratch, "movie.bin", 64 * Self.mib + 12345)
        let split = try LiveS3.gcdcat(
            ["split", "movie.bin", "--size", "16M", "--prefix", "s3://\(bucket)/movie.bin.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            try LiveS3.keys(bucket) == [
                "movie.bin.001", "movie.bin.002", "movie.bin.003", "movie.bin.004", "movie.bin.005", "movie.bin.sfv",
            ])
        // On the server: nothing passes through the client but the manifest and the check's reads.
        let merge = try LiveS3.gcdcat(["merge", "s3://\(bucket)/movie.bin.001", "--json", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try LiveS3.bytes(bucket, "movie.bin") == input)
        let facts = try LiveS3.json(merge)["s3"] as? [String: Any]
        // The manifest object it was verified against (the third attack: it said null).
        #expect(try LiveS3.json(merge)["manifest"] as? String == "s3://\(bucket)/movie.bin.sfv")
        #expect((facts?["clientBytes"] as? Int ?? Int.max) < 1 << 20, "\(merge.stdoutText)")
        #expect(facts?["copyParts"] as? Int == 5)
        #expect(facts?["downloadedSmallParts"] as? [String] == [])
        // The parts carry split's crc32 records: checked without reading them.
        #expect(facts?["checkBytesRead"] as? Int == 0)
        #expect(facts?["recordedChecksums"] as? Int == 5 && facts?["readChecksums"] as? Int == 0)
        // --no-stored-checksums reads every part.
        let reading = try LiveS3.gcdcat(
            [
                "merge", "s3://\(bucket)/movie.bin.001", "-o", "s3://\(bucket)/read", "--no-stored-checksums", "--json",
                "-q",
            ],
            in: scratch.path)
        #expect(reading.status == 0, "\(reading.stderr)")
        let read = try LiveS3.json(reading)["s3"] as? [String: Any]
        #expect(read?["checkBytesRead"] as? Int == input.count)
        #expect(read?["recordedChecksums"] as? Int == 0 && read?["readChecksums"] as? Int == 5)
        // S3 → local, verified against the same manifest.
        let down = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/movie.bin.001", "-o", "back.bin", "-q"], in: scratch.path)
        #expect(down.status == 0, "\(down.stderr)")
        #expect(scratch.read("back.bin") == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    /// An SFV object alone names its set, as a local one does: its parts, in its order, checked
    /// against it; a list of another kind says what to give instead.
    @Test func anSFVObjectAloneMergesTheSetItLists() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("bylist")
        let input = randomData(50_000, seed: 77)
        try scratch.write("sv", input)
        let split = try LiveS3.gcdcat(
            ["split", "sv", "--size", "20000", "--prefix", "s3://\(bucket)/sv.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let merge = try LiveS3.gcdcat(["merge", "s3://\(bucket)/sv.sfv", "-o", "x", "--json"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("x") == input)
        let json = try LiveS3.json(merge)
        #expect(json["verified"] as? Bool == true, "\(json)")
        #expect(json["inputs"] as? [String] == (1...3).map { "s3://\(bucket)/sv.00\($0)" }, "\(json)")
        try LiveS3.put(bucket, "sv.md5", Data("0123456789abcdef0123456789abcdef  sv.001\n".utf8))
        let md5 = try LiveS3.gcdcat(["merge", "s3://\(bucket)/sv.md5", "-o", "y"], in: scratch.path)
        #expect(md5.status == 1, "\(md5.stderr)")
        #expect(
            md5.stderr
                == "gcdcat: s3://\(bucket)/sv.md5: a checksum list (md5), not a part; object parts are checked against "
                + "an SFV only: give the set's first part, or its parts, with --manifest naming an SFV\n")
    }

    /// Every object gcdcat writes to the RGW records its crc32 (`x-amz-meta-gcdcat-crc32`, set at
    /// CreateMultipartUpload or PutObject and signed), and HEAD gives it back.
    @Test func everyObjectWrittenRecordsItsCRC() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("rec")
        _ = try LiveS3.randomFile(scratch, "r.bin", 12 * Self.mib + 3)
        let split = try LiveS3.gcdcat(
            ["split", "r.bin", "--size", "6M", "--prefix", "s3://\(bucket)/r.bin.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let merge = try LiveS3.gcdcat(["merge", "s3://\(bucket)/r.bin.001", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        let noVerify = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/r.bin.001", "-o", "s3://\(bucket)/nv", "--no-verify", "-q"], in: scratch.path)
        #expect(noVerify.status == 0, "\(noVerify.stderr)")
        let up = try LiveS3.gcdcat(["merge", "r.bin", "--as-given", "-o", "s3://\(bucket)/up", "-q"], in: scratch.path)
        #expect(up.status == 0, "\(up.stderr)")
        let keys = try LiveS3.keys(bucket)
        #expect(keys == ["nv", "r.bin", "r.bin.001", "r.bin.002", "r.bin.003", "r.bin.sfv", "up"])
        for key in keys {
            let bytes = try #require(try LiveS3.bytes(bucket, key))
            let info = try LiveS3.client().head(ObjectLocation(bucket: bucket, key: key))
            var crc = Checksum(.crc32)
            crc.update(Array(bytes))
            #expect(info?.metadata?["gcdcat-crc32"] == hex8(crc.value), "\(key)")
        }
    }

    @Test func localPartsToAnObjectAndAnExistingKey() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("up")
        let input = try LiveS3.randomFile(scratch, "data", 70 * Self.mib + 1)
        #expect(try gcdcat(["split", "data", "--size", "9M", "-q"], in: scratch.path).status == 0)
        let up = try LiveS3.gcdcat(["merge", "data.001", "-o", "s3://\(bucket)/joined", "-q"], in: scratch.path)
        #expect(up.status == 0, "\(up.stderr)")
        #expect(try LiveS3.bytes(bucket, "joined") == input)
        // Again: the key exists, and only --force replaces it.
        let again = try LiveS3.gcdcat(["merge", "data.001", "-o", "s3://\(bucket)/joined", "-q"], in: scratch.path)
        #expect(again.status == 1)
        #expect(again.stderr == "gcdcat: s3://\(bucket)/joined: already exists (use --force to replace it)\n")
        try LiveS3.put(bucket, "joined", Data([1, 2, 3]))
        let forced = try LiveS3.gcdcat(
            ["merge", "data.001", "-o", "s3://\(bucket)/joined", "--force", "-q"], in: scratch.path)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try LiveS3.bytes(bucket, "joined") == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    /// `-o s3://BUCKET/FOLDER/` takes the set's name under that folder, as `-o DIR/` does for a file.
    @Test func localPartsIntoAnObjectFolderTakeTheSetsName() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("folder")
        let input = try LiveS3.randomFile(scratch, "data", 3000)
        #expect(try gcdcat(["split", "data", "--size", "1000", "-q"], in: scratch.path).status == 0)
        let up = try LiveS3.gcdcat(["merge", "data.001", "-o", "s3://\(bucket)/in/", "-q"], in: scratch.path)
        #expect(up.status == 0, "\(up.stderr)")
        #expect(try LiveS3.bytes(bucket, "in/data") == input)
    }

    @Test func partsUnderFiveMiBAreDownloadedAndJoined() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("small")
        let input = try LiveS3.randomFile(scratch, "s.bin", 21 * Self.mib + 7)
        let split = try LiveS3.gcdcat(
            ["split", "s.bin", "--size", "3M", "--prefix", "s3://\(bucket)/s.bin.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let merge = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/s.bin.001", "-o", "s3://\(bucket)/whole", "--json", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try LiveS3.bytes(bucket, "whole") == input)
        let report = try LiveS3.json(merge)
        let small = (report["s3"] as? [String: Any])?["downloadedSmallParts"] as? [String] ?? []
        #expect(small.first == "s3://\(bucket)/s.bin.001")
        #expect((report["notes"] as? [String] ?? []).contains { $0.contains("S3 copies no part under 5 MiB") })
    }

    /// `--checksum` beside parts uploaded from a file and from standard input: the list is an
    /// object next to the SFV, and coreutils' `sha256sum -c`/`md5sum -c` accept it against the
    /// parts read back (the parts are never read back by gcdcat itself).
    @Test func digestListsAreUploadedBesideTheParts() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("digest")
        let input = try LiveS3.randomFile(scratch, "d.bin", 13 * Self.mib + 5)
        let split = try LiveS3.gcdcat(
            ["split", "d.bin", "--size", "6M", "--checksum", "sha256", "--prefix", "s3://\(bucket)/d.bin.", "-q"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "exec \"$0\" split - --size 5M --checksum md5 --prefix s3://\(bucket)/s. -q --endpoint-url \"$1\" < d.bin",
            gcdcatPath, LiveS3.endpoint!,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        let stream = try collect(process)
        #expect(stream.status == 0, "\(stream.stderr)")
        #expect(
            try LiveS3.keys(bucket) == [
                "d.bin.001", "d.bin.002", "d.bin.003", "d.bin.sfv", "d.bin.sha256", "s.001", "s.002", "s.003", "s.md5",
                "s.sfv",
            ])
        let download = try Scratch()
        for key in try LiveS3.keys(bucket) { try download.write(key, try #require(try LiveS3.bytes(bucket, key))) }
        #expect(["d.bin.001", "d.bin.002", "d.bin.003"].compactMap(download.read).reduce(Data(), +) == input)
        let sha = try runTool("sha256sum", ["-c", "d.bin.sha256"], in: download.path)
        #expect(sha.status == 0 && sha.stdoutText == "d.bin.001: OK\nd.bin.002: OK\nd.bin.003: OK\n", "\(sha.stderr)")
        let md5 = try runTool("md5sum", ["-c", "s.md5"], in: download.path)
        #expect(md5.status == 0 && md5.stdoutText == "s.001: OK\ns.002: OK\ns.003: OK\n", "\(md5.stderr)")
        let verify = try LiveS3.gcdcat(["verify", "s3://\(bucket)/d.bin.sha256", "-q"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    @Test func wrongCredentialsFailClearlyWithoutTheSecret() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("creds")
        try LiveS3.put(bucket, "x.001", Data(count: 10))
        let secret = "WRONGsecretKEYthatMUSTnotLEAK42"
        let result = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/x.001", "-o", "out", "--report"], in: scratch.path,
            environment: ["AWS_SECRET_ACCESS_KEY": secret])
        #expect(result.status == 1)
        #expect(result.stderr.contains("SignatureDoesNotMatch (HTTP 403)"), "\(result.stderr)")
        #expect(!result.stderr.contains(secret) && !result.stdoutText.contains(secret))
        #expect(!result.stderr.contains(LiveS3.secretKey))
        #expect(scratch.listing().isEmpty)
    }

    @Test func aMissingPartObjectIsNamed() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("miss")
        for index in 1...3 { try LiveS3.put(bucket, "m.00\(index)", Data(count: 1000)) }
        try LiveS3.client().delete(ObjectLocation(bucket: bucket, key: "m.002"))
        let listed = (1...3).map { "s3://\(bucket)/m.00\($0)" }
        let result = try LiveS3.gcdcat(["merge"] + listed + ["-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("gcdcat: s3://\(bucket)/m.002: "), "\(result.stderr)")
        #expect(scratch.listing().isEmpty)
    }

    @Test func aCorruptPartExitsTwoWithNothingLeft() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("bad")
        _ = try LiveS3.randomFile(scratch, "c.bin", 40 * Self.mib)
        let split = try LiveS3.gcdcat(
            ["split", "c.bin", "--size", "8M", "--prefix", "s3://\(bucket)/c.bin.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        var part = try #require(try LiveS3.bytes(bucket, "c.bin.003"))
        part[4096] ^= 0xFF
        // Replaced by another tool: the RGW drops split's record with the old object.
        try LiveS3.put(bucket, "c.bin.003", part)
        #expect(try LiveS3.client().head(ObjectLocation(bucket: bucket, key: "c.bin.003"))?.metadata == [:])
        let onServer = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/c.bin.001", "-o", "s3://\(bucket)/joined", "-q"], in: scratch.path)
        #expect(onServer.status == 2, "\(onServer.stderr)")
        #expect(onServer.stderr.hasPrefix("gcdcat: s3://\(bucket)/c.bin.003: crc32 is "), "\(onServer.stderr)")
        let down = try LiveS3.gcdcat(["merge", "s3://\(bucket)/c.bin.001", "-o", "out", "-q"], in: scratch.path)
        #expect(down.status == 2, "\(down.stderr)")
        #expect(scratch.listing() == ["c.bin"])
        #expect(try !LiveS3.keys(bucket).contains("joined"))
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    @Test func sigintMidUploadLeavesNoUpload() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("sig")
        _ = try LiveS3.randomFile(scratch, "big.001", 200 * Self.mib)
        let process = signalableGCDCat([
            "merge", "big.001", "-o", "s3://\(bucket)/big", "--jobs", "1", "-q", "--endpoint-url", LiveS3.endpoint!,
        ])
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupt once the upload exists on the server: mid-upload.
        let deadline = Date().addingTimeInterval(30)
        while try LiveS3.uploads(bucket).isEmpty && process.isRunning && Date() < deadline { usleep(20_000) }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try LiveS3.uploads(bucket).isEmpty)
        #expect(try LiveS3.keys(bucket).isEmpty)
    }
}
