#ifndef GCDCAT_CSYSTEMSHIM_H
#define GCDCAT_CSYSTEMSHIM_H

#include <spawn.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/// copy_file_range(2) with optional offsets (pass NULL to use and advance the file position).
ssize_t gcdcat_copy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len);

/// ioctl(FICLONERANGE): makes `len` bytes of `fd_out` at `off_out` share the blocks of `fd_in`
/// at `off_in` (a reflink; XFS, btrfs). Offsets and `len` must be block-aligned, except a `len`
/// that reaches the end of `fd_in`. -1 with errno (EOPNOTSUPP, EXDEV, EINVAL, ENOTTY) when not.
int gcdcat_clone_range(int fd_in, int64_t off_in, int fd_out, int64_t off_out, int64_t len);

/// sendfile(2); `offset` may be NULL.
ssize_t gcdcat_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count);

/// fallocate(2) with mode 0: reserves blocks and extends the size.
int gcdcat_fallocate(int fd, int64_t offset, int64_t len);

/// posix_fadvise(2). Returns an errno value (0 on success), as POSIX specifies.
int gcdcat_fadvise_sequential(int fd);
int gcdcat_fadvise_willneed(int fd, int64_t offset, int64_t len);
int gcdcat_fadvise_dontneed(int fd, int64_t offset, int64_t len);

/// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST instead of replacing.
int gcdcat_rename_noreplace(const char *from, const char *to);

/// `pipe2(fds, O_CLOEXEC)`: a pipe no program started meanwhile inherits (Glibc's module leaves
/// pipe2 out without _GNU_SOURCE).
int gcdcat_pipe_cloexec(int fds[2]);

/// mmap(2) of `length` bytes from page-aligned `offset`, for reading; MAP_FAILED becomes NULL (errno set).
void *gcdcat_map_readonly(int fd, size_t length, int64_t offset, int populate);
int gcdcat_unmap(void *address, size_t length);

/// Maps and unmaps `length` bytes of inaccessible address space: 0 when an address-space limit
/// (`ulimit -v`) leaves that much room, -1 with errno (ENOMEM) when not.
int gcdcat_probe_address_space(size_t length);

/// stat(2), which Swift cannot tell apart from `struct stat`.
int gcdcat_stat(const char *path, struct stat *info);

/// statfs(2)'s f_type (the filesystem magic number), or 0 on failure.
long gcdcat_filesystem_type(const char *path);

/// memrchr(3), a GNU extension: the last `c` in the `n` bytes at `s`, or NULL.
void *gcdcat_memrchr(const void *s, int c, size_t n);

/// fstatfs(2)'s f_type for an open descriptor, or 0 on failure.
long gcdcat_fd_filesystem_type(int fd);

/// openat2(2) of `name` relative to the folder open at `directory`, with RESOLVE_BENEATH: a
/// `..`, an absolute symlink or a relative one leading out of the folder fails with EXDEV
/// instead of being followed. `flags` gets O_CLOEXEC. -1 with errno (ENOSYS before Linux 5.6).
int gcdcat_open_beneath(int directory, const char *name, int flags);

/// Opens `path`, a folder, with O_PATH | O_DIRECTORY | O_CLOEXEC (O_PATH, which Glibc's module
/// leaves out without _GNU_SOURCE, needs no read permission): a base for gcdcat_open_beneath.
int gcdcat_open_folder(const char *path);

/// The errno of the calling thread.
int gcdcat_errno(void);

/// open(2) of an unnamed file in `directory` (O_TMPFILE | O_RDWR | O_CLOEXEC), mode narrowed by
/// the umask. Fails with EOPNOTSUPP, EISDIR or EINVAL where the filesystem lacks O_TMPFILE.
int gcdcat_open_tmpfile(const char *directory, mode_t mode);

/// Gives the unnamed file open at `fd` the name `target`:
/// linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD, target, AT_SYMLINK_FOLLOW). Fails with EEXIST
/// when `target` exists: it never replaces.
int gcdcat_link_descriptor(int fd, const char *target);

/// `setxattr(2)` and `getxattr(2)` (sys/xattr.h, which Glibc's module map leaves out): the
/// mark a split leaves on its parts.
int gcdcat_setxattr(const char *path, const char *name, const void *value, size_t size);
ssize_t gcdcat_getxattr(const char *path, const char *name, void *value, size_t size);

/// Installs one handler for each of the `count` signals in `signals` (SA_RESTART, all of them
/// blocked while it runs) that writes the signal's number as one byte to a pipe, and returns
/// the pipe's read end (-1 on failure). A thread reading it then does the real work outside
/// signal context. A signal whose disposition is SIG_IGN (inherited: nohup, a background job of
/// a shell without job control) is left ignored, as coreutils leaves it. When
/// gcdcat_install_early_signals installed them already, returns that pipe, with every signal
/// that came since waiting in it.
int gcdcat_install_signal_pipe(const int *signals, int count);

