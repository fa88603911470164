/// File names as the kernel has them: bytes, not necessarily UTF-8.
///
/// Linux names are any bytes but `/` and NUL. Latin-1 names (`p\xe9.001`) are common in old
/// archives, and a `String(cString:)` or argv decoding repairs them to U+FFFD, after which the
/// file "does not exist". gcdcat keeps names in `String`s, but decodes them losslessly: every
/// byte that is not part of valid UTF-8 becomes one scalar of the escape range
/// U+10FF80…U+10FFFF (byte `b` → U+10FF00 + b), in the spirit of Python's `surrogateescape`
/// (Swift strings cannot hold lone surrogates). Valid UTF-8 that happens to encode a scalar of
/// that range is escaped byte by byte as well, so the mapping is a bijection: ``bytes(of:)``
/// gives back exactly the bytes ``decode(_:)`` was given.
///
/// ## Implementation details
/// Every syscall that takes a path goes through ``withPathCString(_:_:)``; passing a `String`
/// to a C function directly would send the escape scalars' own UTF-8 instead of the bytes.
public enum PathName {
    /// The first scalar of the escape range; byte `b` (0x80…0xFF) is `escapeBase + b`.
    package static let escapeBase: UInt32 = 0x10_FF00
    package static let escapeRange: ClosedRange<UInt32> = 0x10_FF80...0x10_FFFF

    /// The name for `bytes`, lossless: invalid UTF-8 bytes become escape scalars.
    public static func decode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // ASCII, most names: the bytes are the UTF-8 (a list of 100,000 names decodes each).
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        let array = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < array.count {
            let byte = array[index]
            if byte < 0x80 {
                scalars.append(Unicode.Scalar(byte))
                index += 1
                continue
            }
            if let (scalar, length) = decodeSequence(array, at: index), !escapeRange.contains(scalar.value) {
                scalars.append(scalar)
                index += length
                continue
            }
            // An invalid byte, or a valid encoding of an escape scalar: escape this byte alone.
            scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!)
            index += 1
        }
        return String(scalars)
    }

    /// The name for a NUL-terminated C string.
    public static func decode(cString: UnsafePointer<CChar>) -> String {
        let length = strlen(cString)
        return cString.withMemoryRebound(to: UInt8.self, capacity: length) {
            decode(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The bytes `name` stands for: escape scalars become their byte, the rest UTF-8.
    public static func bytes(of name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if escapeRange.contains(scalar.value) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// True when `name` holds no escape scalar, so its UTF-8 is its bytes.
    package static func isPlainUTF8(_ name: String) -> Bool {
        !name.unicodeScalars.contains { escapeRange.contains($0.value) }
    }

    /// Calls `body` with the NUL-terminated bytes `name` stands for.
    public static func withPathCString<R, E: Error>(
        _ name: String, _ body: (UnsafePointer<CChar>) throws(E) -> R
    ) throws(E) -> R {
        var bytes = isPlainUTF8(name) ? Array(name.utf8) : bytes(of: name)
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            try buffer.withMemoryRebound(to: CChar.self) { (chars) throws(E) -> R in
                try body(chars.baseAddress!)
            }
        }
    }

    /// `name` made safe to print: escape scalars as `\xNN`, control characters (an escape
    /// sequence, a newline) as `\n`, `\r`, `\t` or `\xNN`, and a backslash as `\\` only when something
    /// else was escaped, so ordinary names print as they are.
    public static func display(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: needsEscape) else { return name }
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            case _ where escapeRange.contains(scalar.value):
                out += "\\x" + hex2(UInt8(scalar.value - escapeBase))
            case _ where needsEscape(scalar):
                for byte in String(scalar).utf8 { out += "\\x" + hex2(byte) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `name` for a listing line, as `sha256sum -c` prints it: a name holding a backslash or
    /// anything ``display(_:)`` escapes gets a leading `\` and every backslash doubled, so a
    /// newline (`\n`) and a literal backslash-n (`\\n`) never print alike.
    public static func listing(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\\" }) else { return name }
        let escaped = display(name)
        // display doubles backslashes only when something else was escaped; here always.
        return "\\" + (escaped == name ? name.replacing("\\", with: "\\\\") : escaped)
    }

    /// Control characters (C0, DEL, C1) would move the cursor or recolour the terminal.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
            || escapeRange.contains(scalar.value)
    }

    private static func hex2(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// The scalar encoded at `index` and its length, or nil when the bytes there are not valid
    /// UTF-8 (overlong forms, surrogates and values past U+10FFFF included).
    private static func decodeSequence(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, value) = (3, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (length, value) = (4, UInt32(lead & 0x07))
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(next & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x1_0000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}

extension String {
    /// This name made safe to print; see ``PathName/display(_:)``.
    public var displayPath: String { PathName.display(self) }
}

#if canImport(Glibc)
    import Glibc
#endif
