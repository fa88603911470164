import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The check a job makes, once it knows its size and before it creates anything, that an
/// address-space limit (`ulimit -v`) leaves it room: without it, the run met the limit halfway,
/// in a thread's stack, in malloc under libdispatch or in the Swift runtime, which end in
/// SIGSEGV or an abort ("failed to allocate"), not in an error.
enum AddressSpace {
    /// Refuses a job that needs `needed` bytes of address space the limit does not leave: `job`
    /// says who needs them (`a split into 20000 parts`), `fix` what to do.
    ///
    /// ## Errors
    /// `.io` naming `path`, `mmap` and ENOMEM, with the room needed.
    static func require(_ needed: Int, by job: String, fix: String, path: String) throws {
        do {
            try Syscall.requireAddressSpace(needed, path: path)
        } catch {
            throw GCDCatError(
                .io, path: path, syscall: "mmap", errno: error.errno ?? ENOMEM,
                message:
                    "\(describeErrno(error.errno ?? ENOMEM)): beyond what gcdcat and its libraries already map, the "
                    + "address-space limit (ulimit -v) leaves less than the \(needed >> 20) MiB \(job) needs; nothing was "
                    + "written (\(fix))")
        }
    }
}
