import GCDCatSystem
import Synchronization

extension FileHash {
    /// The hashes of the regular files among `paths`, each as ``of(_:algorithm:jobs:counter:)``
    /// gives it (or its error), read at once on up to `jobs` worker threads that each own a
    /// buffer and a digest context (``HashWorker``): `gcdcat checksum` of many small files.
    /// Nil where `paths` has nil, and for a path that exists but is not a regular file (a pipe,
    /// a device, a folder): the caller reads those in order, as a pipe must be read.
    public static func ofEach(
        _ paths: [String?], algorithm: HashAlgorithm, jobs: Int, counter: TransferCounter? = nil
    ) -> [Result<String, GCDCatError>?] {
        let jobs = max(1, jobs)
        let active = Atomic<Int>(0)
        return ParallelMap.collect(
            count: paths.count, jobs: jobs, pool: .threads,
            makeState: { Result { () throws(GCDCatError) in try HashWorker() } }
        ) { worker, index -> Result<String, GCDCatError>? in
            guard let path = paths[index] else { return nil }
            // One stat, so that a FIFO is never opened here: a writer waiting on it would be
            // released to a reader that closes at once.
            if let info = try? Syscall.statIfExists(path), info.st_mode & S_IFMT != S_IFREG { return nil }
            let running = active.wrappingAdd(1, ordering: .relaxed).newValue
            defer { active.wrappingSubtract(1, ordering: .relaxed) }
            do {
                let hex = try worker.get().hash(
                    path, algorithm: algorithm, jobs: max(1, jobs - (running - 1)), counter: counter)
                return .success(hex)
            } catch let error as GCDCatError {
                return .failure(error)
            } catch {
                return .failure(GCDCatError(.io, path: path, message: "\(error)"))
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif
