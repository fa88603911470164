import Foundation
import Testing

/// Every subcommand's `--help`, as a terminal of 80 or 100 columns renders it.
@Suite struct HelpLayoutCLITests {
    static let commands = ["merge", "split", "checksum", "verify", "protect", "repair", "bench"]

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
        #expect(text.contains("-j, --jobs <jobs>       Queues that work at once, 1 to 1024 (default: the\n"))
        #expect(!text.contains("(default: \(ProcessInfo.processInfo.activeProcessorCount))"))
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("for s3:// transfers at least 8 requests in flight, each holding a 16 MiB upload part"))
        #expect(!text.contains("\n        K/M/G"))
        #expect(text.contains("(K/M/G are powers of\n"))
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

    @Test func splitHelpNamesAGlobThatKeepsItsOrder() throws {
        let text = try help("split", columns: 100)
        // FILE.0* stops at .099; FILE.[0-9]* takes .100 to .999 too.
        #expect(!text.contains("FILE.0*"))
        #expect(text.contains("'cat FILE.[0-9]*'"))
    }
}
