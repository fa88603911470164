import Synchronization

/// An owned descriptor that several threads use at once, such as an output that workers fill
/// with positional writes, closed exactly once by whichever of finishing or discarding comes
/// first (or, failing both, when the last reference goes).
///
/// ``OwnedDescriptor`` cannot be shared between threads, so this keeps one behind a lock and
/// lends its number, ``raw``, for syscalls. The number is valid only until ``take()``: after
/// that the kernel may give it to the next file opened, so a second close would shut that one.
/// Public because GCDCatCore's public `OutputSink.Kind` names it; only the package opens and
/// closes one.
public final class SharedDescriptor: Sendable {
    /// The descriptor, lent for syscalls while it is open.
    public let raw: Int32
    private let owner: Mutex<OwnedDescriptor?>

    package init(_ descriptor: consuming OwnedDescriptor) {
        raw = descriptor.raw
        owner = Mutex(Optional(descriptor))
    }

    /// False once ``take()`` handed the descriptor over.
    public var isOpen: Bool { owner.withLock { $0 != nil } }

    /// Hands the descriptor to the caller, who closes it (a checked ``OwnedDescriptor/close(path:)``
    /// for a written one); nil when it was handed over already.
    package func take() -> OwnedDescriptor? {
        owner.withLock { $0.take() }
    }

    /// Runs `body` with the descriptor if it is still open, holding off ``take()`` meanwhile, so
    /// `body` never acts on a number that was closed and given to another file.
    package func ifOpen<E: Error>(_ body: (Int32) throws(E) -> Void) throws(E) {
        try owner.withLock { (descriptor) throws(E) -> Void in
            if descriptor != nil { try body(raw) }
        }
    }
}
