import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A split under an address-space limit (`ulimit -v`): refused before anything is created when
/// the limit leaves too little room, never a crash.
@Suite("Split under an address-space limit")
struct SplitAddressSpaceCLITests {
    /// Under `ulimit -v`, a split of 20 000 parts either completes or says the limit is too low
    /// (exit 1, nothing left behind); it used to end in SIGSEGV (139), an abort (134, "failed to
    /// allocate 1056 bytes") or a hang on swift-backtrace.
    @Test(arguments: [150_000, 300_000, 1_000_000])
    func anAddressSpaceLimitIsAnErrorNotACrash(_ kibibytes: Int) throws {
        let scratch = try Scratch()
        try scratch.write("in.bin", randomData(2_000_000, seed: 7))
        #expect(mkdir(scratch.file("o"), 0o755) == 0)
        let run = try shell(
            "ulimit -v \(kibibytes); timeout 300 \(gcdcatPath) split in.bin --prefix o/p. -b 100 -q",
            in: scratch.path)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.file("o"))) ?? []
        #expect(run.status == 0 || run.status == 1, "ulimit -v \(kibibytes): status \(run.status): \(run.stderr)")
        if run.status == 1 {
            #expect(run.stderr.contains("ulimit -v"), "\(run.stderr)")
            #expect(left.isEmpty, "ulimit -v \(kibibytes): left behind: \(left.prefix(3))")
        } else if run.status == 0 {
            #expect(left.count == 20_001)
        }
    }
}
