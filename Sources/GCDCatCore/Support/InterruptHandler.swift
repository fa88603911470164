import CSystemShim
import FoundationEssentials
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One policy for every signal that asks gcdcat to stop: remove every unfinished file, say so,
/// and exit 128+signal, never with a backtrace.
///
/// SIGINT (Ctrl-C), SIGTERM (kill), SIGHUP (a closed terminal or ssh session), SIGPIPE (the
/// reader of a pipe went away), SIGQUIT (Ctrl-\\, which the Swift runtime would otherwise answer
/// with a "crashed" backtrace and then carry on) and SIGALRM (`timeout -s ALRM`) are all handled
/// alike. SIGKILL cannot be caught; ``AtomicOutputFile`` keeps unfinished files unnamed so that
/// it has nothing to leave.
///
/// A signal that is ignored when gcdcat starts stays ignored, as coreutils leaves it: `nohup`
/// ignores SIGHUP so that a long merge outlives its ssh session, and a shell without job
/// control starts background jobs with SIGINT and SIGQUIT ignored. (With SIGPIPE ignored, a
/// write to a closed pipe fails with EPIPE instead, and the error path removes the same files.)
///
/// ## Implementation details
/// The executable installs the handlers before Swift's `main` (the `GCDCatStartup` target's
/// constructor), so a signal in the first milliseconds waits in the pipe until ``install()``
/// starts the thread that reads it, or ``useDefaultActions()`` raises it again; it no longer
/// reaches a default action or the Swift runtime's crash handler. That constructor also turns
/// the runtime's backtracer off unless `SWIFT_BACKTRACE` is set: see the README's "Crashes".
///
/// A C handler writes the signal's number to a pipe (the only async-signal-safe thing it does);
/// a dedicated thread reads it and sweeps the ``CleanupRegistry``, so the sweep is ordinary code
/// that may take locks and unlink files. (DispatchSource signal sources missed a SIGPIPE whose
/// disposition the parent had set to "ignore".) The work itself is not cancelled cooperatively:
/// the registry refuses to create or publish anything once the sweep began, so nothing the work
/// could still do survives, and the process exits at once.
public enum InterruptHandler {
    /// The signals handled, with their names for the message.
    public static let signals: [(number: Int32, name: String)] = [
        (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGPIPE, "SIGPIPE"),
        (SIGQUIT, "SIGQUIT"), (SIGALRM, "SIGALRM"),
    ]

    private static let installed: Void = {
        let numbers = signals.map(\.number)
        let readEnd = numbers.withUnsafeBufferPointer {
            gcdcat_install_signal_pipe($0.baseAddress, Int32($0.count))
        }
        guard readEnd >= 0 else { return }
        listening.store(true, ordering: .releasing)
        WorkerThreads.detach { sweepOnSignal(readEnd) }
    }()

    /// True once the thread that reads the signal pipe runs (after ``install()``).
    private static let listening = Atomic<Bool>(false)

    /// Waits for the process to end when a handled signal has arrived but its sweep has not
    /// begun: called before outputs are published, so that nothing is named after a Ctrl-C
    /// (under load the reading thread can start a scheduler slice late, and the work could
    /// publish and exit 0 first). The sweep's thread ends the process.
    public static func yieldToArrivedSignal() {
        guard listening.load(ordering: .acquiring), gcdcat_signal_arrived() != 0 else { return }
        while true { pause() }
    }

    /// What goes to standard output before the exit, given the signal's number and name: the
    /// JSON error object under `--json`. Nil writes nothing.
    private static let lastWords = Mutex<(@Sendable (Int32, String) -> [UInt8])?>(nil)

    /// Who writes the one JSON document on standard output: 0 nobody yet, 1 the command (its
    /// report or error object), 2 the sweep (the last words). Without it, a signal that came as a
    /// run ended printed two documents, the report and the `interrupted` object.
    private static let documentWriter = Atomic<Int>(0)

