/* The tuning database against damage and concurrency (issue 30): a record that is a FIFO or a
 * link to /dev/zero is refused without hanging; ms=inf, nan or -1, a truncated record and a
 * missing field are reported with the file's name; a newer damaged or refused record does not
 * hide an older good one; a record is replaced only by a faster one (or where it is damaged or
 * another generator's); and 16 processes storing and journaling into one database at once lose
 * nothing: every record is the fastest of its key and every journal line is whole. */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_space.h"
#include "tune_int.h"

static char dir[64];

/* A Diag that keeps what it was told, to check what the database reports. */
typedef struct {
    Diag d;
    char *text;
    size_t len;
} Said;

static void said_open(Said *s)
{
    s->text = NULL;
    s->len = 0;
    diag_init(&s->d, NULL, open_memstream(&s->text, &s->len));
    CHECK(s->d.out != NULL);
}

/* Ends the capture; 1 when the text holds want. */
static int said_close(Said *s, const char *want)
{
    fclose(s->d.out);
    int found = s->text && strstr(s->text, want) != NULL;
    free(s->text);
    return found;
}

static TuneDbKey key(const char *gpu)
{
    TuneDbKey k = {.program = "stencil heat { u = 0.25 * (u[-1] + u[1]) }",
                   .grid = {512, 512, 1},
                   .elem_type = "float",
                   .gpu = gpu,
                   .cuda = "13.0",
                   .generator = "stencilc 0.1.0 (generator 0123456789ab); tblock<=16"};
    return k;
}

static void best_path(const TuneDbKey *k, char *buf, int len)
{
    char h[17];
    tunedb_key_hash(k, h);
    snprintf(buf, (size_t)len, "%s/%s.best", dir, h);
}

/* A record as tunedb_store writes it, with any ms text and an optional cut. */
static void write_record(const TuneDbKey *k, const char *config, const char *ms, const char *date,
                         const char *generator, int cut)
{
    char path[300], text[2048];
    best_path(k, path, sizeof path);
    TuneDbKey named = *k;
    named.generator = generator ? generator : k->generator;
    TuneDbEntry e = {.ms = 1};
    snprintf(e.config, sizeof e.config, "%s", config);
    snprintf(e.date, sizeof e.date, "%s", date);
    unlink(path);
    /* the key lines from the store itself, then the fields replaced by hand */
    char other[100];
    snprintf(other, sizeof other, "%s/other", dir);
    mkdir(other, 0777);
    char err[300], opath[400], h[17];
    CHECK(tunedb_store(other, &named, &e, NULL, err, sizeof err) == 0);
    tunedb_key_hash(&named, h);
    snprintf(opath, sizeof opath, "%s/%s.best", other, h);
    FILE *f = fopen(opath, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(opath);
    text[n] = '\0';
    char *msl = strstr(text, "ms=1\n");
    CHECK(msl);
    char out[2100];
    snprintf(out, sizeof out, "%.*sms=%s\n%s", (int)(msl - text), text, ms, msl + 5);
    f = fopen(path, "w");
    fwrite(out, 1, strlen(out) - (size_t)cut, f);
    fclose(f);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_tunedb_safety: hung reading a special file\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static void expect_damaged(const TuneDbKey *k, const char *what)
{
    char err[1400], path[300];
    TuneDbEntry got;
    best_path(k, path, sizeof path);
    int rc = tunedb_lookup(dir, k, &got, err, sizeof err);
    if (rc != -1 || !strstr(err, path) || !strstr(err, what)) {
        fprintf(stderr, "lookup of a damaged record: rc %d, err '%s', want '%s'\n", rc, err, what);
        exit(1);
    }
}

static void test_damaged(void)
{
    TuneDbKey k = key("NVIDIA H100 80GB HBM3");
    char path[300], err[1400];
    best_path(&k, path, sizeof path);
    signal(SIGALRM, on_alarm);
    alarm(20);
    CHECK(mkfifo(path, 0666) == 0);
    expect_damaged(&k, "not a regular file");
    unlink(path);
    CHECK(symlink("/dev/zero", path) == 0);
    expect_damaged(&k, "not a regular file");
    alarm(0);
    const char *bad_ms[] = {"inf", "nan", "-1", "0", "1.5x", ""};
    for (int i = 0; i < 6; i++) {
        write_record(&k, "tb=64x4x1", bad_ms[i], "2026-01-01T00:00:00Z", NULL, 0);
        expect_damaged(&k, "is not a positive, finite time");
    }
    write_record(&k, "tb=64x4x1", "0.5", "2026-01-01T00:00:00Z", NULL, 3);
    expect_damaged(&k, "truncated");
    FILE *f = fopen(path, "w");
    fputs("config=tb=8x8x8\nms=1\n", f);
    fclose(f);
    expect_damaged(&k, "does not start with");
    /* a damaged record is replaced by the next result, however slow */
    TuneDbEntry e = {.ms = 9.5}, got;
    snprintf(e.config, sizeof e.config, "tb=32x8x1");
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == 0);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0 && got.ms == 9.5);
    /* inf, nan or -1 are never stored */
    e.ms = 1.0 / 0.0;
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == -1 && strstr(err, "finite"));
    e.ms = -1;
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == -1);
    /* a journal that is a FIFO is not read (nor written), without hanging */
    char h[17], jpath[300];
    tunedb_key_hash(&k, h);
    snprintf(jpath, sizeof jpath, "%s/%s.journal", dir, h);
    CHECK(mkfifo(jpath, 0666) == 0);
    alarm(20);
    TuneHistory hist;
    Said said;
    tune_history_init(&hist);
    said_open(&said);
    CHECK(tunedb_journal_load(dir, &k, 3, &hist, &said.d) == 0);
    CHECK(said.d.warnings == 1);
    CHECK(said_close(&said, "not a regular file; not resumed"));
    CHECK(tunedb_journal_open(dir, &k, err, sizeof err) == NULL && strstr(err, "not a regular file"));
    alarm(0);
    tune_history_free(&hist);
    unlink(jpath);
    unlink(path);
}

