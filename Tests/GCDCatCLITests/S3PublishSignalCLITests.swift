import Foundation
import GCDCatCore
import Synchronization
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

    /// A split (12 parts and a manifest, each completion held 0.4 s) or a merge (one object,
    /// its completion held 2 s) signalled while its outputs are being published.
    struct Publishing: Sendable, CustomTestStringConvertible {
        var command: String
        var signal: Int32
        var name: String
        var testDescription: String { "\(command), \(name)" }
    }

    @Test(arguments: [
        Publishing(command: "split", signal: SIGINT, name: "SIGINT"),
        Publishing(command: "split", signal: SIGTERM, name: "SIGTERM"),
        Publishing(command: "merge", signal: SIGINT, name: "SIGINT"),
    ])
    func aSignalWhileOutputsArePublishedWaitsForThemWhichStay(_ run: Publishing) throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("pubsig")
        let split = run.command == "split"
        let input: Data
        let arguments: [String]
        let outcome: String
        if split {
            input = randomData(12 * 1024, seed: 91)
            try scratch.write("in", input)
            arguments = ["split", "in", "--size", "1K", "--prefix", "s3://\(bucket)/x.", "-q", "--jobs", "2"]
            outcome = "the set being published: s3://\(bucket)/x.001 and 12 other outputs were published and stay"
        } else {
            let first = randomData(5 << 20, seed: 92)
            let second = randomData(1 << 20, seed: 93)
            try scratch.write("a.001", first)
            try scratch.write("a.002", second)
            input = first + second
            arguments = ["merge", "a.001", "a.002", "-o", "s3://\(bucket)/out", "-q"]
            outcome = "the output being published: s3://\(bucket)/out was published and stays"
        }
        // The window lasts seconds.
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint, holding: { _, _ in false }) { method, target in
            Self.publishes(method, target) ? (split ? 0.4 : 2) : 0
        }
        defer { proxy.stop() }
        let (status, stderr) = try Self.interrupted(arguments, in: scratch.path, proxy: proxy, signal: run.signal)
        #expect(status == 128 + run.signal, "\(stderr)")
        #expect(
            stderr
                == "\ngcdcat: interrupted by \(run.name) while its outputs were being published; publishing them first, "
                + "for at most 15s (--cleanup-timeout); a second signal stops at once and lists what is left\n"
                + "\ngcdcat: interrupted by \(run.name); it waited for \(outcome)\n")
        #expect(try LiveS3.uploads(bucket).isEmpty)
        if split {
            let parts = (1...12).map { "x." + String(format: "%03d", $0) }
            #expect(try LiveS3.keys(bucket) == parts + ["x.sfv"])
            let merged = try LiveS3.gcdcat(["merge", "s3://\(bucket)/x.001", "-o", "back", "-q"], in: scratch.path)
            #expect(merged.status == 0 && scratch.read("back") == input, "\(merged.stderr)")
        } else {
            #expect(try LiveS3.bytes(bucket, "out") == input)
        }
    }

    /// Publishing that outlasts the signal's wait (half of `--cleanup-timeout`): the sweep stops
    /// the set halfway, and names each output's fate, each line checked against the bucket:
    /// those published stay, those not created have neither an object nor an upload, and those
    /// whose completion had no answer are left behind with the command that settles them.
    @Test func aSplitWhosePublishingOutlastsTheWaitNamesWhatWasPublishedAndWhatWasNot() throws {
        let scratch = try Scratch()
        let bucket = try LiveS3.freshBucket("pubcut")
        try scratch.write("in", randomData(12 * 1024, seed: 97))
        // The first three completions pass; every later one is held, never answered: when the
        // wait of 1s ends, two (--jobs 2) are under way.
        let count = PublishCount()
        let proxy = try HoldingProxy(upstream: LiveS3.endpoint) { method, target in
            Self.publishes(method, target) && count.next() > 3
        }
        defer { proxy.stop() }
        let (status, stderr) = try Self.interrupted(
            [
                "split", "in", "--size", "1K", "--prefix", "s3://\(bucket)/x.", "-q", "--jobs", "2",
                "--cleanup-timeout", "2s",
            ],
            in: scratch.path, proxy: proxy, signal: SIGINT,
            once: { $0.filter { Self.publishes(String($0.prefix { $0 != " " }), $0) }.count >= 3 })
        #expect(status == 130, "\(stderr)")
        let lines = stderr.split(separator: "\n").map(String.init)
        let published = lines.filter { $0.hasPrefix("gcdcat: published and stays: ") }.map {
            String($0.dropFirst("gcdcat: published and stays: s3://\(bucket)/".count))
        }
        let notCreated = lines.filter { $0.hasPrefix("gcdcat: not created: ") }.map {
            String($0.dropFirst("gcdcat: not created: s3://\(bucket)/".count))
        }
        let unsettled = lines.filter { $0.hasPrefix("gcdcat: left behind: s3://") }.map {
            String($0.dropFirst("gcdcat: left behind: s3://\(bucket)/".count).prefix { $0 != ":" })
        }
        #expect(published.count == 3 && unsettled.count == 2 && notCreated.count == 8, "\(stderr)")
        let all = (1...12).map { "x." + String(format: "%03d", $0) } + ["x.sfv"]
        #expect((published + notCreated + unsettled).sorted() == all, "\(stderr)")
        #expect(
            lines.contains(
                "gcdcat: interrupted by SIGINT; aborted 7 unfinished uploads; publishing the set took longer than the "
                    + "1s it could wait (--cleanup-timeout) and was stopped halfway: 3 of its outputs were published "
                    + "and stay, 8 were not created, 2 had no answer (left behind, below); each is named below (rerun "
                    + "with --force to publish the whole set)"), "\(stderr)")
        for key in unsettled {
            #expect(
                lines.contains(
                    "gcdcat: left behind: s3://\(bucket)/\(key): its completion was sent and had no answer before the "
                        + "cleanup stopped waiting: the server may have published it, or kept its upload unfinished; "
                        + "aws s3api head-object --bucket \(bucket) --key \(key) tells whether it was published (and "
                        + "--endpoint-url, as for gcdcat, for a store other than AWS)"), "\(stderr)")
        }
        // What the lines say is what the bucket holds: the published stay, the held are uploads.
        #expect(try LiveS3.keys(bucket) == published.sorted())
        #expect(try LiveS3.uploads(bucket).map(\.location.key).sorted() == unsettled.sorted())
        // The last line's command aborts them.
        let command = "gcdcat: left behind: to abort the uploads above: gcdcat uploads "
        let words = lines.last.map { $0.dropFirst(command.count).split(separator: " ").map(String.init) } ?? []
        #expect(words.first?.hasPrefix("s3://\(bucket)/x.") == true, "\(stderr)")
        #expect(Array(words.dropFirst()) == ["--abort", "--endpoint-url", proxy.url], "\(stderr)")
        let aborted = try LiveS3.gcdcat(["uploads", words.first ?? "", "--abort", "-q"], in: scratch.path)
        #expect(aborted.status == 0, "\(aborted.stderr)")
        #expect(try LiveS3.uploads(bucket).isEmpty)
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
}

/// Counts the requests a proxy's predicate saw (it runs on the proxy's threads).
final class PublishCount: Sendable {
    private let count = Mutex(0)

    /// Counts one more; returns the count.
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
