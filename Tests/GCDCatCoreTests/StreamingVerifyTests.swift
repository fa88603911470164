import Foundation
import GCDCatCore
import Testing

/// Issue 22 (scale): lists read as bytes, a block at a time, and verified a window at a time.
@Suite struct StreamingVerifyTests {
    let md5 = "900150983cd24fb0d6963f7d28e17f72"
    let sha1 = "a9993e364706816aba3e25717850c26c9cd0d89d"
    let sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    /// The entries of `text`, or the error's message.
    func read(_ text: String, path: String = "list", forced: HashAlgorithm? = nil) -> String {
        do {
            let list = try ChecksumList.parse(bytes: Array(text.utf8), path: path, forced: forced)
            return list.entries.map { "\($0)" }.joined(separator: "\n")
        } catch {
            return "\(error)"
        }
    }

    // The everyday lines are taken apart on their bytes; a leading blank sends the same line
    // through the general reader. Both must read every line alike, errors included.
    @Test func everydayLinesReadTheSameOnTheirBytesAsThroughTheGeneralReader() {
        let lines = [
            "\(sha256)  plain.bin", "\(sha256) *binary.bin", "\(sha256)  trailing blanks \t",
            "\(sha256.uppercased())  upper.bin", "\(md5)  café", "\(md5)  cafe\u{301}", "\(md5)  ./dir/./x",
            "\(sha256)  /etc/passwd", "\(sha256)  a/../b", "\(sha256)  (paren) = \(md5)",
            "\(sha1)  12345678", "\(md5) 12345678", "\(md5)  a\\b", "\(md5)  tab\tinside",
            "name with spaces.bin CBF43926", "f0000001 cbf43926", "/abs 00000000", "../up 00000000",
            "x (1).bin CBF43926", "trailing.bin  CBF43926", "ABCDEF0123  ten digits", "\(md5)x  glued",
        ]
        for line in lines {
            for (path, forced) in [("list", nil), ("x.md5", nil), ("B2SUMS", nil), ("list", HashAlgorithm.md5)] {
                #expect(
                    read(line + "\n", path: path, forced: forced)
                        == read(" " + line + "\n", path: path, forced: forced),
                    "\(line) as \(path), forced \(String(describing: forced))")
            }
        }
    }

    // A list is read a block (1 MiB) at a time: lines across the block's end, a line longer than
    // a block, CRLF, a byte-order mark and no final newline read as from the whole bytes.
    @Test func aListLongerThanAReadBlockReadsAsTheWholeBytes() throws {
        let directory = TemporaryDirectory()
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        for index in 0..<30_000 {
            let name = "f\(index)" + String(repeating: "n", count: index % 97)
            bytes += Array("\(sha256)  \(name)\(index % 3 == 0 ? "\r" : "")\n".utf8)
            if index == 12_000 { bytes += Array("\(md5)  \(String(repeating: "long", count: 400_000))\n".utf8) }
        }
        bytes += Array("\(md5)  last, unterminated".utf8)
        writeFile(directory.file("SHA256SUMS"), bytes)
        let loaded = try ChecksumList.load(directory.file("SHA256SUMS"))
        let parsed = try ChecksumList.parse(bytes: bytes, path: directory.file("SHA256SUMS"))
        #expect(bytes.count > 3 << 20)
        #expect(loaded.entries.count == 30_002)
        #expect(loaded == parsed)
    }

    /// Files of several sizes (one over the read buffer), one corrupt, one missing, one
    /// rejected, and their sha256 list, named so that sha256 is guessed.
    func sampleList(_ directory: TemporaryDirectory) throws -> String {
        var lines = ""
        for (index, size) in [0, 10, 3000, (1 << 20) + 17, 64, 5].enumerated() {
            let bytes = seededBytes(size, seed: UInt64(index))
            writeFile(directory.file("f\(index)"), bytes)
            var digester = try Digester(.sha256)
            digester.update(bytes)
            let hex = digester.finalize()
            lines += "\(index == 3 ? String(repeating: "0", count: 64) : hex)  f\(index)\n"
        }
        lines += "\(sha256)  gone\n\(sha256)  ../outside\n"
        writeFile(directory.file("list"), Array(lines.utf8))
        return directory.file("list")
    }

    /// `path` verified a window at a time.
    func streamed(_ path: String, window: Int, jobs: Int = 2) throws -> [ChecksumListVerifier.Outcome] {
        var verifier = StreamingListVerifier(
            try ChecksumListSource(path), forced: nil, jobs: jobs, followLinksOutside: false)
        verifier.window = window
        let scan = try verifier.scan()
        var outcomes: [ChecksumListVerifier.Outcome] = []
        try verifier.verify(confirmed: try verifier.confirmedGuesses(scan.guessed), counter: nil) {
            outcomes.append($0)
        }
        return outcomes
    }

    @Test(arguments: [1, 3, 4096])
    func streamedOutcomesAreTheWholeListsInItsOrder(window: Int) throws {
        let directory = TemporaryDirectory()
        let path = try sampleList(directory)
        let whole = ChecksumListVerifier.confirmingGuesses(
            ChecksumListVerifier.verify(try ChecksumList.load(path), listPath: path, jobs: 2))
        let outcomes = try streamed(path, window: window)
        #expect(outcomes == whole)
        #expect(outcomes.map(\.status.word) == ["OK", "OK", "OK", "FAILED", "OK", "OK", "MISSING", "REJECTED"])
    }

    // A guess that no file confirms is UNCONFIRMED, never FAILED, when the files come in windows.
    @Test func anUnconfirmedGuessStaysUnconfirmedAcrossWindows() throws {
        let directory = TemporaryDirectory()
        var lines = ""
        for index in 0..<5 {
            let bytes = seededBytes(100 + index, seed: UInt64(index))
            writeFile(directory.file("b\(index)"), bytes)
            var digester = try Digester(.blake2b)  // b2sum's list, read as sha512 by its length
            digester.update(bytes)
            lines += "\(digester.finalize())  b\(index)\n"
        }
        writeFile(directory.file("list"), Array(lines.utf8))
        let outcomes = try streamed(directory.file("list"), window: 2)
        #expect(outcomes.map(\.status.word) == Array(repeating: "UNCONFIRMED", count: 5))
    }

    // The whole list is read before any file: a bad last line is known (and said) before the
    // first file is read; it is skipped in every pass, and the other lines are checked.
    @Test func aMalformedLastLineIsFoundBeforeAnyFileIsReadAndSkipped() throws {
        let directory = TemporaryDirectory()
        var text = ""
        for index in 0..<5000 { text += "\(sha256)  f\(index)\n" }
        text += "not a checksum line\n"
        writeFile(directory.file("list"), Array(text.utf8))
        var verifier = StreamingListVerifier(
            try ChecksumListSource(directory.file("list")), forced: nil, jobs: 2, followLinksOutside: false)
        let scan = try verifier.scan()
        #expect(scan.count == 5000 && scan.malformedCount == 1)
        #expect(
            scan.malformed.map(\.description) == [
                "\(directory.file("list")): line 5001: 'line' is not a CRC32 of 8 hex digits"
            ])
        var outcomes = 0
        try verifier.verify(confirmed: [], counter: nil) { _ in outcomes += 1 }
        #expect(outcomes == 5000)
    }

    // A file that is no list is refused without being read to its end: a NUL byte before the
    // first entry, or 100 bad lines and no entry, say so.
    @Test func aFileThatIsNoListIsRefusedEarly() {
        #expect(scanError("plain text\n\u{0}binary\n\(sha256)  a\n") == "line 1: 'text' is not a CRC32 of 8 hex digits")
        let prose = Array(repeating: "no checksum here", count: 100) + ["\(sha256)  a"]
        #expect(scanError(prose.joined(separator: "\n")) == "line 1: 'here' is not a CRC32 of 8 hex digits")
        let late = Array(repeating: "no checksum here", count: 99) + ["\(sha256)  a"]
        #expect(scanError(late.joined(separator: "\n")) == "none")
    }

    /// The error `scan()` of `text` (as a list named `list`) throws, or "none".
    func scanError(_ text: String) -> String {
        let directory = TemporaryDirectory()
        writeFile(directory.file("list"), Array(text.utf8))
        do {
            var verifier = StreamingListVerifier(
                try ChecksumListSource(directory.file("list")), forced: nil, jobs: 1, followLinksOutside: false)
            _ = try verifier.scan()
            return "none"
        } catch let error as GCDCatError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    // A streamed list finds names listed twice with a sieve of fixed size, then checks only the
    // names it flags: the first repeat is named with its first line, as one exact pass names
    // it, whatever malformed lines (skipped) lie before or after it.
    @Test func aNameListedTwiceInALongListIsFoundWithItsFirstLine() {
        var lines = (0..<20_000).map { "\(sha256)  f\($0)" }
        lines[15_000] = "\(String(repeating: "c", count: 64))  ./f3"
        lines[17_000] = "\(sha256)  f9"
        #expect(
            scanError(lines.joined(separator: "\n"))
                == "line 15001: './f3' is listed twice, with another value (first on line 4)")
        var malformedAfter = lines
        malformedAfter[16_000] = "not a checksum line"
        #expect(
            scanError(malformedAfter.joined(separator: "\n"))
                == "line 15001: './f3' is listed twice, with another value (first on line 4)")
        var malformedBefore = lines
        malformedBefore[12_000] = "not a checksum line"
        #expect(
            scanError(malformedBefore.joined(separator: "\n"))
                == "line 15001: './f3' is listed twice, with another value (first on line 4)"
        )
        // One algorithm's name is not another's: the same name under md5 and sha256 is two entries.
        #expect(scanError("\(sha256)  a\n\(md5)  a\n\(sha256)  b\n") == "none")
    }
}
