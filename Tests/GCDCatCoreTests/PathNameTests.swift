import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct PathNameTests {
    @Test(
        arguments: [
            Array("movie.zip.001".utf8),
            Array("caf\u{E9} \u{1F600}.001".utf8),
            [0x70, 0xE9, 0x2E, 0x30, 0x30, 0x31],  // Latin-1 "pé.001"
            [0x62, 0x61, 0x64, 0xFF, 0xFE],
            [0xC0, 0xAF],  // overlong "/"
            [0xED, 0xA0, 0x80],  // an encoded surrogate
            [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF itself: inside the escape range
            [0xF4, 0x8F, 0xBE, 0x80, 0xE9],  // U+10FF80, then a lone byte
            [0xE2, 0x82],  // a truncated sequence at the end
        ])
    func decodingThenEncodingGivesBackTheBytes(bytes: [UInt8]) {
        let name = PathName.decode(bytes)
        #expect(PathName.bytes(of: name) == bytes)
        let passed = PathName.withPathCString(name) { pointer in
            (0...bytes.count).map { UInt8(bitPattern: pointer[$0]) }
        }
        #expect(passed == bytes + [0])
    }

    @Test func everyTwoByteSequenceRoundTrips() {
        for first in 0...255 {
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second)]
                #expect(PathName.bytes(of: PathName.decode(bytes)) == bytes)
            }
        }
    }

    @Test func validUTF8IsUnchanged() {
        let name = "r\u{E9}sum\u{E9} \u{65E5}\u{672C}.txt"
        #expect(PathName.decode(Array(name.utf8)) == name)
        #expect(PathName.bytes(of: name) == Array(name.utf8))
    }

    @Test func displayEscapesBytesAndControlCharacters() {
        #expect(PathName.decode([0x70, 0xE9, 0x2E, 0x31]).displayPath == "p\\xe9.1")
        #expect("a\u{1B}[31mred".displayPath == "a\\x1b[31mred")
        #expect("two\nlines".displayPath == "two\\nlines")
        #expect("back\\slash".displayPath == "back\\slash")
        #expect("back\\slash\n".displayPath == "back\\\\slash\\n")
        #expect("plain name.001".displayPath == "plain name.001")
    }

    @Test func aNonUTF8FileIsFoundByItsListedName() throws {
        let directory = TemporaryDirectory()
        let name = PathName.decode([0x70, 0xE9, 0x2E, 0x30, 0x30, 0x31])
        let fd = PathName.withPathCString(directory.file(name)) { open($0, O_WRONLY | O_CREAT, 0o644) }
        #expect(fd >= 0)
        close(fd)
        #expect(try directoryEntries(directory.path) == [name])
        let part = try PartFile.validate(directory.file(name))
        #expect(part.size == 0)
    }
}