/// 1 once a handler of gcdcat_install_signal_pipe has run (a handled signal arrived), even if
/// the pipe's reader has not read it yet; 0 before.
int gcdcat_signal_arrived(void);

/// Guards a child's process group (a credential_process) while gcdcat waits on it: a handled
/// signal (SIGINT, TERM, HUP, PIPE, QUIT, ALRM) kills the group (SIGKILL) and writes
/// "gcdcat: interrupted by SIG… while waiting for `line`" to standard error, whether gcdcat's
/// signal pipe handles the signal or its default action would (then a handler does this and
/// takes the default action). `line` must live until gcdcat_release_group. Returns the slot for
/// gcdcat_release_group, or -1 when 8 groups are guarded already.
int gcdcat_guard_group(pid_t group, const char *line);

/// gcdcat_guard_group for a wait with no process of gcdcat's to stop (an HTTP request for
/// credentials): a signal only names it, "gcdcat: interrupted by SIG… while waiting for `line`",
/// and the process then ends by the signal as it would have. Ended by gcdcat_release_group.
int gcdcat_guard_wait(const char *line);

/// Ends the guard of gcdcat_guard_group's (or gcdcat_guard_wait's) `slot` (its child was reaped).
void gcdcat_release_group(int slot);

/// 1 once a signal killed a guarded group: the process is ending by that signal.
int gcdcat_guarded_groups_stopped(void);

/// posix_spawnp into a new process group of the child's own (its pid), with no signal blocked;
/// with `foreground`, that group is made the foreground of the terminal on standard input.
int gcdcat_spawn_in_group(
    pid_t *pid, const char *file, posix_spawn_file_actions_t *actions, char *const argv[], char *const envp[],
    int foreground);

/// 1 when standard input is a terminal whose foreground process group is gcdcat's.
int gcdcat_terminal_foreground(void);

/// Makes gcdcat's process group the foreground of the terminal on standard input again.
void gcdcat_take_terminal_back(void);

/// What a shell does when a job's process group stops: called when the child whose `group`
/// gcdcat made the terminal's foreground stopped (a Ctrl-Z at its prompt stopped only that
/// group). Gives the terminal back to gcdcat's group, stops gcdcat's group (SIGTSTP, unless
/// gcdcat ignores or handles it), and once continued gives the terminal to `group` again (when
/// gcdcat's group holds it: not after `bg`) and continues it (SIGCONT).
void gcdcat_suspend_with_group(pid_t group);

/// 1 when `signal`'s disposition is "ignore" (SIG_IGN), 0 when not, -1 on error.
int gcdcat_signal_ignored(int signal);

/// Flushes C's stdout: 0 when everything written through it so far reached the descriptor,
/// else the errno of the failure (-1 when a write failed earlier and left no errno).
int gcdcat_flush_stdout(void);

/// Run by the gcdcat executable before Swift's main (a constructor, GCDCatStartup): installs the
/// handlers of gcdcat_install_signal_pipe for SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT and
/// SIGALRM, so that a signal in the first milliseconds waits in the pipe instead of reaching a
/// default action or the Swift runtime's crash handler. Unless SWIFT_BACKTRACE is set, also
/// turns the runtime's backtracer off (SWIFT_BACKTRACE=enable=no for a runtime not yet
/// initialized, default actions for the crash signals of one that is): a crash then ends at
/// once, never waiting on swift-backtrace.
void gcdcat_install_early_signals(void);

/// Removes the SWIFT_BACKTRACE that gcdcat_install_early_signals set, so that child processes
/// see the environment gcdcat was given.
void gcdcat_forget_backtrace_setting(void);

/// For a command that does not handle interruptions itself: gives the early-installed signals
/// their default action back and raises a signal that came meanwhile. Does nothing once
/// gcdcat_install_signal_pipe was called.
void gcdcat_default_signal_actions(void);

/// 1 when an address-space limit (`ulimit -v`, RLIMIT_AS) is set.
int gcdcat_address_space_limited(void);

/// Under an address-space limit only (run before any thread starts): one malloc arena, and
/// 2 MiB stacks for new threads instead of RLIMIT_STACK's 8 MiB; a limit that leaves no room
/// to run ends the process with a message and exit 1.
void gcdcat_adapt_to_address_space_limit(void);

/// mallopt(M_ARENA_MAX, count): at most `count` malloc arenas. Returns 1 on success.
int gcdcat_limit_malloc_arenas(int count);

/// Sets the calling thread's errno (for injected faults).
void gcdcat_set_errno(int code);

/// posix_memalign(3) that returns NULL with errno set (ENOMEM) instead of trapping.
void *gcdcat_aligned_alloc(size_t alignment, size_t size);

/// ftruncate(2) with a 64-bit length.
int gcdcat_ftruncate(int fd, int64_t length);

#endif
