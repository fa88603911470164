import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What every split does around its writer loop, whatever its input (a file, standard input, an
/// object) and its output (files, objects): the names checked before the first byte, and at
/// the end the checksum list and the manifest added to the set, then the set published.
extension SplitOperation {
    /// The first `count` part names, once the manifest can list them, `refusing` passed each
    /// output's name (the parts', the lists'), and every output was checked
    /// (``checkOutputs(parts:inputs:)``).
    func partNames(count: Int, inputs: [PartFile], refusing: (String) throws -> Void = { _ in }) throws -> [String] {
        try naming.requireCapacity(count)
        let names = try (0..<count).map { try naming.name(at: $0) }
        if let manifestPath { _ = try Self.manifestNames(names, manifestPath: manifestPath) }
        for name in names + [manifestPath, digestListPath].compactMap({ $0 }) { try refusing(name) }
        try checkOutputs(parts: names, inputs: inputs)
        try refuseRemovingInput(count: count, inputs: inputs, refusing: refusing)
        return names
    }

    /// Opens part `index` of a streamed split (standard input, whose part count is known only at
    /// its end) in `set`, checked as ``partNames(count:inputs:refusing:)`` checks a file split's
    /// names up front: within the part limit (`input` named), not the manifest, the output
    /// checked. Returns the part's name and its sink.
    ///
    /// ## Errors
    /// `.invalidInput` past the limit or for the manifest's name; the output checks'.
    func startStreamedPart(index: Int, input: String, set: OutputSet) throws -> (name: String, sink: OutputSink) {
        try SplitLimits.requirePartCount(Int64(index + 1), path: input)
        let name = try naming.name(at: index)
        // A file has several spellings (`x`, `./x`, a link to its folder); an object key only one.
        let isManifest = { (manifest: String) in
            ObjectLocation.isObjectPath(name) ? name == manifest : samePath(name, manifest)
        }
        if let manifestPath, isManifest(manifestPath) {
            throw GCDCatError(
                .invalidInput, path: manifestPath,
                message: "the manifest would be part \(name.displayPath); name another manifest")
        }
        let target = try target(name)
        if case .path = target { try OutputSink.check(name, inputs: set.inputs, overwrite: overwrite) }
        let unnamed = index < SplitLimits.unnamedPartBudget(jobs: jobs)
        return (name, try set.open(.part(index), target, unnamed: unnamed))
    }

    /// An input that is one of the old parts `--force` would remove past the new set's last
    /// (``staleParts(after:)``) is refused as one the new set would overwrite is: removed, it
    /// would be gone before its bytes were all read, and gone for good if the split then failed.
    ///
    /// ## Errors
    /// `.invalidInput` naming the part; what `refusing` throws for it (an object being split).
    func refuseRemovingInput(
        count: Int, inputs: [PartFile], refusing: (String) throws -> Void = { _ in }
    ) throws {
        let stale = try staleParts(after: count)
        // The old set's PAR2 files go too (``staleRecoveryFiles()``): an input among them likewise.
        let recovery = overwrite && !writesObjects && !inputs.isEmpty ? try staleRecoveryFiles() : []
        for name in stale + recovery {
            if stale.contains(name) { try refusing(name) }
            guard case .path = try target(name), let info = try Syscall.statIfExists(name, followLinks: false),
                info.st_mode & S_IFMT == S_IFREG,
                let input = inputs.first(where: {
                    $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino)
                })
            else { continue }
            throw GCDCatError(
                .invalidInput, path: name,
                message: "is the input file \(input.path.displayPath), "
                    + (stale.contains(name)
                        ? "an old part past the new set's last" : "a PAR2 file of the set it replaces")
                    + " that --force would remove; choose another --prefix")
        }
    }

    /// Adds the checksum list (with ``digest``) and the manifest to `set`, then publishes it in
    /// ``PublishOrder``; returns the warnings of publishing (old parts removed).
    ///
    /// `crcs` are the parts' crc32s, in the order of `names`, and `joining` how they join back
    /// (both for their marks); `whole` and `header` describe the input for the manifest. The digests are `hexes` when the writer hashed the bytes as they
    /// passed, else read back from the finished parts (an uploaded part is hashed from
    /// `sources`, the input's ranges it was cut from).
    func conclude(
        _ set: OutputSet, names: [String], crcs: [UInt32], whole: Manifest.Whole?, header: Manifest.Header? = nil,
        hexes: [String]? = nil, sources: [[SourceRange]] = [], joining: PartMark.Joining = .concatenated
    ) throws -> [String] {
        if let digest, let listPath = digestListPath {
            let hexes = try hexes ?? digests(of: set.parts, sources: sources, algorithm: digest)
            let entryNames = try Self.manifestNames(names, manifestPath: listPath)
            var text = ""
            for (name, hex) in zip(entryNames, hexes) {
                text += ChecksumLineFormat.gnu.render(name: name, algorithm: HashAlgorithm(digest), hex: hex) + "\n"
            }
            try set.write(.checksumList, try target(listPath), PathName.bytes(of: text))
        }
        if let manifestPath, let whole {
            let entryNames = try Self.manifestNames(names, manifestPath: manifestPath)
            let manifest = Manifest(
                entries: zip(entryNames, crcs).map { Manifest.Entry(name: $0, crc32: $1) }, whole: whole,
                header: header)
            let manifestTarget = try target(manifestPath)
            // By the name it is published under: a file's path, an object's s3:// name.
            switch manifestTarget {
            case .path(let path): set.registry.willPublishManifest(path)
            case .object(let object): set.registry.willPublishManifest(object.location.description)
            case .standardOutput: break
            }
            try set.write(.manifest, manifestTarget, manifest.encoded(generator: "gcdcat split"))
        }
        return try publish(set, crcs: crcs, joining: joining)
    }

    /// The digests of the finished (not yet published) parts, read back while hot in the page
    /// cache. A part that is an object is not read back: its digest comes from `sources`, the
    /// input ranges it was cut from (the crc32 check of the upload already tied the bytes sent
    /// to them).
    private func digests(of parts: [OutputSink], sources: [[SourceRange]], algorithm: DigestAlgorithm) throws
        -> [String]
    {
        try parts.enumerated().map { index, sink in
            if sink.object != nil {
                guard sources.indices.contains(index) else {
                    throw GCDCatError(
                        .invalidInput, path: sink.path, message: "no input ranges to hash for an uploaded part")
                }
                return try FileHash.of(ranges: sources[index], algorithm: algorithm)
            }
            let file = try sink.openForReading()
            return try FileHash.of(fd: file.raw, path: sink.path, algorithm: algorithm)
        }
    }

    /// Publishes `set` in the order of ``PublishOrder``, the first part last, its parts marked
    /// with their crc32s `crcs` (``PartMark``). With `--force`, files at the held-back names are
    /// removed first, inside the publishing window (a signal waits for the whole set), so that a
    /// set half-replaced when gcdcat is killed has no first part to start a mixed merge from. The old set's parts past the new set's last
    /// (``staleParts(after:)``) are removed there too: left, they would join the new set in a
    /// merge that has no manifest. Returns a note naming those.
    private func publish(_ set: OutputSet, crcs: [UInt32], joining: PartMark.Joining) throws -> [String] {
        let parts = set.parts
        let held = PublishOrder.heldBack(count: parts.count, naming: naming).map { parts[$0] }
        // Files and objects alike (``OutputTarget/holdsOlderOutput()``): an object store
        // keeps an older set's keys just as a folder keeps its files.
        let tail = elideEmpty ? [] : try partsPast(count: parts.count)
        let stale = try overwrite && replacesLongerSet(count: parts.count) ? tail : []
        let staleRecovery =
            overwrite && !writesObjects ? try staleRecoveryFiles() : []
        let staleLists = overwrite ? try staleChecksumLists() : []
        // Without --force, an earlier set's list at a name this split writes no list to stays:
        // a merge would check the new parts against it. (Files only: for objects each name is a HEAD.)
        let foreignLists = overwrite || writesObjects ? [] : try staleChecksumLists()
        let predecessor = overwrite && !elideEmpty ? try stalePredecessor() : nil
        let leftovers = try abortLeftoverUploads(after: parts.count, registry: set.registry)
        var removed: [String] = []
        var refused = false
        var unmarked: [String] = []
        do {
            unmarked = try set.publish(naming: naming, partCRCs: crcs, joining: joining, jobs: writesObjects ? jobs : 1)
            {
                guard overwrite else { return }
                let planned = try olderOutputsToRemove(
                    predecessor: predecessor, lists: staleLists + staleRecovery, held: held, stale: stale)
                for (index, path) in planned.enumerated() {
                    do {
                        try target(path).removeOlderOutput()
                    } catch let failure as GCDCatError {
                        refused = true
                        let firstParts = held.map(\.path)
                        throw ReplacedSetRemoval(planned: planned, firstParts: firstParts, objects: writesObjects)
                            .error(failure, failed: index)
                    }
                    removed.append(path)
                }
            }
        } catch var error as GCDCatError where !removed.isEmpty && !refused {
            let were = removed.count == 1 ? "was" : "were"
            error.message +=
                "; the old \(removed.map(\.displayPath).joined(separator: ", ")) \(were) removed before the new parts "
                + "were named, so the set there cannot be merged until the split is run again"
            throw error
        }
        var notes = leftovers + unmarked
        if let span = Self.span(stale) {
            notes.append("removed \(stale.count) old part(s) past the new set's last, of the set it replaced: \(span)")
        } else if let note = Self.foreignTailNote(tail) {
            notes.append(note)
        }
        if let predecessor {
            notes.append(
                "removed \(predecessor.displayPath), the first part of the set it replaced (a merge would start there)")
        }
        if !foreignLists.isEmpty {
            let lists = foreignLists.map(\.displayPath).joined(separator: ", ")
            notes.append(
                "\(lists) beside the new parts \(foreignLists.count == 1 ? "is" : "are") an earlier set's (this split "
                    + "writes no list there), and a merge checks the parts against \(foreignLists.count == 1 ? "it" : "them")"
                    + ": remove \(foreignLists.count == 1 ? "it" : "them"), or split again with --force, which does")
        }
        if !staleLists.isEmpty {
            notes.append(
                "removed the manifest and checksum lists of the set it replaced (this split writes none there): "
                    + staleLists.map(\.displayPath).joined(separator: ", "))
        }
        if !staleRecovery.isEmpty {
            notes.append(
                "removed the PAR2 files of the set it replaced: "
                    + staleRecovery.map(\.displayPath).joined(separator: ", "))
        }
        return notes
    }

    /// What `--force` removes of the set it replaces, in the order it removes them, inside the
    /// publishing window. An old set's `.000` before a new set's `.001` first: a merge from
    /// `.001` offers it as the start, which would join it to the new parts. Then, before any new
    /// part is named, the old manifest and lists and recovery files: left beside new parts, they
    /// would call them corrupt (or name parts they lack) and the old recovery set would rebuild
    /// them into the old file; without them the old set is still whole, just unchecked. Then the
    /// old parts at held-back names, last first (`x01` before `x00`): killed between the two,
    /// the old set keeps `x00` and lacks `x01`, a gap every merge refuses; the other way round,
    /// `x01` … would merge as a set of their own, short by the old first part. Last the old
    /// parts past the new set's last, the last of them first: stopped among them (a store that
    /// refuses a delete, a kill), what is left still follows the new set's last without a gap,
    /// where a rerun looks for it (``staleParts(after:)`` stops at the first free name).
    private func olderOutputsToRemove(predecessor: String?, lists: [String], held: [OutputSink], stale: [String])
        throws -> [String]
    {
        var planned = (predecessor.map { [$0] } ?? []) + lists
        for sink in held.reversed() {
            switch sink.kind {
            case .newFile, .object: break
            case .standardOutput, .device: continue
            }
            if try target(sink.path).holdsOlderOutput() { planned.append(sink.path) }
        }
        return planned + stale.reversed()
    }

    /// A run of parts as its only name, or its first and last: nil when it is empty.
    private static func span(_ run: [String]) -> String? {
        guard let first = run.first, let last = run.last else { return nil }
        return run.count == 1 ? first.displayPath : "\(first.displayPath) … \(last.displayPath)"
    }

    /// The note for parts left right after the new set's last (no set this split replaced
    /// owns them): a merge without the manifest would join them to it.
    private static func foreignTailNote(_ tail: [String]) -> String? {
        guard let span = span(tail) else { return nil }
        let one = tail.count == 1
        return "\(span) follow\(one ? "s" : "") the new set's last part but belong\(one ? "s" : "") to no set this "
            + "split replaced, so \(one ? "it was" : "they were") left: a merge without the manifest would join "
            + "\(one ? "it" : "them") to the new set; move \(one ? "it" : "them") away"
    }

    /// Into objects: aborts what a killed predecessor left on part names of this series that
    /// this set does not write (``UploadResumption/abortLeftovers(bucket:prefix:leftovers:store:registry:)``);
    /// its own names' uploads were taken over or aborted as each upload began. Returns the notes.
    private func abortLeftoverUploads(after count: Int, registry: CleanupRegistry) throws -> [String] {
        guard writesObjects, let objectStore, let series = try ObjectLocation(parsing: naming.prefix + "_") else {
            return []
        }
        return try UploadResumption.abortLeftovers(
            bucket: series.bucket, prefix: String(series.key.dropLast()),
            leftovers: { pending in try predecessorKeys(after: count, holdingUploads: pending) }, store: objectStore,
            registry: registry)
    }

    /// Of `pending` (the keys holding an unfinished upload), those a killed longer run of this
    /// split wrote: the names this numbering gives after part `count`, up to the first that holds
    /// neither an upload nor an object (its completed parts count as written). An upload on a
    /// name of another width or alphabet, or past a gap, is no part this set could have written:
    /// S3 hides the run mark that would say whose it is, so it is left alone.
    private func predecessorKeys(after count: Int, holdingUploads pending: Set<ObjectLocation>) throws
        -> Set<ObjectLocation>
    {
        var keys: Set<ObjectLocation> = []
        var index = count
        while let name = try? naming.name(at: index), let location = try? ObjectLocation(parsing: name) {
            if pending.contains(location) {
                keys.insert(location)
            } else if try !target(name).holdsOlderOutput() {
                break
            }
            index += 1
        }
        return keys
    }

    /// The manifest (`NAME.sfv`) and checksum lists (`NAME.sha256`, …: every name
    /// `--checksum` writes) beside the set that `--force` replaces, less those this split
    /// writes itself: files and objects alike (``OutputTarget/holdsOlderOutput()``).
    private func staleChecksumLists() throws -> [String] {
        let stem = String(naming.defaultManifestPath.dropLast(4))
        let written = [manifestPath, digestListPath].compactMap { $0 }
        let candidates = [naming.defaultManifestPath] + DigestAlgorithm.allCases.map { stem + "." + $0.rawValue }
        return try candidates.filter { path in
            if written.contains(where: { samePath($0, path) }) { return false }
            return try target(path).holdsOlderOutput()
        }
    }

    /// The PAR2 index (`NAME.par2`) and recovery volumes (`NAME.volNN+MM.par2`) of the set that
    /// `--force` replaces, those at names this split writes too: all are removed before any new
    /// part is named, so that a split killed while naming its set leaves no old index or volume
    /// to rebuild the new parts into the old file.
    private func staleRecoveryFiles() throws -> [String] {
        try Par2RecoverySet.staleFiles(index: String(naming.defaultManifestPath.dropLast(4)) + ".par2", keeping: [])
    }

    /// The part numbered 0 beside a set numbered from 1 (`.000` before `.001`), when it is a
    /// regular file: discovery takes it for the start of the set, so an old set's first part
    /// there would start a mixed merge.
    private func stalePredecessor() throws -> String? {
        guard naming.style == .numeric || naming.style == .gnuNumeric, naming.start == 1,
            let name = try? naming.name(at: -1), try target(name).holdsOlderOutput()
        else { return nil }
        return name
    }

    /// What `--force` removes past the new set's last part: ``partsPast(count:)``, when
    /// ``replacesLongerSet(count:)``; nothing otherwise.
    func staleParts(after count: Int) throws -> [String] {
        guard overwrite, !elideEmpty, try replacesLongerSet(count: count) else { return [] }
        return try partsPast(count: count)
    }

    /// Whether an older, longer set of these names is there for this split to replace: its
    /// first part or its manifest exists (files and parts a user put at later numbers are no
    /// set), and so does its part at the new set's last name, so that the run past it is
    /// contiguous with the old set and not a stray run after a gap. Or, its first part and
    /// lists already removed by a `--force` that was stopped (a refused delete, a kill), its
    /// parts still fill every other name of the new set: the rerun finishes that removal.
    /// Checked before the new set is named.
    private func replacesLongerSet(count: Int) throws -> Bool {
        guard count > 0, try target(naming.name(at: count - 1)).holdsOlderOutput() else { return false }
        if try target(naming.name(at: 0)).holdsOlderOutput() { return true }
        let lists = [manifestPath, naming.defaultManifestPath].compactMap { $0 }
        if try lists.contains(where: { try target($0).holdsOlderOutput() }) { return true }
        guard count > 1 else { return false }
        return try (1..<count - 1).allSatisfy { try target(naming.name(at: $0)).holdsOlderOutput() }
    }

    /// The regular files (or objects) named as this split's parts `count`, `count + 1`, … up
    /// to the first name that is free: what a merge of the new set would find after its last.
    private func partsPast(count: Int) throws -> [String] {
        var found: [String] = []
        var index = count
        while let name = try? naming.name(at: index), try target(name).holdsOlderOutput() {
            found.append(name)
            index += 1
        }
        return found
    }
}
