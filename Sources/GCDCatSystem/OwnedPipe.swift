import CSystemShim

#if canImport(Glibc)
    import Glibc
#endif

/// A pipe's two ends, each owned, both close-on-exec from the start: a program another thread
/// starts meanwhile must not inherit a write end, or the reader here would wait for its EOF
/// until that program exits. (A spawn's dup2 onto 0, 1 or 2 clears the flag on the copy.)
package struct OwnedPipe: ~Copyable {
    package var readEnd: OwnedDescriptor
    package var writeEnd: OwnedDescriptor

    /// ## Errors
    /// `pipe`'s, naming `path` (the program or part the pipe is for).
    package init(for path: String) throws(GCDCatError) {
        var ends: [Int32] = [-1, -1]
        guard gcdcat_pipe_cloexec(&ends) == 0 else { throw .syscall("pipe", path: path, errno: errno) }
        readEnd = OwnedDescriptor(adopting: ends[0])
        writeEnd = OwnedDescriptor(adopting: ends[1])
    }

    /// Closes the write end and hands over the read end: for the parent once a child holds its
    /// own copy of the write end, so the read sees EOF when the child is done.
    package consuming func keepingReadEnd() -> OwnedDescriptor {
        let writer = writeEnd
        _ = consume writer
        return readEnd
    }

    /// Closes the read end and hands over the write end: for the parent once a child holds its
    /// own copy of the read end, so the child sees EOF when the parent closes its write end.
    package consuming func keepingWriteEnd() -> OwnedDescriptor {
        let reader = readEnd
        _ = consume reader
        return writeEnd
    }
}
