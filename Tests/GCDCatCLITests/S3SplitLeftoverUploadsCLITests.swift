import Foundation
import GCDCatCore
import Testing

/// A rerun of a split into objects after its predecessor was killed with more parts in
/// flight, against a real RGW: the uploads on part names the new set does not use are
/// aborted (idle ones) and said; a young one may be another run's, and is left and said.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3SplitLeftoverUploadsCLITests {
    /// Unfinished uploads, one part each, as a killed split leaves them.
    static func leaveUploads(_ bucket: String, _ keys: [String]) throws {
        let client = try LiveS3.client()
        for key in keys {
            let upload = try client.createMultipartUpload(ObjectLocation(bucket: bucket, key: key))
            _ = try [UInt8](randomData(1000, seed: 61)).withUnsafeBytes {
                try client.uploadPart(upload, partNumber: 1, body: $0)
            }
        }
    }

    @Test func aRerunAbortsTheUploadsItsPredecessorLeftOnPartNamesPastTheNewLast() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("leftover")
        try scratch.write("f.bin", randomData(100_000, seed: 62))
        try Self.leaveUploads(bucket, ["f.bin.006", "f.bin.007", "f.bin.other", "g.bin.006"])
        let split = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", "s3://\(bucket)/f.bin.", "--size", "20000", "--take-over-after", "0"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            split.stderr.contains(
                "gcdcat: warning: aborted 2 unfinished uploads an earlier run left on part names this set does not "
                    + "use: s3://\(bucket)/f.bin.006, s3://\(bucket)/f.bin.007\n"), "\(split.stderr)")
        // Keys outside the series are not the split's: left for `gcdcat uploads`.
        #expect(try LiveS3.uploads(bucket).map(\.location.key).sorted() == ["f.bin.other", "g.bin.006"])
        #expect(try LiveS3.keys(bucket) == (1...5).map { "f.bin.00\($0)" } + ["f.bin.sfv"])
    }

    /// S3 hides the run mark, so only names the killed run must have written are aborted: those of
    /// this numbering that follow the new last part without a gap. Another tool's uploads on
    /// another width (`0007`), past a gap (`014`) or before the first (`000`) are left.
    @Test func uploadsOnNamesThisSetCouldNeverHaveWrittenAreNotTouched() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("leftover-other")
        try scratch.write("f.bin", randomData(100_000, seed: 64))
        try Self.leaveUploads(bucket, ["f.bin.000", "f.bin.006", "f.bin.0007", "f.bin.014"])
        let split = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", "s3://\(bucket)/f.bin.", "--size", "20000", "--take-over-after", "0"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            split.stderr.contains(
                "gcdcat: warning: aborted 1 unfinished upload an earlier run left on part names this set does not "
                    + "use: s3://\(bucket)/f.bin.006\n"), "\(split.stderr)")
        #expect(try LiveS3.uploads(bucket).map(\.location.key).sorted() == ["f.bin.000", "f.bin.0007", "f.bin.014"])
    }

    /// Without a crc32 record at its start (standard input) an object is not resumed, yet the
    /// upload a killed run left on its key is aborted and said, not left invisible.
    @Test func aSplitOfStandardInputAbortsTheUploadsLeftOnTheKeysItWrites() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("leftover-stdin")
        let input = randomData(45_000, seed: 65)
        try scratch.write("stream", input)
        try Self.leaveUploads(bucket, ["st/f.001", "st/f.002", "st/f.006"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "exec \"$0\" split - --size 10000 --prefix s3://\(bucket)/st/f. --take-over-after 0 --endpoint-url "
                + "\"$1\" < stream", gcdcatPath, LiveS3.endpoint!,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        let split = try collect(process)
        #expect(split.status == 0, "\(split.stderr)")
        for key in ["st/f.001", "st/f.002"] {
            #expect(
                split.stderr.contains("gcdcat: note: s3://\(bucket)/\(key): aborted the upload "), "\(split.stderr)")
        }
        #expect(split.stderr.contains("on part names this set does not use: s3://\(bucket)/st/f.006\n"))
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let parts = try (1...5).map { try #require(try LiveS3.bytes(bucket, "st/f.00\($0)")) }
        #expect(parts.reduce(Data(), +) == input)
    }

    /// A merge on the server of parts with no crc32 record (put by another tool), `--no-verify`,
    /// records none when it begins: its rerun aborts the upload the killed merge left on the
    /// output key, and says so.
    @Test func aMergeOnTheServerAbortsTheUploadLeftOnItsOutput() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("leftover-merge")
        let first = randomData(6 << 20, seed: 66)
        let second = randomData((6 << 20) + 3, seed: 67)
        try LiveS3.put(bucket, "r.bin.001", first)
        try LiveS3.put(bucket, "r.bin.002", second)
        let input = first + second
        try Self.leaveUploads(bucket, ["mk"])
        let merge = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/r.bin.001", "-o", "s3://\(bucket)/mk", "--no-verify", "--take-over-after", "0"],
            in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stderr.contains("gcdcat: note: s3://\(bucket)/mk: aborted the upload "), "\(merge.stderr)")
        #expect(try LiveS3.uploads(bucket).isEmpty)
        #expect(try LiveS3.bytes(bucket, "mk") == input)
    }

    @Test func aYoungUploadOnAPartNamePastTheNewLastIsLeftAndSaid() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("leftover-young")
        try scratch.write("f.bin", randomData(100_000, seed: 63))
        try Self.leaveUploads(bucket, ["f.bin.006"])
        let split = try LiveS3.gcdcat(
            ["split", "f.bin", "--prefix", "s3://\(bucket)/f.bin.", "--size", "20000"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(
            split.stderr.contains(
                "gcdcat: warning: left 1 unfinished upload on part names this set does not use, written within "
                    + "--take-over-after (5m): another run may be writing it: s3://\(bucket)/f.bin.006 ("),
            "\(split.stderr)")
        #expect(try LiveS3.uploads(bucket).map(\.location.key) == ["f.bin.006"])
    }
}
