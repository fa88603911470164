import Foundation
import Testing

/// What `--force` removes of an older recovery set (outside attack on issue 23, items 3 and 4):
/// only PAR2 files of that set, never a user's file that merely has a volume's name, and all of
/// them before any new part is named, so that a split killed while naming its set leaves no old
/// index or volume that would rebuild the new parts into the old file.
extension Par2StaleSetCLITests {
    static let userData = Data("user data\n".utf8)
    static let lookalikes = [
        "f.bin.vol7+3.par2", "f.bin.vol7+3.PAR2", "f.bin.vol1+0.par2", "f.bin.vol99999999999999999999+1.par2",
    ]

    @Test func protectForceLeavesUserFilesThatOnlyLookLikeVolumes() throws {
        let scratch = try Scratch()
        try scratch.write("f.bin", randomData(100_000, seed: 31))
        for name in Self.lookalikes { try scratch.write(name, Self.userData) }
        let protect = try gcdcat(["protect", "--force", "f.bin", "--par2-block-size", "4096", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        for name in Self.lookalikes { #expect(scratch.read(name) == Self.userData, "\(name)") }
        let verify = try gcdcat(["verify", "f.bin.par2", "-q"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    @Test func splitForceLeavesUserFilesThatOnlyLookLikeVolumes() throws {
        let scratch = try Scratch()
        try scratch.write("f.bin", randomData(100_000, seed: 32))
        for name in Self.lookalikes { try scratch.write(name, Self.userData) }
        let split = try gcdcat(["split", "f.bin", "-b", "50000", "--par2", "10", "--force"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(!split.stderr.contains("removed the PAR2 files"), "\(split.stderr)")
        for name in Self.lookalikes { #expect(scratch.read(name) == Self.userData, "\(name)") }
    }

    /// An old set's real volume at a name the new set does not write still goes, with the note.
    @Test func splitForceRemovesTheOldSetsVolumesButNotAUsersFile() throws {
        let scratch = try Scratch()
        try scratch.write("f.bin", randomData(100_000, seed: 33))
        let old = try gcdcat(["split", "f.bin", "-b", "50000", "--par2", "100", "-q"], in: scratch.path)
        #expect(old.status == 0, "\(old.stderr)")
        let oldVolumes = scratch.listing().filter { $0.hasPrefix("f.bin.vol") }
        #expect(!oldVolumes.isEmpty)
        try scratch.write("f.bin.vol7+3.par2", Self.userData)
        let new = try gcdcat(["split", "f.bin", "-b", "50000", "--par2", "10", "--force"], in: scratch.path)
        #expect(new.status == 0, "\(new.stderr)")
        #expect(scratch.read("f.bin.vol7+3.par2") == Self.userData)
        #expect(new.stderr.contains("gcdcat: warning: removed the PAR2 files of the set it replaced: f.bin.par2, "))
        #expect(!new.stderr.contains("f.bin.vol7+3.par2"), "\(new.stderr)")
        let verify = try gcdcat(["verify", "f.bin.par2", "-q"], in: scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    /// `split --force` of new contents killed at a rename (the first, the second, … a volume's):
    /// whatever is left, a merge
    /// either refuses or writes the new file; it writes the old one only while every part there
    /// is still the old set's.
    @Test(.enabled(if: toolExists("strace"), "needs strace to kill gcdcat at a rename"))
    func aSplitForceKilledWhileNamingLeavesNoOldSetThatMergesWrong() throws {
        let (old, new) = (randomData(500_000, seed: 34), randomData(500_000, seed: 35))
        for when in [1, 2, 3, 6, 9] {
            let scratch = try Scratch()
            try scratch.write("orig", old)
            let first = try gcdcat(["split", "orig", "-b", "100000", "--par2", "100", "-q"], in: scratch.path)
            #expect(first.status == 0, "\(first.stderr)")
            try scratch.write("orig", new)
            let killed = try shell(
                "strace -f -o /dev/null -e trace=rename,renameat,renameat2 "
                    + "-e inject=rename,renameat,renameat2:signal=KILL:when=\(when) \(gcdcatPath) split orig "
                    + "-b 100000 --par2 100 --force -q",
                in: scratch.path)
            if killed.status == 0 { break }
            let oldPartsLeft = (1...5).allSatisfy { number in
                scratch.read(String(format: "orig.%03d", number))
                    == old.subdata(
                        in: (number - 1) * 100_000..<number * 100_000)
            }
            for arguments in [["orig.001"], ["orig.002"], ["merge", "orig.par2"]] {
                try? FileManager.default.removeItem(atPath: scratch.file("out"))
                let merge = try gcdcat(arguments + ["-o", "out", "-q"], in: scratch.path)
                guard merge.status == 0 else { continue }
                let output = scratch.read("out")
                #expect(
                    output == new || (output == old && oldPartsLeft),
                    "killed at rename \(when), \(arguments) wrote \(output == old ? "the old file" : "wrong bytes")")
            }
        }
    }
}
