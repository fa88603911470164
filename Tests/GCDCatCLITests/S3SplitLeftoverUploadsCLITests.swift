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
