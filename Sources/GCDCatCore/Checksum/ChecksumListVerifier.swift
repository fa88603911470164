import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Checks every file a ``ChecksumList`` names against its expected value.
public enum ChecksumListVerifier {
    public enum Status: Sendable, Equatable {
        case ok
        case failed(actual: String)
        case missing
        case unreadable(GCDCatError)
        case rejected(String)

        /// `OK`, `FAILED`, … as the listing and JSON name it.
        public var word: String {
            switch self {
            case .ok: return "OK"
            case .failed: return "FAILED"
            case .missing: return "MISSING"
            case .unreadable: return "UNREADABLE"
            case .rejected: return "REJECTED"
            }
        }
    }

    public struct Outcome: Sendable, Equatable {
        public var entry: ChecksumList.Entry
        /// The path that was (or would have been) opened.
        public var path: String
        public var status: Status

        /// `name: OK`, `name: FAILED (expected …, got …)`, …, for the verify listing.
        public var line: String {
            let name = entry.name.displayPath
            switch status {
            case .ok: return "\(name): OK"
            case .failed(let actual):
                let algorithm = entry.algorithm == .crc32 ? "" : "\(entry.algorithm.rawValue) "
                return "\(name): FAILED (expected \(algorithm)\(entry.expected), got \(actual))"
            case .missing: return "\(name): MISSING"
            case .unreadable(let error): return "\(name): UNREADABLE (\(error))"
            case .rejected(let why): return "\(name): REJECTED (\(why); not opened)"
            }
        }
    }

    /// The path `name` in the list at `listPath` stands for: relative to the list's folder;
    /// a list read from standard input (`-`) names paths relative to the current folder.
    public static func resolve(_ name: String, listPath: String) -> String {
        if listPath == "-" { return name }
        let folder = splitPath(listPath).directory
        return folder == "." && !listPath.hasPrefix("./") ? name : "\(folder)/\(name)"
    }

    /// The bytes verifying `list` will read: the sizes of the listed files that exist (for a
    /// progress bar's total; a file that changes meanwhile only makes the bar less exact).
    public static func totalBytes(_ list: ChecksumList, listPath: String) -> Int64 {
        list.entries.reduce(0) { total, entry in
            guard entry.rejection == nil,
                let info = try? Syscall.statIfExists(resolve(entry.name, listPath: listPath)),
                (info.st_mode & S_IFMT) == S_IFREG
            else { return total }
            return total + Int64(info.st_size)
        }
    }

    /// Checks every entry; at most `jobs` files are read at once (a DispatchSemaphore bounds
    /// them), and a crc32/adler32 file is split across its share of the threads.
    ///
    /// A name that resolves outside the list's folder through a symlink (`root -> /`, then
    /// `root/etc/shadow`) is REJECTED and not opened, unless `followLinksOutside`.
    public static func verify(
        _ list: ChecksumList, listPath: String, jobs: Int, followLinksOutside: Bool = false,
        counter: TransferCounter? = nil
    ) -> [Outcome] {
        let entries = list.entries
        let results = ResultSlots<Outcome>(count: entries.count)
        let inFlight = DispatchSemaphore(value: max(1, jobs))
        let group = DispatchGroup()
        let perFile = max(1, jobs / max(1, min(jobs, entries.count)))
        for (index, entry) in entries.enumerated() {
            let path = resolve(entry.name, listPath: listPath)
            let rejection =
                entry.rejection ?? (followLinksOutside ? nil : outsideRejection(path, listPath: listPath))
            if let rejection {
                results[index] = Outcome(entry: entry, path: path, status: .rejected(rejection))
                continue
            }
            inFlight.wait()
            DispatchQueue.global().async(group: group) {
                defer { inFlight.signal() }
                let status = check(path, entry: entry, jobs: perFile, counter: counter)
                results[index] = Outcome(entry: entry, path: path, status: status)
            }
        }
        group.wait()
        return results.values.compactMap { $0 }
    }

    /// Why `path` must not be opened: it exists and its real path lies outside the list's real
    /// folder, because a symlink on the way leads out. Nil when it is inside or does not exist.
    static func outsideRejection(_ path: String, listPath: String) -> String? {
        guard let target = ManifestVerifier.realPath(path),
            let folder = ManifestVerifier.realPath(listPath == "-" ? "." : splitPath(listPath).directory)
        else { return nil }
        let inside = folder == "/" ? target.hasPrefix("/") : target.hasPrefix(folder + "/")
        return inside ? nil : "a symlink leads outside the manifest's folder, to \(target.displayPath)"
    }

    static func check(_ path: String, entry: ChecksumList.Entry, jobs: Int, counter: TransferCounter?) -> Status {
        do {
            let actual = try FileHash.of(path, algorithm: entry.algorithm, jobs: jobs, counter: counter)
            return actual == entry.expected ? .ok : .failed(actual: actual)
        } catch let error as GCDCatError where error.code == .missingPart {
            return .missing
        } catch let error as GCDCatError {
            return .unreadable(error)
        } catch {
            return .unreadable(GCDCatError(.io, path: path, message: "\(error)"))
        }
    }

    /// 0 when every file is OK; 1 when any is missing, unreadable or rejected (the check could
    /// not be completed); otherwise 2 when any failed its checksum.
    public static func exitStatus(_ outcomes: [Outcome]) -> Int32 {
        let incomplete = outcomes.contains {
            switch $0.status {
            case .missing, .unreadable, .rejected: return true
            case .ok, .failed: return false
            }
        }
        if incomplete { return 1 }
        return outcomes.allSatisfy { $0.status == .ok } ? 0 : 2
    }
}
