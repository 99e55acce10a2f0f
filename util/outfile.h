/* Writing output files without losing what was there: targets that must not be written over,
 * a set of files replaced together, and the temporaries of killed runs cleaned up. */
#ifndef STC_OUTFILE_H
#define STC_OUTFILE_H
#include <stddef.h>
#include <sys/stat.h>

typedef struct {
    const char *path;
    const char *data;
    size_t len;
} OutFile;

/* "a directory", "a FIFO", "a socket", ... for messages about a file that is not regular. */
const char *out_file_kind(mode_t mode);

/* 0 when path is a regular file to read; else -1 and why says what it is (missing, a directory,
 * a FIFO that would block the reader, ...). */
int in_check_regular(const char *path, char *why, size_t whylen);

/* 0 when path may be written: it does not exist, or is a regular file other than *keep (the
 * input, compared by device and inode; NULL: none). Else -1 and why says so. */
int out_check_target(const char *path, const struct stat *keep, char *why, size_t whylen);

/* Writes every file under a short temporary name in its own folder (so that a 250-character
 * output name still has room) and fsyncs them all; only then renames them over their targets,
 * in the order given, and fsyncs the folders. On an error before the renames every temporary
 * is removed and no target was touched. -1 with why (the failing path and strerror). */
int out_replace(const OutFile *files, int n, char *why, size_t whylen);

/* Removes the temporaries that out_replace (or, named TARGET.tmp.PID, an older stencilc) left
 * for the n targets, all in one folder, when its process was killed; only those whose process
 * is gone. */
void out_remove_stale(const char *const *paths, int n);

#endif
