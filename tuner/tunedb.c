/* The tuning database: one small file per key (the best configuration found), written
 * atomically, and one append-only journal per key (every measurement), so a result survives a
 * crash and an interrupted run resumes where it stopped. Key: a hash of everything that
 * changes the best configuration: program, grid, element type, GPU, CUDA, generator. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tune_int.h"

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

static int mkdir_p(const char *dir, char *err, int errlen)
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

static void key_path(const char *dir, const TuneDbKey *k, const char *ext, char *buf, int len)
{
    char h[17];
    tunedb_key_hash(k, h);
    snprintf(buf, (size_t)len, "%s/%s.%s", dir, h, ext);
}

/* The file repeats the key's fields (the program as its hash) so that a person can read what
 * it is for, and so that a hash collision is caught on lookup. */
static void key_lines(const TuneDbKey *k, char *buf, int len)
{
    unsigned long long ph = 1469598103934665603ULL;
    fnv(&ph, k->program);
    snprintf(buf, (size_t)len, "program_hash=%016llx\ngrid=%ldx%ldx%ld\ntype=%s\ncuda=%s\n"
             "generator=%s\n", ph, k->grid[0], k->grid[1], k->grid[2],
             k->elem_type ? k->elem_type : "", k->cuda ? k->cuda : "",
             k->generator ? k->generator : "");
}

int tunedb_lookup(const char *dir, const TuneDbKey *k, TuneDbEntry *e, char *err, int errlen)
{
    char path[1200], keytext[1024], line[1024], seen[1024] = "";
    key_path(dir, k, "best", path, sizeof path);
    memset(e, 0, sizeof *e);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, (size_t)errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    key_lines(k, keytext, sizeof keytext);
    int have_cfg = 0, have_ms = 0;
    size_t used = 0;
    while (fgets(line, sizeof line, f)) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *key = line, *val = eq + 1;
        if (!strcmp(key, "config"))
            snprintf(e->config, sizeof e->config, "%s", val), have_cfg = 1;
        else if (!strcmp(key, "ms"))
            e->ms = strtod(val, NULL), have_ms = 1;
        else if (!strcmp(key, "date"))
            snprintf(e->date, sizeof e->date, "%s", val);
        else if (!strcmp(key, "gpu"))
            snprintf(e->gpu, sizeof e->gpu, "%s", val);
        else if (!strcmp(key, "program_hash") || !strcmp(key, "grid") || !strcmp(key, "type") ||
                 !strcmp(key, "cuda") || !strcmp(key, "generator"))
            used += (size_t)snprintf(seen + used, sizeof seen - used, "%s=%s\n", key, val);
        if (used >= sizeof seen)
            used = sizeof seen - 1;
    }
    fclose(f);
    if (!have_cfg || !have_ms || strcmp(seen, keytext) != 0)
        return 1; /* not ours (a collision) or damaged: as good as missing */
    return 0;
}

int tunedb_store(const char *dir, const TuneDbKey *k, const TuneDbEntry *e, char *err,
                 int errlen)
{
    char path[1200], tmp[1300], keytext[1024];
    if (mkdir_p(dir, err, errlen) != 0)
        return -1;
    key_path(dir, k, "best", path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, (size_t)errlen, "cannot write %s: %s", tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char date[32] = "";
    if (e->date[0])
        snprintf(date, sizeof date, "%s", e->date);
    else {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    key_lines(k, keytext, sizeof keytext);
    fprintf(f, "# stencilc tuning result\nconfig=%s\nms=%.17g\ndate=%s\ngpu=%s\n%s", e->config,
            e->ms, date, e->gpu[0] ? e->gpu : (k->gpu ? k->gpu : ""), keytext);
    int bad = fflush(f) != 0 || fsync(fd) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, (size_t)errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    int dfd = open(dir, O_RDONLY); /* the rename itself must reach the disk */
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

FILE *tunedb_journal_open(const char *dir, const TuneDbKey *k, char *err, int errlen)
{
    char path[1200];
    if (mkdir_p(dir, err, errlen) != 0)
        return NULL;
    key_path(dir, k, "journal", path, sizeof path);
    FILE *f = fopen(path, "a+");
    if (!f) {
        snprintf(err, (size_t)errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    /* A crash may have torn the last line: end it, so the next line starts clean. */
    if (fseek(f, -1, SEEK_END) == 0 && fgetc(f) != '\n')
        fputc('\n', f);
    fseek(f, 0, SEEK_END);
    return f;
}

int tunedb_journal_load(const char *dir, const TuneDbKey *k, int dims, TuneHistory *h)
{
    char path[1200];
    key_path(dir, k, "journal", path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
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
