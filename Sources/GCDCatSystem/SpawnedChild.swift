import CSystemShim

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawnp`, its standard output and standard error on pipes that
/// this process reads: what `bench` runs and what a `credential_process` is. It owns the pipes'
/// read ends, so ``drain(limit:)`` consumes it: read them to their ends, once.
package struct SpawnedChild: ~Copyable {
    package let pid: pid_t
    /// True when the child was started as the foreground of the terminal on standard input
    /// (``start(_:standardInput:standardOutputPath:ownProcessGroup:)``): the caller gives the
    /// terminal back to gcdcat once it ended (`gcdcat_take_terminal_back`).
    package let hasTerminal: Bool
    private var output: OwnedDescriptor
    private var errors: OwnedDescriptor

    /// Where the child's standard input comes from.
    package enum StandardInput {
        /// This process's own (a `credential_process` may prompt, as awscli lets it).
        case inherited
        /// `/dev/null`: a benchmarked program must not wait for a terminal.
        case null
    }

    /// Starts `arguments[0]`, looked up in PATH; with `standardOutputPath`, its standard output
    /// goes to a new file there instead of the pipe. With `ownProcessGroup`, the child leads a
    /// process group of its own (its pid), which the caller can kill whole (`kill(-pid, …)`),
    /// with no signal blocked; when standard input is the terminal and gcdcat its foreground,
    /// that group becomes the terminal's foreground, so that the child may still prompt.
    ///
    /// ## Errors
    /// `.io` naming the program and `pipe` or `posix_spawn` when it cannot be started.
    package static func start(
        _ arguments: [String], standardInput: StandardInput, standardOutputPath: String? = nil,
        ownProcessGroup: Bool = false
    ) throws(GCDCatError) -> SpawnedChild {
        let outPipe = try OwnedPipe(for: arguments[0])
        let errPipe = try OwnedPipe(for: arguments[0])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if standardInput == .null { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        if let standardOutputPath {
            posix_spawn_file_actions_addopen(&actions, 1, standardOutputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outPipe.writeEnd.raw, 1)
        }
        posix_spawn_file_actions_adddup2(&actions, errPipe.writeEnd.raw, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let foreground = ownProcessGroup && standardInput == .inherited && gcdcat_terminal_foreground() != 0
        let spawned =
            ownProcessGroup
            ? gcdcat_spawn_in_group(&pid, arguments[0], &actions, argv, environ, foreground ? 1 : 0)
            : posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        // The child has its copies of the write ends (or never started): this process's close.
        let output = outPipe.keepingReadEnd()
        let errors = errPipe.keepingReadEnd()
        guard spawned == 0 else { throw .syscall("posix_spawn", path: arguments[0], errno: spawned) }
        return SpawnedChild(pid: pid, hasTerminal: foreground, output: output, errors: errors)
    }

    /// Why ``drain(limit:seconds:)`` stopped before the child's streams ended.
    package enum DrainStop: Error {
        /// More than its `limit` bytes.
        case tooMuch
        /// Not ended within its `seconds`.
        case tooSlow
    }

    /// Reads standard output and standard error to their ends with `poll`, so that neither pipe
    /// can fill up and block the child, and closes both; a read error ends that stream there.
    /// Past `limit` bytes of standard output, or `seconds` after it began, stops reading and says
    /// which (the caller ends the child). Standard error is read to its end whatever its length,
    /// but only its first `errorsKept` bytes are kept (`errorsCut` says the rest was dropped): a
    /// process that logs megabytes there before its answer is not stopped for it.
    ///
    /// With `onStop`, a child that stops (SIGTSTP, SIGSTOP, SIGTTIN) is seen within 100 ms and
    /// `onStop` called (it continues the child, ``GuardedProcessGroup/suspendWithGroup(_:)``); the
    /// time it took does not count against `seconds`. Once the child has exited, both streams
    /// are read as far as they are written: a process that printed its answer and exited may
    /// have left a child of its own holding either open (a credential_process's `sleep &` made
    /// gcdcat wait out its 60 s and call the answer missing; `setsid sleep &`, which keeps
    /// standard output, made it wait for the sleep).
    package consuming func drain(
        limit: Int = .max, errorsKept: Int = .max, seconds: Double? = nil, onStop: (() -> Void)? = nil
    ) -> Result<(output: [UInt8], errors: [UInt8], errorsCut: Bool), DrainStop> {
        let pid = self.pid
        // Nil once a stream ended: setting it closes its read end.
        var output: OwnedDescriptor? = self.output
        var errors: OwnedDescriptor? = self.errors
        var collected: [[UInt8]] = [[], []]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var end = seconds.map { ContinuousClock.now + .milliseconds(Int64(min($0, 1e9) * 1000)) }
        var exited = false
        var errorsCut = false
        while output != nil || errors != nil {
            // poll skips a negative descriptor.
            var fds = [output.raw ?? -1, errors.raw ?? -1].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if !exited {
                // Is the child gone (without reaping it: the caller waits for it)?
                var info = siginfo_t()
                exited =
                    waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0
                    && info._sifields._sigchld.si_pid == pid
            }
            // Once it is, what the pipes hold is all it wrote: read without waiting for more.
            var wait: Int32 = exited ? 0 : 100
            if let onStop {
                var info = siginfo_t()
                if waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOHANG) == 0 && info._sifields._sigchld.si_pid == pid {
                    let stopped = ContinuousClock.now
                    onStop()
                    end = end.map { $0 + (ContinuousClock.now - stopped) }
                }
            }
            if let end {
                let left = ContinuousClock.now.duration(to: end).components
                let milliseconds = Double(left.seconds) * 1000 + Double(left.attoseconds) / 1e15
                // poll waits forever on a negative timeout: past the end is the end.
                guard milliseconds > 0 else { return .failure(.tooSlow) }
                wait = min(wait, Int32(min(milliseconds.rounded(.up), 3_600_000)))
            }
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 {
                if exited { break }
                continue
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &buffer, buffer.count)
                if count > 0 {
                    if index == 0 {
                        collected[0] += buffer[..<count]
                        if collected[0].count > limit { return .failure(.tooMuch) }
                    } else {
                        let room = max(0, errorsKept - collected[1].count)
                        if count > room { errorsCut = true }
                        collected[1] += buffer[..<min(count, room)]
                    }
                } else if count == 0 || errno != EINTR {
                    if index == 0 { output = nil } else { errors = nil }
                }
            }
        }
        return .success((collected[0], collected[1], errorsCut))
    }

    /// A `wait` status as a shell shows it: the exit code, or 128 + the signal that ended it.
    package static func exitCode(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// The process group of a child gcdcat waits on (a `credential_process`), guarded against
/// signals: one that asks gcdcat to stop kills the group (SIGKILL) and names it on standard
/// error, whether gcdcat's own handler takes the signal or its default action would.
package enum GuardedProcessGroup {
    /// Guards the group `group` (a ``SpawnedChild`` started with `ownProcessGroup`); `line`
    /// follows "gcdcat: interrupted by SIG… while waiting for ". Returns the token for
    /// ``release(_:)``.
    package static func guardGroup(_ group: pid_t, naming line: String) -> Int32 {
        // Read by a signal handler, maybe while the guard ends: never freed (a few hundred bytes
        // per child).
        gcdcat_guard_group(group, strdup(line))
    }

    /// Guards a wait with no process to stop (an HTTP request for credentials) as ``guardGroup(_:naming:)``
    /// guards a group: a signal that asks gcdcat to stop names it on standard error (`line`
    /// follows "gcdcat: interrupted by SIG… while waiting for "), and the process ends by it as
    /// it would have. Returns the token for ``release(_:)``.
    package static func guardWait(naming line: String) -> Int32 {
        gcdcat_guard_wait(strdup(line))
    }

    /// Ends the guard (the child was reaped, or the wait ended).
    package static func release(_ token: Int32) {
        gcdcat_release_group(token)
    }

    /// True once a signal killed a guarded group: the process is ending by that signal.
    package static var stoppedBySignal: Bool { gcdcat_guarded_groups_stopped() != 0 }

    /// Does what a shell does when the group of a child that holds the terminal
    /// (``SpawnedChild/hasTerminal``) stopped, a Ctrl-Z at its prompt: takes the terminal back,
    /// stops gcdcat's own group (SIGTSTP), and once continued gives the terminal to the child's
    /// group again and continues it (`gcdcat_suspend_with_group`).
    package static func suspendWithGroup(_ group: pid_t) {
        gcdcat_suspend_with_group(group)
    }

    /// Gives the terminal back to gcdcat after a child held it (``SpawnedChild/hasTerminal``).
    package static func takeTerminalBack() {
        gcdcat_take_terminal_back()
    }
}
