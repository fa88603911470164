import Testing

@testable import GCDCatCore

/// What a checksum list beside a set says about it (``ListsBesideSet/reading(list:parts:whole:)``),
/// told apart by what the list reader found, not by its message.
struct ListsBesideSetTests {
    /// A folder with the parts `x.bin.001` and `x.bin.002`, and `list` holding `text`.
    static func folder(list: String, _ text: String) throws -> (TemporaryDirectory, [PartFile]) {
        let directory = TemporaryDirectory()
        writeFile(directory.file("x.bin.001"), Array("abc".utf8))
        writeFile(directory.file("x.bin.002"), Array("de".utf8))
        writeFile(directory.file(list), Array(text.utf8))
        let parts = try ["x.bin.001", "x.bin.002"].map { try PartFile.validate(directory.file($0)) }
        return (directory, parts)
    }

    @Test func aListGivingAPartTwoValuesIsContradictory() throws {
        let (directory, parts) = try Self.folder(
            list: "download.sfv", "x.bin.001 00000001\nx.bin.002 00000002\nx.bin.002 00000003\n")
        let reading = try ListsBesideSet.reading(list: directory.file("download.sfv"), parts: parts, whole: "x.bin")
        guard case .contradictory(let error) = reading else {
            Issue.record("\(reading)")
            return
        }
        #expect(error.code == .malformedManifest)
        #expect(error.message == "line 3: 'x.bin.002' is listed twice, with another value (first on line 2)")
        var listedTwice = false
        #expect(throws: GCDCatError.self) {
            _ = try ChecksumList.loadSkippingMalformed(directory.file("download.sfv"), listedTwice: &listedTwice)
        }
        #expect(listedTwice)
    }

    /// The same line twice says nothing new: the list is about the set.
    @Test func aListRepeatingALineWholeIsAboutTheSet() throws {
        let (directory, parts) = try Self.folder(
            list: "download.sfv", "x.bin.001 00000001\nx.bin.002 00000002\nx.bin.002 00000002\n")
        #expect(
            try ListsBesideSet.reading(list: directory.file("download.sfv"), parts: parts, whole: "x.bin") == .about)
    }

    /// Values of a length no algorithm gcdcat computes has (`rhash --tiger`): unreadable, not
    /// contradictory, and the reader says it refused no name listed twice.
    @Test func aListInAnAlgorithmGcdcatDoesNotComputeIsUnreadable() throws {
        let tiger = String(repeating: "a", count: 48)
        let (directory, parts) = try Self.folder(list: "TIGERSUMS", "\(tiger)  x.bin.001\n\(tiger)  x.bin.002\n")
        let reading = try ListsBesideSet.reading(list: directory.file("TIGERSUMS"), parts: parts, whole: "x.bin")
        #expect(
            reading
                == .unreadable(
                    "line 1: 48 hex digits before the name: no algorithm gcdcat reads has a value of that length "
                        + "(a list of another tool's, such as rhash --tiger?)"))
        var listedTwice = true
        #expect(throws: GCDCatError.self) {
            _ = try ChecksumList.loadSkippingMalformed(directory.file("TIGERSUMS"), listedTwice: &listedTwice)
        }
        #expect(!listedTwice)
    }
}
