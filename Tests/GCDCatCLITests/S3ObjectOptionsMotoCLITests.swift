import Foundation
import GCDCatCore
import Testing

/// moto's S3 server (PyPI `moto[server]`) on a loopback port, for what the RGW does not
/// implement: storage classes beyond STANDARD and SSE-S3 (`--sse AES256`).
final class MotoServer {
    static var isAvailable: Bool { toolExists("moto_server") }

    let endpoint: String
    private let process: Process

    init() throws {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = Int.random(in: 30_000..<40_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["moto_server", "-H", "127.0.0.1", "-p", "\(port)"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                lastError = error
                continue
            }
            let endpoint = "http://127.0.0.1:\(port)"
            // moto takes a second or two to import; 20 s before giving up on this port.
            for _ in 0..<200 where process.isRunning {
                if try runTool("curl", ["-s", "-o", "/dev/null", endpoint]).status == 0 {
                    self.endpoint = endpoint
                    self.process = process
                    return
                }
                usleep(100_000)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            lastError = CocoaError(.fileReadUnknown)
        }
        throw lastError ?? CocoaError(.fileReadUnknown)
    }

    /// SIGKILL: moto_server (werkzeug) outlives SIGTERM, and waiting on it hung the suite.
    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// gcdcat with `--endpoint-url` this server and the test keys.
    func gcdcat(_ arguments: [String], in directory: String) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = arguments + ["--endpoint-url", endpoint]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = LiveS3.environment()
        return try collect(process)
    }
}

@Suite(
    .enabled(if: MotoServer.isAvailable, "needs moto_server (pip install 'moto[server]')"),
    .enabled(if: AWSCLI.isAvailable, "needs awscli (aws) to read back what the server recorded"))
struct S3ObjectOptionsMotoCLITests {
    @Test func storageClassAndSSES3AreRecordedOnPutAndMultipartObjects() throws {
        let moto = try MotoServer()
        let scratch = try Scratch()
        let input = try LiveS3.randomFile(scratch, "in.iso", 11 * (1 << 20))
        #expect(try AWSCLI.s3api(moto.endpoint, ["create-bucket", "--bucket", "gcdcat-moto"]).status == 0)
        let options = ["--storage-class", "STANDARD_IA", "--sse", "AES256", "--tag", "k=v"]
        let split = try moto.gcdcat(
            ["split", "in.iso", "--size", "6M", "--prefix", "s3://gcdcat-moto/in.iso.", "-q"] + options,
            in: scratch.path)
        #expect(split.status == 0, "\(split.stderr)")
        // Local parts uploaded as one object: CreateMultipartUpload carries the options.
        let upload = try moto.gcdcat(
            [
                "merge", "in.iso", "-o", "s3://gcdcat-moto/whole.iso", "--as-given", "--storage-class", "ONEZONE_IA",
                "--sse",
                "AES256", "-q",
            ],
            in: scratch.path)
        #expect(upload.status == 0, "\(upload.stderr)")
        for (key, storageClass, type) in [
            ("in.iso.001", "STANDARD_IA", "application/octet-stream"), ("in.iso.sfv", "STANDARD_IA", "text/plain"),
            ("whole.iso", "ONEZONE_IA", "application/x-iso9660-image"),
        ] {
            let info = try AWSCLI.s3api(moto.endpoint, ["head-object", "--bucket", "gcdcat-moto", "--key", key]).json
            #expect(info["StorageClass"] as? String == storageClass, "\(key): \(info)")
            #expect(info["ServerSideEncryption"] as? String == "AES256", "\(key): \(info)")
            #expect(info["ContentType"] as? String == type, "\(key): \(info)")
        }
        #expect(try AWSCLI.tags(moto.endpoint, "gcdcat-moto", "in.iso.002") == ["k=v"])
        let back = try moto.gcdcat(
            ["merge", "s3://gcdcat-moto/whole.iso", "-o", "back.iso", "--as-given", "-q"], in: scratch.path)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(scratch.read("back.iso") == input)
    }
}
