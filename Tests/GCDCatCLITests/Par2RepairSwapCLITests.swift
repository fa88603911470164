import Foundation
import Testing

/// `repair` never replaces a file that was swapped in while it ran (outside attack on issue 23,
/// item 5: the user's new version was replaced by the rebuilt old file, exit 0). strace holds
/// the repair after it linked the rebuilt file under its scratch name (`delay_exit` on
/// `linkat`): the test waits for that name, moves a new file to the damaged file's name, and
/// lets the repair go on.
extension Par2RepairCLITests {
    @Test(.enabled(if: toolExists("strace"), "needs strace to hold the repair before it names the file"))
    func repairKeepsAFileSwappedInWhileItRan() throws {
        let scratch = try Scratch()
        try scratch.write("a", randomData(2_000_000, seed: 51))
        let protect = try gcdcat(["protect", "a", "-q"], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        var damaged = scratch.read("a")!
        damaged[5] ^= 0x5A
        try scratch.write("a", damaged)

        let repair = Process()
        repair.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        repair.arguments = [
            "strace", "-f", "-o", "/dev/null", "-e", "trace=linkat", "-e", "inject=linkat:delay_exit=5000000",
            gcdcatPath, "repair", "a.par2",
        ]
        repair.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        let err = Pipe()
        repair.standardError = err
        repair.standardOutput = FileHandle.nullDevice
        repair.standardInput = FileHandle.nullDevice
        try repair.run()
        let outcome = ReadAll(err.fileHandleForReading)
        // The rebuilt file's scratch name: the repair is past its checks, before the rename.
        while repair.isRunning, !scratch.listing().contains(where: { $0.hasPrefix(".a.gcdcat-") }) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let mine = Data("USER'S NEW VERSION\n".utf8)
        try scratch.write("a.new", mine)
        #expect(rename(scratch.file("a.new"), scratch.file("a")) == 0)
        repair.waitUntilExit()
        let stderr = outcome.wait()
        #expect(repair.terminationStatus == 1, "\(stderr)")
        #expect(
            stderr.hasSuffix(
                "gcdcat: a: was replaced by another file while the repair ran; that file was kept, and the repaired "
                    + "one was not written. Check it, then repair again\n"), "\(stderr)")
        #expect(scratch.read("a") == mine)
        #expect(!scratch.listing().contains(where: { $0.hasPrefix(".a.gcdcat-") }), "\(scratch.listing())")
    }
}
