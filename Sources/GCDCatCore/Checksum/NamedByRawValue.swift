/// A value that JSON names by its raw string (`"sha256"`, `"blake2b-256"`), as the command
/// line does: decoding an unknown name is an error that says the name.
public protocol NamedByRawValue: RawRepresentable, Codable where RawValue == String {}

extension NamedByRawValue {
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(rawValue: name) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown algorithm '\(name)'"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
