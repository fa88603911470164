import Foundation
import GCDCatCore
import Testing

/// Python's `crc32c`: without it moto stores a CRC-32 under the CRC32C name (moto's docs).
enum PythonCRC32C {
    static var isAvailable: Bool {
        (try? runTool("python3", ["-c", "import crc32c"]).status) == 0
    }

    /// The base64 CRC-32C of `path`'s bytes, by Python's `crc32c` (Intel's code, not gcdcat's).
    static func base64(of path: String) throws -> String {
        let script =
            "import base64, crc32c, sys; "
            + "print(base64.b64encode(crc32c.crc32c(open(sys.argv[1], 'rb').read()).to_bytes(4, 'big')).decode())"
        return try runTool("python3", ["-c", script, path]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `--checksum-algorithm CRC32C` against moto, which keeps flexible checksums (Ceph RGW 16 has
/// none: S3ChecksumAlgorithmLiveCLITests). moto computes the object's CRC-32C from the bytes it
/// stored, so agreeing with Python's crc32c of the local bytes proves the objects are created
/// as FULL_OBJECT CRC32C and hold those bytes; gcdcat compares the value moto keeps with its own
/// after each completion (HEAD with checksum mode, as moto's completion answer omits it).
@Suite(
    .enabled(if: MotoServer.isAvailable, "needs moto_server (pip install 'moto[server]')"),
    .enabled(if: PythonCRC32C.isAvailable, "needs Python's crc32c (pip install crc32c) for moto's CRC32C"),
    .enabled(if: AWSCLI.isAvailable, "needs awscli (aws) to read back what the server recorded"))
struct S3ChecksumAlgorithmMotoCLITests {
    private func stored(_ moto: MotoServer, _ key: String) throws -> [String: Any] {
        let result = try AWSCLI.s3api(
            moto.endpoint, ["head-object", "--bucket", "gcdcat-crc", "--key", key, "--checksum-mode", "ENABLED"])
        #expect(result.status == 0, "head-object \(key)")
        return result.json
    }

    @Test func splitUploadAndServerSideMergeKeepTheFullObjectCRC32C() throws {
        let moto = try MotoServer()
        let scratch = try Scratch()
        let input = try LiveS3.randomFile(scratch, "in.iso", 20 * (1 << 20) + 3)
        #expect(try AWSCLI.s3api(moto.endpoint, ["create-bucket", "--bucket", "gcdcat-crc"]).status == 0)
        let crc = ["--checksum-algorithm", "CRC32C", "-q"]
        // Parts of 12 MiB and 8 MiB + 3 (each one upload), then a local upload of 20 MiB in
        // two parts, then a merge on the server: two UploadPartCopy.
        let runs = [
            ["split", "in.iso", "--size", "12M", "--prefix", "s3://gcdcat-crc/in.iso."],
            ["merge", "in.iso", "-o", "s3://gcdcat-crc/whole.iso", "--as-given"],
            ["merge", "s3://gcdcat-crc/in.iso.001", "-o", "s3://gcdcat-crc/joined.iso"],
        ]
        for arguments in runs {
            let run = try moto.gcdcat(arguments + crc, in: scratch.path)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        try input.prefix(12 << 20).write(to: URL(fileURLWithPath: scratch.file("first")))
        try input.dropFirst(12 << 20).write(to: URL(fileURLWithPath: scratch.file("second")))
        for (key, file) in [
            ("in.iso.001", "first"), ("in.iso.002", "second"), ("whole.iso", "in.iso"), ("joined.iso", "in.iso"),
            ("in.iso.sfv", nil),
        ] as [(String, String?)] {
            let info = try stored(moto, key)
            let value = try #require(info["ChecksumCRC32C"] as? String, "\(key): \(info)")
            if let file { #expect(value == (try PythonCRC32C.base64(of: scratch.file(file))), "\(key)") }
        }
        #expect(try stored(moto, "whole.iso")["ChecksumType"] as? String == "FULL_OBJECT")
        #expect(try stored(moto, "joined.iso")["ChecksumType"] as? String == "FULL_OBJECT")
        let back = try moto.gcdcat(
            ["merge", "s3://gcdcat-crc/joined.iso", "-o", "back.iso", "--as-given", "-q"], in: scratch.path)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(scratch.read("back.iso") == input)
    }
}

/// Ceph RGW 16 keeps no flexible checksum: it accepts the headers and ignores them (HEAD with
/// checksum mode answers none), so gcdcat has nothing to compare and the objects must still be
/// the bytes. moto checks the values (S3ChecksumAlgorithmMotoCLITests).
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3ChecksumAlgorithmLiveCLITests {
    @Test func splitUploadAndServerSideMergeWithCRC32CAreByteIdenticalOnAGatewayWithoutChecksums() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("crc32c")
        let input = try LiveS3.randomFile(scratch, "in.iso", 20 * (1 << 20) + 3)
        let runs = [
            ["split", "in.iso", "--size", "12M", "--prefix", "s3://\(bucket)/in.iso."],
            ["merge", "in.iso", "-o", "s3://\(bucket)/whole.iso", "--as-given"],
            ["merge", "s3://\(bucket)/in.iso.001", "-o", "s3://\(bucket)/joined.iso"],
        ]
        for arguments in runs {
            let run = try LiveS3.gcdcat(arguments + ["--checksum-algorithm", "CRC32C", "-q"], in: scratch.path)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        #expect(try LiveS3.bytes(bucket, "whole.iso") == input)
        #expect(try LiveS3.bytes(bucket, "joined.iso") == input)
        #expect(try LiveS3.bytes(bucket, "in.iso.002") == input.dropFirst(12 << 20))
    }
}
