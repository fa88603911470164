import Foundation
import GCDCatCore
import Testing

/// A backslash in a name (`a\b.001`): PAR2 allows it, but par2cmdline 0.8.1 and turbo on Linux
/// read it as a folder separator (they look for `a/b.001`) and refuse to create a set of such a
/// file. gcdcat wrote such sets, which both tools called missing; it refuses to now, naming the
/// file, and reads a `\` in a set as they do.
@Suite struct Par2BackslashNamesCLITests {
    @Test func protectRefusesANameWithABackslash() throws {
        let scratch = try Scratch()
        try scratch.write("a\\b.001", randomData(5000, seed: 2331))
        try scratch.write("a\\b.002", randomData(3000, seed: 2332))
        let result = try gcdcat(["protect", "a\\b.001", "a\\b.002"], in: scratch.path)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: a\\b.001: its name has a backslash, which par2cmdline and par2cmdline-turbo read as a folder "
                    + "separator (they would look for a/b.001), so a PAR2 set cannot name it; rename it, then "
                    + "protect it\n"), "\(result.stderr)")
        #expect(scratch.listing() == ["a\\b.001", "a\\b.002"])
        // Neither tool makes a set of it either.
        for tool in Par2Tool.allCases.filter(\.isInstalled) {
            let create = try tool.execute(["create", "-q", "s.par2", "a\\b.001", "a\\b.002"], in: scratch.path)
            #expect(create.status != 0, "\(tool)")
            #expect(scratch.listing() == ["a\\b.001", "a\\b.002"], "\(tool)")
        }
    }

    @Test func splitWithPar2RefusesPartsNamedWithABackslash() throws {
        let scratch = try Scratch()
        try scratch.write("x\\y", randomData(9000, seed: 2333))
        let result = try gcdcat(["split", "x\\y", "-b", "4000", "--par2", "10%"], in: scratch.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: x\\y.001: its name has a backslash, which par2cmdline and par2cmdline-turbo read as a "
                + "folder separator (they would look for x/y.001), so a PAR2 set cannot name it; nothing was written. "
                + "Give a --prefix without one, or split without --par2\n")
        #expect(scratch.listing() == ["x\\y"])
    }

    /// A set that names `a\b.001` (written by gcdcat before, or by a Windows tool) is read as
    /// par2cmdline reads it: the file `b.001` in the folder `a`, verified and repaired there.
    @Test func aBackslashInASetsNameIsReadAsAFolderSeparator() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("a"), withIntermediateDirectories: true)
        let data = randomData(10_000, seed: 2334)
        try scratch.write("a/b.001", data)
        try writeSet(naming: "a\\b.001", data, in: scratch)
        let verify = try gcdcat(["verify", "s.par2"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdoutText == "a/b.001: OK\n")
        for tool in Par2Tool.allCases.filter(\.isInstalled) {
            let verified = try tool.execute(["verify", "s.par2"], in: scratch.path)
            #expect(verified.status == 0, "\(tool): \(verified.stdoutText)")
        }
        try FileManager.default.removeItem(atPath: scratch.file("a/b.001"))
        let repair = try gcdcat(["repair", "s.par2"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr.hasSuffix("gcdcat: a/b.001: repaired (3 blocks rebuilt)\n"), "\(repair.stderr)")
        #expect(scratch.read("a/b.001") == data)
        #expect(scratch.read("a\\b.001") == nil)
    }

    /// `s.par2` and `s.vol0+3.par2`: `data` named `name` in 4 KiB blocks (three), with three
    /// recovery blocks, built with gcdcat's encoder (which takes any name).
    func writeSet(naming name: String, _ data: Data, in scratch: Scratch) throws {
        let bytes = [UInt8](data)
        let encoder = try Par2Encoder(
            descriptions: [
                .init(name: name, length: Int64(bytes.count), md5First16K: Par2Hash.md5(Array(bytes.prefix(16384))))
            ], sliceSize: 4096, recoverySlices: 3, jobs: 1, path: "s.par2")
        var padding = [UInt8](repeating: 0, count: 4096)
        for (index, start) in stride(from: 0, to: bytes.count, by: 4096).enumerated() {
            Array(bytes[start..<min(start + 4096, bytes.count)]).withUnsafeBytes {
                encoder.add(file: 0, slice: index, bytes: $0, padding: &padding)
            }
        }
        let packets = encoder.finish(creator: "test")
        let critical = Array(packets.critical.joined())
        try scratch.write("s.par2", Data(critical + packets.creator))
        var volume: [UInt8] = []
        for slice in packets.recovery { volume += slice.header + Array(slice.data) }
        try scratch.write("s.vol0+3.par2", Data(volume + critical + packets.creator))
    }
}
