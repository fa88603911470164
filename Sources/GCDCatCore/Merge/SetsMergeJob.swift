import GCDCatSystem

extension MergeJob {
    /// A run over several sets: each set's document in order, and what to say at the end.
    public struct SetsOutcome: Sendable {
        /// The `--json` document: each set's report or error object, and the exit status.
        public var report: SetsReport
        /// `N of M sets merged (…); failed: …`, to print unless quiet (always when one failed).
        public var summary: String
        public var anyFailed: Bool
    }

    /// Several sets (`gcdcat *.001`, `gcdcat *.00*`): each is merged on its own, to its own
    /// output, checked against its own manifest, as `7z x *.001` extracts each archive. A set
    /// that fails does not stop the others; `each` hears every set's report or error as it ends.
    /// The exit status is the worst (1 over 2 over 0, as for verify). `progress` hears, before
    /// each set and after the last, the documents of the sets that ended and the names of those
    /// not merged yet: what a signal that ends the run then must still say
    /// (``SetsReport/interrupted(done:pending:signal:name:)``).
    ///
    /// ## Errors
    /// An interruption stops them all; any error that is not a ``GCDCatError`` is rethrown.
    public func mergeSets(
        _ groups: [SetGrouping.Group], notice: (MergeOperation.Notice) -> Void, measure: Measure,
        progress: (_ done: [SetsReport.Entry], _ pending: [String]) -> Void = { _, _ in },
        each: (Result<RunReport, GCDCatError>) -> Void
    ) throws -> SetsOutcome {
        var documents: [SetsReport.Entry] = []
        var merged: [String] = []
        var failed: [String] = []
        var worst: Int32 = 0
        for (index, group) in groups.enumerated() {
            progress(documents, groups[index...].map(\.name))
            // Each set's document carries the warnings said while it was merged, as one set's does.
            var warnings: [String] = []
            let noticed: (MergeOperation.Notice) -> Void = { said in
                if case .warning(let text) = said { warnings.append(text) }
                notice(said)
            }
            do {
                var job = self
                job.manifest = group.manifest ?? manifest
                guard var report = try job.mergeFiles(group.arguments, notice: noticed, measure: measure) else {
                    continue
                }
                report.warnings = warnings
                each(.success(report))
                documents.append(.report(report))
                CleanupRegistry.shared.reportedPublished()
                merged.append(report.output ?? group.name)
            } catch let error as GCDCatError where error.code != .interrupted {
                each(.failure(error))
                var document = ErrorReport(command: "merge", error: error)
                document.warnings = warnings
                documents.append(.error(document))
                failed.append(group.name)
                worst = Self.worse(worst, error.exitStatus)
            }
        }
        progress(documents, [])
        var summary = "\(merged.count) of \(groups.count) sets merged"
        if !merged.isEmpty { summary += " (\(merged.map(\.displayPath).joined(separator: ", ")))" }
        if !failed.isEmpty { summary += "; failed: \(failed.map(\.displayPath).joined(separator: ", "))" }
        return SetsOutcome(
            report: SetsReport(sets: documents, exitStatus: worst), summary: summary, anyFailed: !failed.isEmpty)
    }

    /// The worse of two exit statuses: an incomplete merge (1) over a corrupt one (2), as
    /// verify ranks them, over success.
    static func worse(_ a: Int32, _ b: Int32) -> Int32 {
        let rank: (Int32) -> Int = { $0 == 0 ? 0 : $0 == 2 ? 1 : 2 }
        return rank(b) > rank(a) ? b : a
    }
}

extension MergeJob {
    /// The refusal of a set whose output, derived from its name, is a part of another set lying
    /// there (`m.001.001`'s set into `m.001`, beside `m.002`): `--force` replaced that part, and
    /// its set's bytes were lost (a25 M5). Nil when the output is named in full.
    static func anotherSetsStart(as group: SetGrouping.Group, output: String?) -> String? {
        // One argument is grouped without a reading: its set is found from it.
        let found = group.arguments.count == 1 ? (try? PartDiscovery.discover(from: group.arguments[0])) : nil
        guard output.map({ $0.hasSuffix("/") || isFolder($0) }) ?? true,
            let whole = (group.naming ?? found?.naming)?.wholeName,
            case .path(let destination)? = try? MergeOutputName.resolve(
                output.map { .path($0) }, derived: .path(whole), first: group.arguments[0]),
            let other = MergeOutputName.anotherSetsParts(at: destination, besides: group.arguments)
        else { return nil }
        return
            "\(group.arguments[0].displayPath)'s set would be merged into \(destination.displayPath), a part "
            + "of another set lying there (\(other[0].displayPath) … \(other.last!.displayPath)): its bytes "
            + "would be lost; name the output with -o"
    }

