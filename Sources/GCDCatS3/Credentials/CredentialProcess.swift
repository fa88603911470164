import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A profile's `credential_process`: a program run without a shell (its command line split as
/// awscli's `shlex.split` does) that prints credentials as JSON, Version 1.
///
/// ## Errors
/// Named "credential_process for profile 'NAME'": a command that cannot be split or started,
/// a non-zero exit (with the first line of its standard error), output that is not Version 1
/// JSON with both keys.
package struct CredentialProcess: S3CredentialProvider {
    package let command: String
    package let profile: String
    /// Seconds the process has to print its credentials and end, as a request has 60 s by
    /// default: one that hangs is stopped and named, not waited for forever.
    package var deadline: Double = 60

    package init(command: String, profile: String) {
        self.command = command
        self.profile = profile
    }

    package var sourceName: String { "credential_process for profile '\(profile)'" }

    /// Credentials are a few hundred bytes; a program printing without end on its standard
    /// output (its answer) is stopped here.
    private static let outputLimit = 1 << 20

    /// What is kept of its standard error, which is read to its end whatever its length (a
    /// helper may log megabytes there before it answers, as awscli lets it): the first 64 KiB,
    /// where the first line a failure is named with lies.
    private static let errorsKept = 64 << 10

    package func fetch() throws(GCDCatError) -> ExpiringCredentials {
        guard let arguments = Self.split(command), !arguments.isEmpty else {
            throw .credentialSource(sourceName, "cannot split the command '\(command)' (an unclosed quote?)")
        }
        let (status, output, errors, errorsCut) = try run(arguments)
        guard status == 0 else {
            let firstLine = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            let cut = errorsCut ? " (its standard error was cut: only its first 64 KiB were kept)" : ""
            throw .credentialSource(
                sourceName, "\(arguments[0]) exited \(status)" + (firstLine.isEmpty ? "" : ": \(firstLine)") + cut)
        }
        let credentials = try CredentialJSON.credentials(output, source: sourceName)
        guard CredentialJSON.version(output) == 1 else {
            throw .credentialSource(sourceName, "the output's Version is not 1")
        }
        return credentials
    }

    /// Runs `arguments[0]` (looked up in PATH) with standard input inherited, as awscli does
    /// (a process may prompt), and captures standard output and standard error.
    ///
    /// The process leads a process group of its own, so that everything it started can be
    /// stopped with it: at the deadline, and when gcdcat is interrupted (a signal's handler kills
    /// the group and names it, ``GuardedProcessGroup``; a Ctrl-C at the terminal reaches gcdcat,
    /// or, when the process holds the terminal, ends it and is then passed on to gcdcat).
    private func run(_ arguments: [String]) throws(GCDCatError) -> (Int32, [UInt8], [UInt8], Bool) {
        let child = try start(arguments)
        let pid = child.pid
        let hasTerminal = child.hasTerminal
        let token = GuardedProcessGroup.guardGroup(
            pid, naming: "\(sourceName) (\(command)); it and the processes it started were stopped")
        // A Ctrl-Z at its prompt stops its group alone (the terminal's foreground): gcdcat stops
        // too and continues it when continued, as a shell would, and the deadline waits meanwhile.
        let drained = child.drain(
            limit: Self.outputLimit, errorsKept: Self.errorsKept, seconds: deadline,
            onStop: hasTerminal ? { GuardedProcessGroup.suspendWithGroup(pid) } : nil)
        if case .failure = drained { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if hasTerminal {
            GuardedProcessGroup.takeTerminalBack()
            // A Ctrl-C (or a Ctrl-backslash) at the terminal went to the process's group alone: gcdcat
            // takes it too, as it would have without the process.
            let signal = status & 0x7f
            if signal == SIGINT || signal == SIGQUIT { raise(signal) }
        }
        // A signal killed the group: the process is ending by it (its handler or its sweep).
        if GuardedProcessGroup.stoppedBySignal {
            while true { pause() }
        }
        GuardedProcessGroup.release(token)
        switch drained {
        case .success(let (output, errors, errorsCut)):
            return (SpawnedChild.exitCode(status), output, errors, errorsCut)
        case .failure(.tooMuch):
            throw .credentialSource(
                sourceName, "\(arguments[0]) printed more than 1 MiB on its standard output; it was stopped")
        case .failure(.tooSlow):
            throw .credentialSource(
                sourceName,
                "\(arguments[0]) gave no credentials within \(Int(deadline)) s; it was stopped (a process that asks "
                    + "for input must be answered by then)")
        }
    }

    /// Starts the process, its failure said as the credential source's. (A function of its own:
    /// a noncopyable `let` set inside do/catch crashes Swift 6.3's compiler.)
    private func start(_ arguments: [String]) throws(GCDCatError) -> SpawnedChild {
        do {
            // The terminal, so that it may prompt (an MFA code); anything else may be the data
            // gcdcat reads (`cat f | gcdcat split -`), which a process reading it would eat.
            let input: SpawnedChild.StandardInput = isatty(0) != 0 ? .inherited : .null
            return try SpawnedChild.start(arguments, standardInput: input, ownProcessGroup: true)
        } catch {
            let call = error.syscall ?? "posix_spawn"
            throw .credentialSource(
                sourceName, "cannot run \(arguments[0]) (\(call)): \(describeErrno(error.errno ?? 0))")
        }
    }

    /// POSIX shell words as Python's `shlex.split` reads them: spaces separate, single quotes
    /// keep everything, double quotes keep all but `\"` `\\` `\$` and `` \` ``, and a backslash
    /// outside quotes keeps the next character. nil for an unclosed quote or a trailing `\`.
    package static func split(_ line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var iterator = Array(line).makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                while true {
                    guard let next = iterator.next() else { return nil }
                    if next == "'" { break }
                    word.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = iterator.next() else { return nil }
                    if next == "\"" { break }
                    if next == "\\" {
                        guard let escaped = iterator.next() else { return nil }
                        if !"\"\\$`".contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
            case "\\":
                guard let escaped = iterator.next() else { return nil }
                inWord = true
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
