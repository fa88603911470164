import GCDCatSystem

extension MergeOperation {
    /// The merge of an SFV that records an empty file and no parts: what `gcdcat split` writes
    /// for an empty input (`; gcdcat-whole: 0 00000000 NAME`, no part lines). The round trip
    /// holds: the output is the empty file, published as any merge's output is (named by the
    /// list, `NAME.sfv` giving `NAME`, or `-o`; an existing one needs `--force`). Nil for any
    /// other list.
    ///
    /// ## Errors
    /// Those of the output's checks and of its publishing.
    func mergeEmptyWhole(
        _ list: String, notice: (Notice) -> Void,
        measure: (OutputTarget, Int64, (TransferCounter) throws -> MergeResult) throws -> MergeResult
    ) throws -> Outcome? {
        guard list.hasSuffix(".sfv"), let whole = (try? Manifest.load(list))?.emptyWholeOnly else { return nil }
        let listFile = try PartFile.validate(list)
        let target = try MergeOutputName.resolve(
            output, derived: .path(String(list.dropLast(4))), first: list)
        let pending = target.path.map { CleanupRegistry.shared.beginOutput($0) }
        defer { pending.map(CleanupRegistry.shared.endOutput) }
        if case .path(let path) = target {
            try OutputSink.check(path, inputs: [listFile], overwrite: overwrite)
        } else if case .object = target {
            try OutputSink.check(target: target, inputs: [listFile], overwrite: overwrite)
        }
        let said = Self.emptyWholeNote(list: list, whole: whole.name)
        notice(.note(said))
        if let path = target.path { CleanupRegistry.shared.willPublish(path, verifiedAgainst: list) }
        var operation = self
        operation.output = target
        operation.strategy = .stream
        let request = MergeRequest(parts: [], limits: limits, jobs: jobs, computeCRC: true)
        let result = try measure(target, 0) { counter in
            try operation.run(request, counter: counter, expectedCRC: 0, otherInputs: [listFile])
        }
        let verification = MergeVerification(
            manifestPath: list, expectedCRC: 0, warnings: [], manifestFile: listFile, provesEnd: true)
        return Outcome(
            output: target, request: request, result: result, verification: verification, partCount: 0, notes: [said])
    }

    /// What a merge of such a list says: the output is empty, and why.
    static func emptyWholeNote(list: String, whole: String) -> String {
        "\(list.displayPath) records \(whole.displayPath) as an empty file (0 bytes) and lists no parts: the output is "
            + "empty"
    }
}

extension Manifest {
    /// The whole file's record when the list records an empty file and lists no parts: what
    /// `gcdcat split` writes for an empty input. Nil for any other list.
    var emptyWholeOnly: Whole? {
        guard entries.isEmpty, let whole, whole.size == 0, whole.crc32 == 0 else { return nil }
        return whole
    }
}
