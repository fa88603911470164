import GCDCatSystem

/// Multi-volume archives that look like split sets but are not: joining their volumes end to
/// end does not give a valid archive. They are refused, naming the tool that does join them.
///
/// - A spanned zip: `NAME.z01`, `NAME.z02`, …, `NAME.zip`; the first volume begins with the
///   spanning signature `PK\x07\x08`. `zip -s 0 NAME.zip --out whole.zip` joins it.
/// - A RAR set: `NAME.part1.rar`, `NAME.part2.rar`, … (or `NAME.rar`, `NAME.r00`, …).
///   `unrar x` extracts it from its first volume.
public enum ArchiveVolumes {
    /// The spanning signature at the head of a spanned zip's first volume.
    static let spannedZipSignature: [UInt8] = [0x50, 0x4B, 0x07, 0x08]

    /// Why `path` must not be merged as a part, or nil.
    ///
    /// `head` is the part's first bytes when they are known; `names` is where neighbours are
    /// looked up.
    public static func refusal(
        for path: String, head: [UInt8]? = nil, names: any SetNames = FileSystemNames()
    ) -> GCDCatError? {
        let (folder, base) = splitPath(path)
        let prefix = path.hasPrefix(folder + "/") ? folder + "/" : ""
        let lower = base.lowercased()
        func exists(_ name: String) -> Bool { names.exists(prefix + name) }
        func stem(dropping count: Int) -> String { String(base.dropLast(count)) }

        if let digits = trailingNumber(lower, after: ".z"), digits >= 2 {
            let zipName = stem(dropping: digits + 2) + ".zip"
            if exists(zipName) || head.map(isSpannedZip) == true {
                return spannedZip(path, zip: prefix + zipName)
            }
        }
        if lower.hasSuffix(".zip"), exists(stem(dropping: 4) + ".z01") {
            return spannedZip(path, zip: path)
        }
        if head.map(isSpannedZip) == true {
            return spannedZip(path, zip: nil)
        }
        if lower.hasSuffix(".rar") {
            let withoutRar = String(lower.dropLast(4))
            if let digits = trailingNumber(withoutRar, after: ".part") {
                let first = stem(dropping: digits + 4) + zeroPadded(1, width: digits) + ".rar"
                return rar(path, first: prefix + first)
            }
            if exists(stem(dropping: 4) + ".r00") { return rar(path, first: path) }
        }
        if let digits = trailingNumber(lower, after: ".r"), digits == 2 {
            let rarName = stem(dropping: 2) + "ar"
            if exists(rarName) { return rar(path, first: prefix + rarName) }
        }
        return nil
    }

    static func isSpannedZip(_ head: [UInt8]) -> Bool { head.starts(with: spannedZipSignature) }

    /// The count of digits ending `name` right after `marker` (`.part12` → 2), or nil.
    private static func trailingNumber(_ name: String, after marker: String) -> Int? {
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }.count
        guard digits > 0, name.dropLast(digits).hasSuffix(marker) else { return nil }
        return digits
    }

    /// `zip` is the archive's last volume (`NAME.zip`), when its name is known.
    private static func spannedZip(_ path: String, zip: String?) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: path,
            message:
                "a volume of a spanned zip archive; "
                + "joining its volumes end to end does not give a valid zip. Join them with: zip -s 0 "
                + "\((zip ?? "NAME.zip").displayPath) --out whole.zip")
    }

    private static func rar(_ path: String, first: String) -> GCDCatError {
        GCDCatError(
            .invalidInput, path: path,
            message:
                "a volume of a multi-volume RAR archive; its volumes are not parts to concatenate. "
                + "Extract it with: unrar x \(first.displayPath)")
    }

    /// A PAR2 recovery file given to merge as its part (`gcdcat movie.zip.par2` read it as part 2
    /// of a set `movie.zip.par` and copied it, exit 0), known by its name; nil for anything else.
    public static func par2Refusal(_ path: String) -> GCDCatError? {
        guard splitPath(path).name.lowercased().hasSuffix(".par2") else { return nil }
        return GCDCatError(
            .invalidInput, path: path,
            message:
                "a PAR2 recovery file, not a part: gcdcat verify \(path) checks the set it describes, "
                + "gcdcat repair \(path) mends it")
    }
}
