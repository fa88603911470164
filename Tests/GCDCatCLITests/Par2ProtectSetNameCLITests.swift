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
