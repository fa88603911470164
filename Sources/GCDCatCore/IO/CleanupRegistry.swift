import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary files that must vanish if gcdcat is interrupted.
///
/// Output is written to temporary names and renamed into place only when complete. Every such
/// name is registered here while it exists, so that a SIGINT/SIGTERM handler (which runs on its
/// own queue while the work goes on) can unlink them all. Renames into place take the same lock,
/// so a signal sees each file either fully committed or still temporary, never half-renamed.
public final class CleanupRegistry: Sendable {
    public static let shared = CleanupRegistry()

    private struct State {
        var nextToken = 0
        var paths: [Int: String] = [:]
        /// Once set, nothing may be committed: the process is on its way out.
        var aborted = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Remembers `path` for removal; returns a token for ``forget(_:)``.
    func register(_ path: String) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.paths[state.nextToken] = path
            return state.nextToken
        }
    }

    func forget(_ token: Int) {
        state.withLock { _ = $0.paths.removeValue(forKey: token) }
    }

    /// Runs `commit` (a rename) unless an interruption has begun, then forgets `tokens`.
    func commit<T>(forgetting tokens: [Int], _ commit: () throws -> T) throws -> T {
        try state.withLock { state in
            guard !state.aborted else {
                throw GCDCatError(.interrupted, errno: SIGINT, message: "interrupted")
            }
            let result = try commit()
            for token in tokens { state.paths.removeValue(forKey: token) }
            return result
        }
    }

    /// Unlinks every registered file and blocks later commits. Returns the paths removed.
    @discardableResult
    public func removeAll() -> [String] {
        state.withLock { state in
            state.aborted = true
            let paths = Array(state.paths.values)
            for path in paths { unlink(path) }
            state.paths.removeAll()
            return paths
        }
    }

    /// The registered paths, for tests.
    public var registeredPaths: [String] {
        state.withLock { Array($0.paths.values) }
    }
}
