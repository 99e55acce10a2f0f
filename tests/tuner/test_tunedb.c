/* The tuning database: store and look up, a key change misses, a leftover temporary file is
 * ignored, a damaged file is reported by name; the journal resumes an interrupted run without
 * measuring anything twice. (Damaged records and concurrent writers: test_tunedb_safety.c.) */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_space.h"
#include "tune_int.h"

static void make_dir(char *dir, int len)
{
    snprintf(dir, (size_t)len, "/tmp/stc_tunedb_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

static void rm_rf(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static TuneDbKey key(void)
{
    TuneDbKey k = {.program = "stencil heat { out = 0.25 * (u[-1] + u[1]) }",
                   .grid = {512, 512, 1},
                   .elem_type = "float",
                   .gpu = "NVIDIA H100 80GB HBM3",
                   .cuda = "13.0",
                   .generator = "stencilc 0.1.0"};
    return k;
}

static void test_db(void)
{
    char base[64], dir[128], err[300];
    make_dir(base, sizeof base);
    snprintf(dir, sizeof dir, "%s/nested/db", base); /* created on demand */
    TuneDbKey k = key();
    TuneDbEntry e = {.ms = 1.25}, got;
    snprintf(e.config, sizeof e.config, "tb=64x4x1,stream=z,sb=16");
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 1);
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == 0);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0);
    CHECK(!strcmp(got.config, e.config) && got.ms == 1.25);
    CHECK(!strcmp(got.gpu, "NVIDIA H100 80GB HBM3"));
    CHECK(strlen(got.date) == 20 && got.date[10] == 'T');

    /* each part of the key matters */
    TuneDbKey k2 = k;
    k2.gpu = "NVIDIA H200";
    CHECK(tunedb_lookup(dir, &k2, &got, err, sizeof err) == 1);
    k2 = k;
    k2.grid[1] = 256;
    CHECK(tunedb_lookup(dir, &k2, &got, err, sizeof err) == 1);
    k2 = k;
    k2.generator = "stencilc 0.1.1";
    CHECK(tunedb_lookup(dir, &k2, &got, err, sizeof err) == 1);
    k2 = k;
    k2.program = "stencil heat { out = 0.5 * (u[-1] + u[1]) }";
    CHECK(tunedb_lookup(dir, &k2, &got, err, sizeof err) == 1);
    k2 = k;
    k2.elem_type = "double";
    CHECK(tunedb_lookup(dir, &k2, &got, err, sizeof err) == 1);
    char h1[17], h2[17];
    tunedb_key_hash(&k, h1);
    tunedb_key_hash(&k2, h2);
    CHECK(strlen(h1) == 16 && strcmp(h1, h2) != 0);

    /* a crash between writing the temp file and the rename: the temp is ignored */
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s/%s.best.tmp.99999", dir, h1);
    FILE *f = fopen(tmp, "w");
    CHECK(f);
    fputs("config=tb=8x8x8\nms=0.001\n", f); /* half-written garbage */
    fclose(f);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0);
    CHECK(!strcmp(got.config, e.config));
    /* overwrite is atomic and replaces the value */
    e.ms = 1.0;
    CHECK(tunedb_store(dir, &k, &e, NULL, err, sizeof err) == 0);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == 0 && got.ms == 1.0);
    /* a file damaged by hand (no ms line) is reported by name, never crashes */
    char path[400];
    snprintf(path, sizeof path, "%s/%s.best", dir, h1);
    f = fopen(path, "w");
    fputs("# stencilc tuning result\nconfig=tb=8x8x8\n", f);
    fclose(f);
    CHECK(tunedb_lookup(dir, &k, &got, err, sizeof err) == -1);
    CHECK(strstr(err, path) && strstr(err, "no ms= line"));
    /* the default location follows XDG_CACHE_HOME, and an override wins */
    char d[300];
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    tunedb_dir(NULL, d, sizeof d);
    CHECK(!strcmp(d, "/x/cache/stencilc"));
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    tunedb_dir(NULL, d, sizeof d);
    CHECK(!strcmp(d, "/home/u/.cache/stencilc"));
    tunedb_dir("/elsewhere", d, sizeof d);
    CHECK(!strcmp(d, "/elsewhere"));
    rm_rf(base);
}

/* Counts evaluations and fails the test if one is repeated across the two runs. */
static int counting_eval(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    return fake_watch_eval(ctx, c, ms, why, whylen);
}