    /// What makes several sets a contradiction of the options, found before anything is read:
    /// one set's `--manifest`, an `-o` that names one file, or two sets bound for one output
    /// (or one set given twice), or one set bound for another's part
    /// (``anotherSetsStart(as:output:)``). Nil when `paths` give one set, or several that can
    /// each be merged to its own output. The command reports it as a usage error.
    public static func setsContradiction(
        _ paths: [String], asGiven: Bool, output: String?, manifest: String?, listAlgorithm: HashAlgorithm?
    ) -> String? {
        guard let groups = try? sets(paths, asGiven: asGiven, manifest: manifest, listAlgorithm: listAlgorithm)
        else { return nil }
        guard groups.count > 1 else { return groups.first.flatMap { anotherSetsStart(as: $0, output: output) } }
        let named = groups.map { group in
            group.arguments.count == 1
                ? group.arguments[0].displayPath
                : "\(group.arguments[0].displayPath) … \(group.arguments.last!.displayPath)"
        }.joined(separator: ", ")
        if let manifest {
            return "--manifest \(manifest.displayPath) is one set's list, but the parts are \(groups.count) sets "
                + "(\(named)); give one set at a time, or let each find its own"
        }
        if let output, !output.hasSuffix("/"), !isFolder(output) {
            return "-o \(output.displayPath) names one file, but the parts are \(groups.count) sets (\(named)); give a "
                + "folder (-o DIR/) to merge each set into it, or --as-given to join the list as it is"
        }
        // Every set's parts, by where they lie: no set may be merged over another's part.
        var partOwners: [String: SetGrouping.Group] = [:]
        for group in groups {
            let found = group.arguments.count == 1 ? try? PartDiscovery.discover(from: group.arguments[0]) : nil
            // Its lists too: a set's output over another's `p.sfv` loses the list it is checked by.
            let lists = (group.naming?.manifestCandidates ?? []).filter { (try? Syscall.statIfExists($0)) != nil }
            for part in (found.map(\.parts) ?? group.arguments) + lists { partOwners[destinationKey(part)] = group }
        }
        var destinations: [String: SetGrouping.Group] = [:]
        for group in groups {
            guard let whole = group.naming?.wholeName,
                case .path(let destination)? = try? MergeOutputName.resolve(
                    output.map { .path($0) }, derived: .path(whole), first: group.arguments[0])
            else { continue }
            if let owner = partOwners[destinationKey(destination)] {
                return
                    "\(group.arguments[0].displayPath)'s set would be merged into \(destination.displayPath), a part (or "
                    + "list) of \(owner.arguments[0].displayPath)'s set, given too: its bytes would be lost; merge the sets one "
                    + "at a time, with -o"
            }
            guard let other = destinations.updateValue(group, forKey: destinationKey(destination)) else { continue }
            if samePath(other.arguments[0], group.arguments[0]) {
                return "\(other.arguments[0].displayPath) and \(group.arguments[0].displayPath) are one file: the "
                    + "same set is given twice; give it once"
            }
            return "\(other.arguments[0].displayPath) and \(group.arguments[0].displayPath) are two sets that would "
                + "both be merged into \(destination.displayPath); merge them one at a time, with -o"
        }
        return nil
    }

    /// A destination as the kernel finds it: its folder's real path, then its name, so `a.bin`
    /// and `./a.bin` (or a path through a symlinked folder) are one.
    private static func destinationKey(_ path: String) -> String {
        let (folder, name) = splitPath(path)
        return Syscall.realPath(folder).map { $0 + "/" + name } ?? normalizedPath(path)
    }
}
