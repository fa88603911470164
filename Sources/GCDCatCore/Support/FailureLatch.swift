import Synchronization

/// The first error of several concurrent workers; later ones are consequences and are dropped.
///
/// Workers poll ``hasFailed`` between chunks, so one failure stops the rest promptly.
public final class FailureLatch: Sendable {
    private let first = Mutex<(any Error)?>(nil)
    private let failed = Atomic<Bool>(false)

    public init() {}

    public func record(_ error: any Error) {
        first.withLock { if $0 == nil { $0 = error } }
        failed.store(true, ordering: .releasing)
    }

    public var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Runs `body`, recording what it throws.
    public func capture(_ body: () throws -> Void) {
        do { try body() } catch { record(error) }
    }

    /// Throws the first recorded error, if any.
    public func check() throws {
        if let error = first.withLock({ $0 }) { throw error }
    }
}

/// Hands out work indexes 0..<count to concurrent workers, each exactly once.
final class WorkCursor: Sendable {
    private let next = Atomic<Int>(0)
    let count: Int

    init(count: Int) { self.count = count }

    func claim() -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}
