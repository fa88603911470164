import GCDCatCore
import Testing

struct S3XMLTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func listingKeysDecodeEntitiesAndNonASCII() {
        let xml = bytes(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix/>\
            <KeyCount>3</KeyCount><IsTruncated>true</IsTruncated><NextContinuationToken>a&amp;b</NextContinuationToken>\
            <Contents><Key>a&amp;b &lt;c&gt; &quot;q&quot; &apos;s&apos;</Key><Size>10</Size>\
            <ETag>&quot;abc&quot;</ETag></Contents>\
            <Contents><Key>caf&#233;/&#x65E5;本.001</Key><Size>0</Size></Contents>\
            <Contents><Key>plain &amp;unknown; &#xZZ; &</Key><Size>5</Size></Contents></ListBucketResult>
            """)
        #expect(
            S3XML.blocks("Contents", in: xml).compactMap { S3XML.value("Key", in: $0) } == [
                "a&b <c> \"q\" 's'", "café/日本.001", "plain &unknown; &#xZZ; &",
            ])
        #expect(S3XML.values("Size", in: xml) == ["10", "0", "5"])
        #expect(S3XML.value("ETag", in: xml) == "\"abc\"")
        #expect(S3XML.value("IsTruncated", in: xml) == "true")
        #expect(S3XML.value("NextContinuationToken", in: xml) == "a&b")
        #expect(S3XML.value("Prefix", in: xml) == "")  // <Prefix/>
        #expect(S3XML.value("Missing", in: xml) == nil)
        #expect(S3XML.error(in: xml) == nil)
    }

    @Test func similarNamesAreNotConfused() {
        let xml = bytes(
            "<ListMultipartUploadsResult><KeyMarker>km</KeyMarker><UploadIdMarker>um</UploadIdMarker>"
                + "<NextKeyMarker>nk</NextKeyMarker><Upload><Key>k1</Key><UploadId>u1</UploadId></Upload>"
                + "<Upload><Key>k2</Key><UploadId>u2</UploadId></Upload></ListMultipartUploadsResult>")
        #expect(S3XML.value("Key", in: xml) == "k1")
        #expect(S3XML.values("UploadId", in: xml) == ["u1", "u2"])
        #expect(S3XML.value("NextKeyMarker", in: xml) == "nk")
        #expect(S3XML.blocks("Upload", in: xml).count == 2)
    }

    @Test func errorInsideA200Body() {
        // What UploadPartCopy and CompleteMultipartUpload may answer with status 200.
        let xml = bytes(
            """
            <?xml version="1.0" encoding="UTF-8"?>

            <Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message>\
            <RequestId>656c76696e6727732072657175657374</RequestId></Error>
            """)
        let error = S3XML.error(in: xml)
        #expect(error?.code == "InternalError")
        #expect(error?.message == "We encountered an internal error. Please try again.")
        let copied = bytes("<CopyPartResult><LastModified>x</LastModified><ETag>&quot;e1&quot;</ETag></CopyPartResult>")
        #expect(S3XML.error(in: copied) == nil)
        #expect(S3XML.value("ETag", in: copied) == "\"e1\"")
        let noMessage = S3XML.error(in: bytes("<Error><Code>NoSuchKey</Code></Error>"))
        #expect(noMessage?.code == "NoSuchKey" && noMessage?.message == "")
    }

    @Test func escapeRoundTrips() {
        let text = "a&b<c>\"d\"'e' ü"
        #expect(S3XML.escape(text) == "a&amp;b&lt;c&gt;&quot;d&quot;&apos;e&apos; ü")
        #expect(S3XML.decodeEntities(Array(S3XML.escape(text).utf8)) == text)
    }
}
