/* Reads a source file whole into the arena, refusing what cannot be a .st file. */
#include "ast.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/outfile.h"

#define SOURCE_MAX_BYTES (64L << 20)

/* Text has no NUL bytes and few control characters (tabs, newlines and the like aside). */
static int looks_binary(const char *text, long size, long *first_nul)
{
    long control = 0;
    *first_nul = -1;
    for (long i = 0; i < size; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == 0 && *first_nul < 0)
            *first_nul = i;
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') || c == 0x7f)
            control++;
    }
    return *first_nul >= 0 || control * 10 > size;
}

/* Reads all of fd into a fresh arena buffer, at most SOURCE_MAX_BYTES + 1 bytes. */
static char *read_all(int fd, Arena *arena, long hint, long *size, int *err)
{
    long cap = hint > 0 && hint <= SOURCE_MAX_BYTES ? hint + 1 : 65536, len = 0;
    char *buf = arena_alloc(arena, (size_t)cap + 1);
    for (;;) {
        if (len == cap) {
            if (cap > SOURCE_MAX_BYTES)
                break;
            long ncap = cap * 2 > SOURCE_MAX_BYTES + 1 ? SOURCE_MAX_BYTES + 1 : cap * 2;
            char *nbuf = arena_alloc(arena, (size_t)ncap + 1);
            memcpy(nbuf, buf, (size_t)len);
            buf = nbuf;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + len, (size_t)(cap - len));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            *err = errno;
            return NULL;
        }
        if (got == 0)
            break;
        len += got;
    }
    buf[len] = 0;
    *size = len;
    return buf;
}

/* Reports a path that is neither a regular file nor a directory (which has its own message). */
static int refuse_special(Diag *diag, const char *path, mode_t mode)
{
    if (S_ISREG(mode) || S_ISDIR(mode))
        return 0;
    Loc none = {0, 0, 0};
    diag_error(diag, none, STC_E_CANNOT_READ, "cannot read '%s': it is %s, not a regular file", diag_name(path),
               out_file_kind(mode));
    return 1;
}

int source_read(const char *path, Arena *arena, Diag *diag, Source *src)
{
    /* Reports go out under the path being read, whatever the caller's diag points at. */
    const Source *saved = diag->src;
    Source named = {path, NULL, 0};
    Loc none = {0, 0, 0};
    int rc = 1;
    int is_stdin = strcmp(path, "-") == 0;
    struct stat st;
    int fd = -1;
    diag->src = NULL;
    /* A FIFO, socket or device could block forever, never end, or not open at all (a socket);
     * standard input ("-") is read as it comes, up to the size limit. Checked before opening,
     * and again after (O_NONBLOCK: opening a FIFO must not wait for a writer). */
    if (!is_stdin && stat(path, &st) == 0 && refuse_special(diag, path, st.st_mode))
        goto out;
    fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        diag_error(diag, none, STC_E_CANNOT_READ, "cannot read '%s': %s", diag_name(path), strerror(errno));
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        diag_error(diag, none, STC_E_CANNOT_READ, "cannot read '%s': %s", diag_name(path), strerror(errno));
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        diag_error(diag, none, STC_E_CANNOT_READ, "cannot read '%s': %s", diag_name(path), strerror(EISDIR));
        goto out;
    }
    if (!is_stdin && refuse_special(diag, path, st.st_mode))
        goto out;
    diag->src = &named;
    if (S_ISREG(st.st_mode) && st.st_size > SOURCE_MAX_BYTES) {
        diag_error(diag, none, STC_E_TOO_LARGE, "the file is too large (%lld bytes; the limit is 64 MiB)",
                   (long long)st.st_size);
        goto out;
    }
    long size = 0;
    int err = 0;
    char *text = read_all(fd, arena, S_ISREG(st.st_mode) ? (long)st.st_size : 0, &size, &err);
    if (!text) {
        diag->src = NULL;
        diag_error(diag, none, STC_E_CANNOT_READ, "cannot read '%s': %s", diag_name(path), strerror(err));
        goto out;
    }
    if (size > SOURCE_MAX_BYTES) {
        diag_error(diag, none, STC_E_TOO_LARGE, "the file is too large (over 64 MiB)");
        goto out;
    }
    long first_nul;
    if (looks_binary(text, size, &first_nul)) {
        if (first_nul >= 0)
            diag_error(diag, none, STC_E_BINARY, "not a text file (a NUL byte at offset %ld)", first_nul);
        else
            diag_error(diag, none, STC_E_BINARY, "not a text file (mostly control characters)");
        goto out;
    }
    src->name = is_stdin ? "<stdin>" : path;
    src->text = text;
    src->size = size;
    rc = 0;
out:
    if (fd >= 0 && !is_stdin)
        close(fd);
    diag->src = saved;
    return rc;
}
