import Foundation
import Testing

/// `split --manifest` in the parts' folder or above it, however the path is spelt: an absolute
/// path beside relative parts, `../NAME`, a relative prefix beside an absolute manifest (outside
/// re-check a18 B: each was refused, saying the parts were "elsewhere"). A manifest truly
/// elsewhere is refused with the folders it compared.
@Suite struct ManifestFolderCLITests {
    func realPath(_ path: String) throws -> String {
        let resolved = try #require(realpath(path, nil))
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func splitInput(_ scratch: Scratch, in folder: String = "") throws -> Data {
        let whole = randomData(100_000, seed: 1920)
        try scratch.write(folder + "a.bin", whole)
        return whole
    }

    /// The manifest lists the parts by the names its folder reaches them by, and checks them.
    func expectManifest(_ scratch: Scratch, _ manifest: String, lists names: [String]) throws {
        let text = String(decoding: try #require(scratch.read(manifest)), as: UTF8.self)
        let listed = text.split(separator: "\n").filter { !$0.hasPrefix(";") }.map {
            String($0.split(separator: " ")[0])
        }
        #expect(listed == names)
        let folder = (manifest as NSString).deletingLastPathComponent
        let verified = try gcdcat(["verify", (manifest as NSString).lastPathComponent], in: scratch.file(folder))
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test func anAbsoluteManifestInThePartsFolderIsTheirs() throws {
        let scratch = try Scratch()
        let whole = try splitInput(scratch)
        let split = try gcdcat(
            ["split", "a.bin", "--size", "30K", "--manifest", scratch.file("a.bin.sfv"), "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(split.stderr == "")
        try expectManifest(scratch, "a.bin.sfv", lists: ["a.bin.001", "a.bin.002", "a.bin.003", "a.bin.004"])
        let merged = try gcdcat(["a.bin.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr == "gcdcat: 4 parts verified against a.bin.sfv\n")
        #expect(scratch.read("out") == whole)
    }

    @Test func aManifestAboveThePartsByDotDotOrAnAbsolutePath() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("f1"), withIntermediateDirectories: false)
        _ = try splitInput(scratch, in: "f1/")
        let above = try gcdcat(
            ["split", "a.bin", "--size", "30K", "--manifest", "../other.sfv", "-q"], in: scratch.file("f1"))
        #expect(above.status == 0, "\(above.stderr)")
        #expect(above.stderr == "")
        try expectManifest(scratch, "other.sfv", lists: (1...4).map { "f1/a.bin.00\($0)" })
        let prefixed = try gcdcat(
            [
                "split", "f1/a.bin", "--size", "30K", "--prefix", "parts/a.bin.", "--manifest",
                scratch.file("parts.sfv"), "-q",
            ], in: scratch.path)
        // The folder parts/ does not exist yet: said, and nothing written.
        #expect(prefixed.status == 1)
        #expect(prefixed.stderr == "gcdcat: parts: realpath: No such file or directory\n")
        #expect(scratch.listing() == ["f1", "other.sfv"])
        try FileManager.default.createDirectory(atPath: scratch.file("parts"), withIntermediateDirectories: false)
        let inParts = try gcdcat(
            [
                "split", "f1/a.bin", "--size", "30K", "--prefix", "parts/a.bin.", "--manifest",
                scratch.file("parts.sfv"), "-q",
            ], in: scratch.path)
        #expect(inParts.status == 0, "\(inParts.stderr)")
        try expectManifest(scratch, "parts.sfv", lists: (1...4).map { "parts/a.bin.00\($0)" })
    }

    /// A manifest in a folder below or beside the parts' is refused, naming both real folders;
    /// nothing is written.
    @Test func aManifestElsewhereIsRefusedNamingTheFolders() throws {
        let scratch = try Scratch()
        _ = try splitInput(scratch)
        try FileManager.default.createDirectory(atPath: scratch.file("sub"), withIntermediateDirectories: false)
        let refused = try gcdcat(["split", "a.bin", "--size", "30K", "--manifest", "sub/x.sfv"], in: scratch.path)
        #expect(refused.status == 1)
        let real = try realPath(scratch.path)
        #expect(
            refused.stderr
                == "gcdcat: sub/x.sfv: the manifest must sit in the parts' folder or above it, where its names can "
                + "reach them: a.bin.001 is in \(real), which is not inside \(real)/sub\n")
        #expect(scratch.listing() == ["a.bin", "sub"])
    }
}
