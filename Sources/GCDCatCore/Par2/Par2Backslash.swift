/// A backslash in a PAR2 file name: the format allows it, but par2cmdline (0.8.1) and
/// par2cmdline-turbo on Linux read it as a folder separator (`a\b.001` is `a/b.001` to them,
/// "assume someone screwed up"), and neither creates a set of such a name. So gcdcat reads it
/// as they do, and refuses to write one, which they would look for in a folder.
public enum Par2Backslash {
    /// `name` as par2cmdline reads it: each `\` a `/`.
    static func asSeparators(_ name: [UInt8]) -> [UInt8] {
        name.map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 }
    }

    /// Why the file at `path`, named `name` in the set, cannot be named in a PAR2 set; nil when
    /// it can. `fix` says what to do instead.
    public static func refusal(path: String, name: String, fix: String) -> String? {
        guard name.utf8.contains(UInt8(ascii: "\\")) else { return nil }
        let read = String(decoding: asSeparators(Array(name.utf8)), as: UTF8.self)
        return "\(path.displayPath): its name has a backslash, which par2cmdline and par2cmdline-turbo read as a "
            + "folder separator (they would look for \(read.displayPath)), so a PAR2 set cannot name it; \(fix)"
    }
}
