import Foundation
import Testing

/// Mistakes in the S3 parts of a command line are usage errors (64), named in ArgumentParser's
/// usage message, before any request: the endpoint here refuses connections, so reaching it
/// would exit 1.
@Suite struct S3UsageCLITests {
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
            ["checksum", "s3://my bucket/k"],
            "s3://my bucket/k: 'my bucket' is not a bucket name (letters, digits, '.', '-' and '_')"
        ),
        (
            ["merge", "s3://u@bkt/k.001"],
            "s3://u@bkt/k.001: 'u@bkt' is not a bucket name (letters, digits, '.', '-' and '_')"
        ),
        (
            ["split", "in", "--size", "1", "--prefix", "s3://bkt:80/p."],
            "s3://bkt:80/p.: 'bkt:80' is not a bucket name (letters, digits, '.', '-' and '_')"
        ),
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

    /// A bad `--endpoint-url` is refused even where no s3:// name needs it, and an empty one
    /// does not fall back to AWS; a user and password in it are not echoed.
    @Test(arguments: [
        (
            ["checksum", "in"], "garbage",
            "--endpoint-url garbage: not an endpoint URL; expected http://HOST[:PORT] or https://HOST[:PORT]"
        ),
        (
            ["checksum", "s3://b/k"], "",
            "--endpoint-url is empty: give http://HOST[:PORT] or https://HOST[:PORT], or leave it out for AWS."
        ),
        (
            ["merge", "s3://b/k.001"], "ftp://h",
            "--endpoint-url ftp://h: not an endpoint URL; expected http://HOST[:PORT] or https://HOST[:PORT]"
        ),
        (
            ["split", "in", "--size", "1"], "http://u:secret@h:9000",
            "--endpoint-url http://***@h:9000: not an endpoint URL; expected http://HOST[:PORT] or https://HOST[:PORT]"
        ),
        (
            ["verify", "in.sfv"], "http://h:9000/path",
            "--endpoint-url http://h:9000/path: not an endpoint URL; expected http://HOST[:PORT] or https://HOST[:PORT]"
        ),
    ])
    func aBadEndpointIsAUsageError(arguments: [String], endpoint: String, message: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", Data("data".utf8))
        let result = try gcdcat(arguments + ["--endpoint-url", endpoint], in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: \(message)\nUsage: gcdcat \(arguments[0])"), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
        #expect(result.stdout.isEmpty)
        #expect(scratch.listing() == ["in"])
    }

    @Test func anObjectManifestForLocalPartsIsAUsageError() throws {
        let scratch = try Scratch()
        try scratch.write("in.001", Data("data".utf8))
        let result = try gcdcat(
            ["merge", "in.001", "-o", "out", "--manifest", "s3://b/in.sfv"] + Self.unreachable, in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: --manifest must be a local file when the parts are files.\n"))
        #expect(scratch.listing() == ["in.001"])
    }
}
