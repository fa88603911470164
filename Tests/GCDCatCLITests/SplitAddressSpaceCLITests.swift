import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A split under an address-space limit (`ulimit -v`): refused before anything is created when
/// the limit leaves too little room, never a crash.
@Suite("Split and merge under an address-space limit")
struct SplitAddressSpaceCLITests {
    /// Under `ulimit -v`, a split of 20 000 parts either completes or says the limit is too low
    /// (exit 1, nothing left behind); it used to end in SIGSEGV (139), an abort (134, "failed to
    /// allocate 1056 bytes") or a hang on swift-backtrace; between 400 000 and 500 000 KiB it
    /// still aborted now and then ("failed to allocate 88 bytes", 134) past the pre-check.
    @Test(arguments: [150_000, 300_000, 400_000, 450_000, 500_000, 600_000, 1_000_000])
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

/// Cases an outside tester found with only the README and the binary.
extension SplitAddressSpaceCLITests {
    /// A split under a tight `ulimit -v` trapped ("failed to allocate") or hung in libdispatch,
    /// which retries a thread it cannot create for ever. Each limit must now give a complete
    /// split or a clean allocation error, with nothing left behind.
    @Test func aSplitUnderAnAddressSpaceLimitFinishesOrFailsCleanly() throws {
        let scratch = try Scratch()
        let data = randomData(1_000_000, seed: 5)
        try scratch.write("small", data)
        for limit in stride(from: 85_000, through: 130_000, by: 5_000) {
            let result = try shell(
                "ulimit -v \(limit); exec timeout -s KILL 60 \(gcdcatPath) split -q small --parts 2", in: scratch.path)
            let listing = scratch.listing()
            #expect(!listing.contains { $0.contains(".gcdcat-") }, "ulimit -v \(limit): left \(listing)")
            switch result.status {
            case 0:
                let joined = (scratch.read("small.001") ?? Data()) + (scratch.read("small.002") ?? Data())
                #expect(joined == data, "ulimit -v \(limit): wrong bytes")
            case 1:
                #expect(result.stderr.contains("Cannot allocate memory"), "ulimit -v \(limit): \(result.stderr)")
                #expect(listing == ["small"], "ulimit -v \(limit): a failed split left \(listing)")
            case 127:
                // The dynamic loader itself could not map the runtime: gcdcat never ran.
                #expect(result.stderr.contains("error while loading shared libraries"))
            default:
                Issue.record("ulimit -v \(limit): exit \(result.status) (trap or hang): \(result.stderr.prefix(300))")
            }
            for name in ["small.001", "small.002", "small.sfv"] {
                try? FileManager.default.removeItem(atPath: scratch.file(name))
            }
        }
    }

    /// A merge of many parts under a tight `ulimit -v` trapped in the Swift runtime ("failed to
    /// allocate 262176 bytes", exit 134), and so did any run at the lowest limits: each limit
    /// now gives a complete merge or a clean error naming the limit, nothing written.
    @Test func aManyPartMergeUnderAnAddressSpaceLimitFinishesOrFailsCleanly() throws {
        let scratch = try Scratch()
        let data = randomData(3_000_000, seed: 11)
        try scratch.write("in", data)
        #expect(try gcdcat(["split", "in", "--size", "1000", "-q"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.file("in"))
        for limit in stride(from: 40_000, through: 120_000, by: 4_000) {
            let result = try shell(
                "ulimit -v \(limit); exec timeout -s KILL 60 \(gcdcatPath) in.001 -o out -q", in: scratch.path)
            switch result.status {
            case 0: #expect(scratch.read("out") == data, "ulimit -v \(limit): wrong bytes")
            case 1:
                #expect(
                    result.stderr.contains("the address-space limit (ulimit -v"), "ulimit -v \(limit): \(result.stderr)"
                )
                #expect(scratch.read("out") == nil)
            case 127:
                // The dynamic loader itself could not map the runtime: gcdcat never ran.
                #expect(result.stderr.contains("error while loading shared libraries"))
            default:
                Issue.record("ulimit -v \(limit): exit \(result.status) (trap or hang): \(result.stderr.prefix(300))")
            }
            #expect(!scratch.listing().contains { $0.contains(".gcdcat-") })
            try? FileManager.default.removeItem(atPath: scratch.file("out"))
        }
    }

    /// A stream merge under `ulimit -v 150000` hung every time in libdispatch's thread creation.
    @Test func aStreamMergeUnderALowAddressSpaceLimitEnds() throws {
        let scratch = try Scratch()
        let data = randomData(40_000_000, seed: 9)
        try scratch.write("w.001", data.prefix(20_000_000))
        try scratch.write("w.002", data.dropFirst(20_000_000))
        for limit in [150_000, 300_000] {
            let result = try shell(
                "ulimit -v \(limit); exec timeout -s KILL 40 \(gcdcatPath) merge w.001 -o out --strategy stream -q",
                in: scratch.path)
            #expect([0, 1].contains(result.status), "ulimit -v \(limit): exit \(result.status)")
            if result.status == 0 { #expect(scratch.read("out") == data) }
            if result.status == 1 { #expect(result.stderr.contains("Cannot allocate memory"), "\(result.stderr)") }
            #expect(!scratch.listing().contains { $0.contains(".gcdcat-") })
            try? FileManager.default.removeItem(atPath: scratch.file("out"))
        }
    }
}
