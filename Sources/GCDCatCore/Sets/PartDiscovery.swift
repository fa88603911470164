import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Finds a numbered set from its first part, in any naming of the ``SuffixAlphabet`` table:
/// `movie.zip.001` finds `.002`, `.003`, … (widening past `.999`); `xaa` finds `xab`; `disk_001`,
/// `x00`, `file.part1` and `NAME.000` work alike.
///
/// The set ends at the first number with no file. Around it:
/// - a lower-numbered part beside the given one means it is not the first: an error naming the
///   first (`.000` beside `.001` is a clash: either could start the set);
/// - a file that spells a number of the set another way (`x.0003` among `x.001`, `x.002`) is a
///   clash;
/// - a higher-numbered part after the end means one is missing in between.
public enum PartDiscovery {
    /// A set found from one name.
    public struct DiscoveredSet: Sendable, Equatable {
        public var parts: [String]
        /// The first part's reading: the set's stem, alphabet and width.
        public var naming: NumberedName
        /// True when the first number is above its naming's usual start
        /// (``NumberedName/usualFirstNumber``: `.001`, `x00`, `aa`) with nothing below it: a
        /// `--start` split, or a set whose first parts are gone.
        public var startsLate: Bool
    }

    /// The set `path` starts, or nil when it is a lone file with no numbered neighbour (a name
    /// without a number, or a number with nothing beside it).
    ///
    /// ## Errors
    /// - `.invalidInput` when it is not the first part (naming the first), when two names
    ///   clash, or when it is a spanned zip or RAR volume (naming the tool to use);
    /// - `.missingPart` naming the first missing number when a later one exists, or when `path`
    ///   itself does not exist.
    ///
    /// `names` is where names are looked up: the file system, or an object listing.
    public static func discover(from path: String, names: any SetNames = FileSystemNames()) throws -> DiscoveredSet? {
        if let refusal = ArchiveVolumes.refusal(for: path, names: names) { throw refusal }
        guard names.exists(path) else { throw missing(path, names) }
        guard let naming = reading(of: path, names) else { return nil }
        let given = naming.name
        if naming.number > 0, let below = existing(naming.with(number: naming.number - 1), names) {
            if naming.number == 1 && naming.alphabet == .digits {
                throw GCDCatError(
                    .invalidInput, path: path,
                    message:
                        "\(below.displayPath) exists too, so the set may start at either; give \(below.displayPath) "
                        + "to merge from it, or list the parts you mean")
            }
            var first = naming.with(number: naming.number - 1)
            while first.number > 0, existing(first.with(number: first.number - 1), names) != nil {
                first = first.with(number: first.number - 1)
            }
            let start = existing(first, names)?.displayPath ?? first.name.displayPath
            // The lowest part here is late itself (`mysql-8.0.36.tar.gz` beside `…37…`): giving it
            // would be refused, so say why now.
            guard first.number <= first.usualFirstNumber else {
                throw GCDCatError(
                    .missingPart, path: path,
                    message:
                        "not the first part of its set, which starts at \(start) as far as lies here, with no "
                        + "\(first.with(number: first.usualFirstNumber).name.displayPath) before it, so the set's first "
                        + "part may be missing. If the set really starts there (split --start), merge it with its "
                        + "manifest; if these are separate files, merge the ones you mean by name with -o")
            }
            throw GCDCatError(
                .invalidInput, path: path,
                message:
                    "not the first part of its set, which starts at \(start); give the first part to merge the whole set"
            )
        }
        var parts: [String] = []
        var number = naming.number
        while let name = try existingUnique(naming.with(number: number), names) {
            parts.append(name)
            number += 1
        }
        // Sets start at .001 or .000 (digits), x00 (two digits) and aa (letters), unless split was
        // given --start.
        // Found from a name (`mysql-8.0.36.tar.gz` beside `…37…`), a set above its usual first
        // number may have lost its start, padded or not; a list the user typed out is theirs.
        let startsLate = naming.number > naming.usualFirstNumber
        // A lone late number is a plain file (`report-v2`) unless it is padded (`x.003`, `disk_07`)
        // or a `.partN`: then it is a set whose first parts are gone.
        let looksLikeAPart = naming.width >= 2 || naming.stem.lowercased().hasSuffix(".part")
        if startsLate && parts.count == 1 && !looksLikeAPart { return nil }
        try checkStrays(naming, through: number - 1, given: given, names: names)
        return DiscoveredSet(parts: parts, naming: naming, startsLate: startsLate)
    }

