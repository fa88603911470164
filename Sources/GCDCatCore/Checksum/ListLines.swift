import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of checksum-list bytes, as every list reader splits them: on LF only (a name may
/// hold any other byte), a CR before the LF dropped as CRLF's, a UTF-8 byte-order mark at the
/// head skipped. Lines are numbered from 1; the text after the last LF is a line too.
enum ListLines {
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Calls `body` with each complete line of `bytes` (those ending in LF, or every line when
    /// `final`) and its number, starting at `firstNumber`; returns how many bytes it consumed
    /// (an incomplete last line is left for the next block) and the next line's number.
    static func forEach(
        in bytes: UnsafeBufferPointer<UInt8>, firstNumber: Int, final: Bool,
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void
    ) rethrows -> (consumed: Int, nextNumber: Int) {
        guard let base = bytes.baseAddress else {
            if final { try body(bytes, firstNumber) }
            return (0, firstNumber + (final ? 1 : 0))
        }
        var start = 0
        var number = firstNumber
        while start < bytes.count {
            guard let found = memchr(base + start, 0x0A, bytes.count - start) else { break }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            try body(line(base, start, end), number)
            number += 1
            start = end + 1
        }
        guard final else { return (start, number) }
        try body(line(base, start, bytes.count), number)
        return (bytes.count, number + 1)
    }

    /// `start..<end` without a CR before its end.
    private static func line(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        let trimmed = end > start && base[end - 1] == 0x0D ? end - 1 : end
        return UnsafeBufferPointer(start: base + start, count: trimmed - start)
    }

    /// Every line of `bytes`, which are a whole list.
    static func forEach(
        in bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void
    ) rethrows {
        try bytes.withUnsafeBufferPointer { buffer in
            let skip = buffer.starts(with: byteOrderMark) ? byteOrderMark.count : 0
            _ = try forEach(in: UnsafeBufferPointer(rebasing: buffer[skip...]), firstNumber: 1, final: true, body)
        }
    }
}

/// A checksum list to read line by line, as often as needed, without holding it: a regular
/// file is read a block at a time with `pread` (each pass from its start), so a list of any
/// length costs one block of memory; standard input, which cannot be read twice, is kept, and
/// so is a pipe (`<(cmd)`, a FIFO) when the reader accepts one.
public final class ChecksumListSource {
    /// The list's path as given (`-` for standard input).
    public let path: String
    /// The path whose folder the listed names are relative to: ``path``, or `-` (the current
    /// folder) for standard input and a pipe, whose folder (`/dev/fd`) says nothing.
    public let namesRelativeTo: String
    /// The name errors give it: its path, or "standard input".
    public let shown: String
    /// The open list, closed with this value; `fd` is its number (an optional noncopyable value
    /// cannot be read through without being consumed).
    private let descriptor: OwnedDescriptor?
    private let fd: Int32?
    private let bytes: [UInt8]
    static let blockSize = 1 << 20
    /// The longest line read: far beyond any name and digest, and what a file that is not a
    /// list (one without newlines) may cost before it is refused. Lists are otherwise of any
    /// length (650,000 lines were refused at a 64 MiB size limit that is gone).
    static let longestLine = 16 << 20

    /// Opens the list at `path`; `-` reads standard input to its end, and so is a pipe or FIFO
    /// read when `readingPipes` (as `verify <(cmd)` gives one): to its end, as standard input.
    ///
    /// ## Errors
    /// `.io` when it cannot be read, `.missingPart` when it does not exist, `.invalidInput` when
    /// it is not a regular file (a directory; a pipe unless `readingPipes`). A file of any size
    /// is read: only a line over ``longestLine`` is refused, when it is met.
    public init(_ path: String, readingPipes: Bool = false) throws {
        self.path = path
        if path == "-" {
            shown = "standard input"
            namesRelativeTo = "-"
            descriptor = nil
            fd = nil
            bytes = try Syscall.readToEnd(0, path: shown)
            return
        }
        shown = path
        if readingPipes, let pipe = try Self.openPipe(path) {
            namesRelativeTo = "-"
            descriptor = nil
            fd = nil
            bytes = try Syscall.readToEnd(pipe.raw, path: path)
            return
        }
        namesRelativeTo = path
        let opened = try PartFile.openValidated(path)
        fd = opened.descriptor.raw
        descriptor = consume opened.descriptor
        bytes = []
    }

    /// `path` opened for blocking reads when it is a pipe or FIFO; nil for anything else.
    ///
    /// The open does not block (a FIFO with no writer would hold it for ever, signals
    /// deferred); the reads then do, as on standard input, until every writer is gone: at
    /// once when a FIFO has none, which reads as an empty list.
    private static func openPipe(_ path: String) throws -> OwnedDescriptor? {
        let descriptor = try PartFile.openForReading(path, noAccessTime: false)
        let info = try Syscall.fstat(descriptor.raw, path: path)
        guard info.st_mode & S_IFMT == S_IFIFO else { return nil }
        let flags = fcntl(descriptor.raw, F_GETFL)
        guard flags >= 0, fcntl(descriptor.raw, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            throw GCDCatError.syscall("fcntl", path: path, errno: errno)
        }
        return descriptor
    }

    /// A list already in memory (an object's, fetched), named `shown` in errors.
    public init(bytes: [UInt8], shown: String) {
        path = shown
        namesRelativeTo = shown
        self.shown = shown
        descriptor = nil
        fd = nil
        self.bytes = bytes
    }

    /// Calls `body` with every line and its number, from the list's start.
    ///
    /// ## Errors
    /// `.io` naming the list and `read` when a block cannot be read; and `body`'s.
    public func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
        guard let fd else { return try ListLines.forEach(in: bytes, body) }
        var capacity = Self.blockSize
        var buffer = try Syscall.allocate(byteCount: capacity, alignment: 16, path: path)
        defer { free(buffer) }
        var offset: Int64 = 0
        var held = 0  // bytes of an unfinished line at the buffer's start
        var number = 1
        var first = true
        while true {
            if held == capacity {  // a line longer than the block: room for it
                guard capacity < Self.longestLine else {
                    throw GCDCatError(
                        .malformedManifest, path: path,
                        message: "line \(number): longer than \(Self.longestLine >> 20) MiB; not a checksum list")
                }
                capacity *= 2
                let larger = try Syscall.allocate(byteCount: capacity, alignment: 16, path: path)
                larger.copyMemory(from: buffer, byteCount: held)
                free(buffer)
                buffer = larger
            }
            let got = try Syscall.pread(fd, into: buffer + held, count: capacity - held, offset: offset, path: path)
            offset += Int64(got)
            let filled = held + got
            let all = UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: UInt8.self), count: filled)
            let skip = first && all.starts(with: ListLines.byteOrderMark) ? ListLines.byteOrderMark.count : 0
            first = false
            let (consumed, next) = try ListLines.forEach(
                in: UnsafeBufferPointer(rebasing: all[skip...]), firstNumber: number, final: got == 0, body)
            number = next
            if got == 0 { return }
            held = filled - skip - consumed
            memmove(buffer, buffer + skip + consumed, held)  // overlapping
        }
    }
}
