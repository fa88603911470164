import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// One policy for every signal that asks gcdcat to stop: remove every unfinished file, say so,
/// and exit 128+signal, never with a backtrace.
///
/// SIGINT (Ctrl-C), SIGTERM (kill), SIGHUP (a closed terminal or ssh session), SIGPIPE (the
/// reader of a pipe went away), SIGQUIT (Ctrl-\, which the Swift runtime would otherwise answer
/// with a "crashed" backtrace and then carry on) and SIGALRM (`timeout -s ALRM`) are all handled
/// alike. SIGKILL cannot be caught; ``AtomicOutputFile`` keeps unfinished files unnamed so that
/// it has nothing to leave.
///
/// ## Implementation details
/// The signals are ignored at the process level and delivered through DispatchSource signal
/// sources, so the handler runs as ordinary code on a queue and may unlink files and take locks.
/// The work itself is not cancelled cooperatively: the ``CleanupRegistry`` refuses to create or
/// publish anything once the sweep began, so nothing the work could still do survives, and the
/// process exits at once. A SIGPIPE raised by a write to a closed pipe may instead surface as
/// that write's EPIPE error (exit 1); either way nothing is left behind.
public enum InterruptHandler {
    /// The signals handled, with their names for the message.
    public static let signals: [(number: Int32, name: String)] = [
        (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGPIPE, "SIGPIPE"),
        (SIGQUIT, "SIGQUIT"), (SIGALRM, "SIGALRM"),
    ]

    private static let installed = SignalSources()

    /// Installs the handlers once; later calls do nothing.
    public static func install() {
        _ = installed
    }
}

/// The resumed signal sources, kept for the life of the process.
///
/// Immutable after `init`, and DispatchSource methods are thread-safe, hence the unchecked
/// `Sendable`.
private final class SignalSources: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]

    init() {
        let queue = DispatchQueue(label: "gcdcat.signals")
        sources = InterruptHandler.signals.map { signalNumber, name in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                let removed = CleanupRegistry.shared.removeAll()
                let note = removed.isEmpty ? "" : "; removed \(removed.count) unfinished file(s)"
                StandardStreams.writeError("\ngcdcat: interrupted by \(name)\(note)\n")
                _exit(128 + signalNumber)
            }
            source.resume()
            return source
        }
    }
}
