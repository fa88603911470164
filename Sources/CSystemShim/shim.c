#define _GNU_SOURCE
#include "CSystemShim.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <pthread.h>
#include <unistd.h>

ssize_t gcdcat_copy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len) {
    return copy_file_range(fd_in, (loff_t *)off_in, fd_out, (loff_t *)off_out, len, 0);
}

int gcdcat_clone_range(int fd_in, int64_t off_in, int fd_out, int64_t off_out, int64_t len) {
    struct file_clone_range range = {
        .src_fd = fd_in, .src_offset = (uint64_t)off_in, .src_length = (uint64_t)len, .dest_offset = (uint64_t)off_out};
    return ioctl(fd_out, FICLONERANGE, &range);
}

ssize_t gcdcat_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count) {
    return sendfile(out_fd, in_fd, (off_t *)offset, count);
}

int gcdcat_fallocate(int fd, int64_t offset, int64_t len) {
    return fallocate(fd, 0, (off_t)offset, (off_t)len);
}

int gcdcat_fadvise_sequential(int fd) {
    return posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
}

int gcdcat_fadvise_willneed(int fd, int64_t offset, int64_t len) {
    return posix_fadvise(fd, (off_t)offset, (off_t)len, POSIX_FADV_WILLNEED);
}

int gcdcat_fadvise_dontneed(int fd, int64_t offset, int64_t len) {
    return posix_fadvise(fd, (off_t)offset, (off_t)len, POSIX_FADV_DONTNEED);
}

int gcdcat_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int gcdcat_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

void *gcdcat_map_readonly(int fd, size_t length, int64_t offset, int populate) {
    int flags = MAP_SHARED | (populate ? MAP_POPULATE : 0);
    void *p = mmap(NULL, length, PROT_READ, flags, fd, (off_t)offset);
    return p == MAP_FAILED ? NULL : p;
}

int gcdcat_unmap(void *address, size_t length) {
    return munmap(address, length);
}

int gcdcat_errno(void) {
    return errno;
}

int gcdcat_stat(const char *path, struct stat *info) {
    return stat(path, info);
}

long gcdcat_filesystem_type(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? (long)info.f_type : 0;
}

void *gcdcat_memrchr(const void *s, int c, size_t n) {
    return memrchr(s, c, n);
}

long gcdcat_fd_filesystem_type(int fd) {
    struct statfs info;
    return fstatfs(fd, &info) == 0 ? (long)info.f_type : 0;
}

int gcdcat_open_beneath(int directory, const char *name, int flags) {
    struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC), .resolve = RESOLVE_BENEATH};
    return (int)syscall(SYS_openat2, directory, name, &how, sizeof how);
}

int gcdcat_open_folder(const char *path) { return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC); }

int gcdcat_open_tmpfile(const char *directory, mode_t mode) {
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
}

int gcdcat_link_descriptor(int fd, const char *target) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW);
}

static int gcdcat_signal_write_end = -1;
/// The pipe's read end once handlers are installed (by gcdcat_install_early_signals or
/// gcdcat_install_signal_pipe); -1 before.
static int gcdcat_signal_read_end = -1;
/// The signals whose handler gcdcat installed (not those left ignored).
static int gcdcat_handled_signals[16];
static int gcdcat_handled_count = 0;
/// 1 once a reader took the pipe's read end (gcdcat_install_signal_pipe); 0 before.
static int gcdcat_signal_reader = 0;

/// Set by the handler before it writes to the pipe: the signal has arrived even though the
/// thread that reads the pipe may not have run yet.
static volatile sig_atomic_t gcdcat_signal_seen = 0;

int gcdcat_signal_arrived(void) { return gcdcat_signal_seen != 0; }

static void gcdcat_signal_to_pipe(int signo) {
    int saved = errno;
    gcdcat_signal_seen = 1;
    unsigned char byte = (unsigned char)signo;
    // The write end does not block: a signal that finds the pipe full adds nothing to the
    // bytes already waiting there.
    ssize_t ignored = write(gcdcat_signal_write_end, &byte, 1);
    (void)ignored;
    errno = saved;
}

static int gcdcat_install_handlers(const int *signals, int count) {
    int ends[2];
    if (count > (int)(sizeof gcdcat_handled_signals / sizeof gcdcat_handled_signals[0])) return -1;
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
    int flags = fcntl(ends[1], F_GETFL);
    if (flags < 0 || fcntl(ends[1], F_SETFL, flags | O_NONBLOCK) != 0) {
        close(ends[0]);
        close(ends[1]);
        return -1;
    }
    gcdcat_signal_write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = gcdcat_signal_to_pipe;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++) sigaddset(&action.sa_mask, signals[i]);
    for (int i = 0; i < count; i++) {
        // A signal ignored when the process started stays ignored, as in coreutils: nohup
        // ignores SIGHUP so that a closed terminal does not end the job, and a shell without job
        // control starts background jobs with SIGINT and SIGQUIT ignored.
        struct sigaction current;
        if (sigaction(signals[i], NULL, &current) != 0) return -1;
        if (current.sa_handler == SIG_IGN) continue;
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
        gcdcat_handled_signals[gcdcat_handled_count++] = signals[i];
    }
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int i = 0; i < count; i++) sigaddset(&unblock, signals[i]);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    gcdcat_signal_read_end = ends[0];
    return ends[0];
}

int gcdcat_signal_ignored(int signal) {
    struct sigaction current;
    if (sigaction(signal, NULL, &current) != 0) return -1;
    return current.sa_handler == SIG_IGN ? 1 : 0;
}

int gcdcat_flush_stdout(void) {
    errno = 0;
    if (fflush(stdout) != 0) return errno != 0 ? errno : -1;
    return ferror(stdout) ? -1 : 0;
}

