import Foundation
import Testing

/// `protect` of a numbered set names its index as a merge of the set looks for it (outside
/// attack on issue 23, item 2: GNU split's `xaa` … got `xa.par2`, which no merge found, so a
/// damaged or missing part merged to wrong bytes with exit 0), and takes any number of files
/// (item 6: 63 or more failed, opening "").
extension Par2ProtectCLITests {
    @Test(arguments: [("x", "x.par2"), ("p.", "p.par2"), ("part_", "part.par2"), ("orig.", "orig.par2")])
    func protectNamesAGNUSetsIndexAsAMergeLooksForIt(prefix: String, index: String) throws {
        let scratch = try Scratch()
        let whole = randomData(300_000, seed: 61)
        try scratch.write("orig", whole)
        let split = try runTool("split", ["-b", "100000", "orig", prefix], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("orig"))
        let parts = ["aa", "ab", "ac"].map { prefix + $0 }
        let protect = try gcdcat(["protect"] + parts + ["--par2", "50", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        #expect(scratch.read(index) != nil, "\(scratch.listing())")
        #expect(
            scratch.listing().filter { $0.hasSuffix(".par2") }.allSatisfy { $0.hasPrefix(String(index.dropLast(5))) })

        var damaged = scratch.read(parts[1])!
        damaged.replaceSubrange(10..<13, with: Data("BAD".utf8))
        try scratch.write(parts[1], damaged)
        let repaired = try gcdcat([parts[0], "-o", "out"], in: scratch.path)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(repaired.stderr.contains("gcdcat: note: rebuilding \(parts[1]) (damaged, "), "\(repaired.stderr)")
        #expect(scratch.read("out") == whole)

        try FileManager.default.removeItem(atPath: scratch.file(parts[2]))
        try FileManager.default.removeItem(atPath: scratch.file("out"))
        let rebuilt = try gcdcat([parts[0], "-o", "out", "-q"], in: scratch.path)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// A file smaller than one part leaves 7-Zip's or split's set as just `NAME.001`: its index
    /// is `NAME.par2`, which the merge of that part finds and repairs by (outside attack a23c
    /// F11: `NAME.001.par2` went unused, and a damaged part merged to wrong bytes, exit 0). A
    /// lone file that is no first part keeps its own name.
    @Test(arguments: [
        ("arc.7z.001", "arc.7z.par2"), ("f.bin.000", "f.bin.par2"), ("f.bin.002", "f.bin.002.par2"),
        ("photo.2023", "photo.2023.par2"), ("notes.001.txt", "notes.001.txt.par2"),
    ])
    func aLoneFirstPartIsProtectedUnderItsSetsName(file: String, index: String) throws {
        let scratch = try Scratch()
        let whole = randomData(200_000, seed: 62)
        try scratch.write(file, whole)
        let protect = try gcdcat(["protect", file, "--par2", "10", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        #expect(scratch.read(index) != nil, "\(scratch.listing())")
        guard index != file + ".par2" else { return }
        var damaged = whole
        damaged.replaceSubrange(100_000..<100_004, with: Data("QQQQ".utf8))
        try scratch.write(file, damaged)
        let merged = try gcdcat([file, "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.contains("gcdcat: note: rebuilding \(file) (damaged, 1 block)"), "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
        #expect(scratch.read(file) == damaged, "the part is left as it was")
    }

    @Test(arguments: [63, 200])
    func protectTakesManyFiles(count: Int) throws {
        let scratch = try Scratch()
        let names = (1...count).map { "g\($0)" }
        for (number, name) in names.enumerated() { try scratch.write(name, randomData(100, seed: UInt64(number + 1))) }
        let protect = try gcdcat(["protect"] + names + ["-o", "m.par2", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("g7"))
        let verify = try gcdcat(["verify", "m.par2", "--json"], in: scratch.path)
        #expect(verify.status != 0, "\(verify.stderr)")
        let repair = try gcdcat(["repair", "m.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(scratch.read("g7") == randomData(100, seed: 7))
        for tool in Par2Tool.allCases where tool.isInstalled {
            let check = try tool.execute(["verify", "-q", "m.par2"], in: scratch.path)
            #expect(check.status == 0, "\(tool): \(check.stdoutText)")
        }
    }
}