/* The no-GPU fallback's choice among GPUs: newest first, but never a damaged or refused one. */
static int refuse_tb8(void *ctx, const TuneDbEntry *e)
{
    (void)ctx;
    return strncmp(e->config, "tb=8x", 5) != 0;
}

static void test_newer_invalid(void)
{
    TuneDbKey old = key("NVIDIA A100"), newer = key("NVIDIA H200"), newest = key("NVIDIA B200");
    TuneDbEntry got;
    write_record(&old, "tb=64x4x1", "0.75", "2026-01-01T00:00:00Z", NULL, 0);
    write_record(&newer, "tb=32x8x1", "inf", "2026-06-01T00:00:00Z", NULL, 0);
    Said said; /* the damaged record is reported by name, and skipped */
    said_open(&said);
    CHECK(tunedb_find_any_gpu(dir, &old, NULL, NULL, &got, &said.d) == 0);
    CHECK(!strcmp(got.gpu, "NVIDIA A100") && got.ms == 0.75);
    CHECK(said.d.warnings == 1);
    CHECK(said_close(&said, "ms=inf is not a positive, finite time; skipped"));
    Diag dg;
    diag_init(&dg, NULL, stderr);
    write_record(&newer, "tb=32x8x1", "0.5", "2026-06-01T00:00:00Z", NULL, 0);
    write_record(&newest, "tb=8x8x1", "0.25", "2026-09-01T00:00:00Z", NULL, 0);
    CHECK(tunedb_find_any_gpu(dir, &old, NULL, NULL, &got, &dg) == 0 && !strcmp(got.gpu, "NVIDIA B200"));
    CHECK(tunedb_find_any_gpu(dir, &old, refuse_tb8, NULL, &got, &dg) == 0 && !strcmp(got.gpu, "NVIDIA H200"));
    /* another generator's records are not this one's */
    TuneDbKey gen = old;
    gen.generator = "stencilc 0.2.0 (generator ba9876543210); tblock<=16";
    CHECK(tunedb_find_any_gpu(dir, &gen, NULL, NULL, &got, &dg) == 1);
}

