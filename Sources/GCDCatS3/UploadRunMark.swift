/// The metadata by which every multipart upload gcdcat creates is its own:
/// `x-amz-meta-gcdcat-run: <run id>`, one random id per process.
///
/// S3 stores it with the upload on the CreateMultipartUpload request itself, so it is there even
/// when that request's answer was lost, and it stays on the completed object (HEAD shows which
/// run wrote it). ListMultipartUploads shows only an upload's key, ID and `Initiated` time; that
/// is what `gcdcat uploads` and a rerun go by.
public enum UploadRunMark {
    /// The metadata name, without the `x-amz-meta-` prefix.
    public static let metadataName = "gcdcat-run"

    /// This process's run id: 16 lowercase hex digits.
    public static let current: String = {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }()

    /// `metadata` with this run's mark added.
    public static func marking(_ metadata: [String: String]) -> [String: String] {
        metadata.merging([metadataName: current]) { _, mark in mark }
    }
}
