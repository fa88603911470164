import GCDCatCore
import Testing

/// AWS's worked examples from "Signature Calculations for the Authorization Header:
/// Transferring Payload in a Single Chunk" (S3 API reference): fixed keys, date and bucket,
/// with the canonical request, string to sign and signature AWS publishes.
struct S3SignerTests {
    let signer = SigV4Signer(
        credentials: S3Credentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    let host = "examplebucket.s3.amazonaws.com"
    let date = "20130524T000000Z"
    let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test func emptyPayloadHash() {
        #expect(SigV4Signer.emptyPayloadHash == empty)
    }

    @Test func getObjectWithRange() {
        let signed = signer.sign(
            method: "GET", encodedPath: "/test.txt", query: [],
            headers: ["Host": host, "Range": "bytes=0-9", "x-amz-content-sha256": empty, "x-amz-date": date],
            payloadHash: empty, amzDate: date)
        #expect(
            signed.canonicalRequest == """
                GET
                /test.txt

                host:examplebucket.s3.amazonaws.com
                range:bytes=0-9
                x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                x-amz-date:20130524T000000Z

                host;range;x-amz-content-sha256;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            signed.stringToSign == """
                AWS4-HMAC-SHA256
                20130524T000000Z
                20130524/us-east-1/s3/aws4_request
                7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
                """)
        #expect(signed.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(
            signed.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func putObject() {
        let body = Array("Welcome to Amazon S3.".utf8)
        let payload = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
        #expect(sha256Hex(body) == payload)
        let signed = signer.sign(
            method: "PUT", encodedPath: "/" + S3URIEncoding.encode("test$file.text", keepingSlash: true), query: [],
            headers: [
                "Host": host, "Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-date": date,
                "x-amz-storage-class": "REDUCED_REDUNDANCY", "x-amz-content-sha256": payload,
            ],
            payloadHash: payload, amzDate: date)
        #expect(
            signed.canonicalRequest == """
                PUT
                /test%24file.text

                date:Fri, 24 May 2013 00:00:00 GMT
                host:examplebucket.s3.amazonaws.com
                x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072
                x-amz-date:20130524T000000Z
                x-amz-storage-class:REDUCED_REDUNDANCY

                date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class
                44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072
                """)
        #expect(
            signed.stringToSign.hasSuffix("\n9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"))
        #expect(signed.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func getBucketLifecycle() {
        let signed = signer.sign(
            method: "GET", encodedPath: "/", query: [("lifecycle", "")],
            headers: ["Host": host, "x-amz-content-sha256": empty, "x-amz-date": date],
            payloadHash: empty, amzDate: date)
        #expect(
            signed.canonicalRequest == """
                GET
                /
                lifecycle=
                host:examplebucket.s3.amazonaws.com
                x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                x-amz-date:20130524T000000Z

                host;x-amz-content-sha256;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            signed.stringToSign.hasSuffix("\n9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca"))
        #expect(signed.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func getBucketListObjects() {
        // Given out of order: the canonical query sorts them.
        let signed = signer.sign(
            method: "GET", encodedPath: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: ["Host": host, "x-amz-content-sha256": empty, "x-amz-date": date],
            payloadHash: empty, amzDate: date)
        #expect(
            signed.canonicalRequest == """
                GET
                /
                max-keys=2&prefix=J
                host:examplebucket.s3.amazonaws.com
                x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                x-amz-date:20130524T000000Z

                host;x-amz-content-sha256;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            signed.stringToSign.hasSuffix("\ndf57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7"))
        #expect(signed.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func headerValuesAreTrimmedAndNamesLowercased() {
        let signed = signer.sign(
            method: "GET", encodedPath: "/", query: [],
            headers: ["X-Amz-Meta-Note": "  two   spaces  ", "Host": host], payloadHash: empty, amzDate: date)
        #expect(
            signed.canonicalRequest.contains("\nhost:\(host)\nx-amz-meta-note:two spaces\n\nhost;x-amz-meta-note\n"))
    }

    @Test func amzDateFormatting() {
        #expect(SigV4Signer.amzDate(secondsSince1970: 1_369_353_600) == "20130524T000000Z")
        #expect(SigV4Signer.amzDate(secondsSince1970: 1_700_000_001) == "20231114T221321Z")
    }

    @Test func uriEncodingFollowsTheSigV4Rules() {
        #expect(S3URIEncoding.encode("a b+c&d=e/f~g_h-i.j") == "a%20b%2Bc%26d%3De%2Ff~g_h-i.j")
        #expect(S3URIEncoding.encode("dir/a b/ü.001", keepingSlash: true) == "dir/a%20b/%C3%BC.001")
        #expect(S3URIEncoding.encode("100%") == "100%25")
        #expect(S3URIEncoding.encode("日") == "%E6%97%A5")
        #expect(
            S3URIEncoding.canonicalQuery([("uploads", ""), ("prefix", "a b"), ("b", "2"), ("b", "1")])
                == "b=1&b=2&prefix=a%20b&uploads=")
    }

    private func sha256Hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { SigV4Signer.payloadHash($0) }
    }
}
