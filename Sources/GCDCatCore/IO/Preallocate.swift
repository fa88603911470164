import CSystemShim

#if canImport(Glibc)
    import Glibc
#endif

/// Reserves the output's blocks; filesystems without `fallocate` are simply written.
func preallocate(_ output: OutputSink, bytes: Int64) throws {
    while Syscall.fallocate(output.fd, length: bytes, path: output.path) != 0 {
        let code = gcdcat_errno()
        if code == EINTR { continue }
        if code == EOPNOTSUPP || code == ENOSYS || code == EINVAL { return }
        throw GCDCatError.syscall("fallocate", path: output.path, errno: code)
    }
}
