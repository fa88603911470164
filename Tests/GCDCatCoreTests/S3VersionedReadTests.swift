import Foundation
import GCDCatCore
import Testing

/// `s3://b/k?versionId=ID` in the client, on a scripted transport: reads name the version in
/// the signed query (and a copy in its source); a write to a version never leaves the machine.
struct S3VersionedReadTests {
    let version = ObjectLocation(bucket: "bkt", key: "dir/a b.001", versionID: "3HL4kqtJ.lvd-8_Z")

    private func client(_ transport: ScriptedTransport) throws -> S3Client {
        S3Client(
            configuration: S3Configuration(
                endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "eu-west-1",
                credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")),
            transport: transport, retry: RetryPolicy(maximumAttempts: 1))
    }

    @Test func theNameIsReadIntoKeyAndVersionAndShownAsGiven() throws {
        #expect(try ObjectLocation(parsing: "s3://bkt/dir/a b.001?versionId=3HL4kqtJ.lvd-8_Z") == version)
        #expect(version.bucket == "bkt" && version.key == "dir/a b.001" && version.versionID == "3HL4kqtJ.lvd-8_Z")
        #expect(version.description == "s3://bkt/dir/a b.001?versionId=3HL4kqtJ.lvd-8_Z")
        #expect(version.latest == ObjectLocation(bucket: "bkt", key: "dir/a b.001"))
        #expect(version != version.latest)
        #expect(version.sibling("a b.002").versionID == nil)
    }

    @Test func headAndGetSendTheVersionInTheSignedQuery() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, headers: ["content-length": "3", "etag": "\"e\""])),
            .answer(HTTPResponse(status: 206, headers: ["content-range": "bytes 0-2/3"], body: Data([1, 2, 3]))),
        ])
        let client = try client(transport)
        let info = try #require(try client.head(version))
        #expect(info.location == version && info.size == 3)
        var bytes = [UInt8](repeating: 0, count: 3)
        try bytes.withUnsafeMutableBytes { try client.get(version, range: 0..<3, into: $0) }
        #expect(bytes == [1, 2, 3])
        let urls = transport.requests.map(\.url)
        #expect(urls == Array(repeating: "http://127.0.0.1:9/bkt/dir/a%20b.001?versionId=3HL4kqtJ.lvd-8_Z", count: 2))
        // The signature covers the query (RGW checks it: S3VersionedInputCLITests).
        #expect(transport.requests.allSatisfy { $0.headers["authorization"]?.contains("Signature=") == true })
    }

    @Test func aCopyNamesTheSourceVersion() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, body: Data("<CopyPartResult><ETag>\"p\"</ETag></CopyPartResult>".utf8)))
        ])
        let upload = MultipartUpload(location: ObjectLocation(bucket: "bkt", key: "whole"), uploadID: "u")
        _ = try client(transport).uploadPartCopy(upload, partNumber: 1, source: version, range: 0..<5, ifMatch: nil)
        #expect(
            transport.requests.first?.headers["x-amz-copy-source"]
                == "/bkt/dir/a%20b.001?versionId=3HL4kqtJ.lvd-8_Z")
        #expect(transport.requests.first?.url == "http://127.0.0.1:9/bkt/whole?partNumber=1&uploadId=u")
    }

    @Test func aWriteOrDeleteOfAVersionIsRefusedBeforeAnyRequest() throws {
        let transport = ScriptedTransport([])
        let client = try client(transport)
        #expect {
            try [UInt8]([1]).withUnsafeBytes { try client.put(version, body: $0, ifNoneMatch: false) }
        } throws: {
            ($0 as? GCDCatError)?.message
                == "names a version, which can only be read; a write makes the key's next version"
        }
        #expect(throws: GCDCatError.self) { try client.delete(version) }
        #expect(throws: GCDCatError.self) { _ = try client.createMultipartUpload(version) }
        #expect(transport.requests.isEmpty)
    }
}
