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

    package init(command: String, profile: String) {
        self.command = command
        self.profile = profile
    }

    package var sourceName: String { "credential_process for profile '\(profile)'" }

    package func fetch() throws(GCDCatError) -> ExpiringCredentials {
        guard let arguments = Self.split(command), !arguments.isEmpty else {
            throw .credentialSource(sourceName, "cannot split the command '\(command)' (an unclosed quote?)")
        }
        let (status, output, errors) = try run(arguments)
        guard status == 0 else {
            let firstLine = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            throw .credentialSource(
                sourceName, "\(arguments[0]) exited \(status)" + (firstLine.isEmpty ? "" : ": \(firstLine)"))
        }
        let credentials = try CredentialJSON.credentials(output, source: sourceName)
        guard CredentialJSON.version(output) == 1 else {
            throw .credentialSource(sourceName, "the output's Version is not 1")
        }
        return credentials
    }

    /// Runs `arguments[0]` (looked up in PATH) with standard input inherited, as awscli does
    /// (a process may prompt), and captures standard output and standard error.
    private func run(_ arguments: [String]) throws(GCDCatError) -> (Int32, [UInt8], [UInt8]) {
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0 else { throw .syscall("pipe", path: arguments[0], errno: errno) }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0])
            close(outPipe[1])
            throw .syscall("pipe", path: arguments[0], errno: errno)
        }
        // Not inherited by programs other threads start meanwhile: one holding a write end
        // would keep this read waiting until it exits. (dup2 clears the flag on 1 and 2.)
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw .credentialSource(sourceName, "cannot run \(arguments[0]) (posix_spawn): \(describeErrno(spawned))")
        }
        let (output, errors) = Self.drain(outPipe[0], errPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, output, errors)
    }

    /// Reads both pipes to their ends with `poll`, so neither can fill and block the child.
    private static func drain(_ out: Int32, _ err: Int32) -> ([UInt8], [UInt8]) {
        var collected: [[UInt8]] = [[], []]
        var open = [out, err]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0 >= 0 }) {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &buffer, buffer.count)
                if count > 0 {
                    collected[index] += buffer[..<count]
                } else if count == 0 || errno != EINTR {
                    close(open[index])
                    open[index] = -1
                }
            }
        }
        for fd in open where fd >= 0 { close(fd) }
        return (collected[0], collected[1])
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
