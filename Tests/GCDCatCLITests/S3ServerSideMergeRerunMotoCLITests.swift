import Foundation
import GCDCatCore
import Testing

/// A rerun of a merge on the server (UploadPartCopy) finds the upload a killed run left on its
/// key: a copied part is never matched against the part left, so the upload is aborted, with a
/// note, and the object written afresh, as the README says. It was taken over and every part
/// copied again, while the note said "parts that differ from the input are sent again"
/// (outside attack a24 C6).
@Suite(
    .enabled(if: MotoServer.isAvailable, "needs moto_server (pip install 'moto[server]')"),
    .enabled(if: AWSCLI.isAvailable, "needs awscli (aws) to make the upload a killed run leaves"))
struct S3ServerSideMergeRerunMotoCLITests {
    @Test func aMergeOnTheServerAbortsTheUploadAKilledRunLeftAndSaysSo() throws {
        let moto = try MotoServer()
        let scratch = try Scratch()
        let bucket = "gcdcat-moto"
        let input = try LiveS3.randomFile(scratch, "in.bin", 12 * (1 << 20))
        #expect(try AWSCLI.s3api(moto.endpoint, ["create-bucket", "--bucket", bucket]).status == 0)
        // Two 6 MiB parts, each copied on the server by the merge, and in.sfv, which gives the
        // merge the crc32 its object records.
        let split = try moto.gcdcat(
            ["split", "in.bin", "--size", "6M", "--prefix", "s3://\(bucket)/in.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        // What a merge killed after its first copy leaves: an upload of the key with one part.
        let created = try AWSCLI.s3api(
            moto.endpoint, ["create-multipart-upload", "--bucket", bucket, "--key", "whole.bin"])
        let id = try #require(created.json["UploadId"] as? String)
        try scratch.write("old", randomData(1 << 20, seed: 9))
        #expect(
            try AWSCLI.s3api(
                moto.endpoint,
                [
                    "upload-part", "--bucket", bucket, "--key", "whole.bin", "--upload-id", id, "--part-number", "1",
                    "--body", scratch.file("old"),
                ]
            ).status == 0)
        let merge = try moto.gcdcat(
            ["merge", "s3://\(bucket)/in.001", "-o", "s3://\(bucket)/whole.bin", "--take-over-after", "0"],
            in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(
            merge.stderr.contains(
                "gcdcat: note: s3://\(bucket)/whole.bin: aborted the upload \(id) an earlier run left\n"),
            "\(merge.stderr)")
        #expect(!merge.stderr.contains("resuming the upload"), "\(merge.stderr)")
        let uploads = try AWSCLI.s3api(moto.endpoint, ["list-multipart-uploads", "--bucket", bucket]).json
        #expect((uploads["Uploads"] as? [Any] ?? []).isEmpty, "\(uploads)")
        let back = try moto.gcdcat(["merge", "s3://\(bucket)/whole.bin", "-o", "back.bin", "-q"], in: scratch.path)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(scratch.read("back.bin") == input)
    }
}
