import GCDCatS3
import GCDCatSystem
import Synchronization

/// The buffers in which a server-side merge packs the slices it downloads into upload parts,
/// while several workers fetch the slices of one part at once.
///
/// A part takes a buffer when the first of its slices is fetched and gives it back once it is
/// uploaded. The slices are claimed in output order, so every part holding a buffer but one
/// (the part whose slices are being claimed) has a worker on one of its slices or on its
/// upload: at most `workers + 1` buffers are ever in use, and the pool holds that many, each of
/// the plan's largest upload part (under 15 MiB, ``ServerSideMergePlan``).
final class UploadPartAssembly: Sendable {
    private struct Assembling {
        var buffer: BufferPool.Buffer
        var missingSlices: Int
    }

    private let pool: BufferPool
    private let sliceCounts: [Int: Int]
    private let state = Mutex<[Int: Assembling]>([:])

    /// `sliceCounts[part]`: how many slices part `part` (an index of the plan) is made of.
    /// `workers` bounds the requests in flight.
    ///
    /// ## Errors
    /// `malloc` (ENOMEM) naming `path` when the buffers cannot be had.
    init(sliceCounts: [Int: Int], partSize: Int, workers: Int, path: String) throws {
        self.sliceCounts = sliceCounts
        pool = try BufferPool(count: min(workers + 1, max(1, sliceCounts.count)), size: max(1, partSize), path: path)
    }

    /// The buffer of part `part`, taken from the pool when its first slice asks.
    ///
    /// ## Errors
    /// `.io` naming `path` if no buffer is free, which the claim order rules out.
    func buffer(for part: Int, path: String) throws -> BufferPool.Buffer {
        let buffer = state.withLock { parts -> BufferPool.Buffer? in
            if let assembling = parts[part] { return assembling.buffer }
            guard let taken = pool.take() else { return nil }
            parts[part] = Assembling(buffer: taken, missingSlices: sliceCounts[part] ?? 0)
            return taken
        }
        guard let buffer else {
            throw GCDCatError(.io, path: path, message: "no upload buffer free for part \(part + 1) (a gcdcat bug)")
        }
        return buffer
    }

    /// Notes one slice of `part` as fetched; true when it was the last, so the part is whole
    /// and its caller uploads it, then calls ``release(_:)``.
    func sliceFetched(_ part: Int) -> Bool {
        state.withLock { parts in
            parts[part]!.missingSlices -= 1
            return parts[part]!.missingSlices == 0
        }
    }

    /// Gives part `part`'s buffer back to the pool once it is uploaded.
    func release(_ part: Int) {
        if let assembling = state.withLock({ $0.removeValue(forKey: part) }) { pool.give(assembling.buffer) }
    }
}
