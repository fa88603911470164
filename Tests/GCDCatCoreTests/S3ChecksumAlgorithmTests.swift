import Foundation
import Testing

@testable import GCDCatCore

/// `--checksum-algorithm CRC32C` as ``S3Client`` sends it: the algorithm on the upload's
/// creation, each part's CRC-32C with the part, the whole object's (combined from the parts')
/// on completion, and the check of the value the server keeps.
struct S3ChecksumAlgorithmTests {
    private func client(_ transport: ScriptedTransport) throws -> S3Client {
        var configuration = S3Configuration(
            endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET"))
        configuration.objectOptions.checksumAlgorithm = .crc32c
        let policy = RetryPolicy(maximumAttempts: 1, baseDelay: 0, maximumDelay: 0, sleep: { _ in }, jitter: { 0 })
        return S3Client(configuration: configuration, transport: transport, retry: policy)
    }

    private static func crc(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { CRC32C.of($0) } }
    private static let object = ObjectLocation(bucket: "b", key: "movie.zip")
    private static let first = [UInt8]((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
    private static let second = [UInt8]((0..<1234).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    @Test func crc32cOfTheCheckStringIsCastagnolisCheckValue() {
        #expect(Self.crc(Array("123456789".utf8)) == 0xE306_9283)
        #expect(Self.crc([]) == 0)
        #expect(CRC32C.base64(0xE306_9283) == "4waSgw==")
        #expect(CRC32C.parse(base64: "4waSgw==") == 0xE306_9283)
        #expect(CRC32C.parse(base64: "4waSgw==-2") == nil)  // a composite is not the bytes' CRC
    }

    @Test func combiningThePartsCRCsGivesTheWholesAtEverySplit() {
        let whole = Self.first + Self.second
        let expected = Self.crc(whole)
        for cut in [0, 1, 3, 4, 5, 8, 100, 4096, whole.count - 1, whole.count] {
            let (a, b) = (Array(whole[..<cut]), Array(whole[cut...]))
            #expect(CRC32C.combine(Self.crc(a), Self.crc(b), secondLength: UInt64(b.count)) == expected, "cut \(cut)")
        }
        // Continuing a CRC over the next bytes agrees with combining.
        let continued = Self.second.withUnsafeBytes { CRC32C.of($0, continuing: Self.crc(Self.first)) }
        #expect(continued == expected)
    }

    @Test func uploadSendsEachPartsCRCAndTheWholeObjectsOnCompletion() throws {
        let whole = Self.crc(Self.first + Self.second)
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, body: Data("<UploadId>U1</UploadId>".utf8))),
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"p1\""])),
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"p2\""])),
            .answer(
                HTTPResponse(
                    status: 200,
                    body: Data(
                        ("<CompleteMultipartUploadResult><ChecksumCRC32C>\(CRC32C.base64(whole))</ChecksumCRC32C>"
                            + "<ChecksumType>FULL_OBJECT</ChecksumType></CompleteMultipartUploadResult>").utf8))),
        ])
        let client = try client(transport)
        let upload = try client.createMultipartUpload(Self.object)
        let parts = try [Self.first, Self.second].enumerated().map { index, bytes in
            try bytes.withUnsafeBytes { try client.uploadPart(upload, partNumber: index + 1, body: $0) }
        }
        try client.completeMultipartUpload(upload, parts: parts, ifNoneMatch: false)
        let requests = transport.requests
        #expect(requests.count == 4)  // the answer carried the value: no HEAD
        #expect(requests[0].headers["x-amz-checksum-algorithm"] == "CRC32C")
        #expect(requests[0].headers["x-amz-checksum-type"] == "FULL_OBJECT")
        #expect(requests[1].headers["x-amz-checksum-crc32c"] == CRC32C.base64(Self.crc(Self.first)))
        #expect(requests[2].headers["x-amz-checksum-crc32c"] == CRC32C.base64(Self.crc(Self.second)))
        #expect(requests[3].headers["x-amz-checksum-crc32c"] == CRC32C.base64(whole))
        #expect(requests[3].headers["x-amz-checksum-type"] == "FULL_OBJECT")
        let xml = String(decoding: requests[3].body, as: UTF8.self)
        #expect(
            xml.contains(
                "<PartNumber>2</PartNumber><ETag>&quot;p2&quot;</ETag><ChecksumCRC32C>"
                    + CRC32C.base64(Self.crc(Self.second)) + "</ChecksumCRC32C>"))
        for request in requests {
            let authorization = request.headers["authorization"] ?? ""
            for name in ["x-amz-checksum-algorithm", "x-amz-checksum-crc32c"] where request.headers[name] != nil {
                #expect(authorization.contains(name), "\(name) is not signed")
            }
        }
    }

    /// AWS refuses a wrong value itself; a server that stored other bytes and says so in its
    /// answer must not leave them under the name.
    @Test func aServerKeepingAnotherCRCFailsNamingTheObjectAndDeletesIt() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"p1\""])),
            .answer(
                HTTPResponse(
                    status: 200,
                    body: Data(
                        "<CompleteMultipartUploadResult><ChecksumCRC32C>AAAAAQ==</ChecksumCRC32C></CompleteMultipartUploadResult>"
                            .utf8))),
            .answer(HTTPResponse(status: 204)),
        ])
        let client = try client(transport)
        let upload = MultipartUpload(location: Self.object, uploadID: "U1")
        let part = try Self.first.withUnsafeBytes { try client.uploadPart(upload, partNumber: 1, body: $0) }
        let error = try #require(throws: GCDCatError.self) {
            try client.completeMultipartUpload(upload, parts: [part], ifNoneMatch: false)
        }
        #expect(error.code == .checksumMismatch)
        #expect(error.path == "s3://b/movie.zip")
        #expect(
            error.message
                == "the server keeps CRC32C 00000001 for the completed object, but the parts gcdcat sent make "
                + FullObjectChecksum.hex(Self.crc(Self.first)) + ": it does not hold the bytes sent; it was deleted")
        #expect(transport.requests.last?.method == "DELETE")
    }

    /// moto answers completion without the value: HEAD with checksum mode asks for it.
    @Test(arguments: [true, false])
    func withoutTheValueInTheAnswerHeadAsksForIt(serverAgrees: Bool) throws {
        let mine = Self.crc(Self.first)
        let kept = serverAgrees ? mine : mine ^ 1
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"p1\""])),
            .answer(HTTPResponse(status: 200, body: Data("<CompleteMultipartUploadResult/>".utf8))),
            .answer(
                HTTPResponse(
                    status: 200,
                    headers: ["content-length": "5000", "x-amz-checksum-crc32c": CRC32C.base64(kept)])),
            .answer(HTTPResponse(status: 204)),
        ])
        let client = try client(transport)
        let upload = MultipartUpload(location: Self.object, uploadID: "U1")
        let part = try Self.first.withUnsafeBytes { try client.uploadPart(upload, partNumber: 1, body: $0) }
        if serverAgrees {
            try client.completeMultipartUpload(upload, parts: [part], ifNoneMatch: false)
        } else {
            #expect(throws: GCDCatError.self) {
                try client.completeMultipartUpload(upload, parts: [part], ifNoneMatch: false)
            }
        }
        let head = transport.requests[2]
        #expect(head.method == "HEAD")
        #expect(head.headers["x-amz-checksum-mode"] == "ENABLED")
        #expect(transport.requests.count == (serverAgrees ? 3 : 4))
    }

    /// A copied part's CRC comes from the server; when one does not give it (Ceph RGW 16), the
    /// object's is unknown without reading the bytes: none is sent and nothing compared.
    @Test func copiedPartsUseTheServersCRCOrLeaveTheWholeUnknown() throws {
        let partCRC = Self.crc(Self.first)
        let transport = ScriptedTransport([
            .answer(
                HTTPResponse(
                    status: 200,
                    body: Data(
                        "<CopyPartResult><ETag>\"c1\"</ETag><ChecksumCRC32C>\(CRC32C.base64(partCRC))</ChecksumCRC32C></CopyPartResult>"
                            .utf8))),
            .answer(HTTPResponse(status: 200, body: Data("<CopyPartResult><ETag>\"c2\"</ETag></CopyPartResult>".utf8))),
            .answer(HTTPResponse(status: 200, body: Data("<CompleteMultipartUploadResult/>".utf8))),
        ])
        let client = try client(transport)
        let upload = MultipartUpload(location: Self.object, uploadID: "U1")
        let source = ObjectLocation(bucket: "b", key: "movie.zip.001")
        let copied = try client.uploadPartCopy(upload, partNumber: 1, source: source, range: 0..<5000)
        #expect(copied.crc32c == partCRC && copied.size == 5000)
        #expect(transport.requests[0].headers["x-amz-sdk-checksum-algorithm"] == nil)
        let unknown = try client.uploadPartCopy(upload, partNumber: 2, source: source, range: 0..<10)
        #expect(unknown.crc32c == nil)
        try client.completeMultipartUpload(upload, parts: [copied, unknown], ifNoneMatch: false)
        #expect(transport.requests.count == 3)  // no HEAD: nothing to compare with
        #expect(transport.requests[2].headers["x-amz-checksum-crc32c"] == nil)
        #expect(FullObjectChecksum.combined([copied]) == partCRC)
    }

    @Test func putObjectCarriesTheBodysCRC() throws {
        let transport = ScriptedTransport([.answer(HTTPResponse(status: 200, headers: ["etag": "\"e\""]))])
        let client = try client(transport)
        try Self.second.withUnsafeBytes { try client.put(Self.object, body: $0, ifNoneMatch: false) }
        let request = try #require(transport.requests.first)
        #expect(request.headers["x-amz-checksum-crc32c"] == CRC32C.base64(Self.crc(Self.second)))
        #expect(request.headers["x-amz-sdk-checksum-algorithm"] == "CRC32C")
        #expect(request.headers["x-amz-checksum-type"] == nil)
    }
}
