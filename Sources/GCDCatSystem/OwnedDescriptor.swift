#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor with exactly one owner, which closes it exactly once.
///
/// It cannot be copied, so two owners cannot both close it (the second `close` could shut a
/// descriptor another thread has just been given the same number for). It closes when its owner
/// goes away, on every path out of a scope, thrown errors included; ``release()`` hands the
/// number to an owner outside Swift's view, such as a DispatchIO channel's cleanup handler.
package struct OwnedDescriptor: ~Copyable {
    /// The descriptor, for syscalls; valid while this value lives.
    package let raw: Int32

    /// Takes ownership of `raw`, an open descriptor nobody else will close.
    package init(adopting raw: Int32) {
        self.raw = raw
    }

    /// Opens `path` (close-on-exec, retried on EINTR) and owns the descriptor.
    ///
    /// ## Errors
    /// `open`'s, naming `path`.
    package init(opening path: String, _ flags: Int32, mode: mode_t = 0) throws(GCDCatError) {
        self.raw = try Syscall.open(path, flags, mode: mode)
    }

    deinit {
        // A read-only descriptor's close cannot lose data; EINTR leaves it closed on Linux.
        _ = Glibc.close(raw)
    }

    /// Closes now and reports a failure: for a descriptor that was written, whose `close` can
    /// be the first to report a lost write (NFS, EIO), which ``deinit`` would drop.
    ///
    /// ## Errors
    /// `close`'s, naming `path`.
    package consuming func close(path: String) throws(GCDCatError) {
        let raw = self.raw
        discard self
        try Syscall.close(raw, path: path)
    }

    /// Gives up ownership: the caller closes the returned descriptor.
    package consuming func release() -> Int32 {
        let raw = self.raw
        discard self
        return raw
    }
}

extension Optional where Wrapped == OwnedDescriptor {
    /// The descriptor's number, lent for syscalls while this value lives; nil for none.
    package var raw: Int32? {
        switch self {
        case .some(let descriptor): descriptor.raw
        case .none: nil
        }
    }
}

/// A regular file open for reading (``Syscall/openRegularFile(_:)``): its descriptor, which
/// closes with it, and its size when it was opened.
package struct OpenedRegularFile: ~Copyable {
    package let descriptor: OwnedDescriptor
    package let size: Int64

    /// The descriptor's number, lent for reads while this value lives.
    package var raw: Int32 { descriptor.raw }

    /// The descriptor alone, for an owner that needs no size.
    package consuming func takeDescriptor() -> OwnedDescriptor {
        descriptor
    }
}