static void test_resume(void)
{
    char dir[64], err[300];
    make_dir(dir, sizeof dir);
    TuneDbKey k = key();
    Space s;
    fake_space(&s);
    TuneProblem pb = {&s, fake_valid, NULL};
    TuneKnobs kn;
    tune_knobs_default(&kn);
    FakeWatch w = {.seen = tune_seen_new()};
    TuneEvaluator ev = {.evaluate = counting_eval, .ctx = &w};

    /* the first run is "interrupted" after 30 evaluations */
    TuneJournal *j = tunedb_journal_open(dir, &k, err, sizeof err);
    CHECK(j);
    TuneHistory h;
    tune_history_init(&h);
    TuneStrategy *st = tune_strategy_new("gest", &pb, &kn, err, sizeof err);
    TuneRunOptions o = {.budget = {.count = 30}, .quiet = 1, .journal = j};
    TuneResult r1;
    tune_run(&pb, st, &ev, &h, &o, &r1);
    tunedb_journal_close(j);
    tune_strategy_free(st);
    double best1 = h.items[h.best].ms;
    int failed1 = h.n - h.nok;
    tune_history_free(&h);
    CHECK(w.calls == 30);

    /* a torn last line, as a crash mid-write leaves it */
    char h16[17], path[300];
    tunedb_key_hash(&k, h16);
    snprintf(path, sizeof path, "%s/%s.journal", dir, h16);
    FILE *f = fopen(path, "a");
    fputs("{\"config\":\"tb=8x4x1\",\"ms\":0.1,\"sta", f);
    fclose(f);

    /* resume: 30 loaded, 30 more measured, none twice, budget counts all 60 */
    Diag dg; /* nothing to say: the torn line is skipped quietly */
    diag_init(&dg, NULL, stderr);
    tune_history_init(&h);
    CHECK(tunedb_journal_load(dir, &k, 3, &h, &dg) == 30);
    CHECK(h.n == 30 && h.items[h.best].ms == best1 && h.n - h.nok == failed1);
    j = tunedb_journal_open(dir, &k, err, sizeof err);
    st = tune_strategy_new("gest", &pb, &kn, err, sizeof err);
    o.budget.count = 60;
    o.journal = j;
    TuneResult r2;
    tune_run(&pb, st, &ev, &h, &o, &r2);
    tunedb_journal_close(j);
    tune_strategy_free(st);
    CHECK(r2.evaluated == 30 && h.n == 60);
    CHECK(w.calls == 60 && w.repeated == 0);
    CHECK(r2.best_ms <= best1);
    tune_history_free(&h);

    /* the journal now holds 60 good lines after the torn one */
    tune_history_init(&h);
    CHECK(tunedb_journal_load(dir, &k, 3, &h, &dg) == 60);
    tune_history_free(&h);
    /* another key has no journal */
    TuneDbKey k2 = k;
    k2.cuda = "12.4";
    tune_history_init(&h);
    CHECK(tunedb_journal_load(dir, &k2, 3, &h, &dg) == 0);
    tune_history_free(&h);
    CHECK(dg.warnings == 0 && dg.errors == 0);
    tune_seen_free(w.seen);
    rm_rf(dir);
}

static void test_log_lines(void)
{
    TuneSample r = {.ok = 0, .ms = -1, .elapsed_s = 2.5};
    r.config = config_default(3);
    r.config.v[P_STREAM] = 2;
    r.config.v[P_SD] = 2;
    r.config.v[P_SB] = 16;
    snprintf(r.why, sizeof r.why, "nvrtc: \"x\" undeclared\n\tline 3");
    char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    tune_log_line(f, &r);
    r.ok = 1;
    r.ms = 0.123456789;
    tune_log_line(f, &r);
    fclose(f);
    char *second = strchr(buf, '\n') + 1;
    second[-1] = '\0';
    CHECK(strstr(buf, "\"ms\":null,\"status\":\"fail\""));
    CHECK(strstr(buf, "\"config\":\"tb=32x4x2,stream=z,sb=16\""));
    TuneSample back;
    CHECK(tune_log_parse(buf, 3, &back) == 0);
    CHECK(!back.ok && !strcmp(back.why, r.why) && tune_config_equal(&back.config, &r.config));
    CHECK(back.elapsed_s == 2.5);
    CHECK(tune_log_parse(second, 3, &back) == 0);
    CHECK(back.ok && back.ms == 0.123456789);
    CHECK(tune_log_parse("{\"config\":\"tb=nope\",\"status\":\"ok\",\"ms\":1}", 3, &back) < 0);
    CHECK(tune_log_parse("garbage", 3, &back) < 0);
    CHECK(tune_log_parse("", 3, &back) < 0);
}

/* The lines of the search's end: the re-timing and the search's time (null where absent), the
 * fate and why; a reader of journal lines takes one as a failed sample, never as a time. */
static void test_final_lines(void)
{
    Config c = config_default(3);
    c.v[P_SB] = 16;
    char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    tune_log_final(f, &c, 0.25, -1, "chosen", "");
    tune_log_final(f, &c, -1, 0.5, "final", "its longer timing failed");
    fclose(f);
    char *second = strchr(buf, '\n') + 1;
    second[-1] = '\0';
    CHECK(strstr(buf, "\"ms\":0.25,\"search_ms\":null,\"status\":\"chosen\",\"reason\":\"\"}"));
    CHECK(strstr(second, "\"ms\":null,\"search_ms\":0.5,\"status\":\"final\",\"reason\":\"its longer timing failed\"}"));
    CHECK(!strchr(buf, '\t') && !strstr(buf, "elapsed_s"));
    TuneSample back;
    CHECK(tune_log_parse(buf, 3, &back) == 0 && !back.ok && back.ms < 0);
}

int main(void)
{
    test_db();
    test_resume();
    test_log_lines();
    test_final_lines();
    printf("tunedb: ok\n");
    return 0;
}
