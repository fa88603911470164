import Synchronization

/// Notes that engines make deep inside a run (an upload resumed, one an earlier run left
/// aborted, a record rewritten), shown as the command shows its other notes: on standard error
/// unless `-q`, and in the report's `notes` (`--json`, `--report`).
///
/// The engines that make them (``UploadResumption``, ``ResumedRecord``) run under an
/// ``ObjectOutput`` far from the command, so they post here instead of writing to standard
/// error, which ignored `-q` and never reached the JSON report.
public enum RunNotes {
    private struct State {
        var notes: [String] = []
        var printer: (@Sendable (String) -> Void)?
    }

    private static let state = Mutex(State())

    /// Records `text` (without `gcdcat: `) and hands it to the printer, if one is set.
    static func post(_ text: String) {
        let printer = state.withLock { state in
            state.notes.append(text)
            return state.printer
        }
        printer?(text)
    }

    /// Sets what shows each note as it is posted (nil: nothing; the notes are still kept).
    public static func show(with printer: (@Sendable (String) -> Void)?) {
        state.withLock { $0.printer = printer }
    }

    /// The notes posted since the last call, in order, and forgets them.
    public static func take() -> [String] {
        state.withLock { state in
            defer { state.notes = [] }
            return state.notes
        }
    }
}
