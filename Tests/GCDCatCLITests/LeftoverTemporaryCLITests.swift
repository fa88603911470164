import Foundation
import Testing

/// SIGKILL between `--force`'s `linkat` to a temporary name and the `rename` over the old
/// output leaves that temporary. It is named `.NAME.gcdcat-XXXXXX` (within 255 bytes) so it
/// says whose it is, and the next run for the same output says it is there and may be deleted.
@Suite(.enabled(if: toolExists("strace"), "strace is needed to kill gcdcat between linkat and rename"))
struct LeftoverTemporaryCLITests {
    @Test(arguments: ["out", String(repeating: "n", count: 250)])
    func aKilledForcePublishLeavesANamedTemporaryThatTheNextRunMentions(output: String) throws {
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
        #expect(
            again.stderr.hasPrefix(
                "gcdcat: note: \(output): \(leftover) is a temporary file left by a gcdcat run that was killed while "
                    + "writing it; unless another gcdcat is writing \(output) now, it may be deleted\n"),
            "\(again.stderr)")
        #expect(scratch.read(output) == whole)
    }
}
