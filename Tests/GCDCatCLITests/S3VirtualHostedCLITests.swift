import Foundation
import GCDCatCore
import Testing

/// The profile's `s3 = addressing_style = virtual` on a custom endpoint whose server does not
/// serve virtual-hosted-style requests (the test RGW has no `rgw_dns_name`): it takes each one as
/// naming no bucket. A HEAD of an object that exists got a 404 ("No such object"), and a listing
/// the server's list of buckets, tried 5 times as if it were a passing fault. Now the first such
/// answer refuses the configuration, naming the host, the setting and what to change; `auto`
/// (path-style on a custom endpoint) reads the same objects.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3VirtualHostedCLITests {
    /// gcdcat with the test keys, the profile `style` of a config file of its own, and the RGW
    /// reached as `localhost` (curl resolves `BUCKET.localhost` to the loopback).
    static func gcdcat(_ arguments: [String], style: String, in scratch: Scratch) throws -> RunResult {
        try scratch.write(
            "config", Data("[default]\nregion = us-east-1\ns3 =\n  addressing_style = \(style)\n".utf8))
        let endpoint = (LiveS3.endpoint ?? "").replacing("127.0.0.1", with: "localhost")
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

    static func refusal(_ bucket: String, _ path: String, _ operation: String) -> String {
        let port = URL(string: LiveS3.endpoint ?? "")?.port ?? 0
        return "gcdcat: \(path): \(operation): the server answered with its list of buckets, as if the request named "
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

        // The manifest exists: it was "No such object".
        let merged = try Self.gcdcat(
            ["merge", "s3://\(bucket)/x.sfv", "-o", "back", "-q"], style: "virtual", in: scratch)
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr == Self.refusal(bucket, "s3://\(bucket)/", "ListObjectsV2"))
        #expect(scratch.read("back") == nil)

        // A listing's answer was retried 5 times, then "not a ListMultipartUploadsResult".
        let uploads = try Self.gcdcat(["uploads", "s3://\(bucket)/"], style: "virtual", in: scratch)
        #expect(uploads.status == 1, "\(uploads.stderr)")
        #expect(uploads.stderr == Self.refusal(bucket, "s3://\(bucket)/", "ListMultipartUploads"))

        let auto = try Self.gcdcat(["merge", "s3://\(bucket)/x.sfv", "-o", "back", "-q"], style: "auto", in: scratch)
        #expect(auto.status == 0 && auto.stderr == "", "\(auto.stderr)")
        #expect(scratch.read("back") == input)
    }
}
