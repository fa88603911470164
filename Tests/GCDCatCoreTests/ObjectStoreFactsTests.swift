import Testing

@testable import GCDCatCore

/// The text report's S3 lines say what happened and why.
@Suite struct ObjectStoreFactsTests {
    static let counts = CountingObjectStore(MemoryObjectStore()).counts

    /// The line read "downloaded     under 5 MiB, so not copied: …" for parts that were not
    /// under 5 MiB (a big part's head, a key with '%'), and hid that they were uploaded again
    /// (outside attack on issue 24).
    @Test func theDownloadedLineNamesThePartsAndWhyEachKindWasNotCopied() {
        let facts = ObjectStoreFacts(
            counts: Self.counts, downloadedSmallParts: ["s3://b/a.001", "s3://b/w%41.002"])
        #expect(
            facts.lines.contains(
                "downloaded     s3://b/a.001, s3://b/w%41.002, whole or in part, and uploaded again: S3 copies no "
                    + "upload part under 5 MiB; Ceph RGW decodes a copy source with '%' twice"), "\(facts.lines)")
    }

    @Test func smallPartsAloneGiveTheSizeReasonAlone() {
        let facts = ObjectStoreFacts(counts: Self.counts, downloadedSmallParts: ["s3://b/a.001"])
        #expect(
            facts.lines.last
                == "downloaded     s3://b/a.001, whole or in part, and uploaded again: S3 copies no upload part under "
                + "5 MiB")
    }
}