    /// Claims standard output for the command's own JSON document, before it writes it. When a
    /// signal's sweep has claimed it (its last words are, or will be, the document), waits for
    /// the sweep to end the process.
    public static func claimStandardOutput() {
        let (claimed, writer) = documentWriter.compareExchange(
            expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        if !claimed && writer == 2 {
            while true { pause() }
        }
    }

    /// Waits for the sweep to end the process: called with an `interrupted` error, which only the
    /// sweep's start causes (``CleanupRegistry`` refuses to go on), so that the sweep alone says
    /// what the interruption left (its message, and its document under `--json`), once.
    public static func awaitSweep() {
        guard listening.load(ordering: .acquiring) else { return }
        while true { pause() }
    }

    /// Sets what is written to standard output when a signal ends the process.
    public static func onInterrupt(writeToStandardOutput words: @escaping @Sendable (Int32, String) -> [UInt8]) {
        lastWords.withLock { $0 = words }
    }

    /// True unless SIGPIPE was ignored when gcdcat started: then a write to a closed pipe ends
    /// the process with status 141 and no message, as it ends `cat`. (Ignored, the write fails
    /// with EPIPE, which is reported as an error, as coreutils does.)
    public static var closedPipeEndsProcess: Bool { gcdcat_signal_ignored(SIGPIPE) == 0 }

    /// Ends the process as the SIGPIPE of the write that just failed with EPIPE would: the
    /// handler's sweep removes every unfinished file and exits 141, without a word. Funnelling
    /// the EPIPE through the signal gives one outcome whichever of the two is seen first.
    public static func endForClosedPipe() -> Never {
        raise(SIGPIPE)
        while true { pause() }
    }

    /// Installs the handlers once (or adopts those the executable installed before `main`,
    /// with any signal that came meanwhile); later calls do nothing.
    public static func install() {
        _ = installed
    }

    /// For a command that does not clean up after itself (verify, checksum, help): the handled
    /// signals get their default action back, as if gcdcat had never caught them, and a signal
    /// that came since startup takes it now. Does nothing after ``install()``.
    public static func useDefaultActions() {
        gcdcat_default_signal_actions()
    }

    /// Removes the `SWIFT_BACKTRACE=enable=no` that the executable set before `main` (when the
    /// user had not set it), so that the processes gcdcat starts see the environment it was
    /// given.
    public static func restoreBacktraceEnvironment() {
        gcdcat_forget_backtrace_setting()
    }

    /// Waits for a signal's byte, then removes every unfinished file and exits 128+signal.
    private static func sweepOnSignal(_ readEnd: Int32) -> Never {
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) != 1 {}
        let number = Int32(byte)
        // The sweep may wait on a server (aborting uploads) that does not answer: a second
        // signal ends the process at once, saying what may be left.
        WorkerThreads.detach { exitOnSecondSignal(readEnd) }
        let name = signals.first { $0.number == number }?.name ?? "signal \(number)"
        let removed = CleanupRegistry.shared.removeAll(
            signal: number,
            beforeUndoing: { count in
                StandardStreams.writeError(
                    "\ngcdcat: interrupted by \(name); undoing what was started on the server (\(count) step(s), for "
                        + "at most \(RequestDeadline.text(CleanupRegistry.shared.undoDeadline)), --cleanup-timeout); a "
                        + "second signal stops at once and lists what is left\n")
            },
            whilePublishing: { removingPart in
                let what =
                    removingPart
                    ? "while --remove-parts was removing a part; finishing that part"
                    : "while its outputs were being published; publishing them first"
                let wait = RequestDeadline.text(CleanupRegistry.shared.undoDeadline / 2)
                StandardStreams.writeError(
                    "\ngcdcat: interrupted by \(name) \(what), for at most \(wait) (--cleanup-timeout); a second "
                        + "signal stops at once and lists what is left\n")
            })
        // Read after the sweep, when nothing more can be published: read before it, an output
        // published in between (one set of several finishing) was said to be "not created".
        // Outputs given up after the interruption stay listed (CleanupRegistry.endOutput).
        let outcome = CleanupRegistry.shared.publishingOutcome
        let unpublished = CleanupRegistry.shared.unpublishedOutputs.filter { !outcome.unsettled.contains($0) }
        let outputs = (unpublished + CleanupRegistry.shared.undonePublished).filter {
            !outcome.unsettled.contains($0)
        }.map(\.displayPath)
        // A reader that went away ends gcdcat silently, as it ends `cat`: the shell's 141 says it.
        if number != SIGPIPE, outcome.cut {
            let note = CleanupRegistry.shared.removalNote(removed)
            let cut = cutNote(
                outcome.published, notCreated: outputs, outcome.unsettled,
                recordRewrites: CleanupRegistry.shared.recordRewritesCut)
            StandardStreams.writeError("\ngcdcat: interrupted by \(name)\(note)\(cut)\n")
            for published in outcome.published.sorted() {
                StandardStreams.writeError("gcdcat: published and stays: \(published.displayPath)\n")
            }
            for output in outputs { StandardStreams.writeError("gcdcat: not created: \(output)\n") }
        } else if number != SIGPIPE {
            let note = CleanupRegistry.shared.removalNote(removed)
            let notWritten = notWrittenNote(unpublished: unpublished, outputs: outputs)
            let (published, failures) = CleanupRegistry.shared.publishedWhileInterrupted
            // Published before the signal, with no report said of them yet (the run had only
            // that left to do): they are the run's result, and stay.
            let before = CleanupRegistry.shared.unreportedPublished.filter { !published.contains($0) }
            let stays = published.isEmpty ? publishedBeforeNote(before) : publishedNote(published + before)
            let removedParts = PartRemoval.removedNote(CleanupRegistry.shared.removedParts).map { "; " + $0 } ?? ""
            StandardStreams.writeError(
                "\ngcdcat: interrupted by \(name)\(note)\(notWritten)\(stays)\(removedParts)\n")
            for failure in failures {
                StandardStreams.writeError("gcdcat: publishing failed meanwhile, and was undone: \(failure)\n")
            }
        }
        for line in CleanupRegistry.shared.takeLeftBehind() {
            StandardStreams.writeError("gcdcat: left behind: \(line)\n")
        }
        if let words = lastWords.withLock({ $0 }),
            documentWriter.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged
        {
            // A reader that went away (SIGPIPE) makes this fail; the exit status still tells.
            try? StandardStreams.writeOutput(words(number, name))
        }
        _exit(128 + number)
    }

