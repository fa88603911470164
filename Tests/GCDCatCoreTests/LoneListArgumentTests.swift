import Testing

@testable import GCDCatCore

/// The one rule for when a merge's lone argument is the checksum list that names its set
/// (``SetFromList/loneList(_:asGiven:isNumberedPart:)``): by its name, or by its first KiB when
/// it is not a numbered part.
struct LoneListArgumentTests {
    static let sha256Line = String(repeating: "0", count: 64) + "  x.bin.001\n"

    @Test(arguments: ["a.sfv", "dir/x.bin.md5", "SHA256SUMS", "B2SUMS"])
    func aListNamedAsOneIsTakenWithoutBeingRead(name: String) throws {
        // Not there at all: the name alone decides, even for a numbered part.
        #expect(try SetFromList.loneList([name], asGiven: false, isNumberedPart: { _ in true }) == name)
        #expect(try SetFromList.loneList([name], asGiven: true, isNumberedPart: { _ in false }) == nil)
    }

    @Test func aFileThatReadsAsAListIsTakenUnlessItIsANumberedPart() throws {
        let directory = TemporaryDirectory()
        let notes = directory.file("notes.txt")
        writeFile(notes, Array(Self.sha256Line.utf8))
        #expect(try SetFromList.loneList([notes], asGiven: false, isNumberedPart: { _ in false }) == notes)
        #expect(try SetFromList.loneList([notes], asGiven: false, isNumberedPart: { _ in true }) == nil)
        #expect(try SetFromList.loneList([notes], asGiven: true, isNumberedPart: { _ in false }) == nil)
    }

    @Test func dataSeveralArgumentsAndMissingFilesAreNoList() throws {
        let directory = TemporaryDirectory()
        let data = directory.file("data.bin")
        writeFile(data, Array("just bytes, no checksum lines\n".utf8))
        #expect(try SetFromList.loneList([data], asGiven: false, isNumberedPart: { _ in false }) == nil)
        #expect(
            try SetFromList.loneList([directory.file("gone")], asGiven: false, isNumberedPart: { _ in false }) == nil)
        #expect(try SetFromList.loneList(["a.sfv", "b.sfv"], asGiven: false, isNumberedPart: { _ in false }) == nil)
        #expect(try SetFromList.loneList([], asGiven: false, isNumberedPart: { _ in false }) == nil)
    }
}
