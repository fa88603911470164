import GCDCatS3

/// The crc32 gcdcat records on every object it uploads, as user metadata:
/// `x-amz-meta-gcdcat-crc32: 8 lowercase hex digits`, the crc32 of the object's whole content.
///
/// A server-side merge checks a part against its manifest with this value instead of reading
/// the part (unless `--no-stored-checksums`), as it would with the server's own
/// `x-amz-checksum-crc32`, which Ceph 16 does not keep.
///
/// ## Why it can be trusted, and how far
/// The value is computed from the bytes gcdcat sent (each body is also covered by the signed
/// `x-amz-content-sha256`, which the server checks), and S3 replaces an object's metadata with
/// the object: a PUT or a completed upload by another tool leaves no `gcdcat-crc32`, so such an
/// object is read. What the record cannot rule out is someone who writes a wrong value on
/// purpose (S3 lets any writer set any metadata): it proves the object is what gcdcat uploaded,
/// not that nobody with write access forged it. Reading (`--no-stored-checksums`) checks bytes.
public enum RecordedChecksum {
    /// The metadata name, without the `x-amz-meta-` prefix.
    public static let metadataName = "gcdcat-crc32"

    /// The metadata that records `crc32`.
    public static func metadata(_ crc32: UInt32) -> [String: String] {
        [metadataName: hex8(crc32)]
    }

    /// The recorded crc32 in `metadata`, when it holds exactly eight hex digits (anything else
    /// counts as no record, and the object is read).
    public static func crc32(in metadata: [String: String]) -> UInt32? {
        guard let text = metadata[metadataName], text.utf8.count == 8,
            text.utf8.allSatisfy({ isHexDigit($0) })
        else { return nil }
        return UInt32(text, radix: 16)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

extension ObjectInfo {
    /// The crc32 gcdcat recorded when it uploaded the object (``RecordedChecksum``), if any.
    public var recordedCRC32: UInt32? { metadata.flatMap(RecordedChecksum.crc32(in:)) }
}
