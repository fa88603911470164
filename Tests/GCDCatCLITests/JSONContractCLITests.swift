import Foundation
import GCDCatCore
import Testing

/// Issue 13's JSON contract: every command's `--json` output, in success and in failure,
/// validates against its schema in docs/json-schema, and a failure's object carries the
/// process's own exit status.
@Suite struct JSONContractCLITests {
    /// A file split into three parts with a manifest, in a fresh folder.
    func splitSet() throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("data.bin", randomData(5000, seed: 13))
        let made = try gcdcat(["split", "data.bin", "--size", "2000", "-q"], in: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        return scratch
    }

    /// Runs gcdcat, checks its exit status, validates its standard output against `schemaName`
    /// and returns the document.
    @discardableResult
    func expectDocument(
        _ arguments: [String], in directory: String, status: Int32, schema schemaName: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let result = try gcdcat(arguments, in: directory)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        let document = try JSONValue.parse(result.stdout)
        let violations = try schema(schemaName).violations(of: document)
        #expect(violations == [], "\(arguments): \(result.stdoutText)", sourceLocation: sourceLocation)
        #expect(document["schemaVersion"] == .integer(2), sourceLocation: sourceLocation)
        if schemaName == "error" {
            #expect(document["error"]?["exitStatus"] == .integer(Int64(status)), sourceLocation: sourceLocation)
            #expect(!result.stderr.isEmpty, "the human message stays on standard error", sourceLocation: sourceLocation)
        }
        return document
    }

