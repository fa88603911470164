import ArgumentParser
import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

extension PartNaming.Style: ExpressibleByArgument {}

extension GCDCat {
    struct Split: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cut a file (or standard input, or an s3:// object) into parts, with an SFV manifest.",
            discussion: """
                Cut by --size (parts of exactly SIZE, the last shorter), by --parts (N parts \
                of SIZE/N bytes, the last also the remainder, as GNU split -n) or by --lines (N lines each). With \
                --line-boundary every part holds at most SIZE bytes and ends at a newline \
                (except the last, when the input does not end in one); a single line longer \
                than SIZE is cut at SIZE. --header-lines K repeats the input's first K lines \
                atop every part (CSV headers), with --lines or --line-boundary; SIZE counts \
                them. The manifest records the header, so merge restores the original file.

                Parts are named PREFIX + suffix. The default PREFIX is FILE. (x. for standard \
                input) and the default suffix 001, 002, … (7-Zip/HJSplit style, widening to \
                1000 past 999), so 'gcdcat merge FILE.001', '7z e -tsplit FILE.001' and \
                'cat FILE.[0-9]*' (up to 999 parts) all rejoin them. --suffix alpha gives \
                GNU-style aa, ab, …; --suffix-length fixes the width, and running out of \
                names is an error before anything is written.

                GNU split's habits work too: a second argument is the PREFIX (digits follow \
                it directly: 'split -b 100K f out_' makes out_001); -b/--bytes is --size; \
                -C/--line-bytes SIZE is --size SIZE --line-boundary; -l/--lines N; -a; \
                -d/--numeric-suffixes[=FROM] names parts 00, 01, … (from FROM), widening as \
                GNU does (89, 9000; with FROM, FROM is the first suffix and the width stays \
                2 unless -a); -x/--hex-suffixes[=FROM]; -n/--number N, l/N, r/N and K/N, \
                l/K/N, r/K/N (part K to standard output); -e; -t SEP ('\\0' for NUL); \
                --additional-suffix .txt makes x00.txt (merge finds such sets from their \
                first part); --filter COMMAND ($FILE names the part); --verbose. gcdcat's \
                defaults stay: the FILE. prefix, 001 numbering and the manifest (none for \
                r/N and --filter, whose parts do not join back).

                An SFV manifest of the parts' crc32 (cksfv and rhash -c read it) goes beside \
                them, named after the prefix: movie.zip.sfv for movie.zip.001. A comment in it \
                records the whole file's size and crc32. An empty input gives no parts and a \
                manifest that records only the empty whole.

                An s3://BUCKET/KEY input is split by --size or --parts: into the current \
                folder (NAME.001, …) by default, where each part's range is read with \
                parallel ranged GETs; or, with --prefix s3://…, into objects copied on the \
                server (UploadPartCopy), so its bytes pass through gcdcat only to be \
                checksummed for the manifest. Standard input goes to objects too \
                (--prefix s3://…, by --size), in one pass, with --jobs uploads at once and \
                --jobs + 1 upload buffers.

                --par2 PERCENT also writes PAR2 recovery volumes beside the parts \
                (movie.zip.par2 and movie.zip.volNN+MM.par2, as 'par2 create' names them): \
                recovery blocks as 1% to 100% of the parts' blocks, which par2, \
                par2cmdline-turbo and 'gcdcat repair' rebuild lost or damaged parts from. \
                They come from the same read of the input as the parts' checksums, and are \
                part of the same all-or-nothing set. --par2-block-size SIZE sets the block \
                (default: about 2000 blocks). For a file cut by ranges; for standard input, \
                s3://, r/N or --filter, run 'gcdcat protect' on the parts.

                Nothing appears until every part is complete: parts are written unnamed and \
                named together at the end; an error or a signal leaves none of them. A split \
                makes at most 50000 parts.

                Examples:
                  gcdcat split movie.zip --size 2G
                  gcdcat split big.csv --size 100M --line-boundary --header-lines 1
                  gcdcat split disk.img --parts 4 --suffix alpha --prefix out/disk_
                  tar c dir | gcdcat split - --size 1G --prefix backup.tar.
                  gcdcat split s3://bkt/big.iso --size 1G --prefix s3://bkt/parts/big.iso.
                  gcdcat split -l 1000 -d big.csv part_
                  gcdcat split movie.zip --size 1G --par2 10%
                """)

