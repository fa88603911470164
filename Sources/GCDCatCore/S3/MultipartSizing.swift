/// S3's multipart limits, and the part size an upload uses.
public enum MultipartSizing {
    /// A non-final part may not be smaller (EntityTooSmall).
    public static let minimumPartSize: UInt64 = 5 << 20
    /// No part, uploaded or copied, may be larger; nor an `x-amz-copy-source-range`.
    public static let maximumPartSize: UInt64 = 5 << 30
    /// Part numbers run from 1 to this.
    public static let maximumParts = 10_000
    /// 16 MiB: few requests per GiB, and `jobs` buffers of it stay small.
    public static let defaultPartSize = 16 << 20

    /// The part size for an upload of `total` bytes: `preferred` (at least 5 MiB), grown in
    /// whole MiB until the upload needs at most 10 000 parts.
    public static func partSize(total: UInt64, preferred: Int) -> Int {
        let mebibyte: UInt64 = 1 << 20
        var size = max(UInt64(max(preferred, 0)), minimumPartSize)
        let needed = (total + UInt64(maximumParts) - 1) / UInt64(maximumParts)
        if needed > size { size = (needed + mebibyte - 1) / mebibyte * mebibyte }
        return Int(min(size, maximumPartSize))
    }

    /// How many parts of `partSize` hold `total` bytes (0 for none).
    static func partCount(total: UInt64, partSize: Int) -> Int {
        Int((total + UInt64(partSize) - 1) / UInt64(partSize))
    }
}
