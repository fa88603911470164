import ArgumentParser
import GCDCatCore

/// `split --par2 PERCENT [--par2-block-size SIZE]`: PAR2 recovery volumes beside the parts.
struct SplitRecoveryOptions: ParsableArguments {
    @Option(
        name: .customLong("par2"),
        help: ArgumentHelp(
            "Also write PAR2 recovery volumes beside the parts (NAME.par2, NAME.volNN+MM.par2): recovery blocks "
                + "as a share of the parts' blocks, 1% to 100% (par2's -r), from the same read of the input.",
            valueName: "percent"))
    var percentText: String?

    @Option(
        name: .customLong("par2-block-size"), parsing: .unconditional,
        help: ArgumentHelp(
            "PAR2 block size with --par2, a multiple of 4 up to 1G (default: about 2000 blocks in all, as par2).",
            valueName: "size"),
        transform: parsePositiveSize)
    var blockSize: Int?

    /// The percentage of --par2, nil when it is not 1 to 100.
    var percent: Int? {
        guard let percentText else { return nil }
        let digits = percentText.hasSuffix("%") ? String(percentText.dropLast()) : percentText
        guard let value = Int(digits), (1...100).contains(value) else { return nil }
        return value
    }

    /// What the split is asked for; nil without --par2.
    var request: RecoveryRequest? {
        percent.map { RecoveryRequest(percent: $0, blockSize: blockSize) }
    }

    func validate() throws {
        if let percentText, percent == nil {
            throw ValidationError(
                "--par2 must be a percentage from 1% to 100%, like 10% (got \(percentText)); "
                    + "'gcdcat protect --par2' adds more to existing parts")
        }
        if blockSize != nil && percentText == nil {
            throw ValidationError("--par2-block-size goes with --par2 PERCENT.")
        }
        if let blockSize, !Par2BlockCount.isAllowed(blockSize: blockSize) {
            throw ValidationError(
                "--par2-block-size must be a multiple of 4, at most 1G (got \(blockSize)), like 1M or 768K.")
        }
    }

    /// Refuses --par2 where a split cannot feed it from its one read of a local file's ranges.
    /// `fileSize` is the input's size when it is a local file, `partCount` the parts a
    /// --size/--parts split makes, to refuse a block size that makes too many blocks.
    func validate(
        input: String, writesObjects: Bool, roundRobin: Bool, filter: Bool, strategy: MergeStrategyKind,
        partLengths: [Int64]?
    ) throws {
        guard percentText != nil else { return }
        if input == "-" {
            throw ValidationError(
                "--par2 needs a file to split: PAR2 orders its blocks by every part's first 16 KiB, which standard "
                    + "input gives only as it is read. Split a file, or run 'gcdcat protect' on the parts.")
        }
        if ObjectLocation.isObjectPath(input) || writesObjects {
            throw ValidationError(
                "--par2 writes its volumes beside local parts of a local file, not for s3://; "
                    + "run 'gcdcat protect' on local parts.")
        }
        if roundRobin || filter {
            throw ValidationError(
                "--par2 needs parts cut from ranges of the input, as --size, --parts, --lines, --line-bytes and "
                    + "-n N, l/N make; \(roundRobin ? "-n r/N deals lines to them" : "--filter sends them to a command")."
            )
        }
        if strategy != .auto {
            throw ValidationError(
                "--par2 is fed by the one read beside --strategy auto's kernel copies; --strategy \(strategy) would "
                    + "read the input twice.")
        }
        if let blockSize, let partLengths {
            let blocks = Par2BlockCount.blocks(fileSizes: partLengths, blockSize: blockSize)
            if blocks > Int64(Par2RecoverySet.maximumSlices) {
                throw ValidationError(
                    "--par2-block-size \(blockSize) cuts the parts into \(blocks) blocks, more than PAR2's "
                        + "\(Par2RecoverySet.maximumSlices): raise it (or leave it out for about 2000 blocks).")
            }
        }
        try checkRecoveryMemory(partLengths: partLengths)
    }

    /// The recovery blocks are held in memory while the input is read: refused before the
    /// split starts when they would not fit (a huge --par2-block-size on a small input).
    private func checkRecoveryMemory(partLengths: [Int64]?) throws {
        guard let percent, let sizes = partLengths?.filter({ $0 > 0 }), !sizes.isEmpty else { return }
        let (size, _, recovery) = Par2BlockCount.plan(fileSizes: sizes, blockSize: blockSize, percent: percent)
        if let problem = Par2RecoveryBounds.memoryProblem(recovery: recovery, blockSize: size) {
            throw ValidationError("\(problem): give a smaller --par2-block-size or --par2.")
        }
    }
}
