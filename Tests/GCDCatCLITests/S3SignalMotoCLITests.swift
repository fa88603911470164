import Foundation
import GCDCatCore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A SIGINT while a resumed split rewrites a part's crc32 record (after the whole set was
/// published): the message says the set is whole and names the record whose rewrite was cut,
/// instead of "stopped halfway … rerun with --force to publish the whole set".
@Suite(
    .enabled(if: MotoServer.isAvailable, "needs moto_server (pip install 'moto[server]')"),
    .enabled(if: AWSCLI.isAvailable, "needs awscli (aws) to make the bucket"))
struct S3ResumedRecordSignalCLITests {
    /// Runs a split through `proxy` and returns the process, started.
    static func split(_ scratch: Scratch, _ proxy: HoldingProxy, _ extra: [String]) throws -> (Process, ReadAll) {
        let process = signalableGCDCat(
            ["split", "in.bin", "--size", "20M", "--prefix", "s3://gcdcat-moto/s4.", "--endpoint-url", proxy.url]
                + extra)
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        try process.run()
        return (process, ReadAll(err.fileHandleForReading))
    }

    @Test func sigintDuringARecordRewriteSaysTheSetIsWholeAndNamesTheRecord() throws {
        let moto = try MotoServer()
        let scratch = try Scratch()
        var input = try LiveS3.randomFile(scratch, "in.bin", 40 << 20)
        #expect(try AWSCLI.s3api(moto.endpoint, ["create-bucket", "--bucket", "gcdcat-moto"]).status == 0)
        // A first run killed while the second part's upload hangs: both uploads stay, unfinished.
        let first = try HoldingProxy(upstream: moto.endpoint) { method, target in
            method == "PUT" && target.contains("s4.002?partNumber=2")
        }
        defer { first.stop() }
        let (killed, _) = try Self.split(scratch, first, [])
        let holding = Date().addingTimeInterval(60)
        while first.held.isEmpty && killed.isRunning && Date() < holding { usleep(20_000) }
        try #require(first.held.count == 1)
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        // The input changes in the first part: its resumed upload's record is the old input's.
        input.replaceSubrange((1 << 20)..<((1 << 20) + 8), with: Data("CHANGED!".utf8))
        try scratch.write("in.bin", input)
        // The rerun resumes both uploads and publishes the set; the record rewrite's
        // CreateMultipartUpload on s4.001 then hangs, and a SIGINT comes.
        let second = try HoldingProxy(upstream: moto.endpoint) { method, target in
            method == "POST" && target.contains("s4.001?uploads")
        }
        defer { second.stop() }
        let (process, stderr) = try Self.split(
            scratch, second, ["--take-over-after", "0", "--cleanup-timeout", "2s", "-q"])
        let rewriting = Date().addingTimeInterval(120)
        while second.held.isEmpty && process.isRunning && Date() < rewriting { usleep(20_000) }
        try #require(second.held.count == 1)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let lines = stderr.wait().split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "gcdcat: interrupted by SIGINT; it waited 1s for the set being published (--cleanup-timeout): the "
                    + "whole set was published and stays, all 3 outputs named below; what was cut short is the rewrite "
                    + "of the crc32 record (x-amz-meta-gcdcat-crc32) of s3://gcdcat-moto/s4.001, which may still "
                    + "describe an earlier input (merge and verify read such a part; split --force writes the set "
                    + "again)"), "\(lines)")
        #expect(
            lines.filter { $0.hasPrefix("gcdcat: published and stays: ") } == [
                "gcdcat: published and stays: s3://gcdcat-moto/s4.001",
                "gcdcat: published and stays: s3://gcdcat-moto/s4.002",
                "gcdcat: published and stays: s3://gcdcat-moto/s4.sfv",
            ], "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("gcdcat: not created") }, "\(lines)")
        second.release()
        let merged = try moto.gcdcat(["merge", "s3://gcdcat-moto/s4.001", "-o", "back", "-q"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("back") == input)
    }
}

/// `--json` after a SIGTERM that waited for a split's set of objects to be published: the
/// `interrupted` object names the manifest object under `published.manifest`, as the report of
/// a run that ended names it (it was null, the .sfv only among `outputs`).
@Suite(
    .enabled(if: MotoServer.isAvailable, "needs moto_server (pip install 'moto[server]')"),
    .enabled(if: AWSCLI.isAvailable, "needs awscli (aws) to make the bucket"))
