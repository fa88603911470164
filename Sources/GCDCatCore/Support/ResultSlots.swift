import Synchronization

/// One result slot per work item, filled by concurrent workers in any order.
final class ResultSlots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>

    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    subscript(index: Int) -> Value? {
        get { slots.withLock { $0[index] } }
        set { slots.withLock { $0[index] = newValue } }
    }

    var values: [Value?] { slots.withLock { $0 } }
}
