import Foundation
import Testing

/// A folder or FIFO at a volume's name beside a healthy set is skipped with a note, as par2
/// skips it (outside attack on issue 23, item 7: verify and merge failed, "Is a directory").
extension Par2VerifyCLITests {
    @Test func verifyAndMergeSkipAFolderAndAFIFOAtVolumeNames() throws {
        let scratch = try Scratch()
        let whole = randomData(300_000, seed: 71)
        try scratch.write("orig", whole)
        let split = try gcdcat(["split", "orig", "-b", "100000", "--par2", "50", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("orig"))
        try FileManager.default.createDirectory(
            atPath: scratch.file("orig.vol99+1.par2"), withIntermediateDirectories: false)
        let fifo = try runTool("mkfifo", ["orig.vol98+1.par2"], in: scratch.path)
        #expect(fifo.status == 0, "\(fifo.stderr)")
        let notes =
            "gcdcat: note: orig.vol98+1.par2: not a regular file (a FIFO), so no volume of the set; skipped\n"
            + "gcdcat: note: orig.vol99+1.par2: Is a directory, so no volume of the set; skipped\n"

        let verify = try gcdcat(["verify", "orig.par2"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.hasPrefix(notes), "\(verify.stderr)")

        let merge = try gcdcat(["orig.001", "-o", "out", "-q"], in: scratch.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(scratch.read("out") == whole)

        try FileManager.default.removeItem(atPath: scratch.file("orig.002"))
        try FileManager.default.removeItem(atPath: scratch.file("out"))
        let repairing = try gcdcat(["orig.001", "-o", "out"], in: scratch.path)
        #expect(repairing.status == 0, "\(repairing.stderr)")
        #expect(repairing.stderr.contains(notes), "\(repairing.stderr)")
        #expect(scratch.read("out") == whole)
    }
}
