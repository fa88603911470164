import Synchronization

/// A seam where tests make chosen syscalls fail, in the spirit of swift-system's `Mocking.swift`.
///
/// Every descriptor syscall of the copy, merge, split and checksum paths goes through
/// ``Syscall``, which asks ``FaultInjection/intercept(_:paths:)`` first. A rule makes the Nth
/// matching call of one syscall fail with an errno, or move fewer bytes than asked. Rules only
/// match calls whose path contains the rule's `pathContains`, so a test that scopes its rules
/// to its own temporary folder cannot disturb tests running beside it.
///
/// ## Implementation details
/// When no rule is installed the cost is one relaxed atomic load per call. Installing is
/// internal API (reached with `@testable import GCDCatCore`), and ``withFaults(_:_:)`` holds a
/// process-wide lock so that two tests never share injected faults.
package enum FaultInjection {
    /// The syscalls that can be made to fail.
    package enum Call: String, Sendable, CaseIterable {
        case copyFileRange = "copy_file_range"
        case cloneRange = "ficlonerange"
        case sendfile, pread, pwrite, read, write, fallocate, ftruncate, fsync, mmap, malloc, openat2
    }

    package enum Effect: Sendable, Equatable {
        /// The call fails with this errno and does nothing.
        case fail(Int32)
        /// The call moves at most this many bytes (a short read, write or copy).
        case short(Int)
    }

    package struct Rule: Sendable {
        package var call: Call
        /// Only calls naming a path that contains this are counted, and only they can fail.
        package var pathContains: String
        /// The first matching call that fails, counting from 1.
        package var nth: Int
        /// How many matching calls in a row fail, from the Nth on.
        package var times: Int
        package var effect: Effect

        package init(_ call: Call, pathContains: String, nth: Int = 1, times: Int = 1, _ effect: Effect) {
            self.call = call
            self.pathContains = pathContains
            self.nth = nth
            self.times = times
            self.effect = effect
        }
    }

    private struct State {
        package var rules: [Rule] = []
        /// Matching calls seen so far, per rule.
        package var seen: [Int] = []
        /// Faults delivered, per rule.
        package var fired: [Int] = []
    }

    private static let armed = Atomic<Bool>(false)
    private static let state = Mutex(State())
    /// Held for the whole of ``withFaults(_:_:)``: one test's faults at a time.
    private static let exclusive = Mutex(())

    /// The fault for this call, if a rule asks for one. Cheap when nothing is installed.
    @inline(__always)
    package static func intercept(_ call: Call, paths: (String, String?)) -> Effect? {
        guard armed.load(ordering: .relaxed) else { return nil }
        return match(call, paths: paths)
    }

    private static func match(_ call: Call, paths: (String, String?)) -> Effect? {
        state.withLock { state in
            var effect: Effect?
            // Every matching rule counts the call; the first that is due fires.
            for (index, rule) in state.rules.enumerated() where rule.call == call {
                guard paths.0.contains(rule.pathContains) || (paths.1?.contains(rule.pathContains) ?? false)
                else { continue }
                state.seen[index] += 1
                if effect == nil, state.seen[index] >= rule.nth, state.fired[index] < rule.times {
                    state.fired[index] += 1
                    effect = rule.effect
                }
            }
            return effect
        }
    }

    /// Runs `body` with `rules` installed; returns its result and how many faults fired.
    package static func withFaults<T>(_ rules: [Rule], _ body: () throws -> T) rethrows -> (value: T, fired: Int) {
        try exclusive.withLock { _ in
            state.withLock {
                $0 = State(rules: rules, seen: rules.map { _ in 0 }, fired: rules.map { _ in 0 })
            }
            armed.store(true, ordering: .sequentiallyConsistent)
            defer {
                armed.store(false, ordering: .sequentiallyConsistent)
                state.withLock { $0 = State() }
            }
            let value = try body()
            return (value, state.withLock { $0.fired.reduce(0, +) })
        }
    }
}
