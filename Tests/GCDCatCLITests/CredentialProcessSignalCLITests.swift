import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A signal while gcdcat waits on a `credential_process`: the process and everything it started
/// are stopped (it leads a process group of its own, which gcdcat kills), and one line names it,
/// whether the command handles signals itself (split) or takes their default action (checksum).
@Suite struct CredentialProcessSignalCLITests {
    /// True while `pid` names a process that has not ended (a zombie has ended).
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    /// A credential_process reads no standard input but a terminal: `cat f | gcdcat split -` gave
    /// it the data, and one that read it (an MFA prompt's `read`) took bytes from the middle of
    /// the stream, which the split then lacked, exit 0 (outside re-check r24b N4).
    @Test func aCredentialProcessNeverReadsTheDataOnStandardInput() throws {
        let scratch = try Scratch()
        try scratch.write("data", randomData(8 << 20, seed: 6))
        try scratch.write(
            "eat.sh", Data("#!/bin/sh\nhead -c 1000 > \(scratch.file("seen"))\necho not-json\n".utf8))
        chmod(scratch.file("eat.sh"), 0o755)
        try scratch.write("config", Data("[default]\ncredential_process = \(scratch.file("eat.sh"))\n".utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gcdcatPath)
        process.arguments = [
            "split", "-", "--size", "1k", "--prefix", "s3://bkt/t.", "--endpoint-url", "http://127.0.0.1:9",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = [
            "HOME": scratch.path, "PATH": "/usr/bin:/bin", "AWS_CONFIG_FILE": scratch.file("config"),
            "AWS_SHARED_CREDENTIALS_FILE": scratch.file("credentials"), "AWS_EC2_METADATA_DISABLED": "true",
        ]
        process.standardInput = FileHandle(forReadingAtPath: scratch.file("data"))
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(scratch.read("seen") == Data(), "the process read gcdcat's standard input")
    }

    /// Drives an interactive bash in a pseudo-terminal (python3's `pty`): runs gcdcat, whose
    /// credential_process prompts on the terminal; types Ctrl-Z at the prompt, a command at the
    /// shell, `fg`, then the code. Prints what the terminal showed; exits 1 naming what did not
    /// come in time.
    static let terminalSession = #"""
        import os, pty, select, signal, sys, time
        gcdcat, scratch = sys.argv[1], sys.argv[2]
        env = {"HOME": scratch, "PATH": "/usr/bin:/bin", "AWS_CONFIG_FILE": scratch + "/config",
               "AWS_SHARED_CREDENTIALS_FILE": scratch + "/credentials", "AWS_EC2_METADATA_DISABLED": "true",
               "PS1": "$ ", "TERM": "dumb"}
        pid, fd = pty.fork()
        if pid == 0:
            # A shell's jobs keep the signals ignored or blocked when it started (a test runner's).
            for number in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU, signal.SIGINT, signal.SIGQUIT):
                signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execve("/usr/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)
        seen = b""
        def gcdcat_groups():
            # The process groups of the shell's children (its jobs).
            groups = set()
            for entry in os.listdir("/proc"):
                try:
                    fields = open("/proc/%s/stat" % entry).read().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if int(fields[1]) == pid:
                    groups.add(int(fields[2]))
            return groups
        def expect(text, seconds):
            global seen
            end = time.time() + seconds
            while text.encode() not in seen:
                left = end - time.time()
                ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
                data = b""
                if ready:
                    try:
                        data = os.read(fd, 4096)
                    except OSError:
                        pass
                if not data:
                    sys.stdout.write("NO %s WITHIN %d s\n%s" % (text, seconds, seen.decode(errors="replace")))
                    # The terminal's foreground (a stuck gcdcat's credential_process), gcdcat, the shell.
                    for group in {os.tcgetpgrp(fd), os.getpgid(pid)} | gcdcat_groups():
                        try:
                            os.killpg(group, 9)
                        except OSError:
                            pass
                    os.kill(pid, 9)
                    sys.exit(1)
                seen += data
        expect("$ ", 10)
        # Alone on its line: bash goes on with the rest of a list whose command stopped.
        os.write(fd, (gcdcat + " checksum s3://bkt/t.bin --endpoint-url http://127.0.0.1:9\n").encode())
        expect("MFA code:", 30)
        os.write(fd, b"\x1a")
        expect("Stopped", 10)
        os.write(fd, b"echo HI$((6*7))\n")
        expect("HI42", 5)
        if sys.argv[3:] == ["bg"]:
            # Continued in the background, the process's read of the terminal stops its group
            # (SIGTTIN), and gcdcat stops again with it; bash shows it at its next command.
            os.write(fd, b"bg\n")
            time.sleep(1.5)
            seen = b""
            os.write(fd, b"jobs\n")
            expect("Stopped", 10)
        os.write(fd, b"fg\n")
        time.sleep(1)
        os.write(fd, b"123456\n")
        # Read by bash once gcdcat has ended (the quotes keep the terminal's echo of it apart).
        os.write(fd, b"echo R''C=$?\n")
        expect("RC=", 60)
        expect("$ ", 10)
        os.write(fd, b"exit\n")
        sys.stdout.write(seen.decode(errors="replace"))
        """#

    /// A Ctrl-Z at a credential_process's prompt stopped only the process (its group held the
    /// terminal), so the shell never got the terminal back and the run failed 60 s later (outside
    /// re-check r24b N8). gcdcat now stops with it, as a shell's job would, and `fg` resumes
    /// both: the prompt takes the code typed after it. Continued with `bg` first, it stops again
    /// when the prompt reads the terminal, and `fg` then resumes it as well.
    @Test(arguments: [false, true])
    func ctrlZAtACredentialProcessPromptStopsTheRunAndFgResumesIt(backgroundFirst: Bool) throws {
        let scratch = try Scratch()
        try scratch.write(
            "mfa.sh",
            Data(
                ("#!/bin/sh\nprintf 'MFA code: ' > /dev/tty\nread code < /dev/tty\necho \"$code\" > \(scratch.file("got"))\n"
                    + #"echo '{"Version": 1, "AccessKeyId": "K", "SecretAccessKey": "S"}'"# + "\n").utf8))
        chmod(scratch.file("mfa.sh"), 0o755)
        try scratch.write("config", Data("[default]\ncredential_process = \(scratch.file("mfa.sh"))\n".utf8))
        try scratch.write("session.py", Data(Self.terminalSession.utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", scratch.file("session.py"), gcdcatPath, scratch.path] + (backgroundFirst ? ["bg"] : [])
        let result = try collect(process)
        #expect(result.status == 0, "\(result.stdoutText)")
        #expect(String(decoding: scratch.read("got") ?? Data(), as: UTF8.self) == "123456\n")
        #expect(result.stdoutText.contains("RC=1"), "\(result.stdoutText)")
        #expect(!result.stdoutText.contains("gave no credentials"), "\(result.stdoutText)")
    }

    @Test(arguments: [
        (["checksum", "s3://bkt/t.bin"], true),
        (["split", "in.bin", "--size", "1k", "--prefix", "s3://bkt/t."], false),
    ])
    func sigintWhileACredentialProcessRunsStopsItsGroupAndNamesIt(arguments: [String], defaultAction: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("in.bin", randomData(4096, seed: 5))
        let program = scratch.file("hang.sh")
        // The script and the sleep it starts record their PIDs, then wait.
        try scratch.write(
            "hang.sh",
            Data(
                "#!/bin/sh\necho $$ >> \(scratch.file("pids"))\nsleep 600 &\necho $! >> \(scratch.file("pids"))\nwait\n"
                    .utf8))
        chmod(program, 0o755)
        try scratch.write("config", Data("[default]\ncredential_process = \(program)\n".utf8))
        let process = signalableGCDCat(arguments + ["--endpoint-url", "http://127.0.0.1:9"])
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = [
            "HOME": scratch.path, "PATH": "/usr/bin:/bin", "AWS_CONFIG_FILE": scratch.file("config"),
            "AWS_SHARED_CREDENTIALS_FILE": scratch.file("credentials"), "AWS_EC2_METADATA_DISABLED": "true",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        // A file, not a pipe: a process left running would hold a pipe open, and reading it to
        // its end would never end.
        _ = FileManager.default.createFile(atPath: scratch.file("stderr"), contents: nil)
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.file("stderr")))
        process.standardError = err
        try process.run()
        try err.close()
        let started = Date().addingTimeInterval(60)
        var pids: [Int32] = []
        while pids.count < 2 && process.isRunning && Date() < started {
            usleep(20_000)
            pids = String(decoding: scratch.read("pids") ?? Data(), as: UTF8.self).split(separator: "\n").compactMap {
                Int32($0)
            }
        }
        try #require(pids.count == 2)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        if defaultAction {
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(process.terminationStatus == SIGINT)
        } else {
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 130)
        }
        let lines = String(decoding: scratch.read("stderr") ?? Data(), as: UTF8.self).split(separator: "\n").map(
            String.init)
        #expect(
            lines.first
                == "gcdcat: interrupted by SIGINT while waiting for credential_process for profile 'default' "
                + "(\(program)); it and the processes it started were stopped")
        // The group was killed (SIGKILL): at most a moment for init to reap them.
        let reaped = Date().addingTimeInterval(5)
        while pids.contains(where: Self.alive) && Date() < reaped { usleep(20_000) }
        #expect(pids.filter(Self.alive).isEmpty, "still running: \(pids.filter(Self.alive))")
        for pid in pids where Self.alive(pid) { kill(pid, SIGKILL) }
    }
}
