import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gcdcat uploads`: mistakes in its command line are usage errors before any request.
@Suite struct UploadsUsageCLITests {
    @Test(arguments: [
        (["uploads", "movie.zip."], "movie.zip.: not an s3:// prefix; give s3://BUCKET/PREFIX"),
        (["uploads", "s3://"], "s3://: no bucket and key: an object is named s3://BUCKET/KEY"),
        (
            ["uploads", "s3://b b/x"],
            "s3://b b/x: 'b b' is not a bucket name (letters, digits, '.', '-' and '_')"
        ),
        (
            ["uploads", "s3://b/x", "--older-than", "5x"],
            "The value '5x' is invalid for '--older-than <age>': '5x' is not an age: give seconds, or a number with "
                + "s, m, h or d (15m, 2h, 7d)"
        ),
        (
            ["uploads", "s3://b/x", "--older-than", "-5"],
            "The value '-5' is invalid for '--older-than <age>': '-5' is not an age: give seconds, or a number with "
                + "s, m, h or d (15m, 2h, 7d)"
        ),
        (
            ["uploads", "s3://b/x", "--older-than", "99999999999d"],
            "The value '99999999999d' is invalid for '--older-than <age>': '99999999999d' is too large: the number "
                + "may be at most 4294967295 (of s, m, h or d)"
        ),
        (
            ["uploads", "s3://b/x", "--request-timeout", "99999999999d"],
            "--request-timeout '99999999999d' is too large: the number may be at most 4294967295 (of s, m, h or d)"
        ),
    ])
    func aMistakeIsAUsageErrorBeforeAnyRequest(arguments: [String], message: String) throws {
        let result = try gcdcat(arguments + S3UsageCLITests.unreachable)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: \(message)\n"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anUnreachableServerExitsOneNamingTheListing() throws {
        let result = try run(
            executable: "/usr/bin/env",
            [
                "AWS_ACCESS_KEY_ID=TESTACCESSKEY", "AWS_SECRET_ACCESS_KEY=TESTSECRET", gcdcatPath, "uploads",
                "s3://bkt/p/",
            ]
                + S3UsageCLITests.unreachable)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("gcdcat: s3://bkt/p/: ListMultipartUploads: "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}

/// SIGKILL at several moments of a split into objects, against the live RGW: what is left is
/// listed with its bytes and aborted by `gcdcat uploads`, or resumed by a rerun; either way no
/// upload remains under the prefix.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3UploadsCLITests {
    static let mib = 1 << 20

    /// Starts a split of `input` (24 MiB objects of 16 MiB parts, 2 jobs) and SIGKILLs it once
    /// the server holds at least `parts` parts under the prefix.
    static func killSplit(_ scratch: Scratch, bucket: String, afterParts parts: Int) throws {
        let process = signalableGCDCat([
            "split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "--jobs", "2", "-q",
            "--endpoint-url", LiveS3.endpoint!,
        ])
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let client = try LiveS3.client()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline {
            let uploads = try client.listMultipartUploads(bucket: bucket, prefix: "s.")
            let held = try uploads.reduce(0) { $0 + ((try client.listParts($1))?.count ?? 0) }
            if !uploads.isEmpty && held >= parts { break }
            usleep(10_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
    }

    @Test(arguments: [0, 1, 3])
    func whatAKilledSplitLeftIsListedWithItsBytesAndAborted(afterParts parts: Int) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("left\(parts)")
        _ = try LiveS3.randomFile(scratch, "input", 100 * Self.mib)
        try Self.killSplit(scratch, bucket: bucket, afterParts: parts)
        let left = try LiveS3.uploads(bucket)
        #expect(!left.isEmpty)

        let listed = try LiveS3.gcdcat(["uploads", "s3://\(bucket)/s."], in: scratch.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdoutText.split(separator: "\n")
        #expect(lines.count == left.count)
        for upload in left {
            #expect(lines.contains { $0.hasPrefix("\(upload.location): upload \(upload.uploadID), initiated ") })
        }
        #expect(listed.stderr.hasSuffix(" bytes; --abort aborts them\n"), "\(listed.stderr)")

        let aborted = try LiveS3.gcdcat(["uploads", "s3://\(bucket)/s.", "--abort"], in: scratch.path)
        #expect(aborted.status == 0, "\(aborted.stderr)")
        #expect(aborted.stdoutText.split(separator: "\n").allSatisfy { $0.hasPrefix("aborted s3://\(bucket)/s.") })
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let none = try LiveS3.gcdcat(["uploads", "s3://\(bucket)/s."], in: scratch.path)
        #expect(none.status == 0 && none.stdout.isEmpty)
        #expect(none.stderr == "gcdcat: no unfinished uploads under s3://\(bucket)/s.\n")
    }

    @Test(arguments: [1, 3])
    func aRerunAfterSIGKILLResumesAndLeavesNoUpload(afterParts parts: Int) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("resume\(parts)")
        let input = try LiveS3.randomFile(scratch, "input", 100 * Self.mib)
        try Self.killSplit(scratch, bucket: bucket, afterParts: parts)

        // Killed a moment ago: the upload is taken over only when told it is not another run's.
        let refused = try LiveS3.gcdcat(
            ["split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "-q"], in: scratch.path)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("gcdcat: s3://\(bucket)/s.001: an unfinished upload of this key, "))
        #expect(
            refused.stderr.contains(
                "another gcdcat run may be writing it; wait, or abort it with gcdcat uploads s3://\(bucket)/s.001 "
                    + "--abort (a rerun takes over an upload idle for --take-over-after, 5m)\n"),
            "\(refused.stderr)")
        #expect(try LiveS3.uploads(bucket).count >= 1)

        let rerun = try LiveS3.gcdcat(
            [
                "split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "--take-over-after", "0",
                "--json",
            ],
            in: scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stderr.contains("gcdcat: note: s3://\(bucket)/s.001: resuming the upload "), "\(rerun.stderr)")
        // --json carries the notes; -q (below) silences them on standard error.
        let report = try JSONSerialization.jsonObject(with: rerun.stdout) as? [String: Any]
        let notes = report?["notes"] as? [String] ?? []
        #expect(notes.contains { $0.hasPrefix("s3://\(bucket)/s.001: resuming the upload ") }, "\(notes)")
        #expect(try Self.joined(bucket) == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let verified = try LiveS3.gcdcat(["verify", "s3://\(bucket)/s.sfv", "-q"], in: scratch.path)
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    /// The five objects of a split of 100 MiB by 24M, joined.
    static func joined(_ bucket: String) throws -> Data {
        try ["s.001", "s.002", "s.003", "s.004", "s.005"].reduce(into: Data()) {
            $0 += try LiveS3.bytes(bucket, $1) ?? Data()
        }
    }

    /// The uploads a killed split left, by key, with the bytes their parts hold.
    static func leftUploads(_ bucket: String) throws -> [(upload: MultipartUpload, bytes: UInt64)] {
        let client = try LiveS3.client()
        return try LiveS3.uploads(bucket).sorted { $0.location.key < $1.location.key }.map { upload in
            (upload, try client.listParts(upload)?.reduce(0) { $0 + $1.size } ?? 0)
        }
    }

    /// The line of an upload a rerun took over and did not complete: kept, not aborted.
    static func keptLine(_ upload: MultipartUpload) -> String {
        "gcdcat: left behind: \(upload.location): the unfinished upload \(upload.uploadID) an earlier run left, which "
            + "this run was resuming, is kept with its parts: the same command resumes it (--take-over-after 0 at "
            + "once), or gcdcat uploads \(upload.location) --abort aborts it\n"
    }

    /// The last rerun: it resumes every upload left, sends only the bytes they lack (and the
    /// manifest), and the set is byte-identical.
    static func finishResumes(
        _ scratch: Scratch, bucket: String, input: Data, left: [(upload: MultipartUpload, bytes: UInt64)],
        lacking: UInt64 = 0
    ) throws {
        let rerun = try LiveS3.gcdcat(
            [
                "split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "--take-over-after", "0",
                "--json",
            ],
            in: scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let notes = try LiveS3.json(rerun)["notes"] as? [String] ?? []
        for (upload, _) in left {
            #expect(notes.contains { $0.hasPrefix("\(upload.location): resuming the upload \(upload.uploadID) ") })
        }
        let kept = left.reduce(0) { $0 + $1.bytes } - lacking
        let manifest = UInt64(try LiveS3.bytes(bucket, "s.sfv")?.count ?? 0)
        let sent = (try LiveS3.json(rerun)["s3"] as? [String: Any])?["uploadedBytes"] as? Int
        #expect(sent == Int(UInt64(input.count) - kept + manifest), "\(rerun.stdoutText)")
        #expect(try Self.joined(bucket) == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    /// A rerun that takes over what a killed split left and then stops (here it refuses a key
    /// whose upload is in use) keeps the uploads it took over, with their parts: it aborted them,
    /// so the next rerun sent them all again.
    @Test func aRerunThatIsRefusedKeepsTheUploadsItTookOver() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("keeprefused")
        let input = try LiveS3.randomFile(scratch, "input", 100 * Self.mib)
        try Self.killSplit(scratch, bucket: bucket, afterParts: 3)
        // Idle for --take-over-after (6s) below; the busy key's part, written after, is not
        // idle by the time the rerun (one object at a time) gets to it.
        usleep(8_000_000)
        var left = try Self.leftUploads(bucket)
        #expect(left.count >= 2, "\(left)")
        // The last key's upload written to a moment ago: in use, as if another run wrote it.
        let busy = try #require(left.last).upload
        _ = try [UInt8](repeating: 7, count: 1).withUnsafeBytes {
            try LiveS3.client().uploadPart(busy, partNumber: 2, body: $0)
        }
        left = try Self.leftUploads(bucket)

        let refused = try LiveS3.gcdcat(
            [
                "split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "--take-over-after", "6s",
                "--jobs", "1", "-q",
            ],
            in: scratch.path)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(
            refused.stderr.hasPrefix(
                "gcdcat: \(busy.location): an unfinished upload of this key, \(busy.uploadID), is in use "),
            "\(refused.stderr)")
        for (upload, _) in left.dropLast() {
            #expect(refused.stderr.contains(Self.keptLine(upload)), "\(refused.stderr)")
        }
        #expect(try LiveS3.uploads(bucket).map(\.uploadID).sorted() == left.map(\.upload.uploadID).sorted())
        #expect(try LiveS3.keys(bucket).isEmpty)

        // What the refused run added to the uploads it took over is kept too.
        try Self.finishResumes(scratch, bucket: bucket, input: input, left: try Self.leftUploads(bucket), lacking: 1)
    }

    /// SIGINT during a rerun that resumes: the uploads it took over are kept (its own are aborted),
    /// named with how to resume them, and the next rerun resumes them.
    @Test func sigintDuringAResumingRerunKeepsTheUploadsItTookOver() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("keepsigint")
        let input = try LiveS3.randomFile(scratch, "input", 100 * Self.mib)
        try Self.killSplit(scratch, bucket: bucket, afterParts: 1)
        let left = try Self.leftUploads(bucket)
        #expect(!left.isEmpty)
        // Each part's upload takes a second: the signal comes while the rerun sends parts.
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint, holding: { _, _ in false }) { method, target in
            method == "PUT" && target.contains("partNumber=") ? 1 : 0
        }
        defer { proxy.stop() }
        let (status, stderr) = try S3PublishSignalCLITests.interrupted(
            ["split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "--take-over-after", "0"],
            in: scratch.path, proxy: proxy, signal: SIGINT, once: { $0.contains { $0.contains("partNumber=") } })
        #expect(status == 130, "\(stderr)")
        let resumed = left.filter {
            stderr.contains("gcdcat: note: \($0.upload.location): resuming the upload \($0.upload.uploadID) ")
        }
        #expect(!resumed.isEmpty, "\(stderr)")
        for (upload, _) in resumed {
            #expect(stderr.contains(Self.keptLine(upload)), "\(stderr)")
        }
        // Only the uploads taken over stay; those this run created were aborted.
        #expect(try LiveS3.uploads(bucket).map(\.uploadID).sorted() == left.map(\.upload.uploadID).sorted())
        try Self.finishResumes(scratch, bucket: bucket, input: input, left: try Self.leftUploads(bucket))
    }

    /// A killed run's upload keeps that run's settings, which S3 does not show: a rerun with
    /// `--sse-c-key` resumed it and stored the data unencrypted, exit 0 (an outside attack).
    /// It now aborts it and writes the object afresh, under the key.
    @Test func aRerunThatChoosesEncryptionDoesNotResumeAnUnencryptedUpload() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("ssecrerun")
        let input = try LiveS3.randomFile(scratch, "input", 100 * Self.mib)
        try scratch.write("key", randomData(32, seed: 32))
        try Self.killSplit(scratch, bucket: bucket, afterParts: 1)
        let rerun = try LiveS3.gcdcat(
            [
                "split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "--take-over-after", "0",
                "--sse-c-key", "key",
            ],
            in: scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(
            rerun.stderr.contains(
                "gcdcat: note: s3://\(bucket)/s.001: an unfinished upload an earlier run left is not resumed: it keeps "
                    + "that run's encryption, storage class, type and tags, and this run chooses its own; the object is "
                    + "written afresh\n"), "\(rerun.stderr)")
        #expect(!rerun.stderr.contains("resuming the upload"), "\(rerun.stderr)")
        // Without the key the object cannot be read: it was written under it.
        #expect(throws: (any Error).self) { try LiveS3.bytes(bucket, "s.001") }
        let back = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/s.001", "-o", "back", "--sse-c-key", "key", "-q"], in: scratch.path)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(scratch.read("back") == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    /// The killed run's upload holds 3 parts and the rerun's input needs 2: resumed, its
    /// completion failed with InvalidPart, since RGW refuses to leave parts out, and only a
    /// second rerun worked (outside attack on issue 24). It is written afresh the first time.
    @Test func aRerunWhoseInputNeedsFewerPartsThanTheUploadHoldsSucceedsFirstTime() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("fewer")
        let client = try LiveS3.client()
        let left = try client.createMultipartUpload(ObjectLocation(bucket: bucket, key: "out"), metadata: [:])
        let old = [UInt8](randomData(16 * Self.mib, seed: 41))
        for number in 1...3 {
            _ = try old.withUnsafeBytes { try client.uploadPart(left, partNumber: number, body: $0) }
        }
        let input = try LiveS3.randomFile(scratch, "input", 20 * Self.mib)

        let rerun = try LiveS3.gcdcat(
            ["merge", "input", "-o", "s3://\(bucket)/out", "--take-over-after", "0"], in: scratch.path)

        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(
            rerun.stderr.contains(
                "gcdcat: note: s3://\(bucket)/out: the unfinished upload \(left.uploadID) an earlier run left holds "
                    + "part 3, and this input needs 2 parts: servers such as Ceph RGW refuse to complete an upload with "
                    + "parts left out, so it is aborted and the object written afresh\n"), "\(rerun.stderr)")
        #expect(try LiveS3.bytes(bucket, "out") == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    @Test func quietSilencesTheResumingNote() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("quiet")
        let input = try LiveS3.randomFile(scratch, "input", 100 * Self.mib)
        try Self.killSplit(scratch, bucket: bucket, afterParts: 1)
        let rerun = try LiveS3.gcdcat(
            ["split", "input", "--size", "24M", "--prefix", "s3://\(bucket)/s.", "--take-over-after", "0s", "-q"],
            in: scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stderr.isEmpty, "\(rerun.stderr)")
        #expect(try Self.joined(bucket) == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }
}

/// `gcdcat uploads` with `--older-than` says how many uploads it spared as too young and how to
/// include them; `-q` (anywhere on the line) leaves the summary out.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3UploadsSparedCLITests {
    @Test func olderThanSaysHowManyYoungUploadsItSparedAndQuietLeavesTheSummaryOut() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("spared")
        let client = try LiveS3.client()
        for key in ["p/a", "p/b"] {
            _ = try client.createMultipartUpload(ObjectLocation(bucket: bucket, key: key), metadata: [:])
        }

        let spared = try LiveS3.gcdcat(
            ["uploads", "s3://\(bucket)/p/", "--abort", "--older-than", "1h"], in: scratch.path)
        #expect(spared.status == 0, "\(spared.stderr)")
        #expect(spared.stdout.isEmpty)
        #expect(
            spared.stderr
                == "gcdcat: no unfinished uploads under s3://\(bucket)/p/ older than 1h; 2 uploads younger than 1h "
                + "were spared (--older-than): a smaller --older-than, or none, includes them\n")
        #expect(try LiveS3.uploads(bucket).count == 2)

        // --json says it too: how many were spared, under which --older-than (null and 0 without).
        for (arguments, olderThan, count) in [(["--older-than", "1h"], 3600 as Any, 2), ([], NSNull() as Any, 0)] {
            let json = try LiveS3.gcdcat(
                ["uploads", "s3://\(bucket)/p/", "--json", "-q"] + arguments, in: scratch.path)
            #expect(json.status == 0 && json.stderr == "", "\(json.stderr)")
            let document = try JSONSerialization.jsonObject(with: json.stdout) as? NSDictionary
            #expect(
                document?.allKeys.compactMap { $0 as? String }.sorted()
                    == [
                        "abort", "command", "exitStatus", "olderThanSeconds", "prefix", "schemaVersion", "spared",
                        "uploads",
                    ], "\(json.stdoutText)")
            #expect(document?["olderThanSeconds"] as? NSObject == olderThan as? NSObject, "\(json.stdoutText)")
            #expect(document?["spared"] as? Int == count, "\(json.stdoutText)")
            #expect((document?["uploads"] as? [Any])?.count == 2 - count, "\(json.stdoutText)")
        }

        for arguments in [["-q", "s3://\(bucket)/p/"], ["s3://\(bucket)/p/", "--quiet"]] {
            let quiet = try LiveS3.gcdcat(["uploads"] + arguments, in: scratch.path)
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(quiet.stderr == "")
            #expect(quiet.stdoutText.split(separator: "\n").count == 2, "\(quiet.stdoutText)")
        }
        let aborted = try LiveS3.gcdcat(["uploads", "s3://\(bucket)/p/", "--abort", "-q"], in: scratch.path)
        #expect(aborted.status == 0 && aborted.stderr == "", "\(aborted.stderr)")
        #expect(aborted.stdoutText.split(separator: "\n").allSatisfy { $0.hasPrefix("aborted s3://\(bucket)/p/") })
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }
}
