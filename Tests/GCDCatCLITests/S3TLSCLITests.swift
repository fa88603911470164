import Foundation
import Testing

/// An https endpoint behind a CA of the test's own (made with the openssl CLI), served by a
/// small S3 stub in python3's `ssl` module: one object, HEAD and ranged GET. Without the CA the
/// run fails naming the endpoint; `--ca-bundle`, `AWS_CA_BUNDLE` or the profile's `ca_bundle`
/// make it work; `--no-verify-ssl` works and warns.
@Suite(.enabled(if: toolExists("openssl") && toolExists("python3"), "needs the openssl CLI and python3"))
struct S3TLSCLITests {
    static let content = "bytes behind a private CA\n"

    /// The stub: prints its port, then serves until its standard input closes.
    static let stub = """
        import http.server, ssl, sys, threading
        data = sys.argv[3].encode()
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def head(self, status, length, extra={}):
                self.send_response(status)
                for name, value in dict({"Content-Length": str(length), "ETag": '"e"'}, **extra).items():
                    self.send_header(name, value)
                self.end_headers()
            def do_HEAD(self):
                self.head(200, len(data))
            def do_GET(self):
                first, last = map(int, self.headers["Range"].split("=")[1].split("-"))
                self.head(206, last - first + 1, {"Content-Range": f"bytes {first}-{last}/{len(data)}"})
                self.wfile.write(data[first:last + 1])
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        sys.stdin.read()
        """

    let scratch: Scratch
    let server: Process
    let port: String

