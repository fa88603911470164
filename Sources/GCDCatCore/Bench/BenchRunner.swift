import CSystemShim
import FoundationEssentials
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What to benchmark.
public struct BenchSettings: Sendable {
    public var totalBytes: Int64
    public var parts: Int
    public var strategies: [MergeStrategyKind]
    public var highWaters: [Int]
    public var repeats: Int
    public var cold: Bool
    /// Where the data goes; nil means a temporary folder removed afterwards.
    public var directory: String?
    public var includeSplit: Bool
    public var includeChecksum: Bool

    public init(
        totalBytes: Int64 = 1 << 30, parts: Int = 4, strategies: [MergeStrategyKind] = MergeStrategyKind.allCases,
        highWaters: [Int] = [64 << 10, 1 << 20, 2 << 20, 8 << 20], repeats: Int = 5, cold: Bool = false,
        directory: String? = nil, includeSplit: Bool = true, includeChecksum: Bool = true
    ) {
        self.totalBytes = totalBytes
        self.parts = parts
        self.strategies = strategies
        self.highWaters = highWaters
        self.repeats = repeats
        self.cold = cold
        self.directory = directory
        self.includeSplit = includeSplit
        self.includeChecksum = includeChecksum
    }
}

/// Runs every contender as a separate child process, interleaved with its baseline in a
/// shuffled order each round, and checks every output against the known checksum of the
/// generated data.
///
/// ## Implementation details
/// Each run gets a fresh output file, removed afterwards and followed by `sync()`, so that
/// dirty pages of one run do not slow the next. `--cold` also writes 3 to
/// `/proc/sys/vm/drop_caches` before each run.
public struct BenchRunner {
    public let settings: BenchSettings
    /// The gcdcat executable the children run.
    public let executable: String
    public let version: String
    /// Called with a line of progress after each run.
    public var log: (String) -> Void = { _ in }

    public init(settings: BenchSettings, executable: String, version: String) {
        self.settings = settings
        self.executable = executable
        self.version = version
    }

    /// A contender: how to run it once into `output`, and how to check what it produced.
    struct Contender {
        var cell: BenchCell
        var command: (_ output: String) -> [String]
        var standardOutputToFile = false
        var check: (_ outcome: ChildOutcome, _ output: String) throws -> Void
        var readsGcdcatReport = false
    }

    /// Generates the data, runs every contender, and returns the report.
    ///
    /// ## Errors
    /// `.io` when the folder lacks space for the data and one output, or cannot be written.
    public func run() throws -> BenchReport {
        let registry = CleanupRegistry.shared
        var temporaryToken: Int?
        let directory: String
        if let given = settings.directory {
            directory = given
        } else {
            var template = Array("/tmp/gcdcat-bench-XXXXXX".utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                throw GCDCatError.syscall("mkdtemp", path: "/tmp", errno: errno)
            }
            directory = String(cString: made)
            temporaryToken = registry.register(.tree(directory))
        }
        defer {
            if let temporaryToken {
                registry.forget(temporaryToken)
                removeTree(directory)
            }
        }
        try requireSpace(in: directory)
        log("generating \(ByteSize.humanReadable(settings.totalBytes)) of seeded random data in \(directory)")
        let data = try BenchData.prepare(in: directory, total: settings.totalBytes, parts: settings.parts)
        var contenders = mergeContenders(data)
        if settings.includeSplit || settings.includeChecksum {
            let whole = directory + "/whole.bin"
            if (try? Syscall.statIfExists(whole))??.st_size != off_t(data.totalBytes) {
                unlink(whole)
                _ = try MergeOperation(partPaths: data.partPaths, output: .path(whole)).run()
            }
            if settings.includeSplit { contenders += splitContenders(whole: whole, data: data) }
            if settings.includeChecksum {
                contenders += checksumContenders(whole: whole, data: data) + verifyContenders(data)
            }
        }
        var coldNote: String?
        // Generated data is still being written back; let that finish before timing anything,
        // and run the baseline once unrecorded so the first timed run is not the odd one out.
        sync()
        if var warmup = contenders.first {
            measure(&warmup, output: "\(directory)/out.warmup")
            removeTree("\(directory)/out.warmup")
            sync()
        }
        var order = SplitMix64(seed: 0x0DE2)
        for round in 1...settings.repeats {
            // A fresh order each round: on this VM a page freed a while ago is slow to touch
            // again (the host reclaims it), so whoever runs after a pause in writing is slower;
            // shuffling spreads that over every contender instead of always the same one.
            for index in contenders.indices.shuffled(using: &order) {
                let output = "\(directory)/out.\(index)"
                let token = registry.register(.tree(output))
                if settings.cold, let note = dropCaches() { coldNote = note }
                measure(&contenders[index], output: output)
                removeTree(output)
                registry.forget(token)
                sync()
                let cell = contenders[index].cell
                log(
                    "round \(round)/\(settings.repeats)  \(cell.group) \(cell.name) \(cell.highWater.map { ByteSize(Int64($0)).description } ?? "")  "
                        + "\(formatFixed(cell.wallSeconds.last ?? 0, decimals: 3)) s\(cell.correct ? "" : "  WRONG")")
            }
        }
        return BenchReport(
            gcdcatVersion: version, machine: BenchMachine.current(directory: directory),
            totalBytes: settings.totalBytes, parts: settings.parts, repeats: settings.repeats,
            coldCache: settings.cold && coldNote == nil, coldCacheNote: coldNote,
            cells: contenders.map(\.cell))
    }