    /// The reading `path` is taken by, or nil for a lone plain file.
    ///
    /// Digits that end the name are read without doubt (unless a name beside them proves the
    /// set hex: `x0a` after `x09`); letters, then hex, only when a neighbour confirms the
    /// reading. Digits before a tail come after letters a neighbour confirms: `disk001.img.aa`
    /// beside `.ab` is a letters set, not part 1 of `disk` + `.img.aa` (which merged alone).
    /// With no neighbour they start a set of one where sets start (`movie01.mkv`); a higher
    /// number is a plain file's (`report2024.txt`, `ubuntu-24.04.iso`), not a set's leftover.
    /// Digits that end a word (`out_00.mp4`) are an extension's unless a neighbour says otherwise.
    static func reading(of path: String, _ names: any SetNames) -> NumberedName? {
        if let widened = widenedReading(of: path, names) { return widened }
        let readings = NumberedName.readings(of: path)
        let proven = readings.map { $0.alphabet == .digits ? ($0.provenHex(names) ?? $0) : $0 }
        let trailingDigits = proven.first(where: { $0.alphabet != .letters && $0.tail.isEmpty })
        let hex = NumberedName.hexReadings(of: path)
        if let trailingDigits, hasNeighbour(trailingDigits, names) {
            // A hex set's middle part whose last digits read as a set of their own: `xe0` beside
            // `xdf` of `split -x` is no `xe` + `0` (a27 F4).
            let middle = hex.first {
                $0.width > trailingDigits.width && $0.number > 0
                    && existing($0.with(number: $0.number - 1), names) != nil
            }
            return middle ?? trailingDigitsReading(trailingDigits, names)
        }
        let oneLetter = NumberedName.oneLetterReadings(of: path, names: names).first { hasNeighbour($0, names) }
        if let confirmed = oneLetter ?? neighboured(proven, hex: hex, names) { return confirmed }
        // A first part whose next is gone (`xaa` `xac`): the set, whose gap is then said.
        let gapped = proven.first {
            $0.number <= $0.usualFirstNumber && existing($0.with(number: $0.number + 2), names) != nil
        }
        // One digit before a tail (`file1.txt`) starts a set only beside its neighbour.
        let loneFirst = proven.first {
            $0.alphabet != .letters && $0.number <= $0.usualFirstNumber && ($0.tail.isEmpty || $0.width >= 2)
        }
        if let start = gapped ?? loneFirst ?? trailingDigits { return start }
        // Not `xaa` (GNU split of a small file) as hex `aa`: its suffix has no digit.
        return readings.first(where: isLateLonePart)
            ?? hex.first {
                $0.tail.isEmpty && isLateLonePart($0) && $0.name.dropFirst($0.stem.count).contains(where: \.isNumber)
            }
    }

    /// The refusal of a lone later letter of a one-letter set (`out_b` beside `out_c`, no
    /// `out_a`): `split -a 1`'s parts with the first gone, not a file to copy alone (a23 #10:
    /// `-o` wrote `out_b` alone, exit 0); nil for other names.
    static func lostOneLetterStart(_ path: String, _ names: any SetNames) -> GCDCatError? {
        for reading in NumberedName.oneLetterReadings(of: path) where reading.number > 0 {
            guard let next = existing(reading.with(number: reading.number + 1), names) else { continue }
            return GCDCatError(
                .missingPart, path: path,
                message:
                    "no \(reading.with(number: 0).name.displayPath) before it, though \(next.displayPath) lies beside "
                    + "it: read as one letter's parts (split -a 1), the set's first part may be missing, so nothing "
                    + "was written. If this file stands alone, give --as-given")
        }
        return nil
    }

