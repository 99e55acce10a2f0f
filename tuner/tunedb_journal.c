/* The journal of a key: every measurement as one JSON line (tuner/log.c), appended as it is
 * made, so an interrupted run resumes without measuring anything twice. Several processes may
 * append to one journal (two GPUs tuning the same key): each line goes out in one write(), on
 * an O_APPEND descriptor, under the database's lock, so lines never interleave or tear. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_wire.h" /* wire_write: all of a buffer */
#include "tune_int.h"

#define TUNEDB_MAX_JOURNAL (1L << 30) /* about 4 million measurements */

struct TuneJournal {
    int fd;
    char dir[1024];
};

/* A crash may have torn the last line: end it, so the next line starts clean. Under the lock. */
static void end_torn_line(int fd)
{
    struct stat st;
    char last;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
        (void)wire_write(fd, "\n", 1);
}

TuneJournal *tunedb_journal_open(const char *dir, const TuneDbKey *k, char *err, int errlen)
{
    char path[1200];
    if (tunedb_mkdir(dir, err, errlen) != 0)
        return NULL;
    tunedb_path(dir, k, "journal", path, sizeof path);
    int fd = tune_open_regular(path, 0, O_RDWR | O_APPEND | O_CREAT, err, errlen);
    if (fd < 0)
        return NULL;
    TuneJournal *j = calloc(1, sizeof *j);
    TuneLock lock;
    if (!j || tunedb_lock(dir, &lock, err, errlen) != 0) {
        if (j)
            free(j);
        else
            snprintf(err, (size_t)errlen, "out of memory");
        close(fd);
        return NULL;
    }
    end_torn_line(fd);
    tune_lock_release(&lock);
    j->fd = fd;
    snprintf(j->dir, sizeof j->dir, "%s", dir);
    return j;
}

int tunedb_journal_append(TuneJournal *j, const TuneSample *r)
{
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f)
        return -1;
    tune_log_line(f, r);
    fclose(f);
    char err[1400];
    TuneLock lock;
    int rc = -1;
    if (tunedb_lock(j->dir, &lock, err, sizeof err) == 0) {
        rc = wire_write(j->fd, line, len);
        tune_lock_release(&lock);
    }
    free(line);
    return rc;
}

void tunedb_journal_close(TuneJournal *j)
{
    if (!j)
        return;
    close(j->fd);
    free(j);
}

int tunedb_journal_load(const char *dir, const TuneDbKey *k, int dims, TuneHistory *h, Diag *d)
{
    char path[1200], err[1400];
    tunedb_path(dir, k, "journal", path, sizeof path);
    int fd = tune_open_regular(path, TUNEDB_MAX_JOURNAL, O_RDONLY, err, sizeof err);
    if (fd == -1)
        diag_run_warning(d, "tuning database: %s; not resumed", err);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char *line = NULL;
    size_t cap = 0;
    int n = 0;
    while (getline(&line, &cap, f) > 0) {
        TuneSample r;
        if (tune_log_parse(line, dims, &r) != 0)
            continue;
        if (tune_history_add(h, &r.config, r.ok, r.ms, r.why, -1) >= 0)
            n++;
    }
    free(line);
    fclose(f);
    return n;
}
