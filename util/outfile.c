#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

#define TMP_PREFIX ".stc-"
#define TMP_SUFFIX ".tmp"

const char *out_file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "not a regular file";
}

int in_check_regular(const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "cannot read '%s': %s", diag_name(path), strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "cannot read '%s': it is %s, not a regular file", diag_name(path),
                 out_file_kind(st.st_mode));
        return -1;
    }
    return 0;
}

int out_check_target(const char *path, const struct stat *keep, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* nothing there (or a dangling link): opening the temporary will tell */
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "'%s' is %s; refusing to write over it", diag_name(path), out_file_kind(st.st_mode));
        return -1;
    }
    if (keep && st.st_dev == keep->st_dev && st.st_ino == keep->st_ino) {
        snprintf(why, whylen, "'%s' is the input file; refusing to write over it", diag_name(path));
        return -1;
    }
    return 0;
}

/* The folder of path, as a string to put a name after: "" or "dir/". */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path + 1) : 0;
}

static char *temp_name(const char *path, int index)
{
    size_t d = dir_len(path), n = d + 64;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s" TMP_PREFIX "%ld-%d" TMP_SUFFIX, (int)d, path, (long)getpid(), index);
    return t;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Writes and fsyncs one temporary; -1 with errno set. */
static int write_temp(const char *tmp, const OutFile *f)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) { /* a killed run of a process that had our pid */
        unlink(tmp);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    }
    if (fd < 0)
        return -1;
    int rc = write_all(fd, f->data, f->len) == 0 && fsync(fd) == 0 ? 0 : -1;
    int err = errno;
    if (close(fd) != 0 && rc == 0)
        return -1;
    errno = err;
    return rc;
}

static void sync_dir(const char *path)
{
    size_t d = dir_len(path);
    char *dir = d ? strndup(path, d) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        fsync(fd); /* some file systems refuse it (EINVAL); the renames stand anyway */
        close(fd);
    }
    free(dir);
}

int out_replace(const OutFile *files, int n, char *why, size_t whylen)
{
    char *tmp[8] = {0};
    int rc = -1, i;
    if (n > 8)
        return -1;
    for (i = 0; i < n; i++) {
        tmp[i] = temp_name(files[i].path, i);
        if (!tmp[i] || write_temp(tmp[i], &files[i]) != 0) {
            snprintf(why, whylen, "cannot write '%s': %s", diag_name(files[i].path), strerror(errno));
            goto out;
        }
    }
    for (i = 0; i < n; i++) {
        if (rename(tmp[i], files[i].path) != 0) {
            snprintf(why, whylen, "cannot write '%s': %s", diag_name(files[i].path), strerror(errno));
            goto out;
        }
        free(tmp[i]);
        tmp[i] = NULL;
    }
    for (i = 0; i < n; i++)
        sync_dir(files[i].path);
    rc = 0;
out:
    for (i = 0; i < n; i++) {
        if (tmp[i])
            unlink(tmp[i]);
        free(tmp[i]);
    }
    return rc;
}

/* The pid of a temporary's name, or 0 when the name is not one of ours: ".stc-PID-I.tmp", or
 * "TARGET.tmp.PID" as earlier versions of stencilc wrote them, for TARGET one of the n targets. */
static long temp_pid(const char *name, const char *const *paths, int n)
{
    size_t np = strlen(TMP_PREFIX), ns = strlen(TMP_SUFFIX), len = strlen(name);
    char *end;
    long pid;
    if (len > np + ns && !strncmp(name, TMP_PREFIX, np) && !strcmp(name + len - ns, TMP_SUFFIX)) {
        pid = strtol(name + np, &end, 10);
        if (pid <= 0 || *end != '-' || end[1] < '0' || end[1] > '9')
            return 0;
        strtol(end + 1, &end, 10);
        return strcmp(end, TMP_SUFFIX) == 0 ? pid : 0;
    }
    for (int i = 0; i < n; i++) {
        const char *base = paths[i] + dir_len(paths[i]);
        size_t nb = strlen(base);
        if (len > nb + 5 && !strncmp(name, base, nb) && !strncmp(name + nb, ".tmp.", 5)) {
            pid = strtol(name + nb + 5, &end, 10);
            return *end == 0 && name[nb + 5] >= '0' && name[nb + 5] <= '9' ? pid : 0;
        }
    }
    return 0;
}

void out_remove_stale(const char *const *paths, int n)
{
    size_t d = dir_len(paths[0]);
    char *dir = d ? strndup(paths[0], d) : strdup(".");
    DIR *dp = dir ? opendir(dir) : NULL;
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        long pid = temp_pid(e->d_name, paths, n);
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or someone else's process (EPERM): not ours to remove */
        char *full = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (full) {
            sprintf(full, "%s/%s", dir, e->d_name);
            unlink(full);
            free(full);
        }
    }
    if (dp)
        closedir(dp);
    free(dir);
}
