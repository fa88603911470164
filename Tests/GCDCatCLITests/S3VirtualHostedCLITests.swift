import Foundation
import GCDCatCore
import Testing

/// The profile's `s3 = addressing_style = virtual` on a custom endpoint, for real: the test RGW
/// serves virtual-hosted-style requests (scripts/s3-up.sh sets `rgw dns name = localhost`, and
/// curl resolves `BUCKET.localhost` to the loopback), so a split into objects, a merge on the
/// server and a merge to a local file go with the bucket in the host and are byte-compared.
///
/// A server that does not serve them takes each one as naming no bucket: a HEAD of an object
/// that exists got a 404 ("No such object"), and a listing the server's list of buckets, tried 5
/// times as if it were a passing fault. Now the first such answer refuses the configuration,
/// naming the host, the setting and what to change; `auto` (path-style on a custom endpoint)
/// reads the same objects. Such a server is a proxy in front of the RGW that answers every
/// virtual-hosted request as RGW does without `rgw_dns_name` (``unhosted(_:)``).
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3VirtualHostedCLITests {
    /// gcdcat with the test keys, the profile `style` of a config file of its own, and
    /// `endpoint` (a proxy in front of the RGW reached as `localhost`: curl resolves
    /// `BUCKET.localhost` to the loopback).
    static func gcdcat(_ arguments: [String], style: String, in scratch: Scratch, endpoint: String) throws
        -> RunResult
    {
        try scratch.write(
            "config", Data("[default]\nregion = us-east-1\ns3 =\n  addressing_style = \(style)\n".utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = arguments + ["--endpoint-url", endpoint]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }
        environment["AWS_ACCESS_KEY_ID"] = LiveS3.accessKey
        environment["AWS_SECRET_ACCESS_KEY"] = LiveS3.secretKey
        environment["AWS_CONFIG_FILE"] = scratch.file("config")
        environment["AWS_SHARED_CREDENTIALS_FILE"] = scratch.file("none")
        process.environment = environment
        return try collect(process)
    }

    static func refusal(_ bucket: String, _ path: String, _ operation: String, port: UInt16) -> String {
        "gcdcat: \(path): \(operation): the server answered with its list of buckets, as if the request named "
            + "none: it does not serve virtual-hosted-style requests (\(bucket).localhost:\(port), the profile's s3 "
            + "addressing_style = virtual); set addressing_style = path (or auto) there, or make the server serve "
            + "them (Ceph RGW: rgw_dns_name = localhost)\n"
    }

    @Test func aServerThatDoesNotServeVirtualHostedRequestsIsRefusedNamingTheSetting() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("virtual")
        let input = randomData(3 * 1024, seed: 71)
        try scratch.write("in", input)
        let split = try LiveS3.gcdcat(
            ["split", "in", "--size", "1K", "--prefix", "s3://\(bucket)/x.", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")

        let proxy = try HoldingProxy(
            upstream: LiveS3.endpoint, holding: { _, _ in false },
            answering: { Self.isVirtualHosted($0, bucket) ? Self.unhosted($0) : nil })
        defer { proxy.stop() }
        let endpoint = "http://localhost:\(proxy.port)"

        // The manifest exists: it was "No such object".
        let merged = try Self.gcdcat(
            ["merge", "s3://\(bucket)/x.sfv", "-o", "back", "-q"], style: "virtual", in: scratch, endpoint: endpoint)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr == Self.refusal(bucket, "s3://\(bucket)/", "ListObjectsV2", port: proxy.port))
        #expect(scratch.read("back") == nil)

        // A listing's answer was retried 5 times, then "not a ListMultipartUploadsResult".
        let uploads = try Self.gcdcat(
            ["uploads", "s3://\(bucket)/"], style: "virtual", in: scratch, endpoint: endpoint)
        #expect(uploads.status == 1, "\(uploads.stderr)")
        #expect(uploads.stderr == Self.refusal(bucket, "s3://\(bucket)/", "ListMultipartUploads", port: proxy.port))

        let auto = try Self.gcdcat(
            ["merge", "s3://\(bucket)/x.sfv", "-o", "back", "-q"], style: "auto", in: scratch, endpoint: endpoint)
        #expect(auto.status == 0 && auto.stderr == "", "\(auto.stderr)")
        #expect(scratch.read("back") == input)
    }

    /// Whether a request's head names `bucket` in its host (`Host: BUCKET.localhost:PORT`).
    static func isVirtualHosted(_ head: String, _ bucket: String) -> Bool {
        head.lowercased().components(separatedBy: "\r\n").contains { $0.hasPrefix("host: \(bucket).") }
    }

    /// What RGW without `rgw_dns_name` answers a virtual-hosted request, which it reads as
    /// path-style: at `/`, its list of buckets; elsewhere, that the bucket the path names
    /// (`/x.sfv`) does not exist.
    static func unhosted(_ head: String) -> [UInt8] {
        let requestLine = head.prefix { $0 != "\r" }.split(separator: " ")
        let target = requestLine.count > 1 ? requestLine[1] : "/"
        if target == "/" || target.hasPrefix("/?") {
            let body =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListAllMyBucketsResult "
                + "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Owner><ID>test</ID><DisplayName>test"
                + "</DisplayName></Owner><Buckets></Buckets></ListAllMyBucketsResult>"
            return answer("200 OK", body)
        }
        let missing = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchBucket</Code></Error>"
        return answer("404 Not Found", requestLine.first == "HEAD" ? "" : missing)
    }

    private static func answer(_ status: String, _ body: String) -> [UInt8] {
        Array(
            "HTTP/1.1 \(status)\r\nContent-Type: application/xml\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                .utf8)
    }

    /// A split into objects, a merge on the server and a merge to a file, each with the bucket
    /// in the host: every request the proxy saw is path-less of the bucket, and the bytes match.
    @Test func aSplitAndMergesWithVirtualHostedAddressingRoundTrip() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("vhost")
        // Three parts of 6 MiB (over S3's 5 MiB minimum, so the merge on the server copies them)
        // and a short last one.
        let input = randomData(18 * 1024 * 1024 + 1000, seed: 72)
        try scratch.write("in", input)
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint, holding: { _, _ in false })
        defer { proxy.stop() }
        let endpoint = "http://localhost:\(proxy.port)"

        let split = try Self.gcdcat(
            ["split", "in", "--size", "6M", "--prefix", "s3://\(bucket)/v.", "-q"], style: "virtual", in: scratch,
            endpoint: endpoint)
        #expect(split.status == 0 && split.stderr == "", "\(split.stderr)")
        #expect(try LiveS3.keys(bucket) == ["v.001", "v.002", "v.003", "v.004", "v.sfv"])
        let parts = try (1...4).map { try LiveS3.bytes(bucket, "v.00\($0)") ?? Data() }
        #expect(parts.reduce(Data(), +) == input)

        let onServer = try Self.gcdcat(
            ["merge", "s3://\(bucket)/v.sfv", "-o", "s3://\(bucket)/joined", "-q"], style: "virtual", in: scratch,
            endpoint: endpoint)
        #expect(onServer.status == 0 && onServer.stderr == "", "\(onServer.stderr)")
        #expect(try LiveS3.bytes(bucket, "joined") == input)

        let local = try Self.gcdcat(
            ["merge", "s3://\(bucket)/v.sfv", "-o", "back", "-q"], style: "virtual", in: scratch, endpoint: endpoint)
        #expect(local.status == 0 && local.stderr == "", "\(local.stderr)")
        #expect(scratch.read("back") == input)

        // Path-style would put the bucket first in every target.
        #expect(!proxy.passed.isEmpty)
        #expect(proxy.passed.allSatisfy { !$0.contains(" /\(bucket)") }, "\(proxy.passed)")
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }
}
