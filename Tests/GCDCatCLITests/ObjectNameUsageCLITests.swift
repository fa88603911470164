import Foundation
import Testing

/// A malformed `s3://` name is a usage error (64), named in ArgumentParser's usage message,
/// before any request: the endpoint here refuses connections, so reaching it would exit 1.
@Suite struct ObjectNameUsageCLITests {
    static let unreachable = ["--endpoint-url", "http://127.0.0.1:1"]

    @Test(arguments: [
        (["merge", "s3://bkt", "-o", "out"], "s3://bkt: no bucket and key: an object is named s3://BUCKET/KEY"),
        (["merge", "s3://", "-o", "out"], "s3://: no bucket and key: an object is named s3://BUCKET/KEY"),
        (["merge", "s3://b/k.001", "-o", "s3://b/"], "s3://b/: no key after the bucket: s3://BUCKET/KEY"),
        (
            ["merge", "s3://b/k.001", "--manifest", "s3://b"],
            "s3://b: no bucket and key: an object is named s3://BUCKET/KEY"
        ),
        (["merge", "in.001", "-o", "s3:///k"], "s3:///k: no bucket and key: an object is named s3://BUCKET/KEY"),
        (
            ["split", "in", "--size", "1", "--prefix", "s3://bkt"],
            "s3://bkt: no bucket and key: an object is named s3://BUCKET/KEY"
        ),
        (
            ["split", "in", "s3://bkt", "--size", "1"],
            "s3://bkt: no bucket and key: an object is named s3://BUCKET/KEY"
        ),
        (["split", "s3://bkt", "--size", "1"], "s3://bkt: no bucket and key: an object is named s3://BUCKET/KEY"),
        (
            ["split", "in", "--size", "1", "--manifest", "s3://m"],
            "s3://m: no bucket and key: an object is named s3://BUCKET/KEY"
        ),
        (
            ["split", "in", "--size", "1", "--prefix", "s3://b/../p."],
            "s3://b/../p.: a key with a '.' or '..' segment cannot be addressed over HTTP (the URL path drops it)"
        ),
        (["checksum", "in", "s3://bkt"], "s3://bkt: no bucket and key: an object is named s3://BUCKET/KEY"),
        (
            ["verify", "s3://b/sums/.."],
            "s3://b/sums/..: a key with a '.' or '..' segment cannot be addressed over HTTP (the URL path drops it)"
        ),
    ])
    func aMalformedObjectNameIsAUsageError(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", Data("data".utf8))
        try scratch.write("in.001", Data("data".utf8))
        let result = try gcdcat(arguments + Self.unreachable, in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: \(message)\nUsage: gcdcat \(arguments[0])"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(scratch.listing() == ["in", "in.001"])
    }
}
