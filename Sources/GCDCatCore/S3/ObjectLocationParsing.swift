extension ObjectLocation {
    /// The `s3://` scheme, as arguments spell it.
    public static let scheme = "s3://"

    /// True when `argument` names an object (`s3://…`) rather than a file.
    public static func isObjectURL(_ argument: String) -> Bool {
        argument.hasPrefix(scheme)
    }

    /// `s3://BUCKET/KEY` → the location; nil for anything that is not an `s3://` argument.
    /// The key may be empty (`s3://b/`, a folder-like prefix); the bucket may not.
    public init?(s3URL argument: String) {
        guard Self.isObjectURL(argument) else { return nil }
        let rest = argument.dropFirst(Self.scheme.count)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty else { return nil }
        let key = rest.dropFirst(bucket.count + (bucket.count < rest.count ? 1 : 0))
        self.init(bucket: String(bucket), key: String(key))
    }
}
