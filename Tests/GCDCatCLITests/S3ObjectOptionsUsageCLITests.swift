import Foundation
import Testing

/// Mistakes in `--storage-class`, `--content-type`, `--tag`, `--sse`, `--sse-kms-key-id`,
/// `--sse-c-key`, `--expected-bucket-owner` and `--checksum-algorithm` are usage errors (64) before any request: the
/// endpoint refuses connections, so reaching it would exit 1.
@Suite struct S3ObjectOptionsUsageCLITests {
    static let unreachable = ["--endpoint-url", "http://127.0.0.1:1"]
    static let toObjects = ["split", "in", "--size", "2", "--prefix", "s3://b/in."]
    static let elevenTags: [String] = (1...11).flatMap { ["--tag", "k\($0)=v"] }

    @Test(
        arguments: [
            (
                ["--storage-class", "STANDARD-IA"],
                "--storage-class STANDARD-IA is not an S3 storage class; give one of STANDARD, REDUCED_REDUNDANCY, "
                    + "STANDARD_IA, ONEZONE_IA, INTELLIGENT_TIERING, GLACIER, DEEP_ARCHIVE, OUTPOSTS, GLACIER_IR, SNOW, "
                    + "EXPRESS_ONEZONE, FSX_OPENZFS, FSX_ONTAP."
            ),
            (["--content-type", "zip"], "--content-type 'zip' is not a media type (TYPE/SUBTYPE, as text/csv)."),
            (["--tag", "novalue"], "--tag novalue has no '=': give KEY=VALUE."),
            (["--tag", "=v"], "--tag =v has an empty key: give KEY=VALUE."),
            (
                ["--tag", "k=1", "--tag", "k=2"],
                "--tag k=2: the key 'k' is given twice; S3 keeps one value per key."
            ),
            (
                S3ObjectOptionsUsageCLITests.elevenTags,
                "--tag given 11 times; S3 allows 10 tags per object."
            ),
            (["--sse", "aes256"], "--sse aes256 is not AES256 or aws:kms (for SSE-C, give --sse-c-key FILE)."),
            (["--sse-kms-key-id", "k1"], "--sse-kms-key-id goes with --sse aws:kms."),
            (
                ["--checksum-algorithm", "SHA256"],
                "--checksum-algorithm SHA256: gcdcat sends CRC32C (full-object) only; CRC32, CRC64NVME, SHA1 and "
                    + "SHA256 are not implemented."
            ),
            (["--sse", "AES256", "--sse-kms-key-id", "k1"], "--sse-kms-key-id goes with --sse aws:kms."),
            (
                ["--sse", "AES256", "--sse-c-key", "key32"],
                "--sse and --sse-c-key contradict each other: an object has one encryption; give one."
            ),
            (
                ["--sse-c-key", "key31"],
                "--sse-c-key key31: read: an SSE-C key is 32 bytes; this file holds 31 (make one with "
                    + "'head -c 32 /dev/urandom > FILE')"
            ),
            (
                ["--sse-c-key", "/dev/zero"],
                "--sse-c-key /dev/zero: read: an SSE-C key is 32 raw bytes; this file holds more (make one with "
                    + "'head -c 32 /dev/urandom > FILE')"
            ),
            (["--sse-c-key", "absent"], "--sse-c-key absent: open: No such file or directory"),
            (
                ["--expected-bucket-owner", "me"],
                "--expected-bucket-owner 'me' is not an AWS account id (12 digits)."
            ),
        ] as [([String], String)])
    func aBadValueIsAUsageErrorNamingTheOption(options: [String], message: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", Data("data".utf8))
        try scratch.write("key31", Data(repeating: 1, count: 31))
        try scratch.write("key32", Data(repeating: 1, count: 32))
        let result = try gcdcat(Self.toObjects + options + Self.unreachable, in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: \(message)\nUsage: gcdcat split"), "\(result.stderr)")
    }

    @Test(
        arguments: [
            (["split", "in", "--size", "2"], ["--storage-class", "STANDARD"], "--storage-class"),
            (["split", "in", "--size", "2"], ["--tag", "k=v"], "--tag"),
            (["merge", "in.001", "-o", "out"], ["--content-type", "text/csv"], "--content-type"),
            (["merge", "in.001", "-o", "out"], ["--sse", "AES256"], "--sse"),
            (["merge", "in.001", "-o", "out"], ["--checksum-algorithm", "CRC32C"], "--checksum-algorithm"),
            (["merge", "s3://b/in.001", "-o", "out"], ["--storage-class", "STANDARD"], "--storage-class"),
        ] as [([String], [String], String)])
    func anOptionForObjectsWrittenIsRefusedWhenNoneIsWritten(
        command: [String], options: [String], named: String
    ) throws {
        let scratch = try Scratch()
        try scratch.write("in", Data("data".utf8))
        try scratch.write("in.001", Data("data".utf8))
        let result = try gcdcat(command + options + Self.unreachable, in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: \(named) applies to s3:// outputs only; this command writes local files.\nUsage: gcdcat "
                    + command[0]),
            "\(result.stderr)")
        #expect(scratch.read("out") == nil && scratch.read("in.aa") == nil && scratch.read("in.001") != nil)
    }

