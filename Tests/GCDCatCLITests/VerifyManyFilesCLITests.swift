import Foundation
import Testing

/// Issue 22 (scale): `verify` of a list longer than its window of 4,096 entries prints every
/// file once, in the list's order, against `sha256sum -c`, and its summary and JSON count all.
@Suite struct VerifyManyFilesCLITests {
    /// 5,000 small files, their SHA256SUMS by sha256sum, then one file corrupted and one removed.
    func manyFiles() throws -> (Scratch, names: [String]) {
        let scratch = try Scratch()
        let names = (0..<5000).map { String(format: "f%05d", $0) }
        for (index, name) in names.enumerated() { try scratch.write(name, randomData(1 + index % 64, seed: 9)) }
        let made = try runTool("sha256sum", names, in: scratch.path)
        try scratch.write("SHA256SUMS", made.stdout)
        try scratch.write(names[4500], Data("changed".utf8))
        try FileManager.default.removeItem(atPath: scratch.file(names[100]))
        return (scratch, names)
    }

    @Test(.enabled(if: toolExists("sha256sum"), "needs coreutils' sha256sum"))
    func aListOfMoreFilesThanTheWindowIsListedInOrderAsSha256sumListsIt() throws {
        let (scratch, names) = try manyFiles()
        let result = try gcdcat(["verify", "SHA256SUMS"], in: scratch.path)
        #expect(result.status == 1)  // a missing file wins over a mismatch
        let expected = names.enumerated().map { index, name in
            index == 100 ? "\(name): MISSING" : index == 4500 ? "\(name): FAILED (expected sha256 " : "\(name): OK"
        }
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == names.count)
        #expect(zip(lines, expected).allSatisfy { $0.hasPrefix($1) })
        // sha256sum -c agrees on each file.
        let reference = try runTool("sha256sum", ["-c", "SHA256SUMS"], in: scratch.path)
        let referenceLines = reference.stdoutText.split(separator: "\n").map { $0.split(separator: ":").first! }
        #expect(referenceLines.map(String.init) == lines.map { String($0.split(separator: ":").first!) })
        #expect(
            result.stderr.hasSuffix(
                "gcdcat: SHA256SUMS: 5000 files: 4998 OK, 1 FAILED, 1 MISSING\n"
                    + "gcdcat: SHA256SUMS: 1 listed file is not here; --ignore-missing checks only the files present\n")
        )
    }

    @Test(.enabled(if: toolExists("sha256sum"), "needs coreutils' sha256sum"))
    func quietIgnoreMissingAndJSONCountEveryWindow() throws {
        let (scratch, names) = try manyFiles()
        let quiet = try gcdcat(["verify", "--quiet", "--ignore-missing", "SHA256SUMS"], in: scratch.path)
        #expect(quiet.status == 2)
        #expect(quiet.stdoutText.hasPrefix("\(names[4500]): FAILED"))
        #expect(quiet.stdoutText.split(separator: "\n").count == 1)
        #expect(quiet.stderr == "gcdcat: SHA256SUMS: 4999 files: 4998 OK, 1 FAILED, 0 MISSING (1 missing ignored)\n")
        let json = try gcdcat(["verify", "--json", "SHA256SUMS"], in: scratch.path)
        #expect(json.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.map { $0["name"] as? String } == names)
        #expect(files.map { $0["line"] as? Int } == Array(1...5000))
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["ok"] as? Int == 4998)
        #expect(summary["missing"] as? Int == 1)
        #expect(document["exitStatus"] as? Int == 1)
    }

    /// Per listed file one `openat2` (which also refuses a symlink out of the list's folder),
    /// one `fstat`, one `pread` and one `close`: no `lstat` and no `fstatfs` per file. It was
    /// six calls with both (`sha256sum -c` makes seven).
    @Test(.enabled(if: toolExists("strace"), "strace counts the syscalls"))
    func eachListedFileCostsOneOpenOneFstatOneReadAndOneClose() throws {
        let scratch = try Scratch()
        let count = 2000
        var list = ""
        for index in 0..<count {
            try scratch.write(String(format: "f%05d", index), Data("123456789".utf8))
            list += String(format: "f%05d", index) + " CBF43926\n"
        }
        try scratch.write("list.sfv", Data(list.utf8))
        let run = try shell("strace -f -c -o counts \(gcdcatPath) verify --quiet list.sfv", in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        var calls: [String: Int] = [:]
        for line in String(decoding: scratch.read("counts") ?? Data(), as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 5, let number = Int(fields[3]) else { continue }
            calls[String(fields.last!)] = number
        }
        #expect(calls["openat2"] == count, "\(calls)")
        #expect(calls["fstatfs", default: 0] < 10, "\(calls)")
        // The start's own files (libraries, /proc, /sys) take a few hundred calls.
        let fileCalls = [
            "openat", "openat2", "newfstatat", "fstat", "statx", "fstatfs", "statfs", "pread64", "read",
            "close", "readlink", "getcwd",
        ].reduce(0) { $0 + calls[$1, default: 0] }
        #expect(fileCalls < 4 * count + 500, "\(calls)")
    }

    /// A list over 64 MiB was refused ("too large for a checksum list") although it is read a
    /// block at a time; only a line too long to be a list's is refused now, naming its number.
    @Test func aListOfAnyLengthIsReadButALineOver16MiBIsRefused() throws {
        let scratch = try Scratch()
        try scratch.write("q", Data("q".utf8))
        var list = Data("8e35c2cd3bf6641bdb0e2050b76932cbb2e6034a0ddacc1d9bea82a6ba57f7cf  q\n".utf8)
        let comment = Data(("# " + String(repeating: "x", count: 1021) + "\n").utf8)
        for _ in 0..<(65 << 10) { list += comment }
        try scratch.write("BIG.sha256", list)
        let big = try gcdcat(["verify", "BIG.sha256"], in: scratch.path)
        #expect(big.status == 0, "\(big.stderr)")
        #expect(String(decoding: big.stdout, as: UTF8.self) == "q: OK\n")
        try scratch.write("long.sha256", Data(repeating: UInt8(ascii: "a"), count: 17 << 20))
        let long = try gcdcat(["verify", "long.sha256"], in: scratch.path)
        #expect(long.status == 1)
        #expect(long.stderr == "gcdcat: long.sha256: line 1: longer than 16 MiB; not a checksum list\n")
    }

    /// A FIFO named as the list, with no writer, held `verify` in a blocking open that SIGINT
    /// and SIGTERM could not end. A pipe list is read (as `<(…)` is), but never waited on: one
    /// that no one writes is an empty list, at once.
    @Test func aFIFOWithNoWriterReadsAsAnEmptyListAtOnce() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.file("ff"), 0o644) == 0)
        let result = try shell("timeout -s KILL 20 \(gcdcatPath) verify ff", in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "gcdcat: ff: no entries: nothing to verify\n")
    }
}
