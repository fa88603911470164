import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One buffer over a stream read in order (standard input, a pipe): the bytes read and not yet
/// used, read again only when they are used up. Past the stream's end it reads no more: a
/// terminal would wait for another line.
struct StreamWindow: ~Copyable {
    private let fd: Int32
    private let path: String
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int
    private var start = 0
    private var end = 0
    private var ended = false

    /// ## Errors
    /// `.io` naming `path` when the buffer cannot be allocated.
    init(fd: Int32, path: String, capacity: Int) throws {
        self.fd = fd
        self.path = path
        self.capacity = capacity
        buffer = try Syscall.allocate(byteCount: capacity, alignment: 4096, path: path)
    }

    deinit { free(buffer) }

    /// The bytes read and not yet used.
    var available: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: buffer + start, count: end - start)
    }

    /// Whether bytes are available, reading once when none are; false at the stream's end.
    ///
    /// ## Errors
    /// `.io` naming the stream when the read fails.
    mutating func refill() throws -> Bool {
        if start < end { return true }
        if ended { return false }
        (start, end) = (0, try Syscall.read(fd, into: buffer, count: capacity, path: path))
        ended = end == 0
        return !ended
    }

    /// Marks the first `count` available bytes used.
    mutating func consume(_ count: Int) {
        precondition(count <= end - start, "more bytes used than were read")
        start += count
    }
}