    /// What the sweep says of the outputs not written (`outputs`, shown; `unpublished`, their
    /// paths): not created, or, with `--force`, not replaced, what was at their names left as
    /// it was.
    static func notWrittenNote(unpublished: [String], outputs: [String]) -> String {
        let kept = unpublished.filter { CleanupRegistry.shared.mayReplace($0) }.map(\.displayPath)
        let created = outputs.filter { !kept.contains($0) }
        let notCreated: String =
            switch created.count {
            case 0: ""
            case 1: "; \(created[0]) was not created"
            default: "; \(created[0]) and \(created.count - 1) other outputs were not created"
            }
        let notReplaced: String =
            switch kept.count {
            case 0: ""
            case 1: "; \(kept[0]) was not written (--force): what was at its name, if anything, stays as it was"
            default:
                "; \(kept[0]) and \(kept.count - 1) other outputs were not written (--force): what was at their "
                    + "names, if anything, stays as it was"
            }
        return notCreated + notReplaced
    }

    /// What the sweep says of the outputs published while it waited for their set: a signal
    /// that comes while a set is being published lets it finish (``CleanupRegistry/beginPublishing()``).
    static func publishedNote(_ published: [String]) -> String {
        guard let first = published.min() else { return "" }
        let shown = first.displayPath
        return published.count == 1
            ? "; it waited for the output being published: \(shown) was published and stays"
            : "; it waited for the set being published: \(shown) and \(published.count - 1) other outputs were "
                + "published and stay"
    }

    /// What the sweep says of the outputs published before the signal came, of which no report
    /// was said yet: they stay, and the run was interrupted as it was about to report them.
    static func publishedBeforeNote(_ published: [String]) -> String {
        guard let first = published.min() else { return "" }
        return published.count == 1
            ? "; \(first.displayPath) was published and stays"
            : "; \(first.displayPath) and \(published.count - 1) other outputs were published and stay"
    }

    /// What the sweep says when it stopped waiting for a set being published (half of
    /// `--cleanup-timeout` passed, ``CleanupRegistry/publishingOutcome``): the set stays as far
    /// as it got, and each output is named on a line of its own after this.
    static func cutNote(
        _ published: [String], notCreated: [String], _ unsettled: [String], recordRewrites: [String] = []
    ) -> String {
        let wait = RequestDeadline.text(CleanupRegistry.shared.undoDeadline / 2)
        // Every output published: what was cut short came after the set (a resumed object's
        // crc32 record being rewritten), and the set is whole.
        if notCreated.isEmpty && unsettled.isEmpty && !published.isEmpty {
            let rewrites =
                recordRewrites.isEmpty
                ? ""
                : "; what was cut short is the rewrite of the crc32 record (x-amz-meta-gcdcat-crc32) of "
                    + recordRewrites.sorted().joined(separator: ", ")
                    + ", which may still describe an earlier input (merge and verify read such a part; split --force "
                    + "writes the set again)"
            return "; it waited \(wait) for the set being published (--cleanup-timeout): the whole set was published "
                + "and stays, \(published.count == 1 ? "its 1 output" : "all \(published.count) outputs") named below"
                + rewrites
        }
        let counts = [
            published.isEmpty
                ? nil
                : published.count == 1
                    ? "1 of its outputs was published and stays"
                    : "\(published.count) of its outputs were published and stay",
            notCreated.isEmpty ? nil : "\(notCreated.count) \(notCreated.count == 1 ? "was" : "were") not created",
            unsettled.isEmpty ? nil : "\(unsettled.count) had no answer (left behind, below)",
        ].compactMap { $0 }
        return "; publishing the set took longer than the \(wait) it could wait (--cleanup-timeout) and was "
            + "stopped halfway: " + counts.joined(separator: ", ")
            + "; each is named below (rerun with --force to publish the whole set)"
    }

    private static func exitOnSecondSignal(_ readEnd: Int32) -> Never {
        var byte: UInt8 = 0
        // A SIGPIPE now comes from the sweep's own last words to a reader that left, not from
        // someone asking gcdcat to stop sooner.
        while read(readEnd, &byte, 1) != 1 || Int32(byte) == SIGPIPE {}
        let number = Int32(byte)
        let name = signals.first { $0.number == number }?.name ?? "signal \(number)"
        StandardStreams.writeError(
            "\ngcdcat: interrupted again by \(name) before the cleanup finished: a multipart upload may be "
                + "left on the server (aws s3api list-multipart-uploads shows it), or a .NAME.gcdcat-XXXXXX file "
                + "where the filesystem has no O_TMPFILE\n")
        let unfinished = CleanupRegistry.shared.unfinishedUndos()
        for line in unfinished.lines + LeftBehindAdvice.abortCommands(for: unfinished.uploads) {
            StandardStreams.writeError("gcdcat: left behind: \(line)\n")
        }
        _exit(128 + number)
    }
}
