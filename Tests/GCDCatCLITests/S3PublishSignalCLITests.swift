import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT or SIGTERM while a split or a merge to `s3://` is publishing (completing its uploads
/// to their final keys), against the live RGW behind a proxy that slows each completion down:
/// the signal waits for the set, the exit is 128+N, and the message says that the set was
/// published and stays.
@Suite(.enabled(if: LiveS3.isAvailable, "GCDCAT_S3_ENDPOINT is not set (scripts/test.sh starts an RGW)"))
struct S3PublishSignalCLITests {
    /// A CompleteMultipartUpload or a PutObject of a whole object: what publishing sends.
    static func publishes(_ method: String, _ target: String) -> Bool {
        (method == "POST" && target.contains("uploadId=")) || (method == "PUT" && !target.contains("partNumber="))
    }

    /// Runs gcdcat through `proxy`, sends `signal` once `passed` is true of the requests the
    /// proxy passed (by default, once it passed the first that publishes), and returns the exit
    /// status and standard error.
    static func interrupted(
        _ arguments: [String], in directory: String, proxy: HoldingProxy, signal: Int32,
        once passed: ([String]) -> Bool = { $0.contains { Self.publishes(String($0.prefix { $0 != " " }), $0) } }
    ) throws -> (status: Int32, stderr: String) {
        let process = signalableGCDCat(arguments + ["--endpoint-url", proxy.url])
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = LiveS3.environment()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = ReadAll(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(120)
        while !passed(proxy.passed), process.isRunning, Date() < deadline { usleep(5_000) }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationStatus, stderr.wait())
    }

    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func aSignalWhileASplitPublishesWaitsForTheWholeSetWhichStays(signal: Int32, name: String) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("pubsig")
        let input = randomData(12 * 1024, seed: 91)
        try scratch.write("in", input)
        // 12 parts and a manifest, each completion held 0.4 s: the window lasts seconds.
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint, holding: { _, _ in false }) { method, target in
            Self.publishes(method, target) ? 0.4 : 0
        }
        defer { proxy.stop() }
        let (status, stderr) = try Self.interrupted(
            ["split", "in", "--size", "1K", "--prefix", "s3://\(bucket)/x.", "-q", "--jobs", "2"],
            in: scratch.path, proxy: proxy, signal: signal)
        #expect(status == 128 + signal, "\(stderr)")
        #expect(
            stderr
                == "\ngcdcat: interrupted by \(name) while its outputs were being published; publishing them first, "
                + "for at most 15s (--cleanup-timeout); a second signal stops at once and lists what is left\n"
                + "\ngcdcat: interrupted by \(name); it waited for the set being published: s3://\(bucket)/x.001 and "
                + "12 other outputs were published and stay\n")
        let parts = (1...12).map { "x." + String(format: "%03d", $0) }
        #expect(try LiveS3.keys(bucket) == parts + ["x.sfv"])
        #expect(try LiveS3.uploads(bucket).isEmpty)
        let merged = try LiveS3.gcdcat(["merge", "s3://\(bucket)/x.001", "-o", "back", "-q"], in: scratch.path)
        #expect(merged.status == 0 && scratch.read("back") == input, "\(merged.stderr)")
    }

    /// Before publishing, nothing is published: the upload is aborted and the object named as
    /// not created, whatever the part under way meets (its upload aborted under it).
    @Test func sigintBeforePublishingAbortsTheUploadAndSaysTheObjectWasNotCreated() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("prepub")
        try scratch.write("a.001", randomData(5 << 20, seed: 94))
        try scratch.write("a.002", randomData(1 << 20, seed: 95))
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint, holding: { _, _ in false }) { method, target in
            method == "PUT" && target.contains("partNumber=") ? 1 : 0
        }
        defer { proxy.stop() }
        let (status, text) = try Self.interrupted(
            ["merge", "a.001", "a.002", "-o", "s3://\(bucket)/out", "-q", "--jobs", "1"], in: scratch.path,
            proxy: proxy, signal: SIGINT, once: { $0.contains { $0.contains("partNumber=") } })
        #expect(status == 130, "\(text)")
        #expect(
            text
                == "\ngcdcat: interrupted by SIGINT; undoing what was started on the server (1 step(s), for at most "
                + "30s, --cleanup-timeout); a second signal stops at once and lists what is left\n"
                + "\ngcdcat: interrupted by SIGINT; aborted 1 unfinished upload; s3://\(bucket)/out was not created\n")
        #expect(try LiveS3.keys(bucket).isEmpty)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }

    @Test func sigintWhileAMergeCompletesItsOutputWaitsForItWhichStays() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("pubmrg")
        let first = randomData(5 << 20, seed: 92)
        let second = randomData(1 << 20, seed: 93)
        try scratch.write("a.001", first)
        try scratch.write("a.002", second)
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint, holding: { _, _ in false }) { method, target in
            Self.publishes(method, target) ? 2 : 0
        }
        defer { proxy.stop() }
        let (status, stderr) = try Self.interrupted(
            ["merge", "a.001", "a.002", "-o", "s3://\(bucket)/out", "-q"], in: scratch.path, proxy: proxy,
            signal: SIGINT)
        #expect(status == 130, "\(stderr)")
        #expect(
            stderr
                == "\ngcdcat: interrupted by SIGINT while its outputs were being published; publishing them first, "
                + "for at most 15s (--cleanup-timeout); a second signal stops at once and lists what is left\n"
                + "\ngcdcat: interrupted by SIGINT; it waited for the output being published: s3://\(bucket)/out was "
                + "published and stays\n")
        #expect(try LiveS3.bytes(bucket, "out") == first + second)
        #expect(try LiveS3.uploads(bucket).isEmpty)
    }
}
