import Foundation
import Testing

@testable import GCDCatCore

/// The `x-amz-*` headers of `--storage-class`, `--content-type`, `--tag`, `--sse`, `--sse-c-key`,
/// `--request-payer` and `--expected-bucket-owner`, as ``S3Client`` sends them: on the operations
/// AWS's API reference lists for each, and signed.
struct S3ObjectOptionsTests {
    static let key = Array("gcdcat test key, 32 bytes long!!".utf8)
    /// base64 of the key, and of its MD5 (computed by Python's hashlib).
    static let keyBase64 = "Z2NkY2F0IHRlc3Qga2V5LCAzMiBieXRlcyBsb25nISE="
    static let keyMD5Base64 = "GjPrXDfg9aHBsid6K5ANRQ=="

    private func client(_ options: S3ObjectOptions, _ transport: ScriptedTransport) throws -> S3Client {
        var configuration = S3Configuration(
            endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET"))
        configuration.objectOptions = options
        let policy = RetryPolicy(maximumAttempts: 1, baseDelay: 0, maximumDelay: 0, sleep: { _ in }, jitter: { 0 })
        return S3Client(configuration: configuration, transport: transport, retry: policy)
    }

    private static func signedHeaders(_ request: HTTPRequest) -> Set<String> {
        let authorization = request.headers["authorization"] ?? ""
        guard let range = authorization.range(of: "SignedHeaders=") else { return [] }
        let list = authorization[range.upperBound...].prefix { $0 != "," }
        return Set(list.split(separator: ";").map(String.init))
    }

    private static var writeOptions: S3ObjectOptions {
        var options = S3ObjectOptions()
        options.storageClass = .standardIA
        options.tags = [S3Tag(key: "project", value: "a b&c=d"), S3Tag(key: "tier", value: "é")]
        options.serverSideEncryption = .kms(keyID: "arn:aws:kms:eu-west-1:111122223333:key/k1")
        return options
    }

    @Test func putObjectCarriesStorageClassTypeTagsAndEncryptionSigned() throws {
        let transport = ScriptedTransport([.answer(HTTPResponse(status: 200, headers: ["etag": "\"e\""]))])
        let client = try client(Self.writeOptions, transport)
        try [UInt8](repeating: 1, count: 10).withUnsafeBytes {
            try client.put(ObjectLocation(bucket: "b", key: "dir/movie.zip"), body: $0, ifNoneMatch: false)
        }
        let request = try #require(transport.requests.first)
        #expect(request.headers["x-amz-storage-class"] == "STANDARD_IA")
        #expect(request.headers["content-type"] == "application/zip")
        #expect(request.headers["x-amz-tagging"] == "project=a%20b%26c%3Dd&tier=%C3%A9")
        #expect(request.headers["x-amz-server-side-encryption"] == "aws:kms")
        #expect(
            request.headers["x-amz-server-side-encryption-aws-kms-key-id"]
                == "arn:aws:kms:eu-west-1:111122223333:key/k1")
        let signed = Self.signedHeaders(request)
        for name in [
            "content-type", "x-amz-storage-class", "x-amz-tagging", "x-amz-server-side-encryption",
            "x-amz-server-side-encryption-aws-kms-key-id",
        ] {
            #expect(signed.contains(name), "\(name) is not signed: \(signed)")
        }
    }

