/* The tuning database: one small file per key (the best configuration found), written
 * atomically under the database's lock, and one append-only journal per key (every
 * measurement; tunedb_journal.c), so a result survives a crash and an interrupted run resumes
 * where it stopped. Key: a hash of everything that changes the best configuration: program,
 * grid, element type, GPU, CUDA, generator.
 *
 * Several stencilc processes may tune into one database at once (a `make -j` build): a record
 * is replaced only by a faster one of the same key, or where the file holds no valid record of
 * that key (damaged, or left by another generator: stale), never last-writer-wins. A file is
 * read only when it is a regular file of at most TUNEDB_MAX_RECORD bytes (a FIFO or a link to
 * /dev/zero named like a record would hang the reader), and a damaged one is reported with its
 * name and what is wrong, never taken for a missing one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tune_int.h"

#define TUNEDB_MAX_RECORD 65536
#define RECORD_HEADER "# stencilc tuning result"

void tunedb_dir(const char *override, char *buf, int len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (override && *override)
        snprintf(buf, (size_t)len, "%s", override);
    else if (xdg && *xdg)
        snprintf(buf, (size_t)len, "%s/stencilc", xdg);
    else
        snprintf(buf, (size_t)len, "%s/.cache/stencilc", home && *home ? home : ".");
}

int tune_ms_valid(double ms) { return isfinite(ms) && ms > 0; }

static void fnv(unsigned long long *h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        *h ^= *p;
        *h *= 1099511628211ULL;
    }
    *h ^= 0xff; /* a field separator no text contains, so fields cannot slide into each other */
    *h *= 1099511628211ULL;
}

void tunedb_key_hash(const TuneDbKey *k, char out[17])
{
    char grid[96];
    unsigned long long h = 1469598103934665603ULL;
    snprintf(grid, sizeof grid, "%ldx%ldx%ld", k->grid[0], k->grid[1], k->grid[2]);
    fnv(&h, k->program);
    fnv(&h, grid);
    fnv(&h, k->elem_type);
    fnv(&h, k->gpu);
    fnv(&h, k->cuda);
    fnv(&h, k->generator);
    snprintf(out, 17, "%016llx", h);
}

int tunedb_mkdir(const char *dir, char *err, int errlen)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                snprintf(err, (size_t)errlen, "cannot create %s: %s", path, strerror(errno));
                return -1;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

void tunedb_path(const char *dir, const TuneDbKey *k, const char *ext, char *buf, int len)
{
    char h[17];
    tunedb_key_hash(k, h);
    snprintf(buf, (size_t)len, "%s/%s.%s", dir, h, ext);
}

