import Foundation
import Testing

/// GNU split's forms, run through GNU coreutils `split` and `gcdcat split` with the same
/// arguments on the same inputs: the names and every byte of the parts must be the same.
/// gcdcat's manifest is left out (`--no-manifest`), and its default `.001` names are turned into
/// GNU's `aa` with `--suffix alpha` when the form names no suffix style: both are gcdcat's own
/// defaults by design.
///
/// Every input is compared in every form, `-n N` and `-n l/N` included, whatever the remainder
/// of the size over N: gcdcat lays out the chunks as the installed GNU split does.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/split"), "needs GNU split"))
struct GNUSplitDifferentialCLITests {
    static let manyLines = Data((1...3000).map { "line \($0)\n" }.joined().utf8)
    static let inputs: [(name: String, data: Data)] = [
        ("empty", Data()),
        ("one byte", Data("x".utf8)),
        ("no trailing newline", Data("a\nbb\nccc\ndddd\neeeee".utf8)),
        ("many lines", manyLines),
        ("a line longer than a part", Data(("short\n" + String(repeating: "y", count: 5000) + "\nend\nz\n").utf8)),
        ("random binary", randomData(20_000, seed: 22)),
        ("NUL records", Data((1...500).map { "record \($0)\u{0}" }.joined().utf8)),
        ("semicolon records", Data((1...400).map { "r\($0);" }.joined().utf8)),
    ]

    /// Argument sets that write files, each as GNU split takes them (before FILE PREFIX).
    static let fileForms: [[String]] = [
        ["-b", "1000"], ["--bytes=999"], ["-l", "7"], ["--lines=250"], ["-C", "1000"], ["--line-bytes=300"],
        ["-n", "4"], ["--number=5"], ["-n", "1"], ["-n", "7", "-e"], ["--number", "l/4"], ["-n", "l/7"],
        ["-n", "l/7", "-e"], ["-n", "l/40"], ["-n", "r/3"], ["-n", "r/7", "-e"], ["-n", "r/1"],
        ["-d", "-b", "1000"], ["-x", "-b", "300"], ["--hex-suffixes=9", "-b", "2000"],
        ["--hex-suffixes", "-l", "100"], ["--numeric-suffixes=95", "-b", "6000"],
        ["--numeric-suffixes=007", "-a", "4", "-l", "500"], ["--numeric-suffixes", "-l", "20"],
        ["-a", "3", "-b", "500"], ["--additional-suffix=.txt", "-l", "100"],
        ["-d", "--additional-suffix=.csv", "-n", "3"],
        ["-t", ";", "-l", "30"], ["-t", "\\0", "-l", "60"], ["-t", "\\0", "-n", "l/5"], ["-t", ";", "-C", "100"],
        ["--separator=;", "-n", "r/4"], ["-d", "-n", "l/12"], ["-n", "100", "-d"], ["-n", "120"],
        ["-x", "-n", "300"], ["--numeric-suffixes=3", "-n", "5"], ["-e", "-b", "1000"],
        ["-n", "3", "-a", "1", "-d"], ["-a", "1", "-n", "l/3"], ["-a", "1", "-x", "-n", "r/16"],
        ["-a", "1", "-d", "-n", "10"], ["-t", "\\0", "-C", "700"], ["-C", "5000"],
    ]

    /// Short records and small sizes: a record cut at SIZE, a part that fills SIZE at the end of
    /// the input (GNU still ends it at its last separator), records of exactly SIZE.
    static let shortRecordInputs: [(name: String, data: Data)] = [
        ("NUL records", Data("ab\u{0}c\u{0}\u{0}defgh\u{0}ij\u{0}k".utf8)),
        ("a part of SIZE ends the input", Data("\u{0}\u{0}ba\u{0}b".utf8)),
        ("newline records", Data("abcd\nef\ng\n\nhijklm\nno".utf8)),
        ("separator last", Data("xy\nz\n\nuvw\n".utf8)),
        ("semicolons", Data("r1;r22;r333;;r4444;r5".utf8)),
    ]

    static let shortRecordForms: [[String]] = [
        ["-t", "\\0", "-C", "3"], ["-t", "\\0", "-C", "6"], ["-t", "\\0", "-C", "1"], ["-C", "3"], ["-C", "5"],
        ["-C", "2"], ["-t", ";", "-C", "4"], ["-t", ";", "-C", "7"], ["-l", "1"], ["-t", "\\0", "-l", "2"],
        ["-b", "4"], ["-n", "l/3", "-a", "1"], ["-t", ";", "-n", "l/4"], ["-n", "r/2"],
    ]