    /// These were accepted and silently ignored by commands with no s3:// name (outside attack
    /// on issue 24): a local merge given `--request-timeout` looked bounded and was not.
    @Test(
        arguments: [
            (["merge", "in.001", "-o", "out"], ["--sse-c-key", "key32"], "--sse-c-key"),
            (["split", "in", "--size", "2"], ["--request-payer"], "--request-payer"),
            (["checksum", "in"], ["--expected-bucket-owner", "123456789012"], "--expected-bucket-owner"),
            (["verify", "in.sfv"], ["--request-timeout", "5s"], "--request-timeout"),
            (["merge", "in.001", "-o", "out"], ["--cleanup-timeout", "5s"], "--cleanup-timeout"),
        ] as [([String], [String], String)])
    func aRequestOptionIsRefusedByACommandWithNoObject(command: [String], options: [String], named: String) throws {
        let scratch = try Scratch()
        try scratch.write("in", Data("data".utf8))
        try scratch.write("in.001", Data("data".utf8))
        try scratch.write("in.sfv", Data("in.001 8D777F38\n".utf8))
        try scratch.write("key32", Data(repeating: 1, count: 32))
        let result = try gcdcat(command + options, in: scratch.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: \(named) applies to s3:// paths only; this command names no s3:// object.\nUsage: gcdcat "
                    + command[0]),
            "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(scratch.read("out") == nil && scratch.read("in.aa") == nil)
    }

    /// The same options with an s3:// name anywhere in the command are taken: the run reaches
    /// the (unreachable) endpoint and fails there, exit 1.
    @Test(arguments: [
        ["merge", "in.001", "-o", "s3://b/out", "--sse-c-key", "key32"],
        ["merge", "s3://b/in.001", "-o", "out", "--request-timeout", "5s"],
        ["checksum", "s3://b/in", "--request-payer", "--cleanup-timeout", "5s"],
        ["split", "s3://b/in", "--size", "2", "--expected-bucket-owner", "123456789012"],
    ])
    func aRequestOptionIsTakenWhenTheCommandNamesAnObject(arguments: [String]) throws {
        let scratch = try Scratch()
        try scratch.write("in.001", Data("data".utf8))
        try scratch.write("key32", Data(repeating: 1, count: 32))
        let result = try gcdcat(arguments + Self.unreachable, in: scratch.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("applies to s3:// paths only"), "\(result.stderr)")
    }

    @Test func theWriteOptionsAreInSplitAndMergeHelpAndTheAccessOptionsEverywhere() throws {
        for command in ["split", "merge"] {
            let help = try gcdcat([command, "--help"]).stdoutText
            for option in [
                "--storage-class", "--content-type", "--tag", "--sse ", "--sse-kms-key-id", "--sse-c-key",
                "--request-payer", "--expected-bucket-owner", "--checksum-algorithm",
            ] {
                #expect(help.contains(option), "\(command) --help lacks \(option)")
            }
        }
        for command in ["verify", "checksum", "uploads"] {
            let help = try gcdcat([command, "--help"]).stdoutText
            #expect(help.contains("--sse-c-key") && help.contains("--request-payer"), "\(command)")
            #expect(!help.contains("--storage-class") && !help.contains("--tag <key=value>"), "\(command)")
        }
    }
}
