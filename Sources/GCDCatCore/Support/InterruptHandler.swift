import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT and SIGTERM into "remove every temporary file, then exit 128+signal".
///
/// The signals are ignored at the process level and delivered through DispatchSource signal
/// sources, so the handler runs as ordinary code on a queue and may unlink files and take locks.
/// The work itself is not cancelled cooperatively: once the temporary files are gone nothing it
/// could still write survives, and the process exits at once.
public enum InterruptHandler {
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
        sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                let removed = CleanupRegistry.shared.removeAll()
                let name = signalNumber == SIGINT ? "SIGINT" : "SIGTERM"
                let note = removed.isEmpty ? "" : "; removed \(removed.count) unfinished file(s)"
                writeToStandardError("\ngcdcat: interrupted by \(name)\(note)\n")
                _exit(128 + signalNumber)
            }
            source.resume()
            return source
        }
    }
}
