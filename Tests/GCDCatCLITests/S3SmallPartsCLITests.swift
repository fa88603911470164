import Foundation
import GCDCatCore
import Testing

/// Many parts under 5 MiB merged on a real RGW (issue 24, item 8): one GET per part and a few
/// requests more, each part checked against the SFV from the bytes uploaded, and a corrupt one
/// refused with nothing left.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3SmallPartsCLITests {
    static let count = 300

    /// `count` parts of 1 KiB put as `t.001`, … (as awscli would: no gcdcat record), and their SFV.
    static func putSet(_ bucket: String) throws -> Data {
        var whole = Data()
        var manifest = ""
        for number in 1...count {
            let bytes = seededBytes(1024, seed: UInt64(number))
            let name = "t." + String(repeating: "0", count: max(0, 3 - "\(number)".count)) + "\(number)"
            try LiveS3.put(bucket, name, Data(bytes))
            var crc = Checksum(.crc32)
            crc.update(bytes)
            manifest += "\(name) \(crc.hex.uppercased())\n"
            whole += bytes
        }
        try LiveS3.put(bucket, "t.sfv", Data(manifest.utf8))
        return whole
    }

    @Test func smallPartsMergeOnTheServerWithOneRequestEach() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("tiny")
        let whole = try Self.putSet(bucket)
        let merge = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/t.001", "-o", "s3://\(bucket)/joined", "--json", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try LiveS3.bytes(bucket, "joined") == whole)
        let s3 = try LiveS3.json(merge)["s3"] as? [String: Any] ?? [:]
        // 300 GETs, the listing, the manifest, the output's checks, create, upload, complete.
        #expect((s3["requests"] as? Int ?? .max) < Self.count + 12, "\(s3)")
        #expect(s3["checkBytesRead"] as? Int == 0 && s3["readChecksums"] as? Int == Self.count)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    @Test func aCorruptSmallPartExitsTwoWithNothingLeft() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("tinybad")
        _ = try Self.putSet(bucket)
        var bytes = seededBytes(1024, seed: 211)
        bytes[5] ^= 0x20
        try LiveS3.put(bucket, "t.211", Data(bytes))
        let merge = try LiveS3.gcdcat(
            ["merge", "s3://\(bucket)/t.001", "-o", "s3://\(bucket)/joined", "-q"], in: scratch.path)
        #expect(merge.status == 2, "\(merge.stderr)")
        #expect(merge.stderr.contains("s3://\(bucket)/t.211"), "\(merge.stderr)")
        #expect(try LiveS3.bytes(bucket, "joined") == nil)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }
}
