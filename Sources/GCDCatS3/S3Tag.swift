/// One object tag, `KEY=VALUE` on the command line, sent in `x-amz-tagging`.
public struct S3Tag: Sendable, Equatable {
    public var key: String
    public var value: String

    /// S3's limits: at most 10 tags per object, keys of 1 to 128 characters, values of at most 256.
    public static let maximumCount = 10
    public static let maximumKeyLength = 128
    public static let maximumValueLength = 256

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// `KEY=VALUE` (the value may hold `=`); nil with the reason when S3 would refuse it.
    public static func parse(_ text: String) -> Result<S3Tag, S3TagError> {
        guard let equals = text.firstIndex(of: "=") else { return .failure(.init("has no '=': give KEY=VALUE")) }
        let tag = S3Tag(key: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
        if tag.key.isEmpty { return .failure(.init("has an empty key: give KEY=VALUE")) }
        if tag.key.count > maximumKeyLength {
            return .failure(.init("has a key of \(tag.key.count) characters; S3 allows \(maximumKeyLength)"))
        }
        if tag.value.count > maximumValueLength {
            return .failure(.init("has a value of \(tag.value.count) characters; S3 allows \(maximumValueLength)"))
        }
        return .success(tag)
    }

    /// The header's value: a URL query string, each key and value percent-encoded (RFC 3986).
    static func headerValue(_ tags: [S3Tag]) -> String {
        tags.map { S3URIEncoding.encode($0.key) + "=" + S3URIEncoding.encode($0.value) }.joined(separator: "&")
    }
}

/// Why a `--tag` was refused.
public struct S3TagError: Error, Sendable, Equatable {
    public var reason: String
    package init(_ reason: String) { self.reason = reason }
}
