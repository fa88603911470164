import GCDCatSystem

/// A multipart upload that was started and neither completed nor aborted, as
/// ListMultipartUploads shows it: what a killed run leaves behind.
public struct PendingUpload: Sendable, Equatable {
    public var upload: MultipartUpload
    /// When the server initiated it, seconds since 1970 by the server's clock; nil when the
    /// listing gave no readable `Initiated`.
    public var initiated: Double?
    /// The storage class the listing gives the upload (`STANDARD`, `GLACIER`, …): the one
    /// setting of its creation S3 shows before it completes; nil when the listing gave none.
    public var storageClass: String?
    /// The flexible checksum the upload was created with (`CRC32C`, …), which the listing shows
    /// too; nil when it gave none.
    public var checksumAlgorithm: String?

    public init(
        upload: MultipartUpload, initiated: Double?, storageClass: String? = nil, checksumAlgorithm: String? = nil
    ) {
        self.upload = upload
        self.initiated = initiated
        self.storageClass = storageClass
        self.checksumAlgorithm = checksumAlgorithm
    }
}

/// The uploads under a prefix, with the server's clock when it listed them, so that an age is
/// measured on one clock (the client's may be off).
public struct PendingUploadListing: Sendable, Equatable {
    public var uploads: [PendingUpload]
    /// The listing answer's `Date`, seconds since 1970; nil when the server sent none.
    public var serverTime: Double?

    public init(uploads: [PendingUpload], serverTime: Double?) {
        self.uploads = uploads
        self.serverTime = serverTime
    }
}

/// One part an upload holds on the server, as ListParts shows it.
public struct ListedPart: Sendable, Equatable {
    public var partNumber: Int
    /// Quotes removed: the part's MD5 in hex for an uploaded part (and for a copied one on S3
    /// and RGW).
    public var etag: String
    public var size: UInt64
    /// When the part was written, seconds since 1970 by the server's clock (`LastModified`);
    /// nil when the listing gave none.
    public var lastModified: Double?

    public init(partNumber: Int, etag: String, size: UInt64, lastModified: Double? = nil) {
        self.partNumber = partNumber
        self.etag = etag
        self.size = size
        self.lastModified = lastModified
    }
}

extension S3Client {
    /// ListMultipartUploads under `prefix`, all pages, with each upload's `Initiated` and the
    /// server's `Date` of the first page.
    public func listPendingUploads(bucket: String, prefix: String) throws -> PendingUploadListing {
        let request = S3Request(
            operation: "ListMultipartUploads", method: "GET", location: ObjectLocation(bucket: bucket, key: prefix),
            bucketLevel: true, query: [("uploads", ""), ("prefix", prefix)],
            checkBody: {
                Self.isXML("ListMultipartUploadsResult", $0) ? nil : "the answer is not a ListMultipartUploadsResult"
            })
        var listing = PendingUploadListing(uploads: [], serverTime: nil)
        try forEachPage(of: request, paging: .uploads) { response, body in
            if listing.serverTime == nil { listing.serverTime = response.headers["date"].flatMap(S3Dates.httpDate) }
            for entry in S3XML.blocks("Upload", in: body) {
                guard let key = S3XML.value("Key", in: entry), let id = S3XML.value("UploadId", in: entry) else {
                    continue
                }
                listing.uploads.append(
                    PendingUpload(
                        upload: MultipartUpload(location: ObjectLocation(bucket: bucket, key: key), uploadID: id),
                        initiated: S3XML.value("Initiated", in: entry).flatMap(S3Dates.isoDate),
                        storageClass: S3XML.value("StorageClass", in: entry),
                        checksumAlgorithm: S3XML.value("ChecksumAlgorithm", in: entry)))
            }
        }
        return listing
    }

    /// ListParts, all pages; nil when the upload is gone (`NoSuchUpload`, HTTP 404).
    public func listParts(_ upload: MultipartUpload) throws -> [ListedPart]? {
        let request = S3Request(
            operation: "ListParts", method: "GET", location: upload.location, query: [("uploadId", upload.uploadID)],
            checkBody: {
                // moto names the root ListPartsResponse; botocore reads the parts either way.
                $0.status == 404 || Self.isXML("ListPartsResult", $0) || Self.isXML("ListPartsResponse", $0)
                    ? nil : "the answer is not a ListPartsResult"
            })
        var parts: [ListedPart] = []
        let gone = try forEachPage(
            of: request, paging: .parts, allowing: [404], listing: "listing of upload \(upload.uploadID)"
        ) { _, body in
            for entry in S3XML.blocks("Part", in: body) {
                guard let number = S3XML.value("PartNumber", in: entry).flatMap({ Int($0) }),
                    let size = S3XML.value("Size", in: entry).flatMap({ UInt64($0) })
                else { continue }
                parts.append(
                    ListedPart(
                        partNumber: number, etag: S3XML.value("ETag", in: entry).map(Self.unquoted) ?? "", size: size,
                        lastModified: S3XML.value("LastModified", in: entry).flatMap(S3Dates.isoDate)))
            }
        }
        if gone != nil { return nil }
        return parts
    }
}