        @Argument(help: "The file to split, - for standard input, or an s3:// object.", completion: .file())
        var input: String

        @Argument(help: ArgumentHelp("Name parts PREFIX + suffix, as --prefix does.", valueName: "prefix"))
        var prefixArgument: String?

        @Option(
            name: [.customShort("b"), .long, .customLong("bytes")], parsing: .unconditional,
            help: ArgumentHelp("Bytes per part.", valueName: "size"),
            transform: parseSize)
        var size: ByteSize?

        @Option(
            name: [.customShort("l"), .long], parsing: .unconditional,
            help: ArgumentHelp("Lines per part.", valueName: "n"))
        var lines: Int?

        @Option(
            name: [.customShort("C"), .customLong("line-bytes")], parsing: .unconditional,
            help: ArgumentHelp(
                "At most SIZE bytes of whole lines per part (--size SIZE --line-boundary).", valueName: "size"),
            transform: parseSize)
        var lineBytes: ByteSize?

        @Option(
            name: [.customShort("n"), .customLong("parts"), .customLong("number")], parsing: .unconditional,
            help: ArgumentHelp(
                "N parts, 1 to 50000 (a file of known size only); as GNU split, l/N ends them at lines, r/N deals "
                    + "lines in turn, K/N (l/K/N, r/K/N) writes only part K to standard output.",
                valueName: "chunks"))
        var chunks: ChunkSpec?

        /// The part count of --parts/-n.
        var parts: Int? { chunks?.n }