    private func measure(_ contender: inout Contender, output: String) {
        do {
            let outcome = try ChildProcess.run(
                contender.command(output), standardOutputPath: contender.standardOutputToFile ? output : nil)
            guard outcome.succeeded else {
                throw GCDCatError(.io, message: "exit \(outcome.status): \(outcome.errorText)")
            }
            try contender.check(outcome, output)
            contender.cell.wallSeconds.append(outcome.wallSeconds)
            if contender.readsGcdcatReport,
                let report = try? JSONDecoder().decode(RunReport.self, from: Data(outcome.standardOutput))
            {
                // gcdcat's own figures are exact; the polled peak may miss the last moments.
                contender.cell.peakRSSBytes.append(report.peakRSSBytes)
                contender.cell.peakRSSAnonBytes.append(report.peakRSSAnonBytes)
                contender.cell.peakRSSFileBytes.append(report.peakRSSFileBytes)
            } else {
                contender.cell.peakRSSBytes.append(outcome.peakRSSBytes)
            }
        } catch {
            contender.cell.correct = false
            contender.cell.failure = "\(error)"
        }
    }

    private func mergeContenders(_ data: BenchData) -> [Contender] {
        let expect = { (output: String) throws in
            try expectChecksum(of: [output], equals: data.crc32, bytes: data.totalBytes)
        }
        var contenders = [
            Contender(
                cell: BenchCell(group: "merge", name: "cat", isBaseline: true, highWater: nil, bytes: data.totalBytes),
                command: { _ in ["cat"] + data.partPaths }, standardOutputToFile: true,
                check: { _, output in try expect(output) })
        ]
        for highWater in settings.highWaters {
            for strategy in settings.strategies {
                contenders.append(
                    Contender(
                        cell: BenchCell(
                            group: "merge", name: strategy.rawValue, isBaseline: false, highWater: highWater,
                            bytes: data.totalBytes),
                        command: { output in
                            [executable, "merge"] + data.partPaths + [
                                "-o", output, "--strategy", strategy.rawValue, "--high-water", "\(highWater)",
                                "--no-verify", "--json", "--quiet",
                            ]
                        },
                        check: { _, output in try expect(output) }, readsGcdcatReport: true))
            }
        }
        // The default a user gets: auto, checking every part against data.sfv while copying.
        contenders.append(
            Contender(
                cell: BenchCell(
                    group: "merge", name: "auto verified", isBaseline: false, highWater: nil, bytes: data.totalBytes),
                command: { output in [executable, "merge", data.partPaths[0], "-o", output, "--json", "--quiet"] },
                check: { _, output in try expect(output) }, readsGcdcatReport: true))
        return contenders
    }

    /// `verify` of the set's list against cksfv's, both reading every part once.
    private func verifyContenders(_ data: BenchData) -> [Contender] {
        [
            Contender(
                cell: BenchCell(
                    group: "verify", name: "cksfv -g", isBaseline: true, highWater: nil, bytes: data.totalBytes),
                command: { _ in ["cksfv", "-q", "-g", data.manifestPath] }, check: { _, _ in }),
            Contender(
                cell: BenchCell(
                    group: "verify", name: "gcdcat verify", isBaseline: false, highWater: nil, bytes: data.totalBytes),
                command: { _ in [executable, "verify", data.manifestPath] }, check: { _, _ in }),
        ]
    }

    private func splitContenders(whole: String, data: BenchData) -> [Contender] {
        // 64 MiB parts, as the README's comparison uses; at least 4 parts for small data.
        let size = max(min(Int64(64 << 20), data.totalBytes / 4), 1)
        let check = { (_: ChildOutcome, output: String) throws in
            let parts = try directoryEntries(output).filter { !$0.hasSuffix(".sfv") }.sorted().map { "\(output)/\($0)" }
            try expectChecksum(of: parts, equals: data.crc32, bytes: data.totalBytes)
        }
        return [
            Contender(
                cell: BenchCell(
                    group: "split", name: "split (GNU)", isBaseline: true, highWater: nil, bytes: data.totalBytes),
                command: { output in
                    [
                        "sh", "-c", "mkdir \"$1\" && exec split -b \"$2\" \"$3\" \"$1/x\"", "sh", output, "\(size)",
                        whole,
                    ]
                }, check: check),
            Contender(
                cell: BenchCell(
                    group: "split", name: "gcdcat split", isBaseline: false, highWater: nil, bytes: data.totalBytes),
                command: { output in
                    [
                        "sh", "-c",
                        "mkdir \"$1\" && exec \"$4\" split \"$3\" --size \"$2\" --prefix \"$1/x.\" --json -q",
                        "sh", output, "\(size)", whole, executable,
                    ]
                }, check: check, readsGcdcatReport: true),
        ]
    }

