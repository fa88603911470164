import GCDCatSystem

/// The ETag S3 gives an object made by CompleteMultipartUpload: the MD5 of the parts' binary
/// MD5s (their ETags) one after another, then `-` and the part count. AWS and Ceph RGW both
/// compute it so.
///
/// A completion whose answer was lost and whose retry finds its upload gone (`NoSuchUpload`)
/// may still have succeeded: the object under the key is this upload's exactly when its ETag
/// is the one these parts make (``S3Client/completeMultipartUpload(_:parts:ifNoneMatch:)``).
package enum MultipartETag {
    /// The completed object's ETag for `parts` (in part-number order); nil when a part's ETag
    /// is not a plain MD5 in hex (then nothing can be concluded).
    package static func of(_ parts: [UploadedPart]) -> String? {
        guard !parts.isEmpty else { return nil }
        var md5s: [UInt8] = []
        for part in parts {
            guard let md5 = bytes(ofHex: part.etag), md5.count == 16 else { return nil }
            md5s += md5
        }
        return RequestDigests.hex(md5s.withUnsafeBytes(RequestDigests.md5)) + "-\(parts.count)"
    }

    private static func bytes(ofHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
