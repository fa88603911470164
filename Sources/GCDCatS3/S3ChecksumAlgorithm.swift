/// `--checksum-algorithm`: the flexible checksum gcdcat sends with the objects it writes, so
/// the server checks every part and the whole object end to end.
public enum S3ChecksumAlgorithm: String, Sendable, CaseIterable {
    /// CRC-32C as a full-object checksum (``CRC32C``): the whole object's value follows from the
    /// parts' values and lengths, so gcdcat knows it without reading the bytes again.
    case crc32c = "CRC32C"

    /// The headers of the request that creates the object. PutObject names the algorithm
    /// beside the value (`x-amz-sdk-checksum-algorithm`, which moto needs to keep it); a
    /// multipart upload names it and asks for a full-object checksum rather than a composite
    /// (a checksum of the parts' checksums, which no local tool can compare with).
    func creationHeaders(for operation: String) -> [String: String] {
        switch operation {
        case "CreateMultipartUpload":
            return ["x-amz-checksum-algorithm": rawValue, "x-amz-checksum-type": "FULL_OBJECT"]
        case "PutObject", "UploadPart":
            return ["x-amz-sdk-checksum-algorithm": rawValue]
        default:
            return [:]
        }
    }
}
