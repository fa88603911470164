import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A write the server applied whose answer never came (a CompleteMultipartUpload or a
/// PutObject), against the live RGW behind a proxy that forwards the request, reads the
/// answer and never passes it on: gcdcat recognises the object as its own by a HEAD and goes
/// on, rather than failing and leaving it behind unnamed.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3LostAnswerCLITests {
    /// `split in --size 1K` into `bucket` as `x.001` …, through `proxy`, each request given 3 s.
    static func split(in scratch: Scratch, to bucket: String, through proxy: HoldingProxy) throws -> RunResult {
        try run(
            executable: "/usr/bin/env",
            [
                "AWS_ACCESS_KEY_ID=\(LiveS3.accessKey)", "AWS_SECRET_ACCESS_KEY=\(LiveS3.secretKey)", gcdcatPath,
                "split", "in", "--size", "1K", "--prefix", "s3://\(bucket)/x.", "-q", "--endpoint-url", proxy.url,
                "--request-timeout", "3s",
            ], in: scratch.path)
    }

    /// The request that makes `key`'s object: its completion, or its PutObject.
    static func makes(_ key: String) -> @Sendable (String, String) -> Bool {
        { method, target in
            target.hasPrefix("/\(key)") || target.contains("/\(key)?")
                ? (method == "POST" && target.contains("uploadId="))
                    || (method == "PUT" && !target.contains("partNumber=") && !target.contains("uploadId="))
                : false
        }
    }

    /// The write of `key` lands and its answer is lost. With `predictableETags` false the
    /// server's ETags are not the parts' MD5s (SSE-KMS or SSE-C on AWS, some gateways: every HEAD
    /// of the key answers another), and the write is still recognised as this run's, by its
    /// upload being gone and the object carrying this run's mark, written since.
    @Test(arguments: ["x.002", "x.sfv"], [true, false])
    func aSplitWhoseWriteLandedUnansweredTreatsItAsDone(key: String, predictableETags: Bool) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("lost")
        let input = randomData(3 * 1024, seed: 95)
        try scratch.write("in", input)
        let matches = Self.makes("\(bucket)/\(key)")
        let heads = Self.heads("\(bucket)/\(key)")
        let proxy = try HoldingProxy(
            upstream: LiveS3.endpoint, holding: { _, _ in false }, droppingAnswerTo: { matches($0, $1) },
            rewritingETagOf: { !predictableETags && heads($0, $1) })
        defer { proxy.stop() }
        let result = try Self.split(in: scratch, to: bucket, through: proxy)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(proxy.dropped.count == 1, "\(proxy.dropped)")
        #expect(try LiveS3.keys(bucket) == ["x.001", "x.002", "x.003", "x.sfv"])
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let merged = try LiveS3.gcdcat(["merge", "s3://\(bucket)/x.001", "-o", "back", "-q"], in: scratch.path)
        #expect(merged.status == 0 && scratch.read("back") == input, "\(merged.stderr)")
    }

    /// The object that landed unanswered is the run's: when a later member of the set fails
    /// (the first part, published last, whose completion never comes), it is deleted with the
    /// rest, not left behind.
    @Test func anObjectThatLandedUnansweredIsDeletedWhenTheSetIsUndone() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("lostundo")
        try scratch.write("in", randomData(3 * 1024, seed: 96))
        let second = Self.makes("\(bucket)/x.002")
        let first = Self.makes("\(bucket)/x.001")
        let proxy = try HoldingProxy(
            upstream: LiveS3.endpoint, holding: { first($0, $1) }, droppingAnswerTo: { second($0, $1) })
        defer { proxy.stop() }
        let result = try Self.split(in: scratch, to: bucket, through: proxy)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "gcdcat: s3://\(bucket)/x.001: CompleteMultipartUpload: gave up at the request deadline of 3s "
                    + "(--request-timeout) after 1 attempt: timed out: "), "\(result.stderr)")
        #expect(!result.stderr.contains("left behind"), "\(result.stderr)")
        #expect(proxy.dropped.count == 1 && proxy.held.count == 1, "\(proxy.dropped) \(proxy.held)")
        #expect(try LiveS3.keys(bucket) == [])
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    /// The HEAD of the key: every one, whichever its query.
    static func heads(_ key: String) -> @Sendable (String, String) -> Bool {
        { method, target in method == "HEAD" && (target == "/\(key)" || target.hasPrefix("/\(key)?")) }
    }

    /// Another writer's object on the key after the answer was lost, under ETags that cannot be
    /// predicted: it is never called this run's. Whether the run's write landed before it
    /// cannot be told, and the error says so, naming the key and how to check it; the other
    /// writer's object stays, and the rest of the set is undone.
    @Test func anotherWritersObjectAfterALostAnswerIsNeverCalledOurs() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("lostother")
        try scratch.write("in", randomData(3 * 1024, seed: 98))
        let matches = Self.makes("\(bucket)/x.002")
        let heads = Self.heads("\(bucket)/x.002")
        let proxy = try HoldingProxy(
            upstream: LiveS3.endpoint, holding: { _, _ in false }, droppingAnswerTo: { matches($0, $1) },
            rewritingETagOf: { heads($0, $1) })
        defer { proxy.stop() }
        let other = randomData(1024, seed: 99)
        // The other writer puts its object once the completion landed, unanswered.
        let writer = Thread {
            let deadline = Date().addingTimeInterval(60)
            while proxy.dropped.isEmpty && Date() < deadline { usleep(10_000) }
            try? LiveS3.put(bucket, "x.002", other)
        }
        writer.start()
        let result = try Self.split(in: scratch, to: bucket, through: proxy)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "gcdcat: s3://\(bucket)/x.002: CompleteMultipartUpload: gave up at the request deadline of 3s "
                    + "(--request-timeout) after 1 attempt: timed out: "), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "; its answer was lost and whether it landed cannot be told: the key holds an object this write did "
                    + "not make (1024 bytes, ETag \(HoldingProxy.rewrittenETag), not written by gcdcat), and the "
                    + "upload is gone; check the key with aws s3api head-object --bucket \(bucket) --key x.002 (an "
                    + "object this run wrote carries x-amz-meta-gcdcat-run: "), "\(result.stderr)")
        #expect(try LiveS3.keys(bucket) == ["x.002"])
        #expect(try LiveS3.bytes(bucket, "x.002") == other)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }
}
