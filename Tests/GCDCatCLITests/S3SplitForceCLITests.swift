import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `split --force` onto a prefix that holds a longer set, against a real RGW: the old set's
/// objects past the new set's last are deleted, as a local split's --force removes the files
/// (the same rule, ``PublishOrder``); left, a merge of `.001` without a manifest joined them.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3SplitForceCLITests {
    @Test(arguments: [false, true])
    func aForcedSplitIntoObjectsDeletesTheOldSetsLaterParts(fromStandardInput: Bool) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-\(fromStandardInput ? "stdin" : "file")")
        try scratch.write("old.bin", randomData(260_000, seed: 51))
        try scratch.write("f.bin", randomData(100_000, seed: 52))
        let prefix = "s3://\(bucket)/f.bin."
        let first = try LiveS3.gcdcat(
            ["split", "old.bin", "--prefix", prefix, "--size", "20000", "-q", "--no-manifest"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try LiveS3.keys(bucket).count == 13)
        let input = fromStandardInput ? "-" : "f.bin"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "exec \"$0\" \"$@\" < f.bin", gcdcatPath, "split", input, "--prefix", prefix, "--size", "20000",
            "--force", "--no-manifest", "--endpoint-url", LiveS3.endpoint!,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        let again = try collect(process)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains(
                "gcdcat: warning: removed 8 old part(s) past the new set's last, of the set it replaced: "
                    + "\(prefix)006 … \(prefix)013"), "\(again.stderr)")
        #expect(try LiveS3.keys(bucket) == (1...5).map { "f.bin.00\($0)" })
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let merged = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("f.bin"))
    }

    /// The object being split is an old part past the new set's last: --force would delete it
    /// with the old set's tail before the new set was complete. Refused (exit 1) before anything is
    /// uploaded or deleted, as a part name that is the source is.
    @Test func aForcedSplitRefusesASourceObjectAmongTheOldPartsItWouldDelete() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-source")
        let original = try LiveS3.randomFile(scratch, "A.bin", 300_000)
        let prefix = "s3://\(bucket)/q.bin."
        let first = try LiveS3.gcdcat(
            ["split", "A.bin", "--prefix", prefix, "--size", "30000", "-q"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try LiveS3.keys(bucket)
        let again = try LiveS3.gcdcat(
            ["split", "\(prefix)009", "--size", "1M", "--prefix", prefix, "--force"], in: scratch.path)
        #expect(again.status == 1)
        #expect(again.stderr == "gcdcat: \(prefix)009: is the object being split; choose another --prefix\n")
        #expect(try LiveS3.keys(bucket) == before)
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let merged = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == original)
    }

    /// Objects at `.005` and `.006` with nothing at `.001` … `.004`: no set for a split of four
    /// parts to replace, so --force deletes nothing; the split names them, with --force or
    /// without, as a merge without the manifest would join them to the new set.
    @Test(arguments: [false, true])
    func aSplitIntoObjectsNamesForeignPartsAfterItsLastAndForceLeavesThem(force: Bool) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-foreign-\(force)")
        _ = try LiveS3.randomFile(scratch, "C.bin", 120_000)
        try LiveS3.put(bucket, "uf.bin.005", Data("u5\n".utf8))
        try LiveS3.put(bucket, "uf.bin.006", Data("u6\n".utf8))
        let prefix = "s3://\(bucket)/uf.bin."
        let result = try LiveS3.gcdcat(
            ["split", "C.bin", "--prefix", prefix, "--size", "30000"] + (force ? ["--force"] : []), in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "gcdcat: warning: \(prefix)005 … \(prefix)006 follow the new set's last part but belong to no set "
                    + "this split replaced, so they were left: a merge without the manifest would join them to the "
                    + "new set; move them away\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("removed"), "\(result.stderr)")
        #expect(try LiveS3.bytes(bucket, "uf.bin.005") == Data("u5\n".utf8))
        #expect(try LiveS3.bytes(bucket, "uf.bin.006") == Data("u6\n".utf8))
    }

    /// `--force --no-manifest` over an object set split with a manifest and a checksum list:
    /// the old list objects are deleted with the set (the one seam of files and objects);
    /// left, a merge from `.001` called the new parts corrupt.
    @Test func aForcedSplitIntoObjectsWithoutListsDeletesTheReplacedSetsLists() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-lists")
        try scratch.write("f.bin", randomData(250_000, seed: 56))
        let prefix = "s3://\(bucket)/nm/f.bin."
        let first = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", prefix, "-b", "100000", "-q", "--checksum", "sha256"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try LiveS3.keys(bucket).contains("nm/f.bin.sfv"))
        #expect(try LiveS3.keys(bucket).contains("nm/f.bin.sha256"))
        try scratch.write("f.bin", randomData(250_000, seed: 57))
        let again = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", prefix, "-b", "100000", "--force", "--no-manifest"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains(
                "gcdcat: warning: removed the manifest and checksum lists of the set it replaced (this split writes "
                    + "none there): \(prefix)sfv, \(prefix)sha256"), "\(again.stderr)")
        #expect(try LiveS3.keys(bucket) == ["nm/f.bin.001", "nm/f.bin.002", "nm/f.bin.003"])
        let merged = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("f.bin"))
    }

    /// An old set numbered from `.000` beside a new one from `.001`: a merge of `.001` would
    /// start at the old `.000`, so --force deletes it, as it removes such a file.
    @Test func aForcedSplitIntoObjectsDeletesTheOldSetsPartZero() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-zero")
        try scratch.write("f.bin", randomData(50_000, seed: 53))
        let prefix = "s3://\(bucket)/f.bin."
        let old = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", prefix, "--size", "20000", "-q", "--no-manifest", "--start", "0"],
            in: scratch.path)
        #expect(old.status == 0, "\(old.stderr)")
        #expect(try LiveS3.keys(bucket) == ["f.bin.000", "f.bin.001", "f.bin.002"])
        let again = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", prefix, "--size", "20000", "--force", "--no-manifest"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains(
                "removed \(prefix)000, the first part of the set it replaced (a merge would start there)"),
            "\(again.stderr)")
        #expect(try LiveS3.keys(bucket) == ["f.bin.001", "f.bin.002", "f.bin.003"])
        let merged = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("f.bin"))
    }

    /// SIGKILL while `split --force` publishes over a longer set without a manifest (the
    /// completion of the new `.001`, named last, held by a proxy): the old `.001` was deleted
    /// first, so a merge of `.001` finds nothing instead of the old first part joined to new and
    /// old parts (exit 0, wrong bytes). A rerun with --force finishes the set and leaves no upload.
    @Test func aSplitKilledWhilePublishingOverALongerSetLeavesNoMergeableMixedSet() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-kill")
        try scratch.write("old.bin", randomData(260_000, seed: 54))
        try scratch.write("f.bin", randomData(100_000, seed: 55))
        let prefix = "s3://\(bucket)/f.bin."
        let old = try LiveS3.gcdcat(
            ["split", "old.bin", "--prefix", prefix, "--size", "20000", "-q", "--no-manifest"], in: scratch.path)
        #expect(old.status == 0, "\(old.stderr)")
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint) { method, target in
            method == "POST" && target.contains("/f.bin.001?uploadId=")
        }
        defer { proxy.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = [
            "split", "f.bin", "--prefix", prefix, "--size", "20000", "--force", "--no-manifest", "-q",
            "--endpoint-url", proxy.url,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let start = Date()
        while proxy.held.isEmpty && process.isRunning && Date().timeIntervalSince(start) < 120 { usleep(20_000) }
        #expect(proxy.held.count == 1, "\(proxy.held)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(try LiveS3.keys(bucket) == (2...5).map { "f.bin.00\($0)" })
        let merged = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: \(prefix)001: No such object\n")
        #expect(scratch.read("joined") == nil)
        let rerun = try LiveS3.gcdcat(
            [
                "split", "f.bin", "--prefix", prefix, "--size", "20000", "--force", "--no-manifest", "-q",
                "--take-over-after", "0",
            ], in: scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let again = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined", "-q"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(scratch.read("joined") == scratch.read("f.bin"))
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    /// A bucket policy that denies DeleteObject on `keys` (a pattern under the bucket) to everyone.
    private static func denyingDeletes(_ bucket: String, of keys: String) -> String {
        #"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","#
            + #""Resource":"arn:aws:s3:::\#(bucket)/\#(keys)"}]}"#
    }

    /// What `split --force` says when it could not delete `failed`, after `lost`, with `left` still to go.
    private static func refusal(_ failed: String, lost: String?, left: String) -> String {
        "gcdcat: \(failed): DeleteObject: AccessDenied (HTTP 403); split --force removes what remains of the set it "
            + "replaces (its first part, its parts past the new set's last, its lists) before it names the new set, "
            + "so that no merge joins old parts to new ones; this one could not be deleted, so the new set was not "
            + "published"
            + (lost.map { "; the old set lost \($0) before that, so it can no longer be merged" }
                ?? " and the old set there is unchanged")
            + ". Allow these keys s3:DeleteObject there, or delete by hand (aws s3 rm) what is still to go, \(left), "
            + "then run the split again\n"
    }

    /// A store that denies every DeleteObject: `split --force` over a longer set cannot delete
    /// the old first part, its first removal, so it completes nothing and exits 1, saying the old
    /// set is unchanged and naming every object still to delete; the old set still merges to
    /// the old bytes. Before, the error named the object and AccessDenied and nothing else.
    @Test func aForcedSplitIntoObjectsDeniedEveryDeleteKeepsTheOldSetAndSaysWhatToDelete() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-deny-all")
        try scratch.write("old.bin", randomData(260_000, seed: 58))
        try scratch.write("f.bin", randomData(100_000, seed: 59))
        let prefix = "s3://\(bucket)/f.bin."
        let first = try LiveS3.gcdcat(
            ["split", "old.bin", "--prefix", prefix, "--size", "20000", "-q", "--no-manifest"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let oldKeys = try LiveS3.keys(bucket)
        #expect(oldKeys.count == 13)
        try LiveS3.client().putBucketPolicy(bucket, policy: Self.denyingDeletes(bucket, of: "*"))
        defer { try? LiveS3.client().deleteBucketPolicy(bucket) }
        let again = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", prefix, "--size", "20000", "--force", "--no-manifest"], in: scratch.path)
        #expect(again.status == 1)
        #expect(
            again.stderr
                == Self.refusal(
                    "\(prefix)001", lost: nil,
                    left: "\(prefix)001, \(prefix)013, \(prefix)012 … \(prefix)006 (9 in all)"))
        #expect(try LiveS3.keys(bucket) == oldKeys)
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let merged = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("old.bin"))
    }

    /// A store that denies DeleteObject on `.008` alone: the old first part and `.013` …
    /// `.009` (the parts past the new last go last first) are gone when `.008` is refused. The
    /// split exits 1 naming what the old set lost and what is still to go; no merge starts from
    /// what is left (no first part), so none joins old parts to new ones. What is left follows
    /// `.005` without a gap, so once deletes are allowed a rerun finds and deletes it (deleted
    /// first to last, the gap at `.006` hid `.010` … from the rerun, and its set did not merge).
    @Test func aForcedSplitIntoObjectsDeniedOneLaterDeleteLeavesNothingToMergeAndARerunFinishes() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("force-deny-one")
        try scratch.write("old.bin", randomData(260_000, seed: 60))
        try scratch.write("f.bin", randomData(100_000, seed: 61))
        let prefix = "s3://\(bucket)/f.bin."
        let first = try LiveS3.gcdcat(
            ["split", "old.bin", "--prefix", prefix, "--size", "20000", "-q", "--no-manifest"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        try LiveS3.client().putBucketPolicy(bucket, policy: Self.denyingDeletes(bucket, of: "f.bin.008"))
        defer { try? LiveS3.client().deleteBucketPolicy(bucket) }
        let again = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", prefix, "--size", "20000", "--force", "--no-manifest"], in: scratch.path)
        #expect(again.status == 1)
        #expect(
            again.stderr
                == Self.refusal(
                    "\(prefix)008", lost: "\(prefix)001, \(prefix)013, \(prefix)012 … \(prefix)009 (6 in all)",
                    left: "\(prefix)008, \(prefix)007, \(prefix)006"))
        #expect(try LiveS3.keys(bucket) == (2...8).map { "f.bin.00\($0)" })
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let merged = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined"], in: scratch.path)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: \(prefix)001: No such object\n")
        #expect(scratch.read("joined") == nil)
        try LiveS3.client().deleteBucketPolicy(bucket)
        let rerun = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", prefix, "--size", "20000", "--force", "--no-manifest", "-q"],
            in: scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try LiveS3.keys(bucket) == (1...5).map { "f.bin.00\($0)" })
        let joined = try LiveS3.gcdcat(["merge", "\(prefix)001", "-o", "joined", "-q"], in: scratch.path)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(scratch.read("joined") == scratch.read("f.bin"))
    }
}
