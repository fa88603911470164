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
#include <spawn.h>
#include <termios.h>
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

/// The process groups of the children gcdcat waits on (a credential_process), each with the line
/// that names it; a slot is free when its group is 0, and GCDCAT_WAIT_ONLY names a wait with no
/// process to stop (gcdcat_guard_wait). Read by signal handlers, so plain words only.
#define GCDCAT_GUARDED_SLOTS 8
#define GCDCAT_WAIT_ONLY (-1)
static volatile pid_t gcdcat_guarded_group[GCDCAT_GUARDED_SLOTS];
static const char *volatile gcdcat_guarded_line[GCDCAT_GUARDED_SLOTS];
static volatile sig_atomic_t gcdcat_guarded_stopped = 0;
static pthread_mutex_t gcdcat_guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int gcdcat_guard_count = 0;
/// The signals whose default action gcdcat_guard_handler stands in for while a group is guarded.
static int gcdcat_guard_installed[8];
static int gcdcat_guard_installed_count = 0;

static const char *gcdcat_signal_name(int signo) {
    switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    case SIGQUIT: return "SIGQUIT";
    case SIGALRM: return "SIGALRM";
    default: return "a signal";
    }
}

static void gcdcat_write_all(const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(2, text, length);
        if (written <= 0) {
            if (written < 0 && errno == EINTR) continue;
            return;
        }
        text += written;
        length -= (size_t)written;
    }
}

/// Kills every guarded group (SIGKILL) and names each on standard error: async-signal-safe.
static void gcdcat_stop_guarded_groups(int signo) {
    for (int i = 0; i < GCDCAT_GUARDED_SLOTS; i++) {
        pid_t group = gcdcat_guarded_group[i];
        if (group <= 0 && group != GCDCAT_WAIT_ONLY) continue;
        if (group > 0) {
            kill(-group, SIGKILL);
            gcdcat_guarded_stopped = 1;
        }
        if (signo == SIGPIPE) continue;
        const char *line = gcdcat_guarded_line[i];
        gcdcat_write_all("\ngcdcat: interrupted by ");
        gcdcat_write_all(gcdcat_signal_name(signo));
        gcdcat_write_all(" while waiting for ");
        if (line) gcdcat_write_all(line);
        gcdcat_write_all("\n");
    }
}

/// Stands in for a default action while a group is guarded: stops the groups, then takes the
/// default action (the process ends by the signal, as it would have).
static void gcdcat_guard_handler(int signo) {
    gcdcat_stop_guarded_groups(signo);
    signal(signo, SIG_DFL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signo);
    raise(signo);
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
}

/// The signals gcdcat treats as a request to stop (as gcdcat_interrupt_signals below).
static const int gcdcat_guard_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM};
#define GCDCAT_GUARD_SIGNAL_COUNT (sizeof gcdcat_guard_signals / sizeof gcdcat_guard_signals[0])

int gcdcat_guard_group(pid_t group, const char *line) {
    pthread_mutex_lock(&gcdcat_guard_lock);
    int slot = -1;
    for (int i = 0; i < GCDCAT_GUARDED_SLOTS; i++) {
        if (gcdcat_guarded_group[i] == 0) {
            slot = i;
            break;
        }
    }
    if (slot >= 0) {
        gcdcat_guarded_line[slot] = line;
        gcdcat_guarded_group[slot] = group;
        if (gcdcat_guard_count++ == 0) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_handler = gcdcat_guard_handler;
            sigemptyset(&action.sa_mask);
            for (size_t i = 0; i < GCDCAT_GUARD_SIGNAL_COUNT; i++) sigaddset(&action.sa_mask, gcdcat_guard_signals[i]);
            gcdcat_guard_installed_count = 0;
            for (size_t i = 0; i < GCDCAT_GUARD_SIGNAL_COUNT; i++) {
                struct sigaction current;
                if (sigaction(gcdcat_guard_signals[i], NULL, &current) != 0) continue;
                // Only a default action: an ignored signal stays ignored, and gcdcat's own
                // handlers (the signal pipe) stop the groups themselves.
                if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;
                if (sigaction(gcdcat_guard_signals[i], &action, NULL) == 0)
                    gcdcat_guard_installed[gcdcat_guard_installed_count++] = gcdcat_guard_signals[i];
            }
        }
    }
    pthread_mutex_unlock(&gcdcat_guard_lock);
    return slot;
}

