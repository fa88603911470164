import GCDCatSystem

/// URI encoding as SigV4 defines it: every byte of the UTF-8 form except the unreserved
/// `A-Z a-z 0-9 - . _ ~` becomes `%XX` (uppercase hex), so a space is `%20`, never `+`.
///
/// Object keys keep their `/` (each segment encoded); query names and values and the
/// `x-amz-copy-source` segments encode it too.
public enum S3URIEncoding {
    public static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical query string: names and values encoded, sorted by name then value, `&`-joined.
    /// A parameter without a value (`?uploads`) appears as `uploads=`.
    public static func canonicalQuery(_ parameters: [(name: String, value: String)]) -> String {
        parameters
            .map { (encode($0.name), encode($0.value)) }
            .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
