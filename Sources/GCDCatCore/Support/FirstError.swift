import Synchronization

/// The first error of several workers; later ones are dropped. ``ParallelMap`` keeps its
/// workers' first error in one, and so does a stream split's pool of uploads
/// (`ObjectStreamSplit`), which checks it between pieces to stop sending more.
final class FirstError<Failure: Error>: Sendable {
    private let first = Mutex<Failure?>(nil)

    /// The first error recorded, if any.
    var error: Failure? { first.withLock { $0 } }

    func record(_ error: Failure) {
        first.withLock { if $0 == nil { $0 = error } }
    }
}
