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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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

int gcdcat_open_tmpfile(const char *directory, mode_t mode) {
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
}

int gcdcat_link_descriptor(int fd, const char *target) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW);
}

static int gcdcat_signal_write_end = -1;

static void gcdcat_signal_to_pipe(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    ssize_t ignored = write(gcdcat_signal_write_end, &byte, 1);
    (void)ignored;
    errno = saved;
}

int gcdcat_install_signal_pipe(const int *signals, int count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
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
    }
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int i = 0; i < count; i++) sigaddset(&unblock, signals[i]);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
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
