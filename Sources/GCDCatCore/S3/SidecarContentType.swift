import GCDCatS3

/// The Content-Type of gcdcat's own sidecars written as objects: a checksum list is
/// `text/plain`, a PAR2 file `application/octet-stream`, whatever `--content-type` says, which
/// is about the data. The client knows data types only (``S3ContentType``); which objects are a
/// set's sidecars is the core's to say, and it gives their type with each object it creates.
enum SidecarContentType {
    /// By lowercased extension.
    static let byExtension: [String: String] = [
        "sfv": "text/plain", "md5": "text/plain", "sha1": "text/plain", "sha256": "text/plain",
        "sha512": "text/plain", "b2": "text/plain", "crc": "text/plain", "par2": S3ContentType.fallback,
    ]

    /// The type of the sidecar `key` names; nil for data, which takes the run's `--content-type`
    /// or the key's guess.
    static func of(key: String) -> String? { byExtension[S3ContentType.fileExtension(key)] }
}