    init() throws {
        scratch = try Scratch()
        let tls = scratch.path
        let steps = [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                "\(tls)/ca.key", "-out", "\(tls)/ca.pem", "-days", "2", "-subj", "/CN=gcdcat test CA",
            ],
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                "\(tls)/server.key", "-out", "\(tls)/server.csr", "-subj", "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", "\(tls)/server.csr", "-CA", "\(tls)/ca.pem", "-CAkey", "\(tls)/ca.key",
                "-CAcreateserial", "-out", "\(tls)/server.pem", "-days", "2", "-extfile", "\(tls)/san",
            ],
        ]
        try scratch.write("san", Data("subjectAltName=DNS:localhost\n".utf8))
        for step in steps {
            let made = try runTool("openssl", step)
            try #require(made.status == 0, "openssl \(step[0]): \(made.stderr)")
        }
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", Self.stub, "\(tls)/server.pem", "\(tls)/server.key", Self.content]
        let output = Pipe()
        server.standardOutput = output
        server.standardInput = Pipe()
        try server.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        port = String(decoding: line, as: UTF8.self)
        try #require(Int(port) != nil, "the TLS stub did not start")
    }

    var endpoint: String { "https://localhost:\(port)" }

    /// gcdcat with test keys, no shared files but `config` when given, and `extra` variables.
    func gcdcat(_ arguments: [String], config: String? = nil, _ extra: [String: String] = [:]) throws -> RunResult {
        if let config { try scratch.write("config", Data(config.utf8)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }
        environment["AWS_ACCESS_KEY_ID"] = "AKID"
        environment["AWS_SECRET_ACCESS_KEY"] = "secret"
        environment["AWS_CONFIG_FILE"] = config == nil ? scratch.file("none") : scratch.file("config")
        environment["AWS_SHARED_CREDENTIALS_FILE"] = scratch.file("none")
        process.environment = environment.merging(extra) { $1 }
        return try collect(process)
    }

    /// The object's line as `checksum` prints it for a file of the same bytes.
    var expected: String {
        get throws {
            try scratch.write("obj", Data(Self.content.utf8))
            let local = try GCDCatCLITests.gcdcat(["checksum", "obj"], in: scratch.path)
            return local.stdoutText.replacing("obj", with: "s3://bkt/obj")
        }
    }

    @Test func withoutItsCAThePrivateEndpointIsRefusedNamingIt() throws {
        defer { server.terminate() }
        let result = try gcdcat(["checksum", "s3://bkt/obj", "--endpoint-url", endpoint])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the endpoint's TLS certificate is not trusted: "))
        #expect(
            result.stderr.contains(
                "(checked against the system's CA certificates; for a private CA, name its certificate with "
                    + "--ca-bundle FILE, AWS_CA_BUNDLE or the profile's ca_bundle) (\(endpoint))"),
            "\(result.stderr)")
        #expect(!result.stdoutText.contains("s3://bkt/obj"))  // the header line only, no checksum
    }

    /// A bundle that does not hold the endpoint's CA is named in the error, with where it was
    /// named: the flag, the variable or the profile's file (it was "name a CA bundle", even when
    /// one had been named).
    @Test func anUntrustedCertificateNamesTheBundleInUseAndItsSource() throws {
        defer { server.terminate() }
        let other = scratch.file("other.pem")
        let made = try runTool(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                scratch.file("other.key"), "-out", other, "-days", "2", "-subj", "/CN=another CA",
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let checked = "checked against the CA bundle \(other), from"
        let tail = "it does not hold the CA that signed the endpoint's certificate) (\(endpoint))\n"
        let flag = try gcdcat(["checksum", "s3://bkt/obj", "--endpoint-url", endpoint, "--ca-bundle", other])
        #expect(flag.status == 1)
        #expect(flag.stderr.contains("the endpoint's TLS certificate is not trusted: "), "\(flag.stderr)")
        #expect(flag.stderr.contains("(\(checked) --ca-bundle; \(tail)"), "\(flag.stderr)")
        let variable = try gcdcat(["checksum", "s3://bkt/obj", "--endpoint-url", endpoint], ["AWS_CA_BUNDLE": other])
        #expect(variable.status == 1)
        #expect(variable.stderr.contains("(\(checked) AWS_CA_BUNDLE; \(tail)"), "\(variable.stderr)")
        let profile = try gcdcat(
            ["checksum", "s3://bkt/obj", "--endpoint-url", endpoint], config: "[default]\nca_bundle = \(other)\n")
        #expect(profile.status == 1)
        #expect(
            profile.stderr.contains("(\(checked) the profile's ca_bundle in \(scratch.file("config")); \(tail)"),
            "\(profile.stderr)")
    }

    @Test func theCABundleFromTheFlagTheVariableOrTheProfileIsTrusted() throws {
        defer { server.terminate() }
        let ca = scratch.file("ca.pem")
        let flag = try gcdcat(["checksum", "s3://bkt/obj", "--endpoint-url", endpoint, "--ca-bundle", ca])
        #expect(flag.status == 0, "\(flag.stderr)")
        #expect(flag.stdoutText == (try expected))
        let variable = try gcdcat(["checksum", "s3://bkt/obj", "--endpoint-url", endpoint], ["AWS_CA_BUNDLE": ca])
        #expect(variable.status == 0, "\(variable.stderr)")
        // The whole profile: its services section's endpoint, its ca_bundle.
        let config = """
            [default]
            ca_bundle = \(ca)
            services = private
            [services private]
            s3 =
              endpoint_url = \(endpoint)
            """
        let profile = try gcdcat(["checksum", "s3://bkt/obj"], config: config)
        #expect(profile.status == 0, "\(profile.stderr)")
        #expect(profile.stdoutText == (try expected))
    }

    @Test func noVerifySSLWorksAndWarnsEveryRun() throws {
        defer { server.terminate() }
        for _ in 0..<2 {
            let result = try gcdcat(["checksum", "s3://bkt/obj", "--endpoint-url", endpoint, "--no-verify-ssl"])
            #expect(result.status == 0)
            #expect(result.stdoutText == (try expected))
            #expect(
                result.stderr.hasPrefix(
                    "gcdcat: warning: --no-verify-ssl: the TLS certificate of \(endpoint) is not checked; anyone "
                        + "between here and there can read and change what is sent\n"))
        }
    }

    @Test func anUnusableBundleOrSettingIsAUsageError() throws {
        defer { server.terminate() }
        let missing = try gcdcat(["checksum", "s3://bkt/obj", "--ca-bundle", scratch.file("nope.pem")])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("\(scratch.file("nope.pem")): open: "))
        #expect(missing.stderr.contains("(the CA bundle --ca-bundle names)"))
        let services = try gcdcat(["checksum", "s3://bkt/obj"], config: "[default]\nservices = gone\n")
        #expect(services.status == 64)
        #expect(
            services.stderr.contains(
                "\(scratch.file("config")): configuration: the profile says services = gone, but there is no "
                    + "[services gone] section"))
    }
}
