import CSystemShim
import Dispatch
import GCDCatS3
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What must vanish if gcdcat is interrupted: unfinished files, generated folders, and the
/// child processes writing into them.
///
/// Output is written to temporary names and renamed into place only when complete. Every such
/// name is registered here while it exists, so that a SIGINT/SIGTERM handler (which runs on its
/// own queue while the work goes on) can remove them all. Renames into place take the same lock,
/// so a signal sees each file either fully committed or still temporary, never half-renamed.
public final class CleanupRegistry: Sendable {
    public static let shared = CleanupRegistry()

    /// One thing to undo.
    public enum Entry: Sendable, Equatable {
        case file(String)
        /// Removed after the files in it, when empty.
        case directory(String)
        /// A scratch folder of gcdcat's own, removed with everything in it.
        case tree(String)
        /// Sent SIGTERM and reaped before any file is removed.
        case process(pid_t)
        /// Something remote to undo (abort a multipart upload, delete an object just put).
        case undo(UndoAction)
    }

    private struct State {
        var nextToken = 0
        var entries: [Int: Entry] = [:]
        /// Once set, nothing may be created or committed: the process is on its way out.
        var aborted = false
        /// The signal that began the abort, for the exit status of whoever hits it first.
        var signal = SIGINT
        /// Sets of outputs being published together (``OutputSink/publishAll(_:fsync:)``): an
        /// abort waits for them, so a set is published whole, never half (with `--force`, a
        /// half-published set would already have replaced some of the old outputs).
        var publishing = 0
        /// What the sets being published when an interruption began came to (the sweep waited
        /// for them): the names published, which stay, and the errors of those that failed
        /// (and were rolled back), for the sweep's message.
        var publishedWhileInterrupted: [String] = []
        var failedWhilePublishing: [String] = []
        /// The sweep stopped waiting for the sets being published (half of `--cleanup-timeout`
        /// passed): no more of their outputs is published, those already published stay, and
        /// the rest are not created (``cutPublishing()``).
        var publishingCut = false
        /// The entries that would undo an output already published (delete it), by token, with
        /// its name: when the sweep stops waiting for its set, the output stays instead.
        var publishedUndos: [Int: String] = [:]
        /// The completions under way (``commitRemote(forgetting:naming:registering:ending:_:)``),
        /// by step: the name completed and the tokens of what it forgets when it lands.
        var completing: [Int: (name: String, forgetting: [Int])] = [:]
        /// The outputs whose completion was under way when the sweep stopped waiting for their
        /// set: the server may have published each, or kept its upload unfinished.
        var unsettledCompletions: [String] = []
        /// Remote steps under way outside the lock (``make(_:registering:)``,
        /// ``commitRemote(forgetting:registering:_:)``); a sweep waits for them.
        var inFlight = 0
        /// What the steps in flight make or complete (`s3://b/k`), for the lines that name
        /// those still unanswered when the undo's deadline passes.
        var inFlightNames: [String] = []
        /// The undo's deadline passed: undos that end later are not reported (the process is
        /// exiting, and they were already named as left behind).
        var undoDeadlinePassed = false
        /// The objects whose multipart uploads were left behind, for the one `gcdcat uploads`
        /// command that aborts them all (``takeLeftBehind()``'s last line).
        var leftUploads: [ObjectLocation] = []
        /// What could not be undone (an upload the server would not abort), each as a line
        /// that says how to remove it by hand.
        var leftBehind: [String] = []
        /// Remote undos under way (``removeAll(signal:beforeUndoing:)``).
        var undoing: [UndoAction] = []
        /// The final names of outputs begun and not yet published or discarded, by token, and
        /// the token of each name (a split begins tens of thousands: both lookups are O(1)).
        var pendingOutputs: [Int: String] = [:]
        var pendingTokens: [String: Int] = [:]
        /// Where a pending output sorts, by token, when it is not its token: an output that took
        /// over an earlier note of its name keeps that note's place (a split's planned outputs
        /// are listed in its order, not in the order its files were opened).
        var outputPlaces: [Int: Int] = [:]
        /// The outputs begun that may replace what is at their name (``beginOutput(_:mayReplace:)``).
        var mayReplace: Set<String> = []
        /// The names the last sweep undid by aborting an upload, for ``removalNote(_:)``.
        var abortedUploads: Set<String> = []
        /// Every output published in this run, in order (``publishedOutputs``), how many of
        /// them a report already accounts for (``reportedPublished()``), and the manifest each
        /// was checked against before it was published (``willPublish(_:verifiedAgainst:)``).
        var published: [String] = []
        var reported = 0
        var verifiedAgainst: [String: String] = [:]
        /// The manifests a split is to publish (``willPublishManifest(_:)``).
        var manifests: Set<String> = []
        /// The outputs published whose set the sweep then undid (named before the signal, the
        /// rest of their set not): they were removed, so they are neither published nor kept.
        var undone: Set<String> = []
        /// The parts `merge --remove-parts` removed (``endRemovingPart(_:)``), in order, and
        /// whether it is removing one now.
        var removedParts: [String] = []
        var removingPart = false
        /// The published objects whose crc32 record is being rewritten (``ResumedRecord``), and
        /// those whose rewrite was under way when the sweep stopped waiting for their set.
        var recordRewrites: [String] = []
        var recordRewritesCut: [String] = []
    }