    /// The refusal of a list of one-letter parts, one after another, whose `a` is gone (`out_b
    /// out_c out_d`, a glob over `split -a 1`'s parts after `out_a` was lost): joined as typed, it
    /// lacked its first part with exit 0 (a25 C3); nil for other lists.
    static func lostOneLetterStart(ofList arguments: [String], _ names: any SetNames) -> GCDCatError? {
        for reading in NumberedName.oneLetterReadings(of: arguments[0]) {
            let numbers = arguments.compactMap { reading.number(of: $0) }
            guard numbers.count == arguments.count, let lowest = numbers.min(), lowest > 0,
                Set(numbers).count == numbers.count, numbers.max()! - lowest == numbers.count - 1
            else { continue }
            let first = reading.with(number: lowest)
            return GCDCatError(
                .missingPart, path: existing(first, names) ?? first.name,
                message:
                    "no \(reading.with(number: 0).name.displayPath) before it: read as one letter's parts (split -a 1), "
                    + "the set's first part may be missing, so nothing was written. If these files are not one "
                    + "split's parts, give --as-given to join them as listed")
        }
        return nil
    }

    /// The error for `path`, given as a set's first part, when it is not there: with its next
    /// part lying beside it, a part gone rather than a name mistyped, said so with the ways to
    /// mend it (a merge finds a `.par2` beside the set and rebuilds it before it gets here).
    static func missing(_ path: String, _ names: any SetNames) -> GCDCatError {
        guard names is FileSystemNames,
            let next = NumberedName.readings(of: path).lazy.compactMap({
                existing($0.with(number: $0.number + 1), names)
            }).first
        else {
            return GCDCatError(.missingPart, path: path, syscall: "open", errno: ENOENT, message: describeErrno(ENOENT))
        }
        return GCDCatError(
            .missingPart, path: path, errno: ENOENT,
            message:
                "missing part: it is not there, though the set's next part, \(next.displayPath), is; put it back to "
                + "merge the set, or merge by a .par2 that protects it (gcdcat merge NAME.par2), which rebuilds it")
    }

    /// The reading of a name GNU split widened (`x9000` after `x89`, `xzaaa` after `xyz`, `xf000`
    /// after `xef`) as the later part of a two-symbol set, when a neighbour confirms it: never the
    /// first part of a set `x9` + `000`, merged alone with exit 0 (a25 C1). Not when its whole run
    /// has a part just below it (`x8999` of an `-a 4` set).
    static func widenedReading(of path: String, _ names: any SetNames) -> NumberedName? {
        let base = splitPath(path).name
        for alphabet in SuffixAlphabet.allCases {
            for length in [4, 6, 8] where base.count > length {
                let suffix = base.suffix(length)
                guard suffix.first == alphabet.top, suffix.allSatisfy(alphabet.contains),
                    let number = alphabet.wideningValue(suffix)
                else { continue }
                let reading = NumberedName(
                    stem: String(path.dropLast(length)), alphabet: alphabet, width: 2, number: number)
                guard reading.spellings(of: number).contains(path), hasNeighbour(reading, names) else { continue }
                let whole = NumberedName(
                    stem: reading.stem, alphabet: alphabet, width: length, number: alphabet.plainValue(suffix) ?? 0)
                if whole.number > 0, existing(whole.with(number: whole.number - 1), names) != nil { continue }
                return reading
            }
        }
        return nil
    }

    /// The reading of digits that end the name, `widest` being the whole run's, which a
    /// neighbour confirms. A narrower reading that starts where sets start and is confirmed too
    /// wins over a late `widest`, and over one that stops sooner: `cd100` beside `cd101` (GNU
    /// `split -d` with the prefix `cd1`) is `cd1` + `00`, not `cd` + `100` with 100 parts lost, and
    /// `disk000` of `split -d … disk0`, which widens to `disk09000`, is `disk0` + `00`. Only two
    /// digits or more, after no separator, and with no part just below `widest`: `x.100`,
    /// `disk_07` and `x100` beside `x099` are numbered whole.
    static func trailingDigitsReading(_ widest: NumberedName, _ names: any SetNames) -> NumberedName {
        // A part just below it (`x099` beside `x100` of `split -a 3 -d`): the whole number is right,
        // and `x1` + `00` would merge the set's tail alone (a26 C1).
        if widest.number > 0, existing(widest.with(number: widest.number - 1), names) != nil { return widest }
        let narrower = narrowerDigitReadings(of: widest).filter {
            hasNeighbour($0, names) && !spellsNinetyPlainly($0, names)
        }
        let atStart = ([widest] + narrower).filter { $0.number <= $0.usualFirstNumber }
        guard atStart.count > 1 else { return atStart.first ?? widest }
        let runs = atStart.map { run(from: $0, upTo: .max, names) }
        return atStart[runs.firstIndex(of: runs.max()!)!]
    }

