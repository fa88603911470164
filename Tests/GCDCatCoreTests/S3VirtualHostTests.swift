import Foundation
import GCDCatCore
import Testing

/// Virtual-hosted style on a custom endpoint: the bucket goes in the Host header
/// (`bkt.localhost:PORT`, which libcurl resolves to loopback), and the path holds only the key.
struct S3VirtualHostTests {
    @Test func theBucketIsInTheHostAndNotInThePath() throws {
        let server = try LoopbackHTTPServer { _ in
            CurlTransportTests.answer("200 OK", headers: ["ETag: \"e\""])
        }
        defer { server.stop() }
        let configuration = S3Configuration(
            endpoint: try S3Endpoint(parsing: "http://localhost:\(server.port)"), region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret"), addressingStyle: .virtualHost)
        let client = S3Client(configuration: configuration)
        _ = try client.head(ObjectLocation(bucket: "bkt", key: "dir/a b.001"))
        let request = try #require(server.requests.first)
        #expect(request.header("host") == "bkt.localhost:\(server.port)")
        #expect(request.target == "/dir/a%20b.001")
        #expect(request.header("authorization")?.contains("SignedHeaders=host;") == true)
    }
}
