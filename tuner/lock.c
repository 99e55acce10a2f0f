/* Locks between stencilc processes: flock on a lock file, so the kernel releases a lock when its
 * holder dies (kill -9 included) and no stale lock outlives a crash.
 *
 * Two kinds: the tuning database's (DIR/lock, held for milliseconds around a write) and a GPU's
 * (held while one process tunes on it, so a `make -j` build times one kernel at a time per GPU
 * and no timing is disturbed by another's kernels). A GPU lock file holds its holder's PID and
 * what it does, so a process that waits can say whom it waits for. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tune_int.h"

/* Opens path for locking: an existing file first (in a sticky /tmp, fs.protected_regular
 * refuses O_CREAT on another user's file), else a new one readable and writable by all, so the
 * next user of the GPU can lock it. Never through a symlink, never a FIFO or a device. */
static int open_lock_file(const char *path, char *err, int errlen)
{
    int flags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int fd = open(path, flags);
    if (fd < 0 && errno == ENOENT) {
        fd = open(path, flags | O_CREAT | O_EXCL, 0666);
        if (fd >= 0)
            (void)fchmod(fd, 0666); /* past the umask: other users lock the same GPU */
        else if (errno == EEXIST)
            fd = open(path, flags); /* another process created it in between */
    }
    if (fd < 0 && errno == EACCES)
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); /* locks, cannot say who */
    if (fd < 0) {
        snprintf(err, (size_t)errlen, "cannot open the lock file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, (size_t)errlen, "the lock file %s is not a regular file", path);
        close(fd);
        return -1;
    }
    return fd;
}

/* What the lock file says about its holder (a line; empty when it says nothing). */
static void read_holder(int fd, char *buf, int len)
{
    ssize_t n = pread(fd, buf, (size_t)len - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

static int flock_retry(int fd, int op)
{
    int r;
    while ((r = flock(fd, op)) != 0 && errno == EINTR)
        ;
    return r;
}

int tune_lock_take(TuneLock *l, const char *path, const char *what, const char *holder, Diag *d,
                   char *err, int errlen)
{
    l->fd = open_lock_file(path, err, errlen);
    if (l->fd < 0)
        return -1;
    if (flock_retry(l->fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            snprintf(err, (size_t)errlen, "cannot lock %s: %s", path, strerror(errno));
            goto fail;
        }
        if (what && d) {
            char who[512];
            read_holder(l->fd, who, sizeof who);
            diag_run_info(d, "waiting for %s: %s (lock %s)", what, who[0] ? who : "another process holds it",
                          path);
        }
        if (flock_retry(l->fd, LOCK_EX) != 0) {
            snprintf(err, (size_t)errlen, "cannot lock %s: %s", path, strerror(errno));
            goto fail;
        }
    }
    if (holder && ftruncate(l->fd, 0) == 0) { /* fails on a read-only lock file: then unnamed */
        char line[600];
        int n = snprintf(line, sizeof line, "%s\n", holder);
        ssize_t w = pwrite(l->fd, line, n < (int)sizeof line ? (size_t)n : sizeof line - 1, 0);
        (void)w;
    }
    l->holder = holder != NULL;
    return 0;
fail:
    close(l->fd);
    l->fd = -1;
    return -1;
}

void tune_lock_release(TuneLock *l)
{
    if (l->fd < 0)
        return;
    if (l->holder)
        (void)ftruncate(l->fd, 0); /* before the unlock: no waiter reads a stale holder */
    flock(l->fd, LOCK_UN); /* explicit: a forked GPU worker may share the descriptor */
    close(l->fd);
    l->fd = -1;
}

/* A file name from free text: letters, digits, '.', '-' kept, the rest '_'. */
static void file_name_part(const char *text, char *out, int len)
{
    int n = 0;
    for (const char *p = text; *p && n < len - 1; p++) {
        char c = *p;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '.' || c == '-';
        out[n++] = keep ? c : '_';
    }
    out[n] = '\0';
}

void tune_gpu_lock_path(const char *gpu_id, char *buf, int len)
{
    const char *tmp = getenv("TMPDIR");
    char part[160];
    file_name_part(gpu_id, part, sizeof part);
    snprintf(buf, (size_t)len, "%s/stencilc-gpu-%s.lock", tmp && *tmp ? tmp : "/tmp", part);
}

int tune_gpu_lock(TuneLock *l, const char *gpu_id, const char *gpu_name, const char *doing, Diag *d,
                  char *err, int errlen)
{
    char path[1200], what[400], holder[512];
    tune_gpu_lock_path(gpu_id, path, sizeof path);
    snprintf(what, sizeof what, "the GPU %s (%s)", gpu_name, gpu_id);
    snprintf(holder, sizeof holder, "pid %ld (%s) is timing on it", (long)getpid(), doing);
    return tune_lock_take(l, path, what, holder, d, err, errlen);
}