    private func checksumContenders(whole: String, data: BenchData) -> [Contender] {
        let expected = hex8(data.crc32)
        let check = { (outcome: ChildOutcome, _: String) throws in
            let text = String(decoding: outcome.standardOutput, as: UTF8.self).lowercased()
            guard text.contains(expected) else {
                throw GCDCatError(.checksumMismatch, message: "expected \(expected), printed \(text)")
            }
        }
        return [
            Contender(
                cell: BenchCell(
                    group: "checksum", name: "rhash --crc32", isBaseline: true, highWater: nil, bytes: data.totalBytes),
                command: { _ in ["rhash", "--crc32", whole] }, check: check),
            Contender(
                cell: BenchCell(
                    group: "checksum", name: "cksfv", isBaseline: false, highWater: nil, bytes: data.totalBytes),
                command: { _ in ["cksfv", "-b", whole] }, check: check),
            Contender(
                cell: BenchCell(
                    group: "checksum", name: "gcdcat crc32", isBaseline: false, highWater: nil, bytes: data.totalBytes),
                command: { _ in [executable, "checksum", "--algorithm", "crc32", whole] }, check: check),
            Contender(
                cell: BenchCell(
                    group: "checksum", name: "gcdcat adler32", isBaseline: false, highWater: nil, bytes: data.totalBytes
                ),
                command: { _ in [executable, "checksum", "--algorithm", "adler32", "--format", "simple", whole] },
                check: { _, _ in }),
        ]
    }

    /// Checks free space for the data, one output and a margin, before generating anything.
    private func requireSpace(in directory: String) throws {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else {
            throw GCDCatError.syscall("statvfs", path: directory, errno: errno)
        }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        let copies: Int64 = settings.includeSplit || settings.includeChecksum ? 3 : 2
        let needed = settings.totalBytes * copies + (64 << 20)
        guard free >= needed else {
            throw GCDCatError(
                .io, path: directory, syscall: "statvfs", errno: ENOSPC,
                message:
                    "needs \(ByteSize.humanReadable(needed)) free for the data and one output, has \(ByteSize.humanReadable(free))"
            )
        }
    }

    /// Drops the page cache; returns why it could not, if it could not.
    private func dropCaches() -> String? {
        sync()
        let fd = open("/proc/sys/vm/drop_caches", O_WRONLY)
        guard fd >= 0 else {
            return
                "--cold was asked for, but /proc/sys/vm/drop_caches cannot be opened (\(describeErrno(errno))); runs were hot"
        }
        let file = OwnedDescriptor(adopting: fd)
        guard write(file.raw, "3", 1) == 1 else {
            return "--cold was asked for, but dropping caches failed (\(describeErrno(errno))); runs were hot"
        }
        return nil
    }
}

/// Checks that `paths`, joined, have `bytes` bytes with crc32 `expected`.
func expectChecksum(of paths: [String], equals expected: UInt32, bytes: Int64) throws {
    var pieces: [Checksum] = []
    for path in paths {
        let file = try OwnedDescriptor(opening: path, O_RDONLY)
        pieces.append(try FileChecksum.of(fd: file.raw, path: path, algorithm: .crc32, jobs: 2))
    }
    let joined = Checksum.combine(.crc32, pieces)
    guard joined.length == bytes, joined.value == expected else {
        throw GCDCatError(
            .checksumMismatch, path: paths.first,
            message:
                "output has \(joined.length) bytes with crc32 \(joined.hex); expected \(bytes) bytes with \(hex8(expected))"
        )
    }
}

extension BenchMachine {
    static func current(directory: String) -> BenchMachine {
        var names = utsname()
        uname(&names)
        let kernel = withUnsafePointer(to: &names.release) {
            $0.withMemoryRebound(to: CChar.self, capacity: 65) { String(cString: $0) }
        }
        let memory = Int64(sysconf(Int32(_SC_PHYS_PAGES))) * Int64(sysconf(Int32(_SC_PAGESIZE)))
        return BenchMachine(
            cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), memoryBytes: memory, kernel: kernel,
            filesystem: filesystemName(directory))
    }

    static func filesystemName(_ path: String) -> String {
        let type = gcdcat_filesystem_type(path)
        switch type {
        case 0: return "unknown"
        case 0xEF53: return "ext4"
        case 0x0102_1994: return "tmpfs"
        case 0x5846_5342: return "xfs"
        case 0x9123_683E: return "btrfs"
        case 0x794C_7630: return "overlayfs"
        default: return "fs 0x" + String(type, radix: 16)
        }
    }
}
