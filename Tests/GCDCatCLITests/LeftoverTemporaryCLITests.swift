import Foundation
import Testing

/// SIGKILL between `--force`'s `linkat` to a temporary name and the `rename` over the old
/// output leaves that temporary. It is named `.NAME.gcdcat-XXXXXX` (within 255 bytes) so it
/// says whose it is, and the next run that publishes the same output names it, unless a process
/// holds its lock: an output of another gcdcat under way (outside attack a23c F10: repair,
/// protect and split never named theirs). It is never removed: a file so named may be the
/// user's, or the run's own input (the outside re-check r23c N1 had a first version remove both).
@Suite(.enabled(if: toolExists("strace"), "strace is needed to kill gcdcat between linkat and rename"))
struct LeftoverTemporaryCLITests {
    static func staleNote(_ leftover: String, output: String) -> String {
        "gcdcat: note: \(output): \(leftover) looks like a temporary file left by a gcdcat run that was killed while "
            + "writing it, and no process holds it; if it is not a file of yours, it may be deleted\n"
    }

    /// `command` run under strace with SIGKILL at its first rename; the `.NAME.gcdcat-` files then.
    static func killedAtFirstRename(_ command: String, in scratch: Scratch, stem: String) throws -> [String] {
        let killed = try shell(
            "strace -f -o /dev/null -e trace=rename,renameat,renameat2 "
                + "-e inject=rename,renameat,renameat2:signal=KILL:when=1 \(gcdcatPath) \(command)",
            in: scratch.path)
        #expect(killed.status != 0, "\(killed.stderr)")
        return scratch.listing().filter { $0.hasPrefix(".\(stem).gcdcat-") }
    }

    @Test func aKilledRepairsTemporaryIsNamedByTheNextRepair() throws {
        let scratch = try Scratch()
        let original = randomData(300_000, seed: 43)
        try scratch.write("a.bin", original)
        #expect(try gcdcat(["protect", "a.bin", "-o", "s.par2", "--par2", "20", "-q"], in: scratch.path).status == 0)
        var damaged = original
        damaged[5] ^= 0xFF
        try scratch.write("a.bin", damaged)
        let leftovers = try Self.killedAtFirstRename("repair s.par2 -q", in: scratch, stem: "a.bin")
        #expect(leftovers.count == 1, "\(scratch.listing())")
        #expect(scratch.read("a.bin") == damaged)
        let again = try gcdcat(["repair", "s.par2"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains(Self.staleNote(leftovers[0], output: "a.bin")), "\(again.stderr)")
        #expect(scratch.read("a.bin") == original)
        #expect(scratch.listing().contains(leftovers[0]), "named, not removed")
    }

    @Test func aKilledForceSplitsTemporaryIsNamedByTheNextSplit() throws {
        let scratch = try Scratch()
        let whole = randomData(250_000, seed: 44)
        try scratch.write("f", whole)
        #expect(try gcdcat(["split", "f", "--size", "100K"], in: scratch.path).status == 0)
        // `--force` removes the old first part before anything is named: the first rename is f.002's.
        let leftovers = try Self.killedAtFirstRename("split f --size 100K --force -q", in: scratch, stem: "f.002")
        #expect(leftovers.count == 1, "\(scratch.listing())")
        let again = try gcdcat(["split", "f", "--size", "100K", "--force"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        for leftover in leftovers {
            #expect(again.stderr.contains(Self.staleNote(leftover, output: "f.002")), "\(again.stderr)")
        }
        #expect(scratch.listing().filter { $0.contains(".gcdcat-") } == leftovers, "named, not removed")
        #expect(try gcdcat(["f.001", "-o", "joined"], in: scratch.path).status == 0)
        #expect(scratch.read("joined") == whole)
    }

    /// An input named like a temporary of the output is read, named at most, and kept (r23c N1:
    /// a first version removed it after the merge).
    @Test func anInputNamedLikeATemporaryIsKept() throws {
        let scratch = try Scratch()
        try scratch.write(".x.gcdcat-abcdef", Data("first\n".utf8))
        try scratch.write("b", Data("second\n".utf8))
        let merged = try gcdcat(["merge", "--as-given", ".x.gcdcat-abcdef", "b", "-o", "x"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("x") == Data("first\nsecond\n".utf8))
        #expect(scratch.read(".x.gcdcat-abcdef") == Data("first\n".utf8))
    }

    /// A temporary whose lock a live process holds is an output under way: left as it is, unnamed.
    @Test(.enabled(if: toolExists("flock"), "needs util-linux flock to hold a lock"))
    func aLockedTemporaryIsLeftAlone() throws {
        let scratch = try Scratch()
        try scratch.write("p.001", randomData(3000, seed: 45))
        try scratch.write("out", Data("old\n".utf8))
        try scratch.write(".out.gcdcat-AbC123", Data("someone's output\n".utf8))
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [scratch.file(".out.gcdcat-AbC123"), "sleep", "30"]
        try holder.run()
        defer { holder.terminate() }
        // flock takes its lock before it runs sleep: wait until a try to take it fails.
        for _ in 0..<100 where try shell("flock -n .out.gcdcat-AbC123 true", in: scratch.path).status == 0 {
            usleep(50_000)
        }
        let merged = try gcdcat(["merge", "p.001", "-o", "out", "--force"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(!merged.stderr.contains("AbC123"), "\(merged.stderr)")
        #expect(scratch.read(".out.gcdcat-AbC123") == Data("someone's output\n".utf8))
    }

    @Test(arguments: ["out", String(repeating: "n", count: 250)])
    func aKilledForcePublishLeavesANamedTemporaryThatTheNextRunNames(output: String) throws {
        let scratch = try Scratch()
        let whole = randomData(5000, seed: 41)
        try scratch.write("p.001", whole.prefix(3000))
        try scratch.write("p.002", whole.suffix(2000))
        let old = Data("the old output\n".utf8)
        try scratch.write(output, old)
        let killed = try shell(
            "strace -f -o /dev/null -e trace=rename,renameat,renameat2 "
                + "-e inject=rename,renameat,renameat2:signal=KILL:when=1 \(gcdcatPath) merge p.001 -o '\(output)' "
                + "--force -q --strategy stream",
            in: scratch.path)
        #expect(killed.status != 0, "\(killed.stderr)")
        #expect(scratch.read(output) == old, "the old output is untouched")
        let kept = String(output.prefix(255 - ".gcdcat-XXXXXX".count - 1))
        let leftovers = scratch.listing().filter { $0.hasPrefix(".\(kept).gcdcat-") }
        #expect(leftovers.count == 1, "\(scratch.listing())")
        guard let leftover = leftovers.first else { return }
        #expect(leftover.utf8.count == min(255, output.utf8.count + ".gcdcat-XXXXXX".count + 1))
        #expect(scratch.read(leftover) == whole, "the temporary holds the merged bytes")

        let again = try gcdcat(["merge", "p.001", "-o", output, "--force", "--strategy", "stream"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains(Self.staleNote(leftover, output: output)), "\(again.stderr)")
        #expect(scratch.read(output) == whole)
        #expect(scratch.read(leftover) == whole, "named, not removed")
    }
}
