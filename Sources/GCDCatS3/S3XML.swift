import GCDCatSystem

/// A small reader for the flat XML documents S3 answers with (`Error`, `ListBucketResult`,
/// `InitiateMultipartUploadResult`, `CopyPartResult`, `ListMultipartUploadsResult`).
///
/// ## Implementation details
/// S3's responses are shallow, attribute-free below the root, and never reuse an element name
/// at two depths that gcdcat reads, so finding `<Name>…</Name>` is enough. FoundationXML
/// would drag libxml2 into the static binary for this. Entities (`&amp;` `&lt;` `&gt;`
/// `&quot;` `&apos;` `&#NN;` `&#xNN;`) are decoded, so keys with `&` and non-ASCII survive.
public enum S3XML {
    /// The decoded text of every `<name>` element, in document order.
    public static func values(_ name: String, in xml: [UInt8]) -> [String] {
        elements(name, in: xml[...]).map { decodeEntities($0) }
    }

    /// The decoded text of the first `<name>` element.
    public static func value(_ name: String, in xml: [UInt8]) -> String? {
        elements(name, in: xml[...], limit: 1).first.map { decodeEntities($0) }
    }

    /// The raw contents of each `<name>` element (an `<Upload>`, a `<Contents>`), for reading
    /// its children with ``value(_:in:)``.
    public static func blocks(_ name: String, in xml: [UInt8]) -> [[UInt8]] {
        elements(name, in: xml[...]).map { Array($0) }
    }

    /// S3's `<Error><Code>…</Code><Message>…</Message></Error>`, when the body is one; a
    /// 200 answer to UploadPartCopy or CompleteMultipartUpload can carry it too.
    public static func error(in xml: [UInt8]) -> (code: String, message: String)? {
        guard let error = elements("Error", in: xml[...], limit: 1).first else { return nil }
        let body = Array(error)
        return (value("Code", in: body) ?? "UnknownError", value("Message", in: body) ?? "")
    }

    /// Escapes text for an element's content.
    public static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    private static func elements(_ name: String, in xml: ArraySlice<UInt8>, limit: Int = .max) -> [ArraySlice<UInt8>] {
        let open = Array("<\(name)".utf8)
        let close = Array("</\(name)>".utf8)
        var found: [ArraySlice<UInt8>] = []
        var rest = xml
        while found.count < limit, let start = rest.firstRange(of: open) {
            // `<Name>`, `<Name attr…>` or `<Name/>`, but not `<NameMarker>`.
            guard start.upperBound < rest.endIndex else { break }
            let next = rest[start.upperBound]
            guard next == UInt8(ascii: ">") || next == UInt8(ascii: " ") || next == UInt8(ascii: "/") else {
                rest = rest[start.upperBound...]
                continue
            }
            guard let tagEnd = rest[start.upperBound...].firstIndex(of: UInt8(ascii: ">")) else { break }
            if rest[rest.index(before: tagEnd)] == UInt8(ascii: "/") {
                found.append([][...])
                rest = rest[(tagEnd + 1)...]
                continue
            }
            guard let end = rest[(tagEnd + 1)...].firstRange(of: close) else { break }
            found.append(rest[(tagEnd + 1)..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// Decodes the five named entities and numeric character references; anything else
    /// unrecognised is kept as written.
    public static func decodeEntities<Bytes: Collection<UInt8>>(_ text: Bytes) -> String {
        let bytes = Array(text)
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&"),
                let semicolon = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";"))
            else {
                out.append(byte)
                index += 1
                continue
            }
            let entity = String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)
            if let replacement = decodeEntity(entity) {
                out += replacement
                index = semicolon + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func decodeEntity(_ entity: String) -> [UInt8]? {
        switch entity {
        case "amp": return [UInt8(ascii: "&")]
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            guard entity.hasPrefix("#") else { return nil }
            let digits = entity.dropFirst()
            let value =
                digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, let scalar = Unicode.Scalar(value) else { return nil }
            return Array(String(Character(scalar)).utf8)
        }
    }
}