    @Test func createMultipartUploadCarriesThemButPartsAndCompletionDoNot() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, body: Data("<UploadId>U1</UploadId>".utf8))),
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"p1\""])),
            .answer(HTTPResponse(status: 200, body: Data("<CopyPartResult><ETag>\"p2\"</ETag></CopyPartResult>".utf8))),
            .answer(HTTPResponse(status: 200, body: Data("<CompleteMultipartUploadResult/>".utf8))),
        ])
        let client = try client(Self.writeOptions, transport)
        let upload = try client.createMultipartUpload(ObjectLocation(bucket: "b", key: "movie.zip.001"))
        let first = try [UInt8](repeating: 1, count: 10).withUnsafeBytes {
            try client.uploadPart(upload, partNumber: 1, body: $0)
        }
        let second = try client.uploadPartCopy(
            upload, partNumber: 2, source: ObjectLocation(bucket: "src", key: "x"), range: 0..<5)
        try client.completeMultipartUpload(upload, parts: [first, second], ifNoneMatch: false)
        let requests = transport.requests
        #expect(requests.count == 4)
        #expect(requests[0].headers["x-amz-storage-class"] == "STANDARD_IA")
        #expect(requests[0].headers["content-type"] == "application/octet-stream")  // a part: no zip
        #expect(requests[0].headers["x-amz-tagging"] == "project=a%20b%26c%3Dd&tier=%C3%A9")
        #expect(requests[0].headers["x-amz-server-side-encryption"] == "aws:kms")
        // UploadPart, UploadPartCopy and CompleteMultipartUpload take none of them (S3 answers
        // 400 to SSE-KMS headers on a part).
        for request in requests.dropFirst() {
            let names = request.headers.keys.filter {
                $0.hasPrefix("x-amz-storage") || $0.hasPrefix("x-amz-tagging") || $0.hasPrefix("x-amz-server-side")
            }
            #expect(names.isEmpty, "\(request.method) \(request.url): \(names)")
        }
        #expect(requests[3].headers["content-type"] == "application/xml")
    }

    @Test func aCustomerKeyGoesOnEveryRequestThatTouchesTheBytesAndOnTheCopySource() throws {
        var options = S3ObjectOptions()
        options.customerKey = try S3CustomerKey(key: Self.key, source: "key")
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, headers: ["content-length": "5", "etag": "\"e\""])),
            .answer(
                HTTPResponse(
                    status: 206, headers: ["content-length": "2", "content-range": "bytes 0-1/5"],
                    body: Data([1, 2]))),
            .answer(HTTPResponse(status: 200, body: Data("<UploadId>U1</UploadId>".utf8))),
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"p1\""])),
            .answer(HTTPResponse(status: 200, body: Data("<CopyPartResult><ETag>\"p2\"</ETag></CopyPartResult>".utf8))),
            .answer(HTTPResponse(status: 204)),
        ])
        let client = try client(options, transport)
        let object = ObjectLocation(bucket: "b", key: "k")
        _ = try client.head(object)
        var bytes = [UInt8](repeating: 0, count: 2)
        try bytes.withUnsafeMutableBytes { try client.get(object, range: 0..<2, into: $0) }
        let upload = try client.createMultipartUpload(ObjectLocation(bucket: "b", key: "out"))
        _ = try [UInt8](repeating: 1, count: 10).withUnsafeBytes {
            try client.uploadPart(upload, partNumber: 1, body: $0)
        }
        _ = try client.uploadPartCopy(upload, partNumber: 2, source: object, range: 0..<5)
        try client.abortMultipartUpload(upload)
        let requests = transport.requests
        #expect(requests.count == 6)
        let customer = "x-amz-server-side-encryption-customer-"
        for request in requests.prefix(5) {
            #expect(request.headers[customer + "algorithm"] == "AES256", "\(request.method) \(request.url)")
            #expect(request.headers[customer + "key"] == Self.keyBase64)
            #expect(request.headers[customer + "key-md5"] == Self.keyMD5Base64)
            #expect(Self.signedHeaders(request).contains(customer + "key-md5"))
        }
        let source = "x-amz-copy-source-server-side-encryption-customer-"
        #expect(requests[4].headers[source + "algorithm"] == "AES256")
        #expect(requests[4].headers[source + "key"] == Self.keyBase64)
        #expect(requests[4].headers[source + "key-md5"] == Self.keyMD5Base64)
        #expect(requests.prefix(4).allSatisfy { $0.headers[source + "key"] == nil })
        #expect(requests[5].headers[customer + "key"] == nil)  // AbortMultipartUpload takes none
    }

    @Test func theCustomerKeyNeverAppearsInAMessageOrADescription() throws {
        var options = S3ObjectOptions()
        options.customerKey = try S3CustomerKey(key: Self.key, source: "key")
        let echo = "<Error><Code>InvalidArgument</Code><Message>bad key \(Self.keyBase64)</Message></Error>"
        let transport = ScriptedTransport([.answer(HTTPResponse(status: 400, body: Data(echo.utf8)))])
        let client = try client(options, transport)
        var bytes = [UInt8](repeating: 0, count: 2)
        let error = try #require(throws: GCDCatError.self) {
            try bytes.withUnsafeMutableBytes {
                try client.get(ObjectLocation(bucket: "b", key: "k"), range: 0..<2, into: $0)
            }
        }
        #expect(error.description == "s3://b/k: GetObject: InvalidArgument (HTTP 400): bad key <redacted>")
        #expect(!"\(options)".contains(Self.keyBase64))
        #expect("\(options.customerKey!)" == "S3CustomerKey(MD5 \(Self.keyMD5Base64))")
    }

    @Test(arguments: [0, 31, 33])
    func aCustomerKeyOfAnotherLengthIsRefused(length: Int) throws {
        let error = try #require(throws: GCDCatError.self) {
            try S3CustomerKey(key: [UInt8](repeating: 7, count: length), source: "k.bin")
        }
        #expect(error.path == "k.bin")
        #expect(error.message.hasPrefix("an SSE-C key is 32 bytes; this file holds \(length)"), "\(error)")
    }

    @Test func requesterPaysAndTheExpectedOwnerGoOnEveryRequest() throws {
        var options = S3ObjectOptions()
        options.requestPayer = true
        options.expectedBucketOwner = "111122223333"
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 404)),
            .answer(HTTPResponse(status: 200, body: Data("<ListBucketResult></ListBucketResult>".utf8))),
            .answer(HTTPResponse(status: 200, body: Data("<UploadId>U1</UploadId>".utf8))),
            .answer(HTTPResponse(status: 200, body: Data("<CopyPartResult><ETag>\"p2\"</ETag></CopyPartResult>".utf8))),
            .answer(HTTPResponse(status: 204)),
            .answer(HTTPResponse(status: 204)),
        ])
        let client = try client(options, transport)
        let object = ObjectLocation(bucket: "b", key: "k")
        _ = try client.head(object)
        _ = try client.list(bucket: "b", prefix: "k")
        let upload = try client.createMultipartUpload(object)
        _ = try client.uploadPartCopy(
            upload, partNumber: 1, source: ObjectLocation(bucket: "s", key: "x"), range: 0..<5)
        try client.abortMultipartUpload(upload)
        try client.delete(object)
        let requests = transport.requests
        #expect(requests.count == 6)
        for request in requests {
            #expect(request.headers["x-amz-request-payer"] == "requester", "\(request.method) \(request.url)")
            #expect(request.headers["x-amz-expected-bucket-owner"] == "111122223333")
            #expect(Self.signedHeaders(request).isSuperset(of: ["x-amz-request-payer", "x-amz-expected-bucket-owner"]))
        }
        #expect(requests[3].headers["x-amz-source-expected-bucket-owner"] == "111122223333")
        #expect(requests.filter { $0.headers["x-amz-source-expected-bucket-owner"] != nil }.count == 1)
    }

    @Test func withoutOptionsAPutSendsOnlyTheGuessedType() throws {
        let transport = ScriptedTransport([.answer(HTTPResponse(status: 200, headers: ["etag": "\"e\""]))])
        let client = try client(S3ObjectOptions(), transport)
        try [UInt8]([1]).withUnsafeBytes {
            try client.put(ObjectLocation(bucket: "b", key: "notes.txt"), body: $0, ifNoneMatch: false)
        }
        let request = try #require(transport.requests.first)
        #expect(request.headers["content-type"] == "text/plain")
        let extra = request.headers.keys.filter {
            $0.hasPrefix("x-amz-") && !["x-amz-date", "x-amz-content-sha256"].contains($0)
        }
        #expect(extra.isEmpty, "\(extra)")
    }

    @Test(
        arguments: [
            ("movie.zip", nil, "application/zip"),
            ("dir/movie.ZIP", nil, "application/zip"),
            ("movie.zip.001", nil, "application/octet-stream"),
            ("big.iso", nil, "application/x-iso9660-image"),
            ("backup.tar", nil, "application/x-tar"),
            ("backup.tar.gz", nil, "application/gzip"),
            ("a.7z", nil, "application/x-7z-compressed"),
            ("data.bin", nil, "application/octet-stream"),
            ("notes.txt", nil, "text/plain"),
            ("table.csv", nil, "text/csv"),
            ("doc.json", nil, "application/json"),
            ("noextension", nil, "application/octet-stream"),
            (".hidden", nil, "application/octet-stream"),
            ("dir.zip/name", nil, "application/octet-stream"),
            ("movie.zip", "video/mp4", "video/mp4"),
            ("movie.zip.001", "application/zip", "application/zip"),
            // The client knows no sidecars: the core gives their type (``SidecarContentType``).
            ("movie.zip.sfv", "application/zip", "application/zip"),
            ("movie.zip.sfv", nil, "application/octet-stream"),
        ] as [(String, String?, String)])
    func theContentTypeIsChosenOrGuessedFromTheName(key: String, chosen: String?, expected: String) {
        #expect(S3ContentType.of(key: key, chosen: chosen) == expected)
    }

    @Test(
        arguments: [
            ("movie.zip.sfv", "text/plain"), ("dir/movie.zip.SHA256", "text/plain"), ("movie.zip.md5", "text/plain"),
            ("a.sha1", "text/plain"), ("a.sha512", "text/plain"), ("a.b2", "text/plain"), ("a.crc", "text/plain"),
            ("movie.zip.par2", "application/octet-stream"), ("movie.zip.vol0+1.par2", "application/octet-stream"),
            ("movie.zip", nil), ("movie.zip.001", nil), ("sfv", nil),
        ] as [(String, String?)])
    func aSidecarsTypeIsTheCores(key: String, expected: String?) {
        #expect(SidecarContentType.of(key: key) == expected)
    }

    /// A type the writer gives is sent whatever `--content-type` says (a checksum list stays
    /// text/plain), by PutObject and CreateMultipartUpload alike; nil leaves the option's.
    @Test func aGivenTypeIsSentOverTheChosenOne() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"e\""])),
            .answer(HTTPResponse(status: 200, body: Data("<UploadId>U1</UploadId>".utf8))),
            .answer(HTTPResponse(status: 200, headers: ["etag": "\"e\""])),
        ])
        var options = S3ObjectOptions()
        options.contentType = "application/zip"
        let client = try client(options, transport)
        let list = ObjectLocation(bucket: "b", key: "movie.zip.sfv")
        try [UInt8]([1]).withUnsafeBytes {
            try client.put(list, body: $0, ifNoneMatch: false, metadata: [:], contentType: "text/plain")
        }
        _ = try client.createMultipartUpload(list, metadata: [:], contentType: "text/plain")
        try [UInt8]([1]).withUnsafeBytes {
            try client.put(list, body: $0, ifNoneMatch: false, metadata: [:], contentType: nil)
        }
        #expect(
            transport.requests.map { $0.headers["content-type"] } == ["text/plain", "text/plain", "application/zip"])
    }

    @Test func tagsAreParsedAndRefusedAsS3Would() {
        #expect(S3Tag.parse("k=v=w") == .success(S3Tag(key: "k", value: "v=w")))
        #expect(S3Tag.parse("k=") == .success(S3Tag(key: "k", value: "")))
        #expect(S3Tag.parse("k") == .failure(S3TagError("has no '=': give KEY=VALUE")))
        #expect(S3Tag.parse("=v") == .failure(S3TagError("has an empty key: give KEY=VALUE")))
        #expect(
            S3Tag.parse(String(repeating: "k", count: 129) + "=v")
                == .failure(S3TagError("has a key of 129 characters; S3 allows 128")))
        #expect(
            S3Tag.parse("k=" + String(repeating: "v", count: 257))
                == .failure(S3TagError("has a value of 257 characters; S3 allows 256")))
    }
}
