import Foundation
import Testing

/// A merge that repairs from a `.par2`, against a writer that changes a part while it runs.
/// strace stretches a window (a syscall sleeps 1.5 s); a shell script waits until gcdcat is in
/// it (its unnamed output exists), then has a Python helper write into the part through a
/// shared mapping whose page it dirtied beforehand, so the kernel leaves the part's mtime and
/// ctime alone: no "unchanged since validation" test can see the write. gcdcat must never
/// exit 0 with bytes the set's MD5s reject.
@Suite(.enabled(if: toolExists("strace") && toolExists("python3"), "needs strace and python3"))
struct Par2MergeRaceCLITests {
    /// `data`, 3 MiB cut into 1 MiB parts with 4 KiB blocks and `recovery` recovery, and no SFV
    /// (the PAR2 checks the parts); returns its bytes.
    func splitSet(in scratch: Scratch, recovery: String = "10%") throws -> Data {
        let whole = randomData(3 << 20, seed: 5151)
        try scratch.write("data", whole)
        let split = try gcdcat(
            ["split", "data", "--size", "1M", "--par2", recovery, "--par2-block-size", "4K", "--no-manifest", "-q"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("data"))
        return whole
    }

    /// Runs `gcdcat ARGUMENTS` under `strace STRACE` while `PART` is changed through a mapping
    /// (8 bytes at offset 5000, in its second block) once gcdcat has its unnamed output open and,
    /// with `alsoOpen`, that file too; returns gcdcat's result.
    func mergeWhileChanging(
        _ part: String, strace: [String], _ arguments: [String], alsoOpen: String? = nil, in scratch: Scratch
    ) throws -> RunResult {
        let also = alsoOpen.map { " && ls -l /proc/$child/fd 2>/dev/null | grep -qF '/\($0)'" } ?? ""
        let writer = """
            import mmap, os, sys, time
            fd = os.open(sys.argv[1], os.O_RDWR)
            m = mmap.mmap(fd, 0, mmap.MAP_SHARED)
            m[5000] = m[5000]  # dirties the page without changing it: later writes leave mtime alone
            open("ready", "w").close()
            while not os.path.exists("go"):
                time.sleep(0.005)
            m[5000:5008] = bytes(b ^ 0xFF for b in m[5000:5008])
            """
        let quoted = (strace + [gcdcatPath] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let script = """
            python3 -c '\(writer.replacingOccurrences(of: "'", with: "'\\''"))' \(part) & writer=$!
            while [ ! -e ready ]; do sleep 0.005; done
            env --default-signal strace -f -o /dev/null \(quoted) >out 2>err & tracer=$!
            # gcdcat's unnamed output (O_TMPFILE) shows in /proc as "…/#N (deleted)".
            for _ in $(seq 6000); do
                child=$(cat /proc/$tracer/task/*/children 2>/dev/null | tr ' ' '\\n' | grep . | head -1)
                [ -n "$child" ] && ls -l /proc/$child/fd 2>/dev/null | grep -q "$PWD/#.*(deleted)"\(also) && break
                sleep 0.005
            done
            touch go; wait $writer
            wait $tracer; status=$?
            rm ready go
            exit $status
            """
        let result = try runTool("bash", ["-c", script], in: scratch.path)
        // strace's own note on -P's relative path is not gcdcat's.
        let stderr = String(decoding: scratch.read("err") ?? Data(), as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        ).filter { !$0.hasPrefix("strace: Requested path") }.joined(separator: "\n")
        let stdout = scratch.read("out") ?? Data()
        try? FileManager.default.removeItem(atPath: scratch.file("err"))
        try? FileManager.default.removeItem(atPath: scratch.file("out"))
        return RunResult(status: result.status, stdout: stdout, stderr: stderr)
    }

    /// The merge used to check the parts, then have the kernel copy them (copy_file_range): a
    /// write between the two reached the output, exit 0. `fallocate` comes between them there,
    /// and sleeps here. Now the check writes the very bytes it hashes, so the change is either
    /// seen (the part is damaged, and rebuilt) or not in the output at all.
    @Test func aPartWrittenThroughAMappingDuringTheMergeNeverReachesTheOutput() throws {
        let scratch = try Scratch()
        let whole = try splitSet(in: scratch)
        let result = try mergeWhileChanging(
            "data.003", strace: ["-e", "trace=fallocate", "-e", "inject=fallocate:delay_enter=1500000"],
            ["data.001"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("data") == whole)
        #expect(
            result.stderr
                == "gcdcat: note: rebuilding data.003 (damaged, 1 block) from data.par2's recovery blocks; "
                + "the part itself is left as it is\n")
    }

    /// A part changed between the check and the rebuild: the rebuilt block comes out wrong, and
    /// was blamed on the part being rebuilt (exit 2, a checksum mismatch). The part that changed
    /// is named, exit 1. The rebuild's own open of the first volume (the second open of it; the
    /// first is the set's reading) sleeps, after the output is open, so after the check.
    @Test func aPartChangedBeforeTheRebuildIsNamedNotTheRebuiltPart() throws {
        let scratch = try Scratch()
        _ = try splitSet(in: scratch)
        var damaged = try #require(scratch.read("data.002"))
        damaged[10_000] ^= 0x5A
        try scratch.write("data.002", damaged)
        let result = try mergeWhileChanging(
            "data.003",
            strace: [
                "-P", "data.vol00+01.par2", "-e", "trace=openat", "-e", "inject=openat:delay_exit=1500000:when=2",
            ],
            ["data.001"], alsoOpen: "data.vol00+01.par2", in: scratch)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "gcdcat: note: rebuilding data.002 (damaged, 1 block) from data.par2's recovery blocks; "
                + "the part itself is left as it is\n"
                + "gcdcat: data.003: changed after it was verified (block 2 no longer has its checksums), so the "
                + "bytes rebuilt or merged from it would be wrong; nothing was written. Do not modify files while "
                + "they are merged or repaired\n")
        #expect(scratch.read("data") == nil)
    }

    /// A part missing: its rebuild starts beside the check, and reads the other parts on its
    /// own. A part changed while that rebuild waits (its open of the first volume sleeps: the
    /// first open on its thread, as strace counts, where the set's reading made the first on the
    /// merge's own thread) is
    /// either seen by the check (damaged, so that rebuild is set aside and the part rebuilt
    /// too) or read changed by the rebuild alone (named, exit 1): never exit 0 with other bytes.
    @Test func aPartChangedWhileTheMissingPartIsRebuiltBesideTheCheckNeverReachesTheOutput() throws {
        let scratch = try Scratch()
        let whole = try splitSet(in: scratch, recovery: "40%")
        try FileManager.default.removeItem(atPath: scratch.file("data.002"))
        let result = try mergeWhileChanging(
            "data.003",
            strace: [
                "-P", "data.vol000+001.par2", "-e", "trace=openat", "-e", "inject=openat:delay_exit=1500000:when=1",
            ],
            ["data.001"], alsoOpen: "data.vol000+001.par2", in: scratch)
        let rebuilding =
            "gcdcat: note: rebuilding data.002 (missing, 256 blocks) from data.par2's recovery blocks; "
            + "the part itself is left as it is\n"
        if result.status == 0 {
            #expect(scratch.read("data") == whole)
            #expect(
                result.stderr
                    == rebuilding + "gcdcat: note: rebuilding data.003 (damaged, 1 block) from data.par2's recovery "
                    + "blocks; the part itself is left as it is\n")
        } else {
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == rebuilding
                    + "gcdcat: data.003: changed after it was verified (block 2 no longer has its checksums), so the "
                    + "bytes rebuilt or merged from it would be wrong; nothing was written. Do not modify files while "
                    + "they are merged or repaired\n")
            #expect(scratch.read("data") == nil)
        }
    }
}