/// The signals gcdcat treats as a request to stop (InterruptHandler.signals lists the same).
static const int gcdcat_interrupt_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM};

/// The signals the Swift runtime's crash handler takes (swift-backtrace).
static const int gcdcat_crash_signals[] = {SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV};

/// 1 when gcdcat_install_early_signals set SWIFT_BACKTRACE itself.
static int gcdcat_backtrace_env_set = 0;

void gcdcat_install_early_signals(void) {
    if (getenv("SWIFT_BACKTRACE") == NULL) {
        // Read by the runtime's initializer if it has not run yet (a static binary may run it
        // after this); gcdcat_forget_backtrace_setting() removes it before any child starts.
        if (setenv("SWIFT_BACKTRACE", "enable=no", 1) == 0) gcdcat_backtrace_env_set = 1;
        // If it has run (libswiftCore.so initializes before the executable), its crash
        // handlers are in place: give those signals their default action back.
        for (size_t i = 0; i < sizeof gcdcat_crash_signals / sizeof gcdcat_crash_signals[0]; i++) {
            struct sigaction current;
            if (sigaction(gcdcat_crash_signals[i], NULL, &current) != 0) continue;
            if (current.sa_handler == SIG_IGN || current.sa_handler == SIG_DFL) continue;
            signal(gcdcat_crash_signals[i], SIG_DFL);
        }
    }
    gcdcat_install_handlers(gcdcat_interrupt_signals, (int)(sizeof gcdcat_interrupt_signals / sizeof(int)));
}

void gcdcat_forget_backtrace_setting(void) {
    if (gcdcat_backtrace_env_set) unsetenv("SWIFT_BACKTRACE");
    gcdcat_backtrace_env_set = 0;
}

int gcdcat_install_signal_pipe(const int *signals, int count) {
    if (gcdcat_signal_read_end >= 0) {
        gcdcat_signal_reader = 1;
        return gcdcat_signal_read_end;
    }
    int readEnd = gcdcat_install_handlers(signals, count);
    if (readEnd >= 0) gcdcat_signal_reader = 1;
    return readEnd;
}

void gcdcat_default_signal_actions(void) {
    if (gcdcat_signal_reader || gcdcat_signal_read_end < 0) return;
    for (int i = 0; i < gcdcat_handled_count; i++) signal(gcdcat_handled_signals[i], SIG_DFL);
    // A signal that came before now takes its default action.
    int flags = fcntl(gcdcat_signal_read_end, F_GETFL);
    if (flags >= 0) fcntl(gcdcat_signal_read_end, F_SETFL, flags | O_NONBLOCK);
    unsigned char byte;
    if (read(gcdcat_signal_read_end, &byte, 1) == 1) raise(byte);
}

/// Address space gcdcat needs beyond what its libraries map at startup, found by lowering
/// `ulimit -v` until a small merge trapped in the Swift runtime.
#define GCDCAT_ADDRESS_SPACE_FLOOR (8 << 20)

int gcdcat_probe_address_space(size_t length);

int gcdcat_address_space_limited(void) {
    struct rlimit limit;
    return getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
}

void gcdcat_adapt_to_address_space_limit(void) {
    if (!gcdcat_address_space_limited()) return;
    // Each malloc arena past the first reserves 64 MiB (128 MiB while it aligns it), and each
    // thread's stack is RLIMIT_STACK, 8 MiB: under `ulimit -v` those reservations, not data,
    // exhausted the address space, and C code that met the failed malloc crashed (SIGSEGV).
    mallopt(M_ARENA_MAX, 1);
    // The Swift runtime traps when an allocation fails ("failed to allocate", exit 134): a limit
    // that leaves too little room to run at all is refused here, before any Swift code, with an
    // error and exit 1 (a merge or split checks its own needs once it knows its parts).
    if (gcdcat_probe_address_space(GCDCAT_ADDRESS_SPACE_FLOOR) != 0) {
        struct rlimit limit;
        getrlimit(RLIMIT_AS, &limit);
        char message[256];
        int length = snprintf(
            message, sizeof message,
            "gcdcat: mmap: Cannot allocate memory: the address-space limit (ulimit -v %lu) leaves less than the "
            "%d MiB gcdcat needs to run; nothing was read or written (raise the limit)\n",
            (unsigned long)(limit.rlim_cur / 1024), GCDCAT_ADDRESS_SPACE_FLOOR >> 20);
        if (length > 0) (void)!write(2, message, (size_t)length < sizeof message ? (size_t)length : sizeof message - 1);
        _exit(1);
    }
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return;
    if (pthread_attr_setstacksize(&attributes, 2 << 20) == 0) pthread_setattr_default_np(&attributes);
    pthread_attr_destroy(&attributes);
}

int gcdcat_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

void gcdcat_set_errno(int code) {
    errno = code;
}

void *gcdcat_aligned_alloc(size_t alignment, size_t size) {
    void *p = NULL;
    int code = posix_memalign(&p, alignment, size == 0 ? 1 : size);
    if (code != 0) {
        errno = code;
        return NULL;
    }
    return p;
}

int gcdcat_ftruncate(int fd, int64_t length) {
    return ftruncate(fd, (off_t)length);
}

int gcdcat_probe_address_space(size_t length) {
    void *p = mmap(NULL, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    munmap(p, length);
    return 0;
}

int gcdcat_setxattr(const char *path, const char *name, const void *value, size_t size) {
    return setxattr(path, name, value, size, 0);
}

ssize_t gcdcat_getxattr(const char *path, const char *name, void *value, size_t size) {
    return getxattr(path, name, value, size);
}
