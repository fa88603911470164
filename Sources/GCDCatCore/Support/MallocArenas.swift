import CSystemShim

/// glibc's malloc arenas, which reserve address space per thread.
public enum MallocArenas {
    /// Allows at most `count` arenas. glibc reserves 64 MiB of address space per arena, up to
    /// 8 per core: with libdispatch's threads that alone exhausted a `ulimit -v` of 1 GB and
    /// aborted a split of 100000 parts. gcdcat's buffers are few and pooled, so two suffice.
    public static func limit(to count: Int32) {
        _ = gcdcat_limit_malloc_arenas(count)
    }
}