int gcdcat_guard_wait(const char *line) { return gcdcat_guard_group(GCDCAT_WAIT_ONLY, line); }

void gcdcat_release_group(int slot) {
    if (slot < 0 || slot >= GCDCAT_GUARDED_SLOTS) return;
    pthread_mutex_lock(&gcdcat_guard_lock);
    gcdcat_guarded_group[slot] = 0;
    gcdcat_guarded_line[slot] = NULL;
    if (--gcdcat_guard_count == 0) {
        for (int i = 0; i < gcdcat_guard_installed_count; i++) {
            struct sigaction current;
            if (sigaction(gcdcat_guard_installed[i], NULL, &current) != 0) continue;
            if (current.sa_handler == gcdcat_guard_handler) signal(gcdcat_guard_installed[i], SIG_DFL);
        }
        gcdcat_guard_installed_count = 0;
    }
    pthread_mutex_unlock(&gcdcat_guard_lock);
}

int gcdcat_guarded_groups_stopped(void) { return gcdcat_guarded_stopped != 0; }

int gcdcat_spawn_in_group(
    pid_t *pid, const char *file, posix_spawn_file_actions_t *actions, char *const argv[], char *const envp[],
    int foreground) {
    posix_spawnattr_t attributes;
    int failed = posix_spawnattr_init(&attributes);
    if (failed != 0) return failed;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &none);
    // Standard input is the terminal and gcdcat its foreground: the child's group becomes the
    // terminal's foreground, so that it may prompt (a background group reading it is stopped).
    if (foreground) posix_spawn_file_actions_addtcsetpgrp_np(actions, 0);
    failed = posix_spawnp(pid, file, actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    return failed;
}

int gcdcat_terminal_foreground(void) {
    if (!isatty(0)) return 0;
    pid_t foreground = tcgetpgrp(0);
    return foreground > 0 && foreground == getpgrp() ? 1 : 0;
}

void gcdcat_take_terminal_back(void) {
    // From a background group tcsetpgrp raises SIGTTOU, which would stop gcdcat: blocked here.
    sigset_t block, saved;
    sigemptyset(&block);
    sigaddset(&block, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    tcsetpgrp(0, getpgrp());
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void gcdcat_suspend_with_group(pid_t group) {
    // The terminal goes back to gcdcat's group only from the child's: a child stopped while it
    // was not the foreground (gcdcat continued with `bg`, the child's read then stopped by
    // SIGTTIN) leaves the terminal with whoever holds it (the shell).
    if (isatty(0) && tcgetpgrp(0) == group) gcdcat_take_terminal_back();
    // Stopped as the terminal would have stopped gcdcat's group, had it been the foreground: the
    // shell sees the job stop and takes the terminal. An ignored or handled SIGTSTP would not
    // have stopped it, nor does it here; in an orphaned group the kernel discards it.
    struct sigaction current;
    if (sigaction(SIGTSTP, NULL, &current) == 0 && current.sa_handler == SIG_DFL && !(current.sa_flags & SA_SIGINFO))
        kill(0, SIGTSTP);
    // Continued (fg, bg): the terminal goes to the child's group when gcdcat's holds it (fg).
    if (isatty(0) && tcgetpgrp(0) == getpgrp()) {
        sigset_t block, saved;
        sigemptyset(&block);
        sigaddset(&block, SIGTTOU);
        pthread_sigmask(SIG_BLOCK, &block, &saved);
        tcsetpgrp(0, group);
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
    }
    kill(-group, SIGCONT);
}

static void gcdcat_signal_to_pipe(int signo) {
    int saved = errno;
    gcdcat_signal_seen = 1;
    // A child gcdcat waits on (credential_process) is in a group of its own: the terminal's
    // signal does not reach it, so it is stopped here, before the sweep.
    if (gcdcat_signal_reader) gcdcat_stop_guarded_groups(signo);
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