    /// Whether two digits of `reading` go on past 89 unwidened (`x190` beside `x100`): GNU `split
    /// -d` writes `x19000` there, so `x1` + `00` is no split's reading, and `x` + `100` of a
    /// three-digit set that lost its first 100 parts is (a26 H2).
    static func spellsNinetyPlainly(_ reading: NumberedName, _ names: any SetNames) -> Bool {
        reading.width == 2 && names.exists(reading.stem + "90" + reading.tail)
    }

    /// The readings of `widest`'s digits at two symbols or more but fewer, widest first, the
    /// rest of the digits joining the stem (`cd1` + `00` of `cd` + `100`): none after a
    /// separator, or for letters and hex.
    static func narrowerDigitReadings(of widest: NumberedName) -> [NumberedName] {
        guard widest.alphabet == .digits, widest.tail.isEmpty, widest.width > 2,
            !(widest.stem.last.map { "._- /".contains($0) } ?? false)
        else { return [] }
        let digits = widest.name.dropFirst(widest.stem.count)
        return (2..<widest.width).reversed().compactMap { width in
            guard let number = Int(digits.suffix(width)) else { return nil }
            return NumberedName(
                stem: widest.stem + digits.prefix(widest.width - width), alphabet: .digits, width: width,
                number: number, tail: "")
        }
    }

    /// The letters or hex reading a neighbour confirms. Letters unless hex runs further: a hex
    /// set from `in.eb` (`--hex-suffixes=eb`) goes on to `in.f0`, where letters stop at `in.ef`.
    /// Of the readings a neighbour confirms, the lowest number, the widest on a tie: `outaa`
    /// beside `outab` (GNU `split f out`) is `out` + `aa`, not `o` + `utaa` with a start lost.
    static func neighboured(_ letters: [NumberedName], hex: [NumberedName], _ names: any SetNames) -> NumberedName? {
        // A reading with a part just below it is a middle part's (`xbaa` beside `xazz` of `split
        // -a 3`), whatever lower number another reading gives (`xb` + `aa`, a27 F3).
        let lowest = { (readings: [NumberedName]) in
            readings.first { $0.number > 0 && existing($0.with(number: $0.number - 1), names) != nil }
                ?? readings.filter { hasNeighbour($0, names) }.min(by: { $0.number < $1.number })
        }
        let lettered = lowest(letters)
        guard let hexed = lowest(hex) else { return lettered }
        guard let lettered else { return hexed }
        let hexRun = run(from: hexed, upTo: .max, names)
        return run(from: lettered, upTo: hexRun, names) < hexRun ? hexed : lettered
    }

    /// How many numbers from `reading`'s on have a file, counting no further than `limit`.
    private static func run(from reading: NumberedName, upTo limit: Int, _ names: any SetNames) -> Int {
        var count = 0
        while count < limit, existing(reading.with(number: reading.number + count), names) != nil { count += 1 }
        return count
    }

    /// A letters or hex name with no neighbour that is still a part, the leftover of a split whose
    /// other parts are gone (`in.bin.ab`, `xac`, `p_ab`, `out-0a`), not a plain file
    /// (`configure.ac`, `Makefile.am`, `tab`): a late number after a prefix that ends with `_` or
    /// `-`, after GNU split's default prefix `x`, or after a file's name with its extension and a
    /// dot (`in.bin.`) when it is one of a set's first parts (`in.bin.ab` … `in.bin.az`): there
    /// the letters are mostly an extension (`backup.tar.gz`, `ubuntu-24.04.iso`, `notes.txt.asc`).
    static func isLateLonePart(_ reading: NumberedName) -> Bool {
        guard reading.alphabet != .digits, reading.number > 0 else { return false }
        let stem = splitPath(reading.stem + "x").name.dropLast()
        if stem == "x" || (stem.count > 1 && (stem.hasSuffix("_") || stem.hasSuffix("-"))) { return true }
        guard stem.hasSuffix("."), let dot = stem.dropLast().lastIndex(of: ".") else { return false }
        let name = stem[..<dot]
        let extensionName = stem[stem.index(after: dot)...].dropLast()
        return !name.isEmpty && (1...5).contains(extensionName.count)
            && extensionName.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            && reading.number < reading.alphabet.radix
    }