static void test_faster_wins(void)
{
    TuneDbKey k = key("NVIDIA L4");
    TuneDbEntry e = {.ms = 0.049}, got, kept;
    char err[1400];
    snprintf(e.config, sizeof e.config, "tb=64x4x1");
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == 0);
    e.ms = 5.999; /* the case: a slower result must not replace a faster one */
    snprintf(e.config, sizeof e.config, "tb=32x8x1");
    CHECK(tunedb_store(dir, &k, &e, &kept, err, sizeof err) == 1);
    CHECK(kept.ms == 0.049 && !strcmp(kept.config, "tb=64x4x1"));
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0 && got.ms == 0.049);
    e.ms = 0.03;
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == 0);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0 && got.ms == 0.03);
    /* a record of another generator in the key's file (stale) is replaced, however fast */
    write_record(&k, "tb=16x16x1", "0.001", "2026-01-01T00:00:00Z", "stencilc 0.0.9", 0);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 1);
    e.ms = 2.0;
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == 0);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0 && got.ms == 2.0);
}

/* ---- 16 writers at once ------------------------------------------------------------------ */

#define WRITERS 16
#define KEYS 3
#define ROUNDS 40

static double writer_ms(int w, int round) { return 1.0 + (double)((w * 7919 + round * 104729) % 9973) / 1000.0; }

static TuneDbKey writer_key(int i)
{
    static const char *gpus[KEYS] = {"GPU A", "GPU B", "GPU C"};
    return key(gpus[i]);
}

static void writer(int w)
{
    char err[1400];
    TuneJournal *j[KEYS];
    for (int i = 0; i < KEYS; i++) {
        TuneDbKey k = writer_key(i);
        j[i] = tunedb_journal_open(dir, &k, err, sizeof err);
        CHECK(j[i]);
    }
    for (int r = 0; r < ROUNDS; r++) {
        int i = (w + r) % KEYS;
        TuneDbKey k = writer_key(i);
        TuneDbEntry e = {.ms = writer_ms(w, r)};
        snprintf(e.config, sizeof e.config, "tb=%dx%dx1", 1 << (w % 6 + 3), 1 << (r % 4));
        CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) >= 0);
        TuneSample s = {.ok = 1, .ms = e.ms, .elapsed_s = r};
        s.config = config_default(2);
        s.config.v[P_TBX] = 1 << (w % 6 + 3);
        s.config.v[P_TBY] = 1 << (r % 4);
        snprintf(s.why, sizeof s.why, "writer %d round %d %0120d", w, r, 0); /* long lines */
        CHECK(tunedb_journal_append(j[i], &s) == 0);
    }
    for (int i = 0; i < KEYS; i++)
        tunedb_journal_close(j[i]);
    _exit(0);
}

static void test_concurrent_writers(void)
{
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        CHECK(pids[w] >= 0);
        if (pids[w] == 0)
            writer(w);
    }
    for (int w = 0; w < WRITERS; w++) {
        int st;
        CHECK(waitpid(pids[w], &st, 0) == pids[w] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    for (int i = 0; i < KEYS; i++) {
        double best = 1e30;
        int lines_want = 0;
        for (int w = 0; w < WRITERS; w++)
            for (int r = 0; r < ROUNDS; r++)
                if ((w + r) % KEYS == i) {
                    best = writer_ms(w, r) < best ? writer_ms(w, r) : best;
                    lines_want++;
                }
        TuneDbKey k = writer_key(i);
        TuneDbEntry got;
        char err[1400];
        CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0);
        if (got.ms != best) {
            fprintf(stderr, "key %d: the record holds %.17g ms, the fastest stored was %.17g\n", i, got.ms, best);
            exit(1);
        }
        /* the journal: every line whole and parsed, as many as were appended */
        char h[17], path[300];
        tunedb_key_hash(&k, h);
        snprintf(path, sizeof path, "%s/%s.journal", dir, h);
        FILE *f = fopen(path, "r");
        CHECK(f);
        char *line = NULL;
        size_t cap = 0;
        int lines = 0;
        ssize_t len;
        while ((len = getline(&line, &cap, f)) > 0) {
            TuneSample s;
            CHECK(line[len - 1] == '\n' && tune_log_parse(line, 2, &s) == 0 && s.ok && tune_ms_valid(s.ms));
            lines++;
        }
        free(line);
        fclose(f);
        CHECK(lines == lines_want);
    }
    /* the temporaries of the writes are all gone */
    char cmd[200];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", dir);
    CHECK(system(cmd) != 0);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/stc_tunedb_safety_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    test_damaged();
    test_newer_invalid();
    test_faster_wins();
    test_concurrent_writers();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    printf("tunedb safety: ok\n");
    return 0;
}
