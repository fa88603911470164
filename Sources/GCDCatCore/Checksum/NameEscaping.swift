/// How a manifest carries a name that SFV cannot hold as it is.
///
/// GNU's convention (`sha256sum`, `md5sum`): a line that starts with `\` has its name escaped,
/// `\\` for a backslash, `\n` for a newline and `\r` for a carriage return. gcdcat follows it,
/// and extends it minimally for SFV: a name that starts with a space, a tab or `;` (which SFV
/// readers trim, or take for a comment) or ends with a space or a tab is written escaped too;
/// after the leading `\` those characters are safe, and nothing else in them changes. Every
/// other name is written as it is, so ordinary manifests stay readable by cksfv and rhash.
/// A line that starts with `\` but holds any other escape is read literally, as before.
///
/// An entry line whose name only starts badly (`#`, `;`, a space or a tab) is written as
/// `./NAME` instead (``entryName(for:)``): `rhash -c` skips a line starting with `#` as a
/// comment, and neither cksfv nor rhash reads the escaped form, while `./NAME` is the same file
/// to cksfv, `rhash -c` and gcdcat.
public enum NameEscaping {
    /// The name as an SFV entry line writes it: ``line(for:)``, or `./` and the name when that
    /// alone makes the line safe for every reader (see above). Not for the `gcdcat-whole`
    /// comment, whose name is the merge's output name.
    public static func entryName(for name: String) -> String {
        guard let first = name.unicodeScalars.first, first == "#" || first == ";" || first == " " || first == "\t"
        else { return line(for: name) }
        let rest = name.unicodeScalars
        let unsafe = rest.contains { $0 == "\\" || $0 == "\n" || $0 == "\r" } || rest.last == " " || rest.last == "\t"
        return unsafe ? line(for: name) : "./" + name
    }

    /// The name an SFV entry line's `written` name stands for: ``entryName(for:)`` undone, so a
    /// name survives a write and a read as it was (`./;semi` is `;semi`). Any other `./NAME`
    /// is kept as written: it names the same file either way.
    static func entryName(reading written: String) -> String {
        guard written.hasPrefix("./"), let first = written.dropFirst(2).unicodeScalars.first,
            first == "#" || first == ";" || first == " " || first == "\t"
        else { return written }
        return String(written.dropFirst(2))
    }

    /// The name as a manifest line writes it: itself, or `\` + its escaped form.
    public static func line(for name: String) -> String {
        needsEscaping(name) ? "\\" + escape(name) : name
    }

    /// True when SFV cannot carry `name` literally.
    public static func needsEscaping(_ name: String) -> Bool {
        let scalars = name.unicodeScalars
        if scalars.contains(where: { $0 == "\\" || $0 == "\n" || $0 == "\r" }) { return true }
        if let first = scalars.first, first == " " || first == "\t" || first == ";" { return true }
        if let last = scalars.last, last == " " || last == "\t" { return true }
        return false
    }

    static func escape(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The name `text` escapes, or nil when it holds an escape other than `\\`, `\n`, `\r`.
    static func unescape(_ text: Substring) -> String? {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\" else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalars.next() {
            case "\\": out += "\\"
            case "n": out += "\n"
            case "r": out += "\r"
            default: return nil
            }
        }
        return out
    }
}

/// A manifest line in the escaped form: `\NAME CRC32`, its name taken exactly (not trimmed).
struct EscapedLine {
    /// The line after its leading `\`, trailing blanks removed.
    let text: String
    let name: String

    init?(_ line: String) {
        var text = String(line.unicodeScalars.dropFirst())
        while let last = text.unicodeScalars.last, last == " " || last == "\t" { text.unicodeScalars.removeLast() }
        guard let split = text.lastIndex(where: { $0 == " " || $0 == "\t" }),
            let name = NameEscaping.unescape(text[..<split])
        else { return nil }
        self.text = text
        self.name = name
    }
}