    /// Forms that write one part to standard output.
    static let standardOutputForms: [[String]] = [
        ["-n", "2/4"], ["-n", "4/4"], ["-n", "1/1"], ["-n", "l/2/4"], ["-n", "l/3/7"], ["-n", "l/7/7"],
        ["-n", "r/2/3"], ["-n", "r/1/1"], ["-t", "\\0", "-n", "r/3/5"], ["--number=l/1/3"],
    ]

    /// gcdcat's arguments for a GNU form: GNU's default suffix style when none is named.
    static func ours(_ form: [String]) -> [String] {
        let styled = form.contains {
            $0 == "-d" || $0 == "-x" || $0.hasPrefix("--numeric-suffixes") || $0.hasPrefix("--hex")
        }
        return form + (styled ? [] : ["--suffix", "alpha"])
    }

    /// Runs GNU split and gcdcat split with `form` (gcdcat's `extra` after it) on `input`, a file
    /// or, when `streamed`, standard input, and expects the same names and bytes from each.
    func expectGNUsParts(
        _ form: [String], extra: [String] = ["--no-manifest", "-q"], input: (name: String, data: Data),
        streamed: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let gnu = try Scratch()
        let ours = try Scratch()
        try gnu.write("in", input.data)
        try ours.write("in", input.data)
        let command = "\"$0\" \"$@\" < in" + (streamed ? " && rm in" : "")
        let source = streamed ? "-" : "in"
        let expected = try run(
            executable: "/bin/sh", ["-c", command, "/usr/bin/split"] + form + [source, "out_"], in: gnu.path)
        let result = try run(
            executable: "/bin/sh",
            ["-c", command, gcdcatPath, "split"] + Self.ours(form) + [source, "out_"] + extra, in: ours.path)
        let context = "\(form)\(streamed ? " on standard input" : "") on \(input.name): \(result.stderr)"
        #expect(expected.status == 0, "GNU split failed: \(expected.stderr)", sourceLocation: sourceLocation)
        #expect(result.status == 0, "\(context)", sourceLocation: sourceLocation)
        #expect(ours.listing() == gnu.listing(), "\(context)", sourceLocation: sourceLocation)
        for name in gnu.listing() {
            #expect(ours.read(name) == gnu.read(name), "\(name) differs: \(context)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: fileForms)
    func partsHaveGNUNamesAndBytes(form: [String]) throws {
        for input in Self.inputs { try expectGNUsParts(form, input: input) }
    }

    @Test(arguments: shortRecordForms)
    func shortRecordsAreCutAsGNUCutsThem(form: [String]) throws {
        for input in Self.shortRecordInputs {
            let gnu = try Scratch()
            let ours = try Scratch()
            try gnu.write("in", input.data)
            try ours.write("in", input.data)
            let expected = try run(executable: "/usr/bin/split", form + ["in", "out_"], in: gnu.path)
            #expect(expected.status == 0, "GNU split failed: \(expected.stderr)")
            let result = try gcdcat(["split"] + Self.ours(form) + ["in", "out_", "--no-manifest", "-q"], in: ours.path)
            let context = "\(form) on \(input.name): \(result.stderr)"
            #expect(result.status == 0, "\(context)")
            #expect(ours.listing() == gnu.listing(), "\(context)")
            for name in gnu.listing() {
                #expect(ours.read(name) == gnu.read(name), "\(name) differs: \(context)")
            }
            guard !form.contains("-n") else { continue }
            // The same input on standard input takes the streaming path.
            let piped = try Scratch()
            try piped.write("in", input.data)
            let streamed = try run(
                executable: "/bin/sh",
                ["-c", "\"$0\" \"$@\" < in && rm in", gcdcatPath, "split"] + Self.ours(form)
                    + ["-", "out_", "--no-manifest", "-q"], in: piped.path)
            #expect(streamed.status == 0, "streamed \(context) \(streamed.stderr)")
            #expect(piped.listing() == gnu.listing().filter { $0 != "in" }, "streamed \(context)")
            for name in gnu.listing() where name != "in" {
                #expect(piped.read(name) == gnu.read(name), "streamed \(name) differs: \(context)")
            }
        }
    }

    @Test(arguments: standardOutputForms)
    func onePartGoesToStandardOutputAsGNUWritesIt(form: [String]) throws {
        for input in Self.inputs {
            let gnu = try Scratch()
            let ours = try Scratch()
            try gnu.write("in", input.data)
            try ours.write("in", input.data)
            let expected = try run(executable: "/usr/bin/split", form + ["in"], in: gnu.path)
            let result = try gcdcat(["split"] + form + ["in", "-q"], in: ours.path)
            #expect(expected.status == 0)
            #expect(result.status == 0, "\(form) on \(input.name): \(result.stderr)")
            #expect(result.stdout == expected.stdout, "\(form) on \(input.name)")
            #expect(ours.listing() == ["in"], "\(form) on \(input.name) wrote files")
        }
    }

    /// One part appended to its own input (`>> in`) is refused as a merge's output is, and the
    /// input is left as it was: the part went to standard output unchecked and grew the input.
    @Test(arguments: [["-n", "2/4"], ["-n", "l/2/4"], ["-n", "r/2/4"]])
    func onePartAppendedToItsOwnInputIsRefused(form: [String]) throws {
        let scratch = try Scratch()
        let data = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 % 251 == 0 ? 10 : $0) })
        try scratch.write("in", data)
        let result = try run(
            executable: "/bin/sh", ["-c", "\"$0\" split \"$@\" in >> in", gcdcatPath] + form, in: scratch.path)
        #expect(result.status == 1, "\(form)")
        #expect(result.stderr == "gcdcat: standard output: is the input file in; refusing to overwrite it\n", "\(form)")
        #expect(scratch.read("in") == data, "\(form)")
        #expect(scratch.listing() == ["in"], "\(form)")
    }

    /// --filter: each part to its own command with $FILE set; the commands' files are GNU's.
    @Test(arguments: [
        ["--filter=cat > $FILE.part", "-b", "1000"], ["--filter", "head -c 10 > $FILE.h", "-l", "100"],
        ["--filter=wc -c > $FILE.n", "-n", "l/5", "-d"], ["--filter=cat > \"$FILE\"", "-n", "4", "-e"],
        ["--filter=cat > $FILE.z", "-n", "r/4"], ["--filter=wc -l > $FILE.n", "-n", "r/3", "-e", "-d"],
    ])
    func filterRunsTheCommandPerPartAsGNUDoes(form: [String]) throws {
        for input in Self.inputs { try expectGNUsParts(form, extra: ["-q"], input: input) }
    }

    /// --filter on standard input (`tar c . | split - out_ -b 1M --filter='gzip > $FILE.gz'`),
    /// cut by size or lines as the bytes arrive, or by `-C`, `-n N` and `-n l/N` once held in a
    /// temporary file (as GNU does; `-n N` of an empty input runs N commands): the commands'
    /// files are GNU's.
    @Test(arguments: [
        ["--filter=cat > $FILE.part", "-b", "1000"], ["--filter", "head -c 10 > $FILE.h", "-l", "100"],
        ["--filter=wc -c > $FILE.n", "-l", "700", "-d"], ["--filter=cat > $FILE", "-b", "4096"],
        ["--filter=cat > $FILE.z", "-C", "5000"], ["--filter=cat > $FILE.z", "-C", "100", "-d"],
        ["--filter=cat > $FILE.z", "-n", "4"], ["--filter=cat > $FILE.z", "-n", "l/4", "-d"],
        ["--filter=wc -c > $FILE.n", "-n", "l/3"], ["--filter=cat > $FILE.z", "-n", "r/4", "-d"],
        ["--filter=cat > $FILE.z", "-n", "r/3", "-e"], ["--filter", "head -c 10 > $FILE.h", "-n", "r/3"],
    ])
    func filterCutsStandardInputAsGNUDoes(form: [String]) throws {
        for input in Self.inputs { try expectGNUsParts(form, extra: ["-q"], input: input, streamed: true) }
    }

    @Test func aFilterOnStandardInputFailsAsAFileDoes() throws {
        let scratch = try Scratch()
        let failing = try run(
            executable: "/bin/sh", ["-c", "\"$0\" split - p_ -b 1000 --filter='exit 3' < /dev/zero", gcdcatPath],
            in: scratch.path)
        #expect(failing.status == 1)
        #expect(failing.stderr == "gcdcat: p_001: with FILE=p_001, exit 3 from command: exit 3\n")
        let spooled = try run(
            executable: "/bin/sh", ["-c", "\"$0\" split - p_ -n 2 --filter='exit 3' < /dev/null", gcdcatPath],
            in: scratch.path)
        #expect(spooled.status == 1)
        #expect(spooled.stderr == "gcdcat: p_001: with FILE=p_001, exit 3 from command: exit 3\n")
        let refused = try run(
            executable: "/bin/sh",
            ["-c", "\"$0\" split - p_ -l 10 --header-lines 1 --filter=cat < /dev/null", gcdcatPath],
            in: scratch.path)
        #expect(refused.status == 64)
        #expect(
            refused.stderr.hasPrefix(
                "Error: --filter cuts standard input without --header-lines (give the file itself to repeat its "
                    + "header).\n"), "\(refused.stderr)")
        #expect(scratch.listing() == [])
    }

    @Test func aFailingFilterNamesThePartAndStops() throws {
        let scratch = try Scratch()
        try scratch.write("in", Self.manyLines)
        let result = try gcdcat(["split", "--filter=cat > /dev/null; exit 3", "-n", "3", "in", "p_"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("with FILE=p_001, exit 3 from command: cat > /dev/null; exit 3"), "\(result.stderr)")
        #expect(scratch.listing() == ["in"])
    }

    /// The issue's case: GNU names out_95, out_96; a widened series would say out_9005.
    @Test func aNumericStartIsTheFirstSuffixItself() throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(150_000, seed: 3))
        let result = try gcdcat(
            ["split", "--numeric-suffixes=95", "-b", "100000", "in", "out_", "-q"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.listing() == ["in", "out.sfv", "out_95", "out_96"])
        let merged = try gcdcat(["merge", "out_95", "-o", "joined", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("joined") == scratch.read("in"))
    }

    /// GNU writes out_95 … out_99 and then fails; gcdcat refuses before writing anything.
    @Test func runningOutOfSuffixesFromAStartIsRefusedBeforeAnyPart() throws {
        let scratch = try Scratch()
        try scratch.write("in", randomData(20_000, seed: 3))
        let gnu = try run(
            executable: "/usr/bin/split", ["--numeric-suffixes=95", "-b", "1000", "in", "g_"], in: scratch.path)
        #expect(gnu.status == 1)
        #expect(gnu.stderr.contains("output file suffixes exhausted"))
        let before = scratch.listing()
        let result = try gcdcat(["split", "--numeric-suffixes=95", "-b", "1000", "in", "out_"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("suffixes exhausted"), "\(result.stderr)")
        #expect(scratch.listing() == before)
    }

    @Test(arguments: [
        (
            ["--numeric-suffixes=123", "-b", "10"],
            "numerical suffix start value '123' is too large for the suffix length 2"
        ),
        (["--numeric-suffixes=1x", "-b", "10"], "'1x': invalid start value for numerical suffix"),
        (["--hex-suffixes=g", "-b", "10"], "'g': invalid start value for hexadecimal suffix"),
        (["-t", "ab", "-l", "2"], "multi-character separator 'ab'"),
        (["-t", "", "-l", "2"], "empty record separator"),
        (["-n", "5/4"], "Error: The value '5/4' is invalid for"),
        (["-n", "r/0"], "--parts must be positive (got 0)"),
        (["-a", "1", "-d", "-n", "20"], "the suffix length needs to be at least 2"),
        (["-n", "r/3", "--manifest", "m.sfv"], "round-robin parts do not join back"),
    ])
    func gnuMistakesAreUsageErrors(form: [String], message: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", Data("a\nb\n".utf8))
        let result = try gcdcat(["split"] + form + ["in", "out_"], in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(scratch.listing() == ["in"])
    }

    /// Round-robin parts do not join back into the input: gcdcat writes no manifest, and says so.
    @Test func roundRobinSaysWhyItWritesNoManifest() throws {
        let scratch = try Scratch()
        try scratch.write("in", Self.manyLines)
        let result = try gcdcat(["split", "-n", "r/3", "in", "out_"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.listing() == ["in", "out_001", "out_002", "out_003"])
        #expect(result.stderr.contains("no manifest was written"), "\(result.stderr)")
    }

    /// Standard input is dealt round-robin in one pass, as GNU deals it.
    @Test func roundRobinReadsStandardInput() throws {
        let gnu = try Scratch()
        let ours = try Scratch()
        try gnu.write("in", Self.manyLines)
        try ours.write("in", Self.manyLines)
        _ = try run(executable: "/bin/sh", ["-c", "split -n r/4 - p_ < in"], in: gnu.path)
        let result = try run(
            executable: "/bin/sh", ["-c", "\"$0\" split -n r/4 -d - p_ -q < in", gcdcatPath], in: ours.path)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = gnu.listing().filter { $0 != "in" }
        #expect(expected.count == 4)
        for (index, name) in expected.enumerated() {
            #expect(ours.read("p_0\(index)") == gnu.read(name))
        }
    }
}