    @Test func mergeSucceedsWithPathsAndFailsWithAnErrorObject() throws {
        let scratch = try splitSet()
        let merged = try expectDocument(
            ["merge", "data.bin.001", "-o", "out", "--json"], in: scratch.path, status: 0, schema: "merge")
        #expect(merged["command"] == .string("merge"))
        #expect(merged["inputs"] == .array(["data.bin.001", "data.bin.002", "data.bin.003"].map(JSONValue.string)))
        #expect(merged["output"] == .string("out") && merged["outputs"] == .array([.string("out")]))
        #expect(merged["manifest"] == .string("data.bin.sfv"))
        #expect(scratch.read("out") == scratch.read("data.bin"))

        let exists = try expectDocument(
            ["merge", "data.bin.001", "-o", "out", "--json"], in: scratch.path, status: 1, schema: "error")
        #expect(
            exists["error"]
                == .object([
                    "code": .string("outputExists"), "exitStatus": .integer(1), "path": .string("out"),
                    "syscall": .null, "errno": .null,
                    "message": .string("out: already exists (use --force to replace it)"),
                ]))
        try FileManager.default.removeItem(atPath: scratch.file("data.bin.002"))
        let gap = try expectDocument(
            ["merge", "data.bin.001", "-o", "out2", "--json"], in: scratch.path, status: 1, schema: "error")
        #expect(gap["error"]?["code"] == .string("missingPart"))
    }

    @Test func aCorruptPartIsAChecksumMismatchObjectWithExitTwo() throws {
        let scratch = try splitSet()
        var part = scratch.read("data.bin.002")!
        part[10] ^= 0xFF
        try scratch.write("data.bin.002", part)
        let document = try expectDocument(
            ["merge", "data.bin.001", "-o", "out", "--json"], in: scratch.path, status: 2, schema: "error")
        #expect(document["error"]?["code"] == .string("checksumMismatch"))
        #expect(scratch.read("out") == nil)
    }

    @Test func splitListsItsInputPartsAndManifest() throws {
        let scratch = try Scratch()
        try scratch.write("data.bin", randomData(5000, seed: 14))
        let document = try expectDocument(
            ["split", "data.bin", "--size", "2000", "--json", "-q"], in: scratch.path, status: 0, schema: "split")
        #expect(document["inputs"] == .array([.string("data.bin")]))
        #expect(document["outputs"] == .array(["data.bin.001", "data.bin.002", "data.bin.003"].map(JSONValue.string)))
        #expect(document["manifest"] == .string("data.bin.sfv"))
        #expect(document["output"] == .null)
        let missing = try expectDocument(
            ["split", "gone.bin", "--size", "2000", "--json"], in: scratch.path, status: 1, schema: "error")
        #expect(missing["error"]?["syscall"] == .string("open"))
        #expect(missing["error"]?["path"] == .string("gone.bin"))
        #expect(missing["error"]?["errno"] == .integer(Int64(ENOENT)))
    }

    @Test func checksumReportsEachFileAndItsExitStatus() throws {
        let scratch = try splitSet()
        let document = try expectDocument(
            ["checksum", "--json", "data.bin.001", "data.bin.002"], in: scratch.path, status: 0, schema: "checksum")
        #expect(document["command"] == .string("checksum"))
        #expect(document["inputs"] == .array([.string("data.bin.001"), .string("data.bin.002")]))
        let partial = try expectDocument(
            ["checksum", "--json", "data.bin.001", "gone"], in: scratch.path, status: 1, schema: "checksum")
        #expect(partial["exitStatus"] == .integer(1))
    }

    @Test func verifyReportsMismatchesInItsOwnDocument() throws {
        let scratch = try splitSet()
        let ok = try expectDocument(
            ["verify", "--json", "data.bin.sfv"], in: scratch.path, status: 0, schema: "verify")
        #expect(ok["inputs"] == .array([.string("data.bin.sfv")]))
        var part = scratch.read("data.bin.003")!
        part[0] ^= 1
        try scratch.write("data.bin.003", part)
        let bad = try expectDocument(
            ["verify", "--json", "data.bin.sfv"], in: scratch.path, status: 2, schema: "verify")
        #expect(bad["exitStatus"] == .integer(2))
    }

    /// A list that cannot be read is an error object in its summary, as errors are everywhere
    /// (it was the message as a bare string).
    @Test func aMissingListIsAnErrorObjectInItsSummary() throws {
        let scratch = try Scratch()
        let document = try expectDocument(
            ["verify", "--json", "nope.sha256"], in: scratch.path, status: 1, schema: "verify")
        let error = try #require(document["lists"]?.firstElementWithList("nope.sha256")["error"])
        #expect(error["code"] == .string("missingPart"))
        #expect(error["path"] == .string("nope.sha256"))
        #expect(error["syscall"] == .string("open"))
        #expect(error["errno"] == .integer(Int64(ENOENT)))
        #expect(error["exitStatus"] == .integer(1))
        #expect(error["message"] == .string("nope.sha256: open: No such file or directory"))
    }

    /// A list read from standard input is "-" in the document, as in `inputs`.
    @Test func aListFromStandardInputIsADash() throws {
        let scratch = try splitSet()
        let result = try run(
            executable: "/bin/sh", ["-c", "exec \"$0\" verify --json - < data.bin.sfv", gcdcatPath], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSONValue.parse(result.stdout)
        #expect(try schema("verify").violations(of: document) == [])
        #expect(document["inputs"] == .array([.string("-")]))
        #expect(document["lists"] == .array([try #require(document["lists"]).firstElementWithList("-")]))
    }

    /// Usage errors (exit 64) give the error object with code "usage", for every command.
    @Test(arguments: [
        ["merge", "--json", "--verify", "--no-verify", "x.001"],
        ["merge", "--json"],
        ["split", "f", "--json", "--size", "1K", "--parts", "2"],
        ["split", "f", "--json", "--bogus"],
        ["checksum", "--json", "--format", "gnu", "x"],
        ["verify", "--status", "--json", "L"],
        ["bench", "--json", "--parts", "0"],
    ])
    func usageErrorsGiveTheUsageObject(arguments: [String]) throws {
        let scratch = try Scratch()
        let document = try expectDocument(arguments, in: scratch.path, status: 64, schema: "error")
        #expect(document["error"]?["code"] == .string("usage"))
        #expect(document["command"] == .string(arguments[0]))
        #expect(document["error"]?["path"] == .null)
    }

    @Test func withoutJSONAFailurePrintsNothingOnStandardOutput() throws {
        let scratch = try Scratch()
        let result = try gcdcat(["merge", "gone.001", "-o", "out"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let usage = try gcdcat(["merge", "--verify", "--no-verify", "x.001"], in: scratch.path)
        #expect(usage.status == 64 && usage.stdout.isEmpty)
    }

    /// A signal ends the run with the "interrupted" object and 128+N, from the sweep path.
    @Test func aSignalGivesTheInterruptedObject() throws {
        let scratch = try Scratch()
        let result = try run(
            executable: "/bin/sh",
            [
                "-c",
                "{ sleep 30; } 2>/dev/null | env --default-signal \"$0\" split - --size 1M --prefix p. --json -q & pid=$!; "
                    // Signalled once it catches SIGTERM (bit 14 of SigCgt), not after a fixed
                    // sleep: under load a second was not always enough, and the default action
                    // ended it before it could say anything.
                    + "until [ $(( 0x$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$pid/status) >> 14 & 1 )) = 1 ]; "
                    + "do sleep 0.05; done; kill -TERM $pid; wait $pid",
                gcdcatPath,
            ], in: scratch.path)
        #expect(result.status == 143, "\(result.stderr)")
        let document = try JSONValue.parse(result.stdout)
        #expect(try schema("error").violations(of: document) == [])
        #expect(
            document["error"]
                == .object([
                    "code": .string("interrupted"), "exitStatus": .integer(143), "path": .null, "syscall": .null,
                    "errno": .integer(Int64(SIGTERM)), "message": .string("interrupted by SIGTERM"),
                ]))
        #expect(result.stderr.contains("gcdcat: interrupted by SIGTERM"))
        #expect(scratch.listing() == [])
    }

    /// Paths go out in PathName's lossless form: valid UTF-8 on the wire, the byte recoverable.
    @Test func aNonUTF8NameIsValidJSONAndLossless() throws {
        let scratch = try Scratch()
        let name = "p\u{10FFE9}.bin"  // the Latin-1 byte 0xE9
        #expect(PathName.bytes(of: name) == Array("p".utf8) + [0xE9] + Array(".bin".utf8))
        let result = try run(
            executable: "/bin/sh",
            [
                "-c", "name=$(printf 'p\\351.bin'); printf hello > \"$name\"; exec \"$0\" checksum --json \"$name\"",
                gcdcatPath,
            ],
            in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(validating: result.stdout, as: UTF8.self) != nil, "standard output is not UTF-8")
        let document = try JSONValue.parse(result.stdout)
        #expect(try schema("checksum").violations(of: document) == [])
        #expect(document["inputs"] == .array([.string(name)]))
    }

    /// bench: `--json` to standard output, `--json-file` (and the old `--json FILE`) to a file.
    @Test func benchJSONToStandardOutputAndToAFile() throws {
        let scratch = try Scratch()
        let common = ["bench", "--size", "1M", "--parts", "2", "--repeat", "1", "--high-water", "64K", "--merge-only"]
        // Every group (merge, verify, split, checksum) once, to standard output.
        let document = try expectDocument(
            Array(common.dropLast()) + ["--json"], in: scratch.path, status: 0, schema: "bench")
        #expect(document["command"] == .string("bench"))
        let cells = document["report"]?["cells"]
        if case .array(let cells)? = cells {
            let groups = Set(cells.compactMap { if case .string(let group)? = $0["group"] { group } else { nil } })
            #expect(groups == ["merge", "verify", "split", "checksum"])
        } else {
            Issue.record("no cells in \(document)")
        }
        let old = try gcdcat(common + ["--json", "old.json"], in: scratch.path)
        #expect(old.status == 0, "\(old.stderr)")
        #expect(old.stdoutText.contains("merge  cat "))
        let fromFile = try JSONValue.parse(scratch.read("old.json") ?? Data())
        #expect(try schema("bench").violations(of: fromFile) == [])
        let failed = try expectDocument(
            common + ["--json", "--dir", "missing/folder"], in: scratch.path, status: 1, schema: "error")
        #expect(failed["command"] == .string("bench"))
    }

    /// The schema's code enum is exactly GCDCatError's codes plus "usage".
    @Test func errorCodesMatchTheSchema() throws {
        let document = try JSONValue.parse(
            try Data(contentsOf: URL(fileURLWithPath: "\(schemaFolder)/error.json")))
        let codes = document["properties"]?["error"]?["properties"]?["code"]?["enum"]
        #expect(codes == .array((GCDCatError.Code.allCases.map(\.rawValue) + ["usage"]).map(JSONValue.string)))
    }
}

/// Cases an outside tester found with only the README and the binary.
extension JSONContractCLITests {
    @Test func jsonWithAnOutputThatIsStandardOutputIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("f.001", randomData(1000, seed: 9))
        for output in ["/dev/stdout", "/dev/fd/1"] {
            let result = try gcdcat(["merge", "f.001", "-o", output, "--json"], in: scratch.path)
            #expect(result.status == 64, "-o \(output)")
            let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            #expect((object?["error"] as? [String: Any])?["code"] as? String == "usage", "-o \(output)")
        }
        // Without --json, /dev/stdout still receives the merged bytes.
        let plain = try gcdcat(["merge", "f.001", "-o", "/dev/stdout"], in: scratch.path)
        #expect(plain.status == 0)
        #expect(plain.stdout == randomData(1000, seed: 9))
    }
}
