/// The Content-Type an object is written with: the one its writer gives (gcdcat's own sidecars,
/// which the core names), else the one the user chose, else a guess from the key's extension
/// (as awscli guesses from the name); a part (`movie.zip.001`) is `application/octet-stream`,
/// its merged whole (`movie.zip`) `application/zip`.
public enum S3ContentType {
    /// When nothing is known.
    public static let fallback = "application/octet-stream"

    /// Data formats, by lowercased extension.
    static let byExtension: [String: String] = [
        "zip": "application/zip", "iso": "application/x-iso9660-image", "tar": "application/x-tar",
        "gz": "application/gzip", "tgz": "application/gzip", "7z": "application/x-7z-compressed",
        "xz": "application/x-xz", "zst": "application/zstd", "bz2": "application/x-bzip2",
        "rar": "application/vnd.rar", "bin": fallback, "img": fallback, "txt": "text/plain", "csv": "text/csv",
        "json": "application/json", "mp4": "video/mp4", "mkv": "video/x-matroska",
    ]

    /// `chosen`, else the guess.
    public static func of(key: String, chosen: String?) -> String {
        chosen ?? byExtension[fileExtension(key)] ?? fallback
    }

    /// The guess alone.
    public static func guess(forKey key: String) -> String { of(key: key, chosen: nil) }

    /// After the last `.` of the key's last segment, lowercased; empty when there is none.
    package static func fileExtension(_ key: String) -> String {
        let name = key.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(key)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