int tunedb_lock(const char *dir, TuneLock *l, char *err, int errlen)
{
    char path[1200];
    if (tunedb_mkdir(dir, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/lock", dir);
    return tune_lock_take(l, path, NULL, NULL, NULL, err, errlen);
}

int tune_open_regular(const char *path, long max_bytes, int flags, char *err, int errlen)
{
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
        int missing = errno == ENOENT;
        snprintf(err, (size_t)errlen, "%s: %s", path, strerror(errno));
        return missing ? -2 : -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(err, (size_t)errlen, "%s: not a regular file", path);
    else if (max_bytes > 0 && st.st_size > max_bytes)
        snprintf(err, (size_t)errlen, "%s: %lld bytes, more than a tuning file holds (%ld)", path,
                 (long long)st.st_size, max_bytes);
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        snprintf(err, (size_t)errlen, "%s: %s", path, strerror(errno));
    else
        return fd;
    close(fd);
    return -1;
}

char *tunedb_program_text(const IrProgram *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    ir_dump(f, p);
    fclose(f);
    return buf;
}

void tunedb_program_hash(const char *program, char out[17])
{
    unsigned long long h = 1469598103934665603ULL;
    fnv(&h, program);
    snprintf(out, 17, "%016llx", h);
}

/* The file repeats the key's fields (the program as its hash) so that a person can read what
 * it is for, and so that a hash collision is caught on lookup. */
static void key_lines(const TuneDbKey *k, char *buf, int len)
{
    char ph[17];
    tunedb_program_hash(k->program, ph);
    snprintf(buf, (size_t)len, "program_hash=%s\ngrid=%ldx%ldx%ld\ntype=%s\ncuda=%s\n"
             "generator=%s\n", ph, k->grid[0], k->grid[1], k->grid[2],
             k->elem_type ? k->elem_type : "", k->cuda ? k->cuda : "",
             k->generator ? k->generator : "");
}

/* One record file as read: the entry, the key fields it names (key_lines' form), its cuda. */
typedef struct {
    TuneDbEntry e;
    char keytext[1024];
    char cuda[64];
} Record;

static int set_field(char *dst, size_t len, const char *val, const char *name, const char *path,
                     char *err, int errlen)
{
    if (strlen(val) >= len) {
        snprintf(err, (size_t)errlen, "%s: damaged record: its %s line is too long", path, name);
        return -1;
    }
    memcpy(dst, val, strlen(val) + 1);
    return 0;
}

/* Parses a record's text (NUL-terminated, n bytes). 0, or -1 with "PATH: what is wrong". */
static int parse_record(char *text, size_t n, const char *path, Record *r, char *err, int errlen)
{
    memset(r, 0, sizeof *r);
    if (n == 0 || strncmp(text, RECORD_HEADER "\n", sizeof RECORD_HEADER)) {
        snprintf(err, (size_t)errlen, "%s: damaged record: %s", path,
                 n ? "it does not start with '" RECORD_HEADER "'" : "the file is empty");
        return -1;
    }
    if (text[n - 1] != '\n' || strlen(text) != n) {
        snprintf(err, (size_t)errlen, "%s: damaged record: %s", path,
                 text[n - 1] != '\n' ? "truncated (its last line is cut)" : "it holds a NUL byte");
        return -1;
    }
    int have_cfg = 0, have_ms = 0;
    size_t used = 0;
    for (char *line = text, *next; *line; line = next) {
        next = strchr(line, '\n');
        *next++ = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *key = line, *val = eq + 1;
        int bad = 0;
        if (!strcmp(key, "config")) {
            bad = set_field(r->e.config, sizeof r->e.config, val, key, path, err, errlen);
            have_cfg = 1;
        } else if (!strcmp(key, "ms")) {
            char *end;
            r->e.ms = strtod(val, &end);
            have_ms = 1;
            if (end == val || *end || !tune_ms_valid(r->e.ms)) {
                snprintf(err, (size_t)errlen, "%s: damaged record: ms=%.40s is not a positive, finite "
                         "time", path, val);
                return -1;
            }
        } else if (!strcmp(key, "date"))
            bad = set_field(r->e.date, sizeof r->e.date, val, key, path, err, errlen);
        else if (!strcmp(key, "gpu"))
            bad = set_field(r->e.gpu, sizeof r->e.gpu, val, key, path, err, errlen);
        else if (!strcmp(key, "program_hash") || !strcmp(key, "grid") || !strcmp(key, "type") ||
                 !strcmp(key, "cuda") || !strcmp(key, "generator")) {
            if (!strcmp(key, "cuda"))
                bad = set_field(r->cuda, sizeof r->cuda, val, key, path, err, errlen);
            int w = snprintf(r->keytext + used, sizeof r->keytext - used, "%s=%s\n", key, val);
            used = w < 0 || (size_t)w >= sizeof r->keytext - used ? sizeof r->keytext - 1 : used + (size_t)w;
        }
        if (bad)
            return -1;
    }
    if (!have_cfg || !r->e.config[0] || !have_ms) {
        snprintf(err, (size_t)errlen, "%s: damaged record: no %s line", path,
                 !have_cfg || !r->e.config[0] ? "config=" : "ms=");
        return -1;
    }
    return 0;
}

/* Reads the record file at path. 0; 1 when there is none; -1 with "PATH: what is wrong". */
static int read_record(const char *path, Record *r, char *err, int errlen)
{
    int fd = tune_open_regular(path, TUNEDB_MAX_RECORD, O_RDONLY, err, errlen);
    if (fd == -2)
        return 1;
    if (fd < 0)
        return -1;
    char *text = malloc(TUNEDB_MAX_RECORD + 1);
    size_t n = 0;
    ssize_t got;
    while (text && n < TUNEDB_MAX_RECORD &&
           ((got = read(fd, text + n, TUNEDB_MAX_RECORD - n)) > 0 || (got < 0 && errno == EINTR)))
        n += got > 0 ? (size_t)got : 0;
    close(fd);
    if (!text) {
        snprintf(err, (size_t)errlen, "%s: out of memory", path);
        return -1;
    }
    text[n] = '\0';
    int rc = parse_record(text, n, path, r, err, errlen);
    free(text);
    return rc;
}

static int is_key_of(const Record *r, const TuneDbKey *k)
{
    char keytext[1024];
    key_lines(k, keytext, sizeof keytext);
    return !strcmp(r->keytext, keytext);
}

/* The record of k in its file: 0; 1 when there is none, or the file is another key's (a hash
 * collision, or a record of another generator: stale); -1 with err when it is damaged. */
static int read_key_record(const char *path, const TuneDbKey *k, Record *r, char *err, int errlen)
{
    int rc = read_record(path, r, err, errlen);
    return rc != 0 ? rc : !is_key_of(r, k);
}

int tunedb_lookup(const char *dir, const TuneDbKey *k, TuneDbEntry *e, char *err, int errlen)
{
    char path[1200];
    Record r;
    tunedb_path(dir, k, "best", path, sizeof path);
    int rc = read_key_record(path, k, &r, err, errlen);
    *e = rc == 0 ? r.e : (TuneDbEntry){0};
    return rc;
}

/* ---- records of any GPU ------------------------------------------------------------------ */

static int newest_first(const void *a, const void *b)
{
    return -strcmp(((const TuneDbEntry *)a)->date, ((const TuneDbEntry *)b)->date);
}

/* The records of k's program, grid, type and generator on every GPU, newest first (malloc'd;
 * *n of them). A damaged file is reported on d and skipped. */
static TuneDbEntry *records_any_gpu(const char *dir, TuneDbKey k, int *n, Diag *d)
{
    TuneDbEntry *list = NULL;
    int cap = 0;
    *n = 0;
    DIR *folder = opendir(dir);
    if (!folder)
        return NULL;
    struct dirent *de;
    while ((de = readdir(folder))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".best"))
            continue;
        char path[1200], err[1400], named[1200];
        Record r;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (read_record(path, &r, err, sizeof err) != 0) {
            diag_run_warning(d, "tuning database: %s; skipped", err);
            continue;
        }
        k.gpu = r.e.gpu;
        k.cuda = r.cuda;
        tunedb_path(dir, &k, "best", named, sizeof named);
        if (strcmp(named, path) || !is_key_of(&r, &k))
            continue; /* another program's, grid's, type's or generator's */
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            TuneDbEntry *grown = realloc(list, sizeof *list * (size_t)cap);
            if (!grown)
                break;
            list = grown;
        }
        list[(*n)++] = r.e;
    }
    closedir(folder);
    if (*n > 1)
        qsort(list, (size_t)*n, sizeof *list, newest_first);
    return list;
}