struct S3SplitJSONSignalCLITests {
    @Test func sigtermWhileObjectsArePublishedNamesTheManifestObjectInTheJSON() throws {
        let moto = try MotoServer()
        let scratch = try Scratch()
        try scratch.write("in.bin", randomData(3 << 10, seed: 33))
        #expect(try AWSCLI.s3api(moto.endpoint, ["create-bucket", "--bucket", "gcdcat-moto"]).status == 0)
        // The second part's CompleteMultipartUpload (publishing) waits 2 s: the SIGTERM comes meanwhile.
        let proxy = try HoldingProxy(
            upstream: moto.endpoint, holding: { _, _ in false },
            delaying: { method, target in method == "POST" && target.contains("/d.002?uploadId=") ? 2 : 0 })
        defer { proxy.stop() }
        let process = signalableGCDCat([
            "split", "in.bin", "--size", "1K", "--prefix", "s3://gcdcat-moto/d.", "--json", "--endpoint-url", proxy.url,
        ])
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let stdout = ReadAll(out.fileHandleForReading)
        let publishing = Date().addingTimeInterval(60)
        while !proxy.passed.contains(where: { $0.hasPrefix("POST ") && $0.contains("/d.002?uploadId=") })
            && process.isRunning
            && Date() < publishing
        {
            usleep(5_000)
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143, "\(proxy.passed)")
        let document = try JSONSerialization.jsonObject(with: Data(stdout.wait().utf8)) as? [String: Any]
        let published = document?["published"] as? [String: Any]
        #expect(published?["manifest"] as? String == "s3://gcdcat-moto/d.sfv", "\(document ?? [:])")
        #expect(
            published?["outputs"] as? [String] == [
                "s3://gcdcat-moto/d.001", "s3://gcdcat-moto/d.002", "s3://gcdcat-moto/d.003", "s3://gcdcat-moto/d.sfv",
            ], "\(document ?? [:])")
    }
}

/// A SIGINT during `split --force` over an existing set of objects: the old set stays as it was,
/// and the message says the outputs were not written (what was at their names stays), not that
/// they "were not created" (g.001 still existed).
@Suite(
    .enabled(if: MotoServer.isAvailable, "needs moto_server (pip install 'moto[server]')"),
    .enabled(if: AWSCLI.isAvailable, "needs awscli (aws) to make the bucket"))
struct S3SplitForceSignalCLITests {
    @Test func sigintDuringAForcedSplitSaysTheOldObjectsWereNotReplaced() throws {
        let moto = try MotoServer()
        let scratch = try Scratch()
        let old = randomData(3 << 10, seed: 41)
        try scratch.write("old.bin", old)
        #expect(try AWSCLI.s3api(moto.endpoint, ["create-bucket", "--bucket", "gcdcat-moto"]).status == 0)
        let first = try moto.gcdcat(
            ["split", "old.bin", "--size", "1K", "--prefix", "s3://gcdcat-moto/g/g.", "-q"], in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        // A forced split of standard input that stops after 2.5 KiB: its first parts are under way.
        let process = signalableGCDCat([
            "split", "-", "--size", "1K", "--prefix", "s3://gcdcat-moto/g/g.", "--force", "-q", "--endpoint-url",
            moto.endpoint,
        ])
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = LiveS3.environment()
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = ReadAll(err.fileHandleForReading)
        input.fileHandleForWriting.write(randomData(2560, seed: 42))
        usleep(1_500_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationStatus == 130)
        let text = stderr.wait()
        let line = text.split(separator: "\n").last { $0.hasPrefix("gcdcat: interrupted by SIGINT") }.map(String.init)
        #expect(line?.contains("s3://gcdcat-moto/g/g.001 and ") == true, "\(line ?? text)")
        #expect(
            line?.hasSuffix(
                "other outputs were not written (--force): what was at their names, if anything, stays as it was")
                == true, "\(text)")
        #expect(!text.contains("not created"), "\(text)")
        let back = try moto.gcdcat(["merge", "s3://gcdcat-moto/g/g.001", "-o", "back", "-q"], in: scratch.path)
        #expect(back.status == 0 && scratch.read("back") == old, "\(back.stderr)")
    }
}
