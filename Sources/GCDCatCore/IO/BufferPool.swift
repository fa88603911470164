import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A fixed set of page-aligned buffers, handed out and returned instead of allocated per chunk.
///
/// libdispatch allocates a fresh buffer for every chunk it reads, and on a VM each fresh page
/// costs a fault: a naive DispatchIO merge ran at a sixth of `cat`'s speed here. Reusing a few
/// buffers keeps both the time and the anonymous memory flat (`count × size` at most).
public final class BufferPool: Sendable {
    public let bufferSize: Int
    public let capacity: Int
    private let all: [UnsafeMutableRawPointerBox]
    private let free: Mutex<[Int]>

    /// Allocates `count` buffers of `size` bytes.
    ///
    /// ## Errors
    /// `malloc` (ENOMEM) naming `path` when the memory cannot be had (under `ulimit -v`, say):
    /// `size` comes from the user, so this fails cleanly rather than trapping.
    public init(count: Int, size: Int, path: String) throws {
        precondition(count > 0 && size > 0, "a pool needs at least one non-empty buffer")
        bufferSize = size
        capacity = count
        var made: [UnsafeMutableRawPointerBox] = []
        do {
            for _ in 0..<count {
                made.append(
                    UnsafeMutableRawPointerBox(
                        try Syscall.allocate(byteCount: size, alignment: Int(getpagesize()), path: path)))
            }
        } catch {
            for box in made { Glibc.free(box.pointer) }
            throw error
        }
        all = made
        free = Mutex(Array((0..<count).reversed()))
    }

    deinit {
        for box in all { Glibc.free(box.pointer) }
    }

    /// A free buffer, or nil when all are in use.
    public func take() -> Buffer? {
        free.withLock { $0.popLast() }.map {
            Buffer(index: $0, pointer: all[$0].pointer, size: bufferSize)
        }
    }

    /// Returns a buffer taken from this pool.
    public func give(_ buffer: Buffer) {
        free.withLock { $0.append(buffer.index) }
    }

    /// A buffer on loan from a ``BufferPool``.
    public struct Buffer: @unchecked Sendable {
        let index: Int
        /// Only the holder of the loan touches the bytes, which is what makes sending it safe.
        public let pointer: UnsafeMutableRawPointer
        public let size: Int
    }
}

/// A raw pointer the pool owns for its whole life and never shares unguarded.
private struct UnsafeMutableRawPointerBox: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