int tunedb_find_any_gpu(const char *dir, const TuneDbKey *k, int (*accept)(void *, const TuneDbEntry *),
                        void *ctx, TuneDbEntry *out, Diag *d)
{
    int n, found = 0;
    TuneDbEntry *list = records_any_gpu(dir, *k, &n, d);
    for (int i = 0; i < n && !found; i++)
        if (!accept || accept(ctx, &list[i])) {
            *out = list[i];
            found = 1;
        }
    free(list);
    return found ? 0 : 1;
}

/* ---- storing ----------------------------------------------------------------------------- */

static void now_iso(char *date, int len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, (size_t)len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Writes the record to path through path.tmp (one writer at a time: the caller holds the
 * lock, so a temporary a killed writer left is just overwritten), fsynced, renamed. */
static int write_record(const char *dir, const char *path, const TuneDbKey *k, const TuneDbEntry *e,
                        char *err, int errlen)
{
    char tmp[1300], keytext[1024], date[32];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    unlink(tmp); /* whatever it is (a link included): ours is created fresh */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, (size_t)errlen, "cannot write %s: %s", tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (e->date[0])
        snprintf(date, sizeof date, "%s", e->date);
    else
        now_iso(date, sizeof date);
    key_lines(k, keytext, sizeof keytext);
    fprintf(f, RECORD_HEADER "\nconfig=%s\nms=%.17g\ndate=%s\ngpu=%s\n%s", e->config, e->ms, date,
            e->gpu[0] ? e->gpu : (k->gpu ? k->gpu : ""), keytext);
    int bad = fflush(f) != 0 || fsync(fd) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, (size_t)errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    int dfd = open(dir, O_RDONLY | O_CLOEXEC); /* the rename itself must reach the disk */
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

int tunedb_store(const char *dir, const TuneDbKey *k, const TuneDbEntry *e, TuneDbEntry *kept,
                 char *err, int errlen)
{
    char path[1200], why[1400];
    if (!tune_ms_valid(e->ms) || !e->config[0]) {
        snprintf(err, (size_t)errlen, "not stored: ms=%g is not a positive, finite time", e->ms);
        return -1;
    }
    TuneLock lock;
    if (tunedb_lock(dir, &lock, err, errlen) != 0)
        return -1;
    tunedb_path(dir, k, "best", path, sizeof path);
    Record old;
    int rc;
    if (read_key_record(path, k, &old, why, sizeof why) == 0 && old.e.ms <= e->ms) {
        if (kept)
            *kept = old.e;
        rc = 1; /* a faster (or as fast) record of this key is already there */
    } else
        rc = write_record(dir, path, k, e, err, errlen);
    tune_lock_release(&lock);
    return rc;
}