    /// The name `reading`'s number has on disk, if any.
    static func existing(_ reading: NumberedName, _ names: any SetNames) -> String? {
        reading.spellings(of: reading.number).first(where: names.exists)
    }

    /// Like ``existing(_:)``, but two spellings of one number on disk are a clash.
    static func existingUnique(_ reading: NumberedName, _ names: any SetNames) throws -> String? {
        let found = reading.spellings(of: reading.number).filter(names.exists)
        if found.count > 1 {
            throw GCDCatError(
                .invalidInput, path: found[1],
                message:
                    "clashes with \(found[0].displayPath): both are part \(reading.number) of the set; remove or rename one"
            )
        }
        return found.first
    }

    static func hasNeighbour(_ reading: NumberedName, _ names: any SetNames) -> Bool {
        existing(reading.with(number: reading.number + 1), names) != nil
            || (reading.number > 0 && existing(reading.with(number: reading.number - 1), names) != nil)
    }

    /// Files beside the set with its stem and alphabet: one that spells no number of the set
    /// is a width clash (digits); one numbered after `last` means a part is missing. Letters are
    /// common in names (`xml` beside `xaa`), so for them only the next 26 numbers count.
    static func checkStrays(_ naming: NumberedName, through last: Int, given: String, names: any SetNames) throws {
        // `stem + "x"` keeps a stem that ends in `/` (split's `--prefix dir/`) inside its folder.
        let (folder, stemBase) = splitPath(naming.stem + "x")
        let stem = String(stemBase.dropLast())
        let prefix = String(naming.stem.dropLast(stem.count))
        var firstLater: Int?
        // Compared as bytes: `café.002` in NFD is another name than `café.002` in NFC.
        for entry in try names.entries(inFolder: folder) where entry.utf8.starts(with: stem.utf8) {
            // A suffix of the set's alphabet, then the set's tail (`.txt` of `out_00.txt`).
            let suffix = String(entry.unicodeScalars[entry.utf8.index(entry.startIndex, offsetBy: stem.utf8.count)...])[
                ...]
            guard naming.suffix(in: suffix) != nil else { continue }
            guard let number = naming.number(ofSuffix: suffix) else {
                if naming.alphabet == .digits {
                    throw GCDCatError(
                        .invalidInput, path: prefix + entry,
                        message:
                            "does not fit the numbering of \(given.displayPath)'s set (mixed widths: "
                            + "\(naming.with(number: last).name.displayPath) is the last part found); rename or remove it"
                    )
                }
                continue
            }
            guard number > last, naming.alphabet == .digits || number <= last + 26 else { continue }
            firstLater = min(firstLater ?? number, number)
        }
        if let firstLater {
            let later = existing(naming.with(number: firstLater), names) ?? naming.with(number: firstLater).name
            // Spelt as the later part is: `x9000` past GNU's widening, not an `x90` no split makes.
            let widened = naming.spellings(of: firstLater).dropFirst().contains(later)
            let spellings = naming.spellings(of: last + 1)
            let missing = (widened ? spellings.last : spellings.first) ?? naming.with(number: last + 1).name
            // A name that reads the same but is spelt with other bytes (NFD for NFC) is another file.
            let lookalike = try names.entries(inFolder: folder).first {
                prefix + $0 == missing && !(prefix + $0).utf8.elementsEqual(missing.utf8)
            }
            throw GCDCatError(
                .missingPart, path: missing,
                message:
                    "missing part: the set has \(later.displayPath) but not this one"
                    + (lookalike.map {
                        "; \((prefix + $0).displayPath) looks the same but is spelt with other bytes (another Unicode "
                            + "normalisation), so it is another file: rename it to match the set"
                    } ?? ""))
        }
    }
}
