import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Checks every file a manifest lists against its crc32.
public enum ManifestVerifier {
    public enum Status: Sendable, Equatable {
        case ok
        case failed(actual: UInt32)
        case missing
        case unreadable(GCDCatError)
        case rejected(String)
    }

    public struct Outcome: Sendable, Equatable {
        public var entry: Manifest.Entry
        public var status: Status

        /// `name: OK`, `name: FAILED (expected …, got …)`, …, for the verify listing.
        public var line: String {
            let name = entry.name.displayPath
            switch status {
            case .ok: return "\(name): OK"
            case .failed(let actual):
                return "\(name): FAILED (expected \(hex8(entry.crc32)), got \(hex8(actual)))"
            case .missing: return "\(name): MISSING"
            case .unreadable(let error): return "\(name): UNREADABLE (\(error))"
            case .rejected(let why): return "\(name): REJECTED (\(why); not opened)"
            }
        }
    }

    /// The path an entry names, relative to the manifest's folder.
    public static func resolve(_ entry: Manifest.Entry, manifestPath: String) -> String {
        let folder = splitPath(manifestPath).directory
        return folder == "." && !manifestPath.hasPrefix("./") ? entry.name : "\(folder)/\(entry.name)"
    }

    /// Checks every entry; at most `jobs` files are read at once (a DispatchSemaphore bounds
    /// them), and each is checksummed on its share of the threads.
    ///
    /// A name that resolves outside the manifest's folder through a symlink (`root -> /`, then
    /// `root/etc/shadow`) is REJECTED and not opened, unless `followLinksOutside`.
    public static func verify(
        _ manifest: Manifest, manifestPath: String, jobs: Int, followLinksOutside: Bool = false
    ) -> [Outcome] {
        let entries =
            followLinksOutside
            ? manifest.entries : manifest.entries.map { confined($0, manifestPath: manifestPath) }
        let results = ResultSlots<Outcome>(count: entries.count)
        let inFlight = DispatchSemaphore(value: max(1, jobs))
        let group = DispatchGroup()
        let perFile = max(1, jobs / max(1, min(jobs, entries.count)))
        for (index, entry) in entries.enumerated() {
            if let rejection = entry.rejection {
                results[index] = Outcome(entry: entry, status: .rejected(rejection))
                continue
            }
            inFlight.wait()
            DispatchQueue.global().async(group: group) {
                defer { inFlight.signal() }
                let path = resolve(entry, manifestPath: manifestPath)
                results[index] = Outcome(entry: entry, status: check(path, expected: entry.crc32, jobs: perFile))
            }
        }
        group.wait()
        return results.values.compactMap { $0 }
    }

    /// `entry`, marked rejected when it exists and its real path lies outside the manifest's
    /// real folder: a symlink on the way leads out.
    static func confined(_ entry: Manifest.Entry, manifestPath: String) -> Manifest.Entry {
        guard entry.rejection == nil,
            let target = realPath(resolve(entry, manifestPath: manifestPath)),
            let folder = realPath(splitPath(manifestPath).directory)
        else { return entry }
        let inside = folder == "/" ? target.hasPrefix("/") : target.hasPrefix(folder + "/")
        guard !inside else { return entry }
        var rejected = entry
        rejected.rejection = "a symlink leads outside the manifest's folder, to \(target.displayPath)"
        return rejected
    }

    /// `realpath(3)`, or nil when the path does not resolve.
    static func realPath(_ path: String) -> String? {
        guard let resolved = PathName.withPathCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return PathName.decode(cString: resolved)
    }

    static func check(_ path: String, expected: UInt32, jobs: Int) -> Status {
        do {
            let actual = try FileChecksum.of(path, algorithm: .crc32, jobs: jobs).value
            return actual == expected ? .ok : .failed(actual: actual)
        } catch let error as GCDCatError where error.code == .missingPart {
            return .missing
        } catch let error as GCDCatError {
            return .unreadable(error)
        } catch {
            return .unreadable(GCDCatError(.io, path: path, message: "\(error)"))
        }
    }

    /// 0 when every file is OK; 1 when any is missing, unreadable or rejected (the check could
    /// not be completed); otherwise 2 when any failed its CRC.
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