    private let state = Mutex(State())
    /// How long ``removeAll(signal:beforeUndoing:)`` may take (`--cleanup-timeout`), in ms.
    private let undoDeadlineMilliseconds = Atomic<Int>(30_000)

    public init() {}

    /// Remembers `path` for removal; returns a token for ``forget(_:)``.
    func register(_ path: String) -> Int {
        register(.file(path))
    }

    /// Remembers `entry` for undoing; returns a token for ``forget(_:)``.
    public func register(_ entry: Entry) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.entries[state.nextToken] = entry
            return state.nextToken
        }
    }

    /// Notes that the output `finalPath` is being made; returns a token for ``endOutput(_:)``.
    /// A note for the same name made earlier (a command's, before its file was opened) is
    /// taken over: publishing the file ends both. `mayReplace`: something may be at the name
    /// already (`--force`), which an interruption leaves as it was (``mayReplace(_:)``).
    public func beginOutput(_ finalPath: String, mayReplace: Bool = false) -> Int {
        state.withLock { state in
            if mayReplace { state.mayReplace.insert(finalPath) }
            state.nextToken += 1
            if let earlier = state.pendingTokens[finalPath], state.pendingOutputs[earlier] != nil {
                state.pendingOutputs[earlier] = nil
                state.outputPlaces[state.nextToken] = state.outputPlaces.removeValue(forKey: earlier) ?? earlier
            }
            state.pendingOutputs[state.nextToken] = finalPath
            state.pendingTokens[finalPath] = state.nextToken
            return state.nextToken
        }
    }

    /// Notes that an output begun with ``beginOutput(_:)`` was given up (or finished without a
    /// file of its own). Once an interruption began, the output stays listed: it was not created.
    /// A published output ends in ``commit(forgetting:registering:ending:_:)``, in the same step
    /// as its name appears.
    public func endOutput(_ token: Int) {
        state.withLock { state in
            guard !state.aborted else { return }
            Self.end(token, in: &state)
        }
    }

    private static func end(_ token: Int, in state: inout State) {
        state.outputPlaces[token] = nil
        if let name = state.pendingOutputs.removeValue(forKey: token), state.pendingTokens[name] == token {
            state.pendingTokens[name] = nil
        }
    }

    /// The final names of the outputs begun and never published, in the order begun: what an
    /// interruption leaves uncreated (read after ``removeAll(signal:beforeUndoing:)``, when no
    /// output can be published any more).
    public var unpublishedOutputs: [String] {
        state.withLock { state in
            state.pendingOutputs.sorted {
                (state.outputPlaces[$0.key] ?? $0.key) < (state.outputPlaces[$1.key] ?? $1.key)
            }
            .map(\.value)
        }
    }

    /// Whether the output `name` was begun to replace what may be at its name (`--force`): an
    /// interruption did not create it, but left what was there as it was.
    public func mayReplace(_ name: String) -> Bool {
        state.withLock { $0.mayReplace.contains(name) }
    }

    /// Creates the file `path` with `create` (an `open` returning a descriptor or -1) and
    /// registers it, both under the lock: an interruption sees the file either not yet made
    /// (and the creation is then refused) or registered (and removes it). Registering first and
    /// creating after let a file appear just after the handler had swept, and survive.
    ///
    /// Returns the descriptor and token, or the errno (token nil) when `create` failed.
    ///
    /// ## Errors
    /// `.interrupted` once an interruption began.
    func create(_ path: String, _ create: () -> Int32) throws -> (fd: Int32, token: Int?, errno: Int32) {
        try state.withLock { state in
            guard !state.aborted else { throw Self.interrupted(by: state.signal) }
            let fd = create()
            guard fd >= 0 else { return (fd, nil, gcdcat_errno()) }
            state.nextToken += 1
            state.entries[state.nextToken] = .file(path)
            return (fd, state.nextToken, 0)
        }
    }

    /// Starts publishing a set of outputs: until ``endPublishing()``, commits go on after an
    /// interruption began, and ``removeAll(signal:)`` waits.
    ///
    /// ## Errors
    /// `.interrupted` when an interruption began before.
    func beginPublishing() throws {
        try state.withLock { state in
            guard !state.aborted else { throw Self.interrupted(by: state.signal) }
            state.publishing += 1
        }
    }

    /// Ends what ``beginPublishing()`` began: `published` names the outputs now published
    /// (none when it failed, with `failure`). Returns whether an interruption began meanwhile:
    /// the sweep waited for the set and says what it came to, so the caller must stop
    /// (``InterruptHandler/awaitSweep()``) rather than report success or its own failure.
    @discardableResult
    func endPublishing(published: [String] = [], failure: (any Error)? = nil) -> Bool {
        state.withLock { state in
            state.publishing -= 1
            guard state.aborted else { return false }
            // Cut: the sweep already named what the set came to.
            guard !state.publishingCut else { return true }
            // An output whose naming the signal came during is there already (``commit(forgetting:registering:ending:_:)``):
            // one output, said once (a --force merge said "s and 1 other outputs").
            state.publishedWhileInterrupted += published.filter { !state.publishedWhileInterrupted.contains($0) }
            if let failure { state.failedWhilePublishing.append("\(failure)") }
            return true
        }
    }

    /// Starts removing one part of a published merge (`--remove-parts`): a signal that comes
    /// meanwhile waits for it, as for a set being published. False when an interruption began
    /// before: no more parts are removed.
    func beginRemovingPart() -> Bool {
        // A signal that arrived (its sweep perhaps not begun yet) removes no further part.
        InterruptHandler.yieldToArrivedSignal()
        guard (try? beginPublishing()) != nil else { return false }
        state.withLock { $0.removingPart = true }
        return true
    }

    /// Ends what ``beginRemovingPart()`` began, recording the part's path when it was removed.
    /// Returns whether an interruption began meanwhile: the caller stops, and the sweep names
    /// the parts removed (``removedParts``).
    func endRemovingPart(_ removed: String?) -> Bool {
        state.withLock { state in
            state.removingPart = false
            if let removed { state.removedParts.append(removed) }
        }
        return endPublishing()
    }

    /// The parts `merge --remove-parts` removed in this run, in order.
    public var removedParts: [String] { state.withLock { $0.removedParts } }

    /// The outputs published, and the failures of sets that were not, while a sweep waited
    /// for them (``endPublishing(published:failure:)``): what the sweep's message adds.
    public var publishedWhileInterrupted: (published: [String], failures: [String]) {
        state.withLock { state in
            (state.publishedWhileInterrupted.filter { !state.undone.contains($0) }, state.failedWhilePublishing)
        }
    }

    /// The outputs named before the sweep, and removed by it with the rest of their set: not
    /// created after all.
    public var undonePublished: [String] { state.withLock { $0.undone.sorted() } }

    /// Whether the sweep stopped waiting for the sets being published (``cutPublishing()``):
    /// then what they published stays, and nothing of them is undone but by the sweep.
    var publishingWasCut: Bool { state.withLock { $0.publishingCut } }

    /// Notes that the crc32 record of the published object `name` is being rewritten, until
    /// ``endRecordRewrite(_:)``: a sweep that stops waiting meanwhile names it (the object stays
    /// published, its record maybe an earlier input's).
    func beginRecordRewrite(_ name: String) {
        state.withLock { $0.recordRewrites.append(name) }
    }

    func endRecordRewrite(_ name: String) {
        state.withLock { state in
            if let index = state.recordRewrites.firstIndex(of: name) { state.recordRewrites.remove(at: index) }
        }
    }

    /// The objects whose crc32 record rewrite was cut short when the sweep stopped waiting for
    /// their set (``beginRecordRewrite(_:)``).
    public var recordRewritesCut: [String] { state.withLock { $0.recordRewritesCut } }

    /// What became of the sets being published when the sweep stopped waiting for them
    /// (`cut` false when it did not): the outputs published, which stay; those whose completion
    /// was sent and not answered (published, or still an unfinished upload); the outputs begun
    /// and not created are ``unpublishedOutputs``.
    public var publishingOutcome: (cut: Bool, published: [String], unsettled: [String]) {
        state.withLock { ($0.publishingCut, $0.publishedWhileInterrupted, $0.unsettledCompletions) }
    }

    /// Notes that the output `path`, if it is published, was checked against `manifest` first:
    /// what ``publishedOutputs`` says of it.
    public func willPublish(_ path: String, verifiedAgainst manifest: String) {
        state.withLock { $0.verifiedAgainst[path] = manifest }
    }

    /// Notes that the output `path`, if it is published, is the manifest of the set a split
    /// publishes: what ``publishedManifest`` says.
    public func willPublishManifest(_ path: String) {
        state.withLock { _ = $0.manifests.insert(path) }
    }

    /// The manifest a split published in this run (``willPublishManifest(_:)``), or nil.
    public var publishedManifest: String? {
        state.withLock { state in
            state.published.first { state.manifests.contains($0) && !state.undone.contains($0) }
        }
    }

    /// Every output published in this run, in order, whatever came after: once published, an
    /// output is the job's result, and a signal that ends the run then must name it (its
    /// `--json` object's `published`), never call it not created.
    public var publishedOutputs: [ErrorReport.Published] {
        state.withLock { state in
            state.published.filter { !state.undone.contains($0) }.map { name in
                let manifest = state.verifiedAgainst[name]
                return ErrorReport.Published(output: name, verified: manifest != nil, manifest: manifest)
            }
        }
    }

    /// Notes that every output published so far is accounted for by a report already given (a
    /// set of several that ended): a sweep's message names only those published since.
    public func reportedPublished() {
        state.withLock { $0.reported = $0.published.count }
    }

    /// The outputs published since ``reportedPublished()`` (all of them when it was never
    /// called): those a sweep's message must say stay, since no report will.
    public var unreportedPublished: [String] {
        state.withLock { state in state.published[state.reported...].filter { !state.undone.contains($0) } }
    }

    /// Throws `.interrupted` once an interruption began: nothing new should start.
    func requireLive() throws {
        try state.withLock { state in
            if state.aborted { throw Self.interrupted(by: state.signal) }
        }
    }

    /// The error of work refused because an interruption began (``InterruptHandler/awaitSweep()``).
    func interruptedError() -> GCDCatError {
        Self.interrupted(by: state.withLock { $0.signal })
    }

    private static func interrupted(by signal: Int32) -> GCDCatError {
        GCDCatError(.interrupted, errno: signal, message: "interrupted")
    }

    /// Records something remote that could not be undone, as a line saying how to remove it
    /// by hand (``LeftBehindAdvice``); the command prints it when it ends. `upload` names the
    /// object of a multipart upload left, for the `gcdcat uploads` line.
    func noteLeftBehind(_ line: String, upload: ObjectLocation? = nil) {
        state.withLock { state in
            state.leftBehind.append(line)
            if let upload { state.leftUploads.append(upload) }
        }
    }

    /// What a sweep undid, for the line that ends the run ("; aborted 1 unfinished upload and
    /// removed 2 unfinished files"), from the names ``removeAll(signal:beforeUndoing:)`` returned;
    /// empty when it undid nothing.
    public func removalNote(_ removed: [String]) -> String {
        let aborted = state.withLock { $0.abortedUploads }
        let uploads = removed.filter(aborted.contains).count
        let objects = removed.filter { !aborted.contains($0) && ObjectLocation.isObjectPath($0) }.count
        let files = removed.count - uploads - objects
        let parts = [
            uploads > 0 ? "aborted \(Self.counted(uploads, "unfinished upload"))" : nil,
            objects > 0 ? "deleted \(Self.counted(objects, "object")) this run had placed" : nil,
            files > 0 ? "removed \(Self.counted(files, "unfinished file"))" : nil,
        ].compactMap { $0 }
        guard let last = parts.last else { return "" }
        return "; " + (parts.count == 1 ? last : parts.dropLast().joined(separator: ", ") + " and " + last)
    }

    private static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// The lines recorded by ``noteLeftBehind(_:upload:)`` since the last call, and forgets
    /// them; when uploads were left, the last line is the `gcdcat uploads … --abort` command
    /// that aborts them (``LeftBehindAdvice/abortCommands(for:)``).
    public func takeLeftBehind() -> [String] {
        state.withLock { state in
            defer {
                state.leftBehind = []
                state.leftUploads = []
                state.unsettledCompletions = []
            }
            // Completions the sweep stopped waiting for (``cutPublishing()``) and still unanswered.
            let unsettled = state.unsettledCompletions.map { name -> String in
                guard let location = try? ObjectLocation(parsing: name) else { return name }
                state.leftUploads.append(location)
                return LeftBehindAdvice.unsettledCompletion(location)
            }
            return state.leftBehind + unsettled + LeftBehindAdvice.abortCommands(for: state.leftUploads)
        }
    }

    /// Sets how long the undo after a signal may take (`--cleanup-timeout`); 30 s unless set.
    public func setUndoDeadline(_ seconds: Double) {
        undoDeadlineMilliseconds.store(Int(min(max(seconds, 0), 1e12) * 1000), ordering: .relaxed)
    }

    public var undoDeadline: Double { Double(undoDeadlineMilliseconds.load(ordering: .relaxed)) / 1000 }

    /// Notes that the output published under `token` (its undo's) was removed again, its set
    /// rolled back: it is not published after all (``publishedOutputs``).
    func undid(_ token: Int) {
        state.withLock { state in
            if let name = state.publishedUndos[token] { state.undone.insert(name) }
        }
    }

    public func forget(_ token: Int) {
        state.withLock { state in
            state.entries.removeValue(forKey: token)
            state.publishedUndos.removeValue(forKey: token)
        }
    }

    /// Runs `commit` (a rename) unless an interruption has begun, then forgets `tokens`; with
    /// `registering`, registers that entry in the same step (the name just placed, when it must
    /// go if a later step fails) and returns its token.
    @discardableResult
    func commit(
        forgetting tokens: [Int], registering: Entry? = nil, ending output: Int? = nil, _ commit: () throws -> Void
    ) throws -> Int? {
        try state.withLock { state in
            guard !state.aborted || (state.publishing > 0 && !state.publishingCut) else {
                throw Self.interrupted(by: state.signal)
            }
            try commit()
            for token in tokens { state.entries.removeValue(forKey: token) }
            // A signal that came while the rename was under way (its sweep waits for this lock)
            // cannot stop it: the output is published, and the sweep must say it stays.
            if gcdcat_signal_arrived() != 0, let output, let shown = state.pendingOutputs[output] {
                state.publishedWhileInterrupted.append(shown)
            }
            return Self.published(output, registering: registering, name: nil, in: &state)
        }
    }

    /// Records a step that published `output` (when given): it is no longer "not created",
    /// and `registering` (its undo until its set is published) is registered. Returns its token.
    private static func published(_ output: Int?, registering: Entry?, name: String?, in state: inout State) -> Int? {
        // Published: an interruption from now on must not call it "not created".
        let shown = output.flatMap { state.pendingOutputs[$0] } ?? name
        if let output { Self.end(output, in: &state) }
        if let shown { state.published.append(shown) }
        guard let registering else { return nil }
        state.nextToken += 1
        state.entries[state.nextToken] = registering
        if output != nil, let shown { state.publishedUndos[state.nextToken] = shown }
        return state.nextToken
    }

    /// Runs `body` (which makes something on a server) and registers what it returns, as
    /// ``create(_:_:)`` does for files: an interruption sees the thing either not yet made (and
    /// `body` is then refused) or registered (and undoes it). `body` runs outside the lock,
    /// counted as in flight (``removeAll(signal:)`` waits for it), so that several requests
    /// can be under way at once.
    ///
    /// ## Errors
    /// `.interrupted` once an interruption began; whatever `body` throws.
    func make<T: Sendable>(naming name: String? = nil, _ body: () throws -> T, registering entry: (T) -> Entry)
        throws -> (value: T, token: Int)
    {
        try inFlight(naming: name, body) { state, value in
            state.nextToken += 1
            state.entries[state.nextToken] = entry(value)
            return (value, state.nextToken)
        }
    }

    /// ``commit(forgetting:registering:_:)`` for a remote step (completing an upload): `commit`
    /// runs outside the lock, counted as in flight, so that a set's objects can be completed
    /// side by side; a sweep that begins meanwhile waits for it, then undoes what it registered.
    @discardableResult
    func commitRemote(
        forgetting tokens: [Int], naming name: String? = nil, registering: Entry? = nil, ending output: Int? = nil,
        _ commit: () throws -> Void
    ) throws -> Int? {
        try inFlight(naming: name, completing: tokens, commit) { state, _ in
            for token in tokens { state.entries.removeValue(forKey: token) }
            if state.publishingCut, let name {
                // Answered after the sweep stopped waiting: it is published and stays.
                if let index = state.unsettledCompletions.firstIndex(of: name) {
                    state.unsettledCompletions.remove(at: index)
                }
                state.publishedWhileInterrupted.append(name)
            }
            return Self.published(output, registering: registering, name: name, in: &state)
        }
    }

    /// Runs `body` unless an interruption has begun, counted in flight, then `record` under the
    /// lock with its value.
    private func inFlight<T: Sendable, R: Sendable>(
        naming name: String?, completing forgetting: [Int]? = nil, _ body: () throws -> T,
        then record: (inout State, T) -> R
    ) throws -> R {
        let label = name ?? "a request to the server"
        let step = try state.withLock { state in
            guard !state.aborted || (state.publishing > 0 && !state.publishingCut) else {
                throw Self.interrupted(by: state.signal)
            }
            state.inFlight += 1
            state.inFlightNames.append(label)
            state.nextToken += 1
            if let forgetting { state.completing[state.nextToken] = (label, forgetting) }
            return state.nextToken
        }
        func landed(_ state: inout State) {
            state.inFlight -= 1
            state.completing[step] = nil
            if let index = state.inFlightNames.firstIndex(of: label) { state.inFlightNames.remove(at: index) }
        }
        let value: T
        do {
            value = try body()
        } catch {
            state.withLock { landed(&$0) }
            throw error
        }
        return state.withLock { state in
            landed(&state)
            return record(&state, value)
        }
    }

    /// Stops registered children, undoes remote work (aborts uploads), removes every
    /// registered file and then folder (newest first), and blocks later commits. Returns what
    /// was removed; what could not be undone is kept for ``takeLeftBehind()``.
    /// `signal` (SIGINT unless given) is the exit status's signal for work that is refused
    /// from now on. `beforeUndoing` hears how many remote steps are about to be undone, so the
    /// user learns why an interrupted run has not exited yet (each waits on a server).
    ///
    /// The undos run all at once, outside the lock: each may wait on a server that stopped
    /// answering, and ``unfinishedUndos()`` must stay readable meanwhile (a second signal
    /// lists what is still pending). The whole sweep ends by ``undoDeadline``: steps still
    /// in flight at half of it, and undos still waiting on their server at its end, are named
    /// as left behind (``takeLeftBehind()``) and abandoned; the caller is about to exit.
    @discardableResult
    ///
    /// A set being published when the sweep begins is finished first (``beginPublishing()``):
    /// then `whilePublishing` is told instead of `beforeUndoing`, since nothing of the set is
    /// undone (with true when what is under way is the removal of a merged part instead).
    public func removeAll(
        signal: Int32 = SIGINT, beforeUndoing: (Int) -> Void = { _ in },
        whilePublishing: (_ removingPart: Bool) -> Void = { _ in }
    ) -> [String] {
        let deadline = undoDeadline
        let milliseconds = undoDeadlineMilliseconds.load(ordering: .relaxed)
        let end = ContinuousClock.now + .milliseconds(milliseconds)
        // Steps in flight get half the time at most, so that the undos have the rest.
        let inFlightEnd = ContinuousClock.now + .milliseconds(milliseconds / 2)
        let (remote, publishing, removingPart) = state.withLock { state in
            state.aborted = true
            state.signal = signal
            return (
                state.inFlight + state.entries.values.filter { if case .undo = $0 { true } else { false } }.count,
                state.publishing > 0, state.removingPart
            )
        }
        if publishing {
            whilePublishing(removingPart)
        } else if remote > 0 {
            beforeUndoing(remote)
        }
        // A set being published is finished first (then it is no longer registered); remote
        // steps under way finish and register what they made, which is then undone.
        while state.withLock({ $0.publishing > 0 || $0.inFlight > 0 }) {
            guard ContinuousClock.now < inFlightEnd else {
                cutPublishing()
                noteUnanswered(deadline)
                break
            }
            usleep(20_000)
        }
        let ordered = state.withLock { state in
            defer { state.entries.removeAll() }
            for token in state.entries.keys { if let name = state.publishedUndos[token] { state.undone.insert(name) } }
            return state.entries.sorted { $0.key > $1.key }.map(\.value)
        }
        for case .process(let pid) in ordered {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        var removed = undoAll(
            ordered.compactMap { if case .undo(let action) = $0 { action } else { nil } }, until: end,
            deadline: deadline)
        for case .file(let path) in ordered where Syscall.unlink(path) == 0 { removed.append(path) }
        for case .directory(let path) in ordered where Syscall.rmdir(path) == 0 { removed.append(path) }
        for case .tree(let path) in ordered {
            removeTree(path)
            removed.append(path)
        }
        return removed
    }

    /// Runs `actions` at once, a thread each (up to 64; they wait on a server, not a core),
    /// until `end`; returns the names of those undone, in order, and keeps a left-behind line
    /// for each that failed or had not ended by `end`.
    private func undoAll(_ actions: [UndoAction], until end: ContinuousClock.Instant, deadline: Double) -> [String] {
        guard !actions.isEmpty else { return [] }
        state.withLock { $0.undoing = actions }
        let undone = Mutex(Set<Int>())
        let finished = DispatchSemaphore(value: 0)
        let started = WorkerThreads.detach {
            _ = try? ParallelMap.map(count: actions.count, jobs: 64, pool: .threads) { index in
                let action = actions[index]
                do {
                    try action.run()
                    undone.withLock { _ = $0.insert(index) }
                    self.state.withLock { state in
                        state.undoing.removeAll { $0 === action }
                        if action.upload != nil { state.abortedUploads.insert(action.name) }
                    }
                } catch {
                    self.state.withLock { state in
                        state.undoing.removeAll { $0 === action }
                        // Already named when the deadline passed.
                        guard !state.undoDeadlinePassed else { return }
                        state.leftBehind.append(action.leftBehind(error))
                        if let upload = action.upload { state.leftUploads.append(upload) }
                    }
                }
            }
            finished.signal()
        }
        let left = end - ContinuousClock.now
        let wait = max(0, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        if !started || finished.wait(timeout: .now() + wait) == .timedOut {
            state.withLock { state in
                state.undoDeadlinePassed = true
                let error = Self.deadlinePassed(deadline)
                for action in state.undoing {
                    state.leftBehind.append(action.leftBehind(error))
                    if let upload = action.upload { state.leftUploads.append(upload) }
                }
                state.undoing = []
            }
        }
        let done = undone.withLock { $0 }
        return actions.indices.filter { done.contains($0) }.map { actions[$0].name }
    }

    /// Stops waiting for the sets being published, when half of the undo's deadline passed
    /// and they are not: none of their outputs is published from now on (``commitRemote(forgetting:naming:registering:ending:_:)``
    /// refuses); those already published stay (their undo is dropped) and are named; those
    /// whose completion is under way are neither aborted under it (the server may be
    /// completing it) nor called "not created", but named as unsettled; the rest are undone
    /// (their uploads aborted) and named as not created.
    private func cutPublishing() {
        state.withLock { state in
            guard state.publishing > 0 else { return }
            state.publishingCut = true
            state.recordRewritesCut = state.recordRewrites
            for (token, name) in state.publishedUndos.sorted(by: { $0.key < $1.key }) {
                state.entries[token] = nil
                state.publishedWhileInterrupted.append(name)
            }
            state.publishedUndos = [:]
            for (_, step) in state.completing.sorted(by: { $0.key < $1.key }) {
                for token in step.forgetting { state.entries[token] = nil }
                state.unsettledCompletions.append(step.name)
            }
        }
    }

    /// Names the remote steps still in flight when the deadline passed: each may have made an
    /// upload (a create whose answer never came) that nobody will abort.
    private func noteUnanswered(_ deadline: Double) {
        state.withLock { state in
            // A completion cut short is named by the sweep's message (``cutPublishing()``).
            var unsettled = state.unsettledCompletions
            for name in state.inFlightNames {
                if let index = unsettled.firstIndex(of: name) {
                    unsettled.remove(at: index)
                    continue
                }
                state.leftBehind.append(
                    "\(name): a request that creates or completes its upload had no answer within the cleanup "
                        + "deadline of \(RequestDeadline.text(deadline)) (--cleanup-timeout); an upload it made is "
                        + "left unfinished")
                if let location = try? ObjectLocation(parsing: name) { state.leftUploads.append(location) }
            }
        }
    }

    private static func deadlinePassed(_ deadline: Double) -> GCDCatError {
        GCDCatError(
            .io,
            message: "no answer within the cleanup deadline of \(RequestDeadline.text(deadline)) (--cleanup-timeout)")
    }

    /// A left-behind line for each remote undo not yet done: still registered (the sweep waits
    /// for steps in flight) or waiting on its server. What a second signal, which ends the
    /// process at once, prints.
    public func unfinishedUndos() -> (lines: [String], uploads: [ObjectLocation]) {
        state.withLock { state in
            let registered = state.entries.sorted { $0.key < $1.key }.compactMap {
                if case .undo(let action) = $0.value { action } else { nil }
            }
            let actions = registered + state.undoing
            return (actions.map { $0.leftBehind(Self.interruptedDuringUndo) }, actions.compactMap(\.upload))
        }
    }

    private static let interruptedDuringUndo = GCDCatError(
        .interrupted, message: "interrupted again while it was being undone")

    /// The registered files, for tests.
    public var registeredPaths: [String] {
        state.withLock { state in
            state.entries.sorted { $0.key < $1.key }.compactMap {
                if case .file(let path) = $0.value { return path }
                return nil
            }
        }
    }
}

/// A remote step to undo when gcdcat is interrupted or fails: aborting a multipart upload, or
/// deleting an object it put. Equal only to itself.
public final class UndoAction: Sendable, Equatable {
    /// What is undone, for the interruption message (`s3://b/k`).
    public let name: String
    /// The object whose multipart upload this undo aborts, if it aborts one: left behind, it
    /// is named in the `gcdcat uploads … --abort` command.
    public let upload: ObjectLocation?
    private let action: @Sendable () throws -> Void
    /// The line that says how to undo it by hand, when `action` failed with this error.
    let leftBehind: @Sendable (any Error) -> String

    public init(
        name: String, aborting upload: ObjectLocation? = nil, _ action: @escaping @Sendable () throws -> Void,
        ifItFails leftBehind: @escaping @Sendable (any Error) -> String = { "could not be undone: \($0)" }
    ) {
        self.name = name
        self.upload = upload
        self.action = action
        self.leftBehind = leftBehind
    }

    func run() throws { try action() }

    public static func == (lhs: UndoAction, rhs: UndoAction) -> Bool { lhs === rhs }
}