        @Flag(help: "End every part at a newline (needs --size).")
        var lineBoundary = false

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Repeat the first K lines atop every part (with --lines, --line-boundary or --line-bytes); the manifest "
                    + "records them, so merge restores the file.", valueName: "K"))
        var headerLines: Int = 0

        @Option(
            name: [.customShort("t"), .customLong("separator")], parsing: .unconditional,
            help: ArgumentHelp("Lines end at SEP instead of a newline; '\\0' is NUL (as GNU split).", valueName: "sep"))
        var separator: String?

        @Flag(name: [.customShort("e"), .customLong("elide-empty-files")], help: "Write no empty parts (with -n).")
        var elideEmptyFiles = false

        @Option(
            help: ArgumentHelp(
                "Write each part to the standard input of 'sh -c COMMAND' (as GNU split: $SHELL, with the part's name "
                    + "in $FILE) instead of a file; no manifest then. Standard input is cut as it arrives by -b or -l; "
                    + "for -C, -n N and -n l/N it is first held in an unnamed temporary file in $TMPDIR (else /tmp), "
                    + "as GNU does; with -n r/N the N commands run side by side.", valueName: "command"))
        var filter: String?

        @Option(help: "numeric (.001), alpha (aa) or gnu-numeric (00).")
        var suffix: PartNaming.Style = .numeric

        @Flag(
            name: [.customShort("d"), .customLong("numeric-suffixes")],
            help: "GNU digit suffixes 00, 01, … (--suffix gnu-numeric); --numeric-suffixes=FROM starts at FROM.")
        var numericSuffixes = false

        @Flag(
            name: [.customShort("x"), .customLong("hex-suffixes")],
            help: "GNU hex suffixes 00, 01, … 0f, 10, …; --hex-suffixes=FROM starts at FROM (hex).")
        var hexSuffixes = false

        /// FROM of --numeric-suffixes=FROM and --hex-suffixes=FROM, as written.
        @Option(help: .hidden)
        var suffixFrom: String?

        @Option(
            name: [.customShort("a"), .long], parsing: .unconditional,
            help: ArgumentHelp("A fixed suffix width, 1 to 32.", valueName: "N"))
        var suffixLength: Int?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "The first suffix's number, up to 999999999999 (default 1 for numeric, 0 for alpha and gnu-numeric).",
                valueName: "N"))
        var start: Int?

        @Option(help: ArgumentHelp("Name parts PREFIX + suffix; may include a folder.", valueName: "prefix"))
        var prefix: String?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Append SUFFIX to every part's name, as GNU split does (x00.txt).", valueName: "suffix"))
        var additionalSuffix: String = ""

        @Option(help: ArgumentHelp("Where to write the SFV manifest.", valueName: "file"))
        var manifest: String?

        @Flag(help: "Write no manifest.")
        var noManifest = false

        @Option(
            help: ArgumentHelp(
                "Also write a sha256sum-style list of the parts: NAME.md5, .sha1, .sha256 or .sha512 beside the SFV (instead of it with --no-manifest).",
                valueName: "digest"))
        var checksum: DigestAlgorithm?

        @Flag(help: "Print \"creating file 'NAME'\" for each part on standard output, like GNU split.")
        var verbose = false

        @Option(help: "How to move the bytes: auto, stream, offsets or dispatchdata.")
        var strategy: MergeStrategyKind = .auto

        @Flag(name: .shortAndLong, help: "Replace existing parts.")
        var force = false

        @Flag(help: "Make every part durable (fsync) before renaming it into place.")
        var fsync = false

        @OptionGroup var recovery: SplitRecoveryOptions
        @OptionGroup var transfer: TransferOptions
        @OptionGroup var objectStore: ObjectStoreOptions
        @OptionGroup var takeOver: UploadTakeOverOption
        @OptionGroup var objectWrites: ObjectWriteOptionGroup
        @OptionGroup var reporting: ReportOptions
        /// --size, or the size that --line-bytes gives.
        var partSize: ByteSize? { size ?? lineBytes }

        func validate() throws {
            guard UsageCheck.validates else { return }
            let modes = [size != nil, parts != nil, lines != nil, lineBytes != nil].filter { $0 }.count
            if modes > 1 { throw ValidationError("Give one of --size, --parts, --lines or --line-bytes.") }
            if let lines, lines <= 0 { throw ValidationError("--lines must be positive (got \(lines)).") }
            if let lineBytes, lineBytes.bytes <= 0 { throw ValidationError("--line-bytes must be positive.") }
            if lines != nil || lineBytes != nil {
                if lineBoundary { throw ValidationError("--line-boundary goes with --size only.") }
            } else {
                try validateSizeOrParts()
            }
            if prefixArgument != nil && prefix != nil {
                throw ValidationError("Give the prefix once: as the second argument or as --prefix.")
            }
            if numericSuffixes && suffix != .numeric {
                throw ValidationError("--numeric-suffixes and --suffix \(suffix) contradict each other.")
            }
            if hexSuffixes && (numericSuffixes || suffix != .numeric) {
                throw ValidationError(
                    "--hex-suffixes and \(numericSuffixes ? "--numeric-suffixes" : "--suffix \(suffix)") contradict each other."
                )
            }
            try validateGNUForms()
            if verbose && reporting.json {
                throw ValidationError("--verbose and --json both write to standard output; choose one.")
            }
            try validateRest(lineBoundary: lineBoundary || lineBytes != nil)
            try recovery.validate(
                input: input, writesObjects: ObjectLocation.isObjectPath(prefix ?? prefixArgument ?? ""),
                roundRobin: chunks?.kind == .roundRobin, filter: filter != nil, strategy: strategy,
                partLengths: SplitJob.plannedPartLengths(ofFile: input, mode: mode))
            try validateObjectNames([input])
            try validateObjectNames([manifest], written: true)
            try validateObjectNames([prefix ?? prefixArgument], suffix: "001", written: true)
            try objectWrites.check(
                writesObjects: ObjectLocation.isObjectPath(prefix ?? prefixArgument ?? ""),
                customerKey: objectStore.access.sseCustomerKeyFile != nil)
            try objectStore.check(
                namesObjects: [input, manifest, prefix ?? prefixArgument].contains {
                    ObjectLocation.isObjectPath($0 ?? "")
                })
        }

        func validateSizeOrParts() throws {
            switch (size, parts) {
            case (nil, nil): throw ValidationError("Give --size, --parts, --lines or --line-bytes.")
            case (.some, .some): throw ValidationError("Give --size or --parts, not both.")
            case (let size?, nil) where size.bytes <= 0: throw ValidationError("--size must be positive.")
            case (nil, let parts?) where parts <= 0: throw ValidationError("--parts must be positive (got \(parts)).")
            case (nil, let parts?) where parts > SplitLimits.maximumParts:
                throw ValidationError("--parts must be at most \(SplitLimits.maximumParts) (got \(parts)).")
            default: break
            }
            if lineBoundary && size == nil { throw ValidationError("--line-boundary needs --size.") }
        }

        func validateRest(lineBoundary: Bool) throws {
            if headerLines < 0 { throw ValidationError("--header-lines must not be negative.") }
            if headerLines > 0 && !lineBoundary && lines == nil {
                throw ValidationError("--header-lines needs --lines, --line-boundary or --line-bytes.")
            }
            if let suffixLength, !(1...SplitLimits.maximumSuffixLength).contains(suffixLength) {
                throw ValidationError(
                    "--suffix-length must be from 1 to \(SplitLimits.maximumSuffixLength) (got \(suffixLength)).")
            }
            if let start, !(0...SplitLimits.maximumStart).contains(start) {
                throw ValidationError("--start must be from 0 to \(SplitLimits.maximumStart) (got \(start)).")
            }
            if additionalSuffix.contains("/") {
                throw ValidationError("--additional-suffix '\(additionalSuffix.displayPath)' contains a '/'.")
            }
            // A set that merge would not find again from its first part would be merged as one file.
            if let first = try? naming().name(at: 0), !naming().readsBack {
                throw ValidationError(
                    "--additional-suffix '\(additionalSuffix.displayPath)': merge could not tell the part number in "
                        + "\(first.displayPath); use an extension such as .txt (letters, after a dot).")
            }
            if noManifest && manifest != nil {
                throw ValidationError("--manifest and --no-manifest contradict each other.")
            }
            if input == "-" && parts != nil && chunks?.kind != .roundRobin && filter == nil {
                throw ValidationError("--parts needs a file of known size, not standard input.")
            }
            if ObjectLocation.isObjectPath(input) && (lines != nil || lineBytes != nil || lineBoundary) {
                throw ValidationError(
                    "an s3:// object is split by --size or --parts; --lines, --line-bytes and --line-boundary need a file."
                )
            }
            if input == "-" && (prefix ?? prefixArgument).map(ObjectLocation.isObjectPath) == true
                && (lines != nil || lineBytes != nil || lineBoundary)
            {
                throw ValidationError(
                    "standard input is split into s3:// objects by --size; --lines, --line-bytes and --line-boundary need a local prefix."
                )
            }
            if let checksum, ObjectLocation.isObjectPath(input),
                (prefix ?? prefixArgument).map(ObjectLocation.isObjectPath) == true
            {
                throw ValidationError(
                    "--checksum \(checksum.rawValue): an object split into objects is copied on the server, so its parts "
                        + "never pass through gcdcat to be hashed; the SFV checks them (or split to local files).")
            }
            if input == "-" && ![.auto, .stream].contains(strategy) {
                throw ValidationError(
                    "standard input is split by the stream path; --strategy \(strategy) needs a file.")
            }
            try checkPartCount()
        }

        /// GNU split's -n forms, -t, -e and suffix starts, checked as GNU checks them.
        func validateGNUForms() throws {
            if let separator, separatorByte == nil {
                throw ValidationError(
                    separator.isEmpty
                        ? "--separator: empty record separator."
                        : "--separator: multi-character separator '\(separator.displayPath)' (one byte, or '\\0' for NUL)."
                )
            }
            if let suffixFrom {
                guard let start = suffixStart else {
                    throw ValidationError(
                        "'\(suffixFrom.displayPath)': invalid start value for \(hexSuffixes ? "hexadecimal" : "numerical") suffix."
                    )
                }
                if start != nil && self.start != nil {
                    throw ValidationError("Give the first suffix once: FROM or --start.")
                }
            }
            if let chunks {
                if chunks.k != nil && (reporting.json || verbose) {
                    throw ValidationError(
                        "-n \(chunks) writes part \(chunks.k!) to standard output; --json and --verbose need files.")
                }
                if chunks.kind == .roundRobin && manifest != nil {
                    throw ValidationError(
                        "-n \(chunks): round-robin parts do not join back into the input, so no manifest describes them."
                    )
                }
                if chunks.kind != .bytes,
                    ObjectLocation.isObjectPath(input)
                        || (prefix ?? prefixArgument).map(ObjectLocation.isObjectPath) == true
                {
                    throw ValidationError("-n \(chunks) reads lines: it needs a local file and local parts.")
                }
                if chunks.kind == .roundRobin && lineBoundary {
                    throw ValidationError("--line-boundary goes with --size only.")
                }
            }
            if filter != nil {
                if chunks?.k != nil {
                    throw ValidationError("--filter does not process a part extracted to standard output.")
                }
                if manifest != nil || checksum != nil {
                    throw ValidationError(
                        "--filter sends the parts to a command, which writes them where it likes: no manifest or list describes them."
                    )
                }
                if input == "-" && headerLines > 0 {
                    throw ValidationError(
                        "--filter cuts standard input without --header-lines (give the file itself to repeat its header)."
                    )
                }
                if ObjectLocation.isObjectPath(input) {
                    throw ValidationError("--filter needs a file or standard input, not an object.")
                }
            }
            if let needed = minimumSuffixLength, let suffixLength, suffixLength < needed {
                throw ValidationError("--suffix-length: the suffix length needs to be at least \(needed).")
            }
            let naming = naming()
            if let from = suffixFrom, let width = naming.width, from.drop(while: { $0 == "0" }).count > width {
                throw ValidationError(
                    "numerical suffix start value '\(from)' is too large for the suffix length \(width).")
            }
        }

        /// The record separator's byte: -t's single byte, or NUL for '\0'.
        var separatorByte: UInt8? {
            guard let separator else { return 0x0A }
            if separator == "\\0" { return 0 }
            let bytes = PathName.bytes(of: separator)
            return bytes.count == 1 ? bytes[0] : nil
        }

        /// The first suffix from FROM (in hex for -x), nil for none; .some(nil) when FROM is bad.
        var suffixStart: Int?? {
            guard let suffixFrom else { return .some(nil) }
            let radix = hexSuffixes ? 16 : 10
            guard !suffixFrom.isEmpty,
                suffixFrom.allSatisfy({ $0.isASCII && $0.isHexDigit && (radix == 16 ? !$0.isUppercase : $0.isNumber) }),
                let value = Int(
                    suffixFrom.drop(while: { $0 == "0" }).isEmpty ? "0" : String(suffixFrom.drop(while: { $0 == "0" })),
                    radix: radix),
                value <= SplitLimits.maximumStart
            else { return nil }
            return .some(value)
        }

        /// GNU's rule for a split into a known number of parts: a fixed suffix width that fits
        /// them all (at least 2), for its own suffix styles.
        var neededSuffixLength: Int? {
            guard let chunks, chunks.k == nil, suffixStyle != .numeric else { return nil }
            let from = (suffixStart ?? nil) ?? start ?? 0
            return PartNaming(prefix: "", style: suffixStyle).alphabetWidth(count: chunks.n, start: from)
        }

        /// The narrowest -a that names every part (GNU accepts `-n 3 -a 1 -d`: x0, x1, x2).
        var minimumSuffixLength: Int? {
            guard let chunks, chunks.k == nil, suffixStyle != .numeric else { return nil }
            let from = (suffixStart ?? nil) ?? start ?? 0
            return PartNaming(prefix: "", style: suffixStyle).minimumAlphabetWidth(count: chunks.n, start: from)
        }

        var suffixStyle: PartNaming.Style {
            hexSuffixes ? .hex : numericSuffixes ? .gnuNumeric : suffix
        }

        /// Refuses, as a usage error, a part size that would cut the input into too many parts,
        /// before anything is planned. (Standard input's length is unknown: its splitter stops
        /// at the bound instead.)
        func checkPartCount() throws {
            guard input != "-", !ObjectLocation.isObjectPath(input), let size = partSize, size.bytes > 0,
                let info = try? PartFile.validate(input)
            else {
                return
            }
            let count = SplitLimits.partCount(total: info.size, size: size.bytes)
            guard count <= Int64(SplitLimits.maximumParts) else {
                throw ValidationError(
                    "--size \(size) would cut \(input.displayPath) (\(info.size) bytes) into \(count) parts; "
                        + "at most \(SplitLimits.maximumParts) are allowed: raise --size.")
            }
        }

        /// FILE. beside the file; x. for standard input; NAME. in the current folder for an
        /// object s3://BUCKET/…/NAME (downloaded, as `aws s3 cp` does without a destination).
        var defaultPrefix: String {
            if input == "-" { return "x." }
            if ObjectLocation.isObjectPath(input) {
                // By the key: `?versionId=ID` names which bytes, not what the parts are called.
                let key = (try? ObjectLocation(parsing: input))??.key ?? input
                let name = key.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? "x"
                return name + "."
            }
            return input + "."
        }

        /// How the parts are named, from --prefix (or the PREFIX argument) and the suffix flags.
        func naming() -> PartNaming {
            PartNaming(
                prefix: prefix ?? prefixArgument ?? defaultPrefix,
                style: suffixStyle, width: suffixLength ?? neededSuffixLength, start: (suffixStart ?? nil) ?? start,
                additionalSuffix: additionalSuffix)
        }

        /// How the input is cut, from whichever of -n, -l, -C, --line-boundary, -b was given.
        var mode: SplitMode {
            if let chunks {
                switch chunks.kind {
                case .bytes: return .parts(chunks.n)
                case .lines: return .lineChunks(chunks.n)
                case .roundRobin: return .roundRobin(chunks.n)
                }
            }
            if let lines { return .lineCount(lines, headerLines: headerLines) }
            if let lineBytes { return .lines(limit: lineBytes.bytes, headerLines: headerLines) }
            if lineBoundary { return .lines(limit: size!.bytes, headerLines: headerLines) }
            return .size(size!.bytes)
        }

        /// The one line a split ends with: its parts, manifest, list and recovery volumes.
        func summary(_ result: SplitResult, digestListPath: String?) -> String {
            let shown = result.partPaths.map(\.displayPath)
            let listed = shown.count > 4 ? "\(shown.first!) … \(shown.last!)" : shown.joined(separator: ", ")
            return "gcdcat: \(shown.count) part\(shown.count == 1 ? "" : "s")\(shown.isEmpty ? "" : ": \(listed)")"
                + (result.manifestPath.map { "; manifest \($0.displayPath)" } ?? "")
                + (digestListPath.map { "; \(checksum!.rawValue) list \($0.displayPath)" } ?? "")
                + (result.recovery.map {
                    "; \($0.recoveryBlocks) recovery blocks of \($0.blockSize) bytes in \($0.index.displayPath) "
                        + "and \($0.volumes.count) volume\($0.volumes.count == 1 ? "" : "s")"
                } ?? "") + "\n"
        }

        func run() throws {
            InterruptHandler.install()
            try takeOver.apply()
            showRunNotes(quiet: reporting.quiet)
            try reportingFailures {
                let job = try splitJob()
                let starting: (String) -> Void = { name in
                    guard verbose else { return }
                    try? StandardStreams.writeOutput(Array("executing with FILE=\(name.displayPath)\n".utf8))
                }
                guard
                    case .published(let result, let report) = try job.run(
                        starting: starting, measure: measuring(quiet: reporting.quiet))
                else { return }
                result.warnings.forEach(Warnings.warn)
                if verbose {
                    // The manifest was written, not checked against: the parts were not "verified".
                    try afterPublishing(result.partPaths, manifest: nil) {
                        try StandardStreams.writeOutput(
                            Array(result.partPaths.map { "creating file '\($0.displayPath)'\n" }.joined().utf8))
                    }
                }
                if !reporting.quiet && !reporting.json {
                    writeToStandardError(summary(result, digestListPath: job.operation.digestListPath))
                    if chunks?.kind == .roundRobin {
                        for note in result.notes { writeToStandardError("gcdcat: \(note)\n") }
                    }
                }
                try emit(report, options: reporting)
            }
        }

        /// The options as the core's one split entry takes them.
        private func splitJob() throws -> SplitJob {
            let naming = naming()
            var operation = SplitOperation(
                input: input, mode: mode, naming: naming,
                manifest: noManifest || chunks?.kind == .roundRobin ? .none : manifest.map { .path($0) } ?? .beside,
                strategy: strategy, limits: try transfer.limits(),
                jobs: transfer.jobs(
                    objects: ObjectLocation.isObjectPath(input) || ObjectLocation.isObjectPath(naming.prefix)),
                overwrite: force,
                fsync: fsync)
            operation.digest = checksum
            operation.separator = separatorByte ?? 0x0A
            operation.elideEmpty = elideEmptyFiles
            operation.recovery = recovery.request
            var job = SplitJob(operation: operation) { try objectStore.makeStore(writing: objectWrites) }
            job.extractedChunk = chunks?.k
            job.filter = filter
            return job
        }
    }
}
