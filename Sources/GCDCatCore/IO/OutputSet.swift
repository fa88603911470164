import GCDCatS3
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Every output of one job (a merge's output; a split's parts, recovery volumes, checksum list
/// and manifest), as
/// one transaction: each is created through the set, all are discarded on any error, and they
/// are published all or nothing, in an order that never leaves a mergeable partial set.
///
/// A job runs its work inside ``transaction(inputs:overwrite:fsync:registry:_:)``: any error thrown out
/// of it discards every output the set holds (temporary files removed, uploads aborted), and a
/// signal meanwhile removes them through the ``CleanupRegistry`` each output registered with.
/// A new kind of output of a set is one more ``Role`` and one call of
/// ``produce(_:_:bytes:unnamed:reserving:_:)``, ``open(_:_:unnamed:)`` or ``write(_:_:_:)``.
public final class OutputSet: Sendable {
    /// What an output is to its set: it decides when the output is named (``publish(naming:prepare:)``).
    public enum Role: Sendable, Hashable {
        /// A job's one output (a merge's).
        case whole
        /// Part `index` (0-based) of a split's set.
        case part(Int)
        /// The GNU checksum list beside the parts (`NAME.sha256`), named before the manifest.
        case checksumList
        /// The SFV manifest, named after every list and before the first part.
        case manifest
        /// PAR2 recovery volume `index` (`NAME.volNN+MM.par2`, 0-based in exponent order), named
        /// after the other parts and before the PAR2 index.
        case recoveryVolume(Int)
        /// The PAR2 index (`NAME.par2`), named after its volumes and before the checksum list:
        /// an index never names volumes that are not there yet.
        case recoveryIndex
    }

    public let inputs: [PartFile]
    public let overwrite: Bool
    public let fsync: Bool
    public let registry: CleanupRegistry

    private struct State {
        var members: [(role: Role, sink: OutputSink)] = []
        /// Once published (or discarded) the set holds nothing more to discard.
        var closed = false
    }

    private let state = Mutex(State())

    public init(inputs: [PartFile], overwrite: Bool, fsync: Bool, registry: CleanupRegistry = .shared) {
        self.inputs = inputs
        self.overwrite = overwrite
        self.fsync = fsync
        self.registry = registry
    }

    /// Runs `body` with a new set; if it throws, every output of the set is discarded before
    /// the error is rethrown. `body` publishes the set (``publish(naming:prepare:)``) when done.
    public static func transaction<T>(
        inputs: [PartFile], overwrite: Bool, fsync: Bool, registry: CleanupRegistry = .shared,
        _ body: (OutputSet) throws -> T
    ) throws -> T {
        let set = OutputSet(inputs: inputs, overwrite: overwrite, fsync: fsync, registry: registry)
        do {
            return try body(set)
        } catch {
            set.discardAll()
            throw error
        }
    }

    /// A job with one output (a merge's whole file or object): made at `target` by `write`
    /// through ``produce(_:_:bytes:unnamed:reserving:_:)`` and named once complete, or
    /// discarded on any error.
    public static func single<T>(
        _ target: OutputTarget, inputs: [PartFile], overwrite: Bool, fsync: Bool, bytes: Int64,
        reserving: ((OutputSink) -> [Range<Int64>]?)? = nil, _ write: (OutputSink) throws -> T
    ) throws -> T {
        try transaction(inputs: inputs, overwrite: overwrite, fsync: fsync) { set in
            let value = try set.produce(.whole, target, bytes: bytes, reserving: reserving, write).value
            try set.publish()
            return value
        }
    }

    /// Makes the output `role` at `target` with ``OutputSink/produce(_:inputs:overwrite:bytes:fsync:registry:unnamed:reserving:_:)``
    /// (opened, filled by `write`, finished, not named); it joins the set once complete.
    @discardableResult
    public func produce<T>(
        _ role: Role, _ target: OutputTarget, bytes: Int64, unnamed: Bool = true,
        reserving: ((OutputSink) -> [Range<Int64>]?)? = nil, _ write: (OutputSink) throws -> T
    ) throws -> (sink: OutputSink, value: T) {
        let made = try OutputSink.produce(
            target, inputs: inputs, overwrite: overwrite, bytes: bytes, fsync: fsync, registry: registry,
            unnamed: unnamed, reserving: reserving, write)
        add(role, made.sink)
        return made
    }

    /// Opens the output `role` at `target` to be written as data arrives (a stream's part); it
    /// joins the set at once, so an error from here on discards it with the rest.
    public func open(_ role: Role, _ target: OutputTarget, unnamed: Bool = true) throws -> OutputSink {
        let sink = try OutputSink.open(
            target, inputs: inputs, overwrite: overwrite, registry: registry, unnamed: unnamed)
        add(role, sink)
        return sink
    }

    /// Makes the small output `role` (a list, a manifest) holding `bytes`.
    @discardableResult
    public func write(_ role: Role, _ target: OutputTarget, _ bytes: [UInt8]) throws -> OutputSink {
        try produce(role, target, bytes: Int64(bytes.count)) { try $0.write(bytes) }.sink
    }

    private func add(_ role: Role, _ sink: OutputSink) {
        let late = state.withLock { state in
            if state.closed { return true }
            state.members.append((role, sink))
            return false
        }
        // A set already discarded (another worker failed) keeps nothing.
        if late { sink.discard() }
    }

    /// The parts, in the set's order.
    public var parts: [OutputSink] { Self.parts(of: state.withLock { $0.members }) }

    /// The paths of every output of the set, whatever its role.
    public var paths: [String] { state.withLock { $0.members.map(\.sink.path) } }

    /// Discards every output of the set (temporary files removed, uploads aborted). Idempotent.
    public func discardAll() {
        let members = state.withLock { state in
            defer {
                state.members = []
                state.closed = true
            }
            return state.closed ? [] : state.members
        }
        for member in members { member.sink.discard() }
    }

    /// Names every output of the set, all or nothing: a split's parts marked as one set
    /// (``PartMark``, with their crc32s `partCRCs` and how they join), then the parts but those ``PublishOrder``
    /// holds back, then the recovery volumes, their index, the checksum list, the manifest, and
    /// the held-back parts (the first) last; a job's whole output alone. `naming` is the parts'
    /// naming (nil: no part is held back, none is marked). `prepare` runs first, inside the
    /// publishing window. Returns a warning for each part whose mark could not be written.
    ///
    /// ## Errors
    /// Those of ``publishAll(_:fsync:jobs:prepare:)``; the set is then discarded.
    @discardableResult
    public func publish(
        naming: PartNaming? = nil, partCRCs: [UInt32] = [], joining: PartMark.Joining = .concatenated, jobs: Int = 1,
        prepare: () throws -> Void = {}
    ) throws -> [String] {
        // A signal that arrived before this point is answered by its sweep, never by a publish.
        InterruptHandler.yieldToArrivedSignal()
        let members = state.withLock { state in
            defer { state.closed = true }
            return state.closed ? [] : state.members
        }
        let lists =
            Self.recoveryVolumes(of: members)
            + [Role.recoveryIndex, .checksumList, .manifest].flatMap { role in
                members.filter { $0.role == role }.map(\.sink)
            }
        // A job's one output has nothing to roll back with it: it is simply named.
        if members.count == 1, let only = members.first, only.role == .whole {
            try Self.inPublishingWindow([only.sink]) { try only.sink.publish(fsync: fsync) }
            LeftoverTemporaries.noteStale(for: [only.sink.file?.finalPath].compactMap { $0 })
            return []
        }
        let whole = members.filter { $0.role == .whole }.map(\.sink)
        let parts = Self.parts(of: members)
        // The evidence that tells a part left alone by a kill from a plain file (PartMark).
        let files = parts.filter { $0.file != nil }
        let unmarked =
            naming == nil
            ? [] : PartMark.stamp(files.compactMap { $0.file?.temporaryPath }, crcs: partCRCs, joining: joining)
        let ordered =
            naming.map { PublishOrder.arrange(parts: parts, lists: lists, naming: $0) } ?? parts + lists
        try Self.publishAll(whole + ordered, fsync: fsync, jobs: jobs, prepare: prepare)
        LeftoverTemporaries.noteStale(for: (whole + ordered).compactMap { $0.file?.finalPath })
        return unmarked.map { part in
            "\(files[part.index].path.displayPath): not marked as part \(part.index + 1) of its set (setxattr "
                + "\(PartMark.attribute): \(describeErrno(part.errno))); a merge reads it to check it"
        }
    }

    private static func parts(of members: [(role: Role, sink: OutputSink)]) -> [OutputSink] {
        members.compactMap { member -> (Int, OutputSink)? in
            if case .part(let index) = member.role { return (index, member.sink) }
            return nil
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    private static func recoveryVolumes(of members: [(role: Role, sink: OutputSink)]) -> [OutputSink] {
        members.compactMap { member -> (Int, OutputSink)? in
            if case .recoveryVolume(let index) = member.role { return (index, member.sink) }
            return nil
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// An output named by ``publishAll(_:fsync:jobs:prepare:)``: how to remove it again, its
    /// registry entry, and its name when it replaced an existing output (then it is kept).
    private struct Placed {
        var remove: () -> Void
        var token: Int
        var registry: CleanupRegistry
        var replaced: String?
    }

    /// Publishes finished outputs together: all of them, or none.
    ///
    /// Each new file is named in turn; the names placed so far are registered, so a signal
    /// removes them too. If one fails, the files this call placed are removed and the rest
    /// discarded. Only files gcdcat created are ever removed: a direct descriptor (a device, a
    /// symlink to `/dev/null`) is closed, never unlinked, and an output that replaced an existing
    /// file or object (`--force`) is kept, since removing it would lose the old one as well; the
    /// error then names what was replaced. On return nothing stays registered.
    ///
    /// When every output is an object and `jobs` > 1, all but the last (a split's manifest)
    /// are completed `jobs` at a time, then the last: each completion is a round trip (a HEAD
    /// and CompleteMultipartUpload), and a set of many parts would otherwise wait for them one
    /// by one.
    ///
    /// `prepare` runs first, inside the window in which a signal waits for the set
    /// (``inPublishingWindow(_:_:)``; a split with `--force` removes the old first part there,
    /// ``PublishOrder``).
    static func publishAll(
        _ sinks: [OutputSink], fsync: Bool, jobs: Int = 1, prepare: () throws -> Void = {}
    ) throws {
        try inPublishingWindow(sinks) { try publishAllNow(sinks, fsync: fsync, jobs: jobs, prepare: prepare) }
    }

    /// Runs `publish` (which names `sinks`) in the window in which a signal waits for it, when
    /// one of them is an object or replaces an existing output (`--force`): stopping halfway
    /// would leave some old outputs replaced and the new ones rolled back, the old set broken;
    /// and an object's publishing is a round trip per object (several seconds for a set of
    /// many), whose outcome a signal must not make depend on its timing. Local files that
    /// replace nothing are named in microseconds, and a rollback of them loses nothing.
    ///
    /// When a signal came meanwhile, the sweep learns what the window came to (the set
    /// published, or the error that rolled it back) and says it; this throws `.interrupted`,
    /// so that the command waits for the sweep instead of reporting its own outcome.
    static func inPublishingWindow(_ sinks: [OutputSink], _ publish: () throws -> Void) throws {
        guard let registry = sinks.lazy.compactMap(\.publishingRegistry).first else {
            try publish()
            // A signal that came during the publish: the run ends here, published (the sweep
            // names what stays), rather than go on to report success.
            return InterruptHandler.yieldToArrivedSignal()
        }
        try registry.beginPublishing()
        do {
            try publish()
        } catch {
            if registry.endPublishing(failure: error) { throw registry.interruptedError() }
            throw error
        }
        if registry.endPublishing(published: sinks.map(\.path)) { throw registry.interruptedError() }
        InterruptHandler.yieldToArrivedSignal()
    }

    private static func publishAllNow(
        _ sinks: [OutputSink], fsync: Bool, jobs: Int, prepare: () throws -> Void
    ) throws {
        var placed: [Placed] = []
        defer { for entry in placed { entry.registry.forget(entry.token) } }
        do {
            try prepare()
            let together = jobs > 1 && sinks.count > 2 && sinks.allSatisfy { $0.object != nil } ? sinks.count - 1 : 0
            if together > 0 {
                try publishTogether(Array(sinks.prefix(together)), jobs: jobs, placed: &placed)
            }
            for sink in sinks.dropFirst(together) {
                if let entry = try publish(sink, fsync: fsync) { placed.append(entry) }
            }
        } catch {
            // The sweep stopped waiting for this set: what it published stays, and the sweep
            // undid the rest and named both (CleanupRegistry.cutPublishing).
            if let registry = sinks.lazy.compactMap(\.publishingRegistry).first, registry.publishingWasCut {
                throw error
            }
            for entry in placed where entry.replaced == nil {
                entry.remove()
                entry.registry.undid(entry.token)
            }
            for sink in sinks { sink.discard() }
            let kept = placed.compactMap(\.replaced)
            guard !kept.isEmpty, var failure = error as? GCDCatError else { throw error }
            let shown = kept.prefix(3).map(\.displayPath).joined(separator: ", ")
            failure.message +=
                "; \(kept.count) output(s) had already replaced existing ones and were kept (removing them would "
                + "lose the old ones too), so the set there is mixed: \(shown)\(kept.count > 3 ? ", …" : "")"
            throw failure
        }
    }

    /// Names one output, its final name registered for removal; nil for a direct descriptor.
    private static func publish(_ sink: OutputSink, fsync: Bool) throws -> Placed? {
        switch sink.kind {
        case .object(let object):
            // An object placed is deleted if a later one fails, unless it replaced one.
            let replaces = sink.replacesAnOutput()
            guard let token = try object.publish(registeringFinalName: true) else { return nil }
            return Placed(
                remove: object.deleteAgain, token: token, registry: object.registry,
                replaced: replaces ? object.location.description : nil)
        case .newFile(let file):
            let replaces = sink.replacesAnOutput()
            guard let token = try file.publish(fsync: fsync, registeringFinalName: true) else { return nil }
            let path = sink.path
            return Placed(
                remove: { _ = Syscall.unlink(path) }, token: token, registry: file.registry,
                replaced: replaces ? path : nil)
        case .standardOutput, .device:
            return nil
        }
    }

    /// Completes the objects of `sinks` `jobs` at a time. Every completion is tried; those that
    /// succeeded join `placed` (to be undone if any failed), then the first failure is thrown.
    private static func publishTogether(_ sinks: [OutputSink], jobs: Int, placed: inout [Placed]) throws {
        let objects = sinks.compactMap(\.object)
        let outcomes = try ParallelMap.map(count: objects.count, jobs: jobs, pool: .threads) { index in
            Result<(token: Int?, replaces: Bool), any Error> {
                let replaces = sinks[index].replacesAnOutput()
                return (try objects[index].publish(registeringFinalName: true), replaces)
            }
        }
        for (object, outcome) in zip(objects, outcomes) {
            guard case .success(let published) = outcome, let token = published.token else { continue }
            placed.append(
                Placed(
                    remove: object.deleteAgain, token: token, registry: object.registry,
                    replaced: published.replaces ? object.location.description : nil))
        }
        for outcome in outcomes { _ = try outcome.get() }
    }
}
