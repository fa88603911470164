import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gcdcat split s3://…` against a real RGW: into a local folder (ranged GETs) and into objects
/// (copied on the server), each read back, byte-compared and checked with cksfv or merge.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3SplitObjectCLITests {
    static let mib = 1 << 20

    @Test func anObjectSplitIntoTheCurrentFolderAndIntoAnotherOne() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("down")
        let input = randomData(40 * Self.mib + 7, seed: 31)
        try LiveS3.put(bucket, "dir/big.bin", input)
        let split = try LiveS3.gcdcat(
            ["split", "s3://\(bucket)/dir/big.bin", "--size", "16M", "-q", "--jobs", "4"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(scratch.listing() == ["big.bin.001", "big.bin.002", "big.bin.003", "big.bin.sfv"])
        let parts = ["001", "002", "003"].compactMap { scratch.read("big.bin.\($0)") }
        #expect(parts.map(\.count) == [16 * Self.mib, 16 * Self.mib, 8 * Self.mib + 7])
        #expect(parts.reduce(Data(), +) == input)
        let merged = try gcdcat(["merge", "big.bin.001", "-o", "back", "-q"], in: scratch.path)
        #expect(merged.status == 0 && scratch.read("back") == input, "\(merged.stderr)")
        // --parts, into a folder named by --prefix, with the JSON report.
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: false)
        let byCount = try LiveS3.gcdcat(
            ["split", "s3://\(bucket)/dir/big.bin", "--parts", "3", "--prefix", "out/b.", "--json", "-q"],
            in: scratch.path)
        #expect(byCount.status == 0, "\(byCount.stderr)")
        let report = try LiveS3.json(byCount)
        #expect(report["strategy"] as? String == "ranged-get")
        #expect((report["s3"] as? [String: Any])?["downloadedBytes"] as? Int == input.count)
        let document = try JSONValue.parse(byCount.stdout)
        #expect(try schema("split").violations(of: document) == [], "\(byCount.stdoutText)")
        let thirds = ["001", "002", "003"].compactMap { scratch.read("out/b.\($0)") }
        #expect(thirds.reduce(Data(), +) == input)
    }

    /// cksfv checks the parts an object split wrote into a local folder against their SFV.
    @Test(.enabled(if: toolExists("cksfv"), "needs cksfv (apt-get install cksfv)"))
    func cksfvChecksTheLocalPartsOfAnObjectSplit() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("cksfv")
        try LiveS3.put(bucket, "dir/big.bin", randomData(3 * Self.mib + 7, seed: 32))
        let split = try LiveS3.gcdcat(["split", "s3://\(bucket)/dir/big.bin", "--size", "1M", "-q"], in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        #expect(scratch.listing() == ["big.bin.001", "big.bin.002", "big.bin.003", "big.bin.004", "big.bin.sfv"])
        let checked = try runTool("cksfv", ["-q", "-f", "big.bin.sfv"], in: scratch.path)
        #expect(checked.status == 0, "\(checked.stdoutText)")
    }

    @Test(arguments: ["16M", "3M"])
    func anObjectSplitIntoObjectsOnTheServer(size: String) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("copy")
        let other = try LiveS3.freshBucket("dest")
        let input = randomData(40 * Self.mib + 7, seed: 32)
        try LiveS3.put(bucket, "big.bin", input)
        let split = try LiveS3.gcdcat(
            ["split", "s3://\(bucket)/big.bin", "--size", size, "--prefix", "s3://\(other)/p.", "--json", "-q"],
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        let count = size == "16M" ? 3 : 14
        let keys = try LiveS3.keys(other)
        #expect(keys.count == count + 1 && keys.last == "p.sfv", "\(keys)")
        let parts = try keys.dropLast().map { try #require(try LiveS3.bytes(other, $0)) }
        #expect(parts.reduce(Data(), +) == input)
        // The data moved on the server: only the manifest was sent, and the source read once for it.
        let facts = try #require(try LiveS3.json(split)["s3"] as? [String: Any])
        #expect(facts["copyParts"] as? Int == count)
        #expect(facts["checkBytesRead"] as? Int == input.count)
        #expect((facts["clientBytes"] as? Int ?? Int.max) < 4096, "\(facts)")
        #expect(try LiveS3.uploads(other).isEmpty)
        // The manifest is right: merge checks every part against it.
        let merged = try LiveS3.gcdcat(["merge", "s3://\(other)/p.001", "-o", "back", "-q"], in: scratch.path)
        #expect(merged.status == 0 && scratch.read("back") == input, "\(merged.stderr)")
        #expect(scratch.listing() == ["back"])
    }

    @Test func aMissingObjectAnExistingPartAndLineModesAreRefused() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("nope")
        let missing = try LiveS3.gcdcat(["split", "s3://\(bucket)/none", "--size", "1M"], in: scratch.path)
        #expect(missing.status == 1)
        #expect(missing.stderr == "gcdcat: s3://\(bucket)/none: No such object\n", "\(missing.stderr)")
        #expect(scratch.listing().isEmpty)
        try LiveS3.put(bucket, "src", randomData(6 * Self.mib, seed: 33))
        try LiveS3.put(bucket, "p.002", Data([7]))
        let exists = try LiveS3.gcdcat(
            ["split", "s3://\(bucket)/src", "--size", "5M", "--prefix", "s3://\(bucket)/p."], in: scratch.path)
        #expect(exists.status == 1)
        #expect(exists.stderr == "gcdcat: s3://\(bucket)/p.002: already exists (use --force to replace it)\n")
        #expect(try LiveS3.keys(bucket) == ["p.002", "src"])
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let lines = try LiveS3.gcdcat(["split", "s3://\(bucket)/src", "--lines", "10"], in: scratch.path)
        #expect(lines.status == 64)
        #expect(lines.stderr.contains("--lines, --line-bytes and --line-boundary need a file"), "\(lines.stderr)")
        let streamLines = try LiveS3.gcdcat(
            ["split", "-", "--line-bytes", "1M", "--prefix", "s3://\(bucket)/s."], in: scratch.path)
        #expect(streamLines.status == 64)
        #expect(streamLines.stderr.contains("standard input is split into s3:// objects by --size"))
    }

    @Test func standardInputSplitIntoObjects() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("stdin")
        let input = randomData(30 * Self.mib + 11, seed: 34)
        try scratch.write("stream", input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "exec \"$0\" split - --size 12M --prefix s3://\(bucket)/s. --json -q --endpoint-url \"$1\" < stream",
            gcdcatPath, LiveS3.endpoint!,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        let result = try collect(process)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try LiveS3.keys(bucket) == ["s.001", "s.002", "s.003", "s.sfv"])
        let parts = try ["s.001", "s.002", "s.003"].map { try #require(try LiveS3.bytes(bucket, $0)) }
        #expect(parts.reduce(Data(), +) == input)
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let merged = try LiveS3.gcdcat(["merge", "s3://\(bucket)/s.001", "-o", "back", "-q"], in: scratch.path)
        #expect(merged.status == 0 && scratch.read("back") == input, "\(merged.stderr)")
    }

    @Test func sigintWhileStandardInputStreamsLeavesNoUpload() throws {
        let bucket = try LiveS3.freshBucket("stdsig")
        let process = signalableGCDCat([
            "split", "-", "--size", "64M", "--prefix", "s3://\(bucket)/x.", "-q", "--endpoint-url", LiveS3.endpoint!,
        ])
        process.environment = LiveS3.environment()
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        // 20 MiB, and the pipe kept open: the first part's upload starts and the stream goes on.
        let chunk = randomData(20 * Self.mib, seed: 35)
        // gcdcat takes all of it (it holds jobs + 1 buffers of 16 MiB); the write must end
        // before the interrupt, or it would raise SIGPIPE here.
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? input.fileHandleForWriting.write(contentsOf: chunk)
            written.signal()
        }
        #expect(written.wait(timeout: .now() + 30) == .success)
        let deadline = Date().addingTimeInterval(30)
        while try LiveS3.uploads(bucket).isEmpty && process.isRunning && Date() < deadline { usleep(20_000) }
        #expect(try !LiveS3.uploads(bucket).isEmpty, "no upload was under way")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationStatus == 130)
        #expect(try LiveS3.uploads(bucket).isEmpty)
        #expect(try LiveS3.keys(bucket).isEmpty)
    }
}
