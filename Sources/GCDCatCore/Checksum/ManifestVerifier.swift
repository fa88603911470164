import GCDCatSystem

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
        ChecksumListVerifier.resolve(entry.name, listPath: manifestPath)
    }

    /// Checks every entry through ``ChecksumListVerifier``: at most `jobs` files are read at
    /// once, and a name that a symlink leads outside the manifest's folder is REJECTED and not
    /// opened, unless `followLinksOutside`.
    public static func verify(
        _ manifest: Manifest, manifestPath: String, jobs: Int, followLinksOutside: Bool = false
    ) -> [Outcome] {
        let outcomes = ChecksumListVerifier.verify(
            ChecksumList(manifest), listPath: manifestPath, jobs: jobs, followLinksOutside: followLinksOutside)
        return zip(manifest.entries, outcomes).map { entry, outcome in
            switch outcome.status {
            case .ok: return Outcome(entry: entry, status: .ok)
            // An SFV manifest's crc32 is never a guess, so nothing is unconfirmed.
            case .failed(let actual), .unconfirmed(let actual):
                return Outcome(entry: entry, status: .failed(actual: UInt32(actual, radix: 16) ?? 0))
            case .missing: return Outcome(entry: entry, status: .missing)
            case .unreadable(let error): return Outcome(entry: entry, status: .unreadable(error))
            case .rejected(let why): return Outcome(entry: entry, status: .rejected(why))
            }
        }
    }

    /// `realpath(3)`, or nil when the path does not resolve.
    static func realPath(_ path: String) -> String? {
        guard let resolved = PathName.withPathCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return PathName.decode(cString: resolved)
    }

    /// 0 when every file is OK; 1 when any is missing, unreadable or rejected (the check could
    /// not be completed); otherwise 2 when any failed its CRC. The rule is
    /// ``ChecksumListVerifier/exitStatus(_:)``'s.
    public static func exitStatus(_ outcomes: [Outcome]) -> Int32 {
        ChecksumListVerifier.exitStatus(
            outcomes.map {
                switch $0.status {
                case .ok: return .ok
                case .failed(let actual): return .failed(actual: hex8(actual))
                case .missing: return .missing
                case .unreadable(let error): return .unreadable(error)
                case .rejected(let why): return .rejected(why)
                }
            })
    }
}
