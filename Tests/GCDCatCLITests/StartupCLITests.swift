import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What gcdcat does before its first byte of work: where its arguments come from, which signal
/// handlers are in place, and what a crash or an address-space limit ends in.
@Suite("Startup, signals and crashes")
struct StartupCLITests {
    /// Swift's `CommandLine` finds argv through /proc/self/maps; when that `open` failed,
    /// gcdcat saw no arguments and trapped (SIGILL). Every `openat` from that one on is made to
    /// fail in turn: each run must end in an exit status, never a signal, and either write the
    /// right bytes or say what failed.
    @Test(.enabled(if: toolExists("strace"), "strace injects the failures"))
    func aFailedOpenNeverEndsInATrap() throws {
        let scratch = try Scratch()
        let parts = (1...3).map { randomData(70_000, seed: UInt64($0)) }
        for (index, part) in parts.enumerated() { try scratch.write("s.00\(index + 1)", part) }
        let arguments = "s.001 -o out --strategy dispatchdata --no-verify -q"
        let trace = try shell(
            "strace -f -o trace -e trace=openat \(gcdcatPath) \(arguments) && rm out", in: scratch.path)
        #expect(trace.status == 0, "\(trace.stderr)")
        let calls = String(decoding: scratch.read("trace") ?? Data(), as: UTF8.self)
            .split(separator: "\n").filter { !$0.contains("resumed>") }
        let maps = try #require(calls.firstIndex { $0.contains("/proc/self/maps") }, "no /proc/self/maps open")
        for call in (maps + 1)...(calls.count + 1) {
            let run = try shell(
                "strace -f -o /dev/null -e trace=openat -e inject=openat:error=EMFILE:when=\(call) "
                    + "\(gcdcatPath) \(arguments); echo \"status $?\"; rm -f out", in: scratch.path)
            let status = run.stdoutText.split(separator: " ").last.map { Int($0.dropLast()) ?? -1 } ?? -1
            #expect(status == 0 || status == 1, "openat #\(call) failing: status \(status), \(run.stderr)")
            #expect(!run.stderr.contains("Fatal error"), "openat #\(call): \(run.stderr)")
            if status == 1 { #expect(run.stderr.contains("gcdcat: "), "openat #\(call): \(run.stderr)") }
        }
    }

    /// A SIGQUIT before a command installs its cleanup (here at the first `open` of argument
    /// parsing) is an interruption: exit 131, said, nothing written. It reached the Swift
    /// runtime's crash handler, which printed "Program crashed: Terminated", and the split then
    /// completed with exit 0.
    @Test(.enabled(if: toolExists("strace"), "strace delivers the signal at a chosen syscall"))
    func aSignalBeforeTheWorkStartsIsAnInterruption() throws {
        let scratch = try Scratch()
        try scratch.write("in.bin", randomData(6000, seed: 3))
        let trace = try shell(
            "strace -o trace -e trace=openat \(gcdcatPath) split in.bin -b 1000 -q && rm in.bin.*", in: scratch.path)
        #expect(trace.status == 0, "\(trace.stderr)")
        let calls = String(decoding: scratch.read("trace") ?? Data(), as: UTF8.self)
            .split(separator: "\n").filter { !$0.contains("resumed>") }
        let online = try #require(calls.firstIndex { $0.contains("/sys/devices/system/cpu/online") })
        let run = try shell(
            "env --default-signal strace -o /dev/null -e trace=openat -e inject=openat:signal=QUIT:when=\(online + 1) "
                + "\(gcdcatPath) split in.bin -b 1000 -q", in: scratch.path)
        #expect(run.status == 128 + SIGQUIT, "\(run.stderr)")
        #expect(run.stderr.contains("gcdcat: interrupted by SIGQUIT"), "\(run.stderr)")
        #expect(!run.stderr.contains("Program crashed"), "\(run.stderr)")
        #expect(scratch.listing() == ["in.bin", "trace"])
    }

    /// A SIGQUIT at any of the first syscalls after exec (the loader, the constructors, the Swift
    /// runtime's start) ends the split: by the default action before gcdcat's handler exists,
    /// with exit 131 after, never with the runtime's crash report and never with the split
    /// finished (exit 0). A static binary ran the runtime's backtracer setup before gcdcat's
    /// constructor: 1 run in 40 with a SIGQUIT 2-12 ms after start finished with exit 0.
    @Test(.enabled(if: toolExists("strace"), "strace delivers the signal at a chosen syscall"))
    func aSIGQUITInTheFirstMillisecondsNeverLetsTheSplitFinish() throws {
        let scratch = try Scratch()
        try scratch.write("in.bin", randomData(6000, seed: 4))
        for call in stride(from: 1, through: 120, by: 7) {
            let run = try shell(
                "ulimit -c 0; env --default-signal strace -o /dev/null -e inject=all:signal=QUIT:when=\(call) "
                    + "\(gcdcatPath) split in.bin -b 1000 -q; echo \"status $?\"", in: scratch.path)
            let status = run.stdoutText.split(separator: " ").last.map { Int($0.dropLast()) ?? -1 } ?? -1
            #expect(status == 128 + Int(SIGQUIT), "syscall #\(call): status \(status), \(run.stderr)")
            #expect(!run.stderr.contains("Program crashed"), "syscall #\(call): \(run.stderr)")
            #expect(scratch.listing() == ["in.bin"], "syscall #\(call)")
            for name in scratch.listing() where name != "in.bin" {
                try? FileManager.default.removeItem(atPath: scratch.file(name))
            }
        }
    }

    /// A crash ends at once, by its signal: gcdcat turns the Swift runtime's backtracer off
    /// (unless SWIFT_BACKTRACE asks for it), which printed a report and could wait on
    /// swift-backtrace for minutes under an address-space limit.
    @Test func aCrashEndsAtOnceWithoutABacktrace() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.file("fifo"), 0o600) == 0)
        // `checksum` of a FIFO with no writer blocks in open (wchan wait_for_partner), gcdcat fully started.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = ["checksum", scratch.file("fifo")]
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "SWIFT_BACKTRACE" }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = ReadAll(errors.fileHandleForReading)
        while !((try? String(contentsOfFile: "/proc/\(process.processIdentifier)/wchan", encoding: .utf8)) ?? "")
            .contains("wait_for_partner") && process.isRunning
        {
            usleep(10_000)
        }
        kill(process.processIdentifier, SIGSEGV)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGSEGV)
        #expect(!stderr.wait().contains("Program crashed"))
    }

    /// Once started, gcdcat catches none of the crash signals (the backtracer is off), and a
    /// command that does not clean up after a signal (checksum) leaves the interruption signals
    /// at their default action.
    @Test func noCrashSignalIsCaught() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.file("fifo"), 0o600) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = ["checksum", scratch.file("fifo")]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "SWIFT_BACKTRACE" }
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        while !((try? String(contentsOfFile: "/proc/\(process.processIdentifier)/wchan", encoding: .utf8)) ?? "")
            .contains("wait_for_partner") && process.isRunning
        {
            usleep(10_000)
        }
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let caught = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") })
        let mask = UInt64(caught.split(separator: "\t").last!.trimmingCharacters(in: .whitespaces), radix: 16)!
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT] {
            #expect(mask & (1 << UInt64(signal - 1)) == 0, "signal \(signal) is still caught: \(caught)")
        }
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] {
            #expect(mask & (1 << UInt64(signal - 1)) == 0, "signal \(signal) is caught by checksum: \(caught)")
        }
    }
}
