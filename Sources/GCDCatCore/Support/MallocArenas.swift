import CSystemShim

/// glibc's malloc arenas, which reserve address space per thread.
public enum MallocArenas {
    /// Allows at most `count` arenas. glibc reserves 64 MiB of address space per arena, up to
    /// 8 per core: with libdispatch's threads that alone exhausted a `ulimit -v` of 1 GB and
    /// aborted a split of 100000 parts. gcdcat's buffers are few and pooled, so two suffice.
    /// Under an address-space limit (`ulimit -v`) it stays at the one arena the executable set
    /// before `main` (``gcdcat_adapt_to_address_space_limit``): a second one's reservation
    /// alone could take what is left.
    public static func limit(to count: Int32) {
        _ = gcdcat_limit_malloc_arenas(gcdcat_address_space_limited() != 0 ? 1 : count)
    }
}
