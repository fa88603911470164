import Foundation
import Testing

/// Every subcommand's `--help`, as a terminal of 80 or 100 columns renders it.
@Suite struct HelpLayoutCLITests {
    static let commands = ["merge", "split", "checksum", "verify", "protect", "repair", "bench", "uploads"]

    func help(_ command: String, columns: Int) throws -> String {
        let result = try run(
            executable: "/bin/sh", ["-c", "COLUMNS=\(columns) \"$0\" \(command) --help", gcdcatPath])
        #expect(result.status == 0, "\(result.stderr)")
        return String(decoding: result.stdout, as: UTF8.self)
    }

    @Test(arguments: commands, [80, 100])
    func noLineIsWiderThanTheTerminal(command: String, columns: Int) throws {
        let text = try help(command, columns: columns)
        let wide = text.split(separator: "\n").filter { $0.count > columns }.map(String.init)
        #expect(wide.isEmpty, "\(command) at \(columns) columns: \(wide)")
        #expect(text.count > 500)
    }

    @Test(arguments: commands)
    func everySubcommandHasExamples(command: String) throws {
        let text = try help(command, columns: 80)
        #expect(text.contains("\nExamples:\n  gcdcat \(command) "), "\(command) has no examples")
    }

    @Test(arguments: ["merge", "split"])
    func sharedOptionsReadOnce(command: String) throws {
        let text = try help(command, columns: 80)
        // --jobs said "(default: the number of cores). (default: 2)"; --high-water's note was
        // printed as a stray paragraph indented under the options.
        #expect(!text.contains("(default: \(ProcessInfo.processInfo.activeProcessorCount))"))
        #expect(!text.contains("\n        K/M/G"))
        #expect(text.contains("(K/M/G are powers of\n"))
    }

    /// Issue 21: --jobs, --json and --quiet were declared three times and had drifted (for
    /// s3://, checksum and verify defaulted to the cores, merge and split to at least 8). Each
    /// is now one declaration with one default policy, so every command prints the same text.
    @Test func jobsJSONAndQuietReadTheSameInEveryCommand() throws {
        var seen: [String: Set<String>] = [:]
        for command in ["merge", "split", "checksum", "verify"] {
            let text = try help(command, columns: 80)
            let options = try #require(text.range(of: "\nOPTIONS:\n"), "\(command)")
            let flat = text[options.upperBound...].split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for option in ["-j, --jobs <jobs>", "--json", "-q, --quiet"] {
                let start = try #require(flat.range(of: " \(option) "), "\(command) has no \(option)")
                seen[option, default: []].insert(String(flat[start.upperBound...].prefix(60)))
            }
            #expect(flat.contains("requests in flight for s3:// objects (default: at least 8, each holding a 16 MiB"))
        }
        for (option, texts) in seen { #expect(texts.count == 1, "\(option): \(texts)") }
    }

    /// Issue 13: checksum and verify printed "(default: 2)" after their own text, this
    /// machine's core count; the default is the number of cores, said once.
    @Test(arguments: ["checksum", "verify"])
    func jobsDefaultReadsOnce(command: String) throws {
        for columns in [80, 100] {
            let text = try help(command, columns: columns)
            let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(flat.contains("-j, --jobs <jobs> "), "\(command): \(text)")
            #expect(flat.components(separatedBy: "(default: the number of cores)").count == 2, "\(command)")
            #expect(!flat.contains("(default: \(ProcessInfo.processInfo.activeProcessorCount))"), "\(command)")
        }
    }

    /// Issue 21: checksum and verify each declared `--no-stored-checksums` and the object-store
    /// options; one group declares them now. Their --help is as it was: the same block in both,
    /// in this order, right after --jobs.
    @Test func checksumAndVerifyShowTheObjectStoreOptionsAsOneBlockAfterJobs() throws {
        let order = [
            "--no-stored-checksums", "--endpoint-url", "--ca-bundle", "--no-verify-ssl", "--request-timeout",
            "--cleanup-timeout", "--sse-c-key", "--request-payer", "--expected-bucket-owner",
        ]
        var blocks: Set<String> = []
        for command in ["checksum", "verify"] {
            let text = try help(command, columns: 100)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // Each option's line: its first word that starts with "--".
            let options = lines.enumerated().compactMap { index, line in
                line.hasPrefix("  -")
                    ? line.split(separator: " ").first { $0.hasPrefix("--") }.map { (index, String($0)) } : nil
            }
            let start = try #require(options.firstIndex { $0.1 == "--no-stored-checksums" }, "\(command)")
            #expect(options[start - 1].1 == "--jobs", "\(command)")
            #expect(options[start..<(start + order.count)].map(\.1) == order, "\(command): \(options.map(\.1))")
            let end = start + order.count < options.count ? options[start + order.count].0 : lines.count
            blocks.insert(lines[options[start].0..<end].joined(separator: "\n"))
        }
        #expect(blocks.count == 1, "\(blocks)")
    }

    @Test func splitHelpNamesAGlobThatKeepsItsOrder() throws {
        let text = try help("split", columns: 100)
        // FILE.0* stops at .099; FILE.[0-9]* takes .100 to .999 too.
        #expect(!text.contains("FILE.0*"))
        #expect(text.contains("'cat FILE.[0-9]*'"))
    }
}
