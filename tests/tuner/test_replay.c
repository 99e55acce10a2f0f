/* Replay: recorded lines are found, unrecorded configs fail, the simulated clock charges the
 * recorded cost, a time budget holds on it, strategies compare on a recording, and bad files
 * are reported with their line. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "fake_space.h"
#include "tune_int.h"

static char root[512];

static const char *data(const char *name)
{
    static char path[700];
    snprintf(path, sizeof path, "%s/tests/data/%s", root, name);
    return path;
}

static Config cfg(const char *text, int dims)
{
    Config c;
    char err[200];
    CHECK(config_parse(text, dims, &c, err, sizeof err) == 0);
    return c;
}

static void test_tiny(void)
{
    char err[300];
    Replay *rp = replay_load(data("replay_tiny.tsv"), err, sizeof err);
    if (!rp)
        fprintf(stderr, "%s\n", err);
    CHECK(rp);
    CHECK(replay_dims(rp) == 2 && replay_count(rp) == 7);
    CHECK(!strcmp(replay_header(rp, "program"), "heat2d"));
    CHECK(!strcmp(replay_header(rp, "gpu"), "NVIDIA H100 80GB HBM3"));
    CHECK(replay_header(rp, "nothing") == NULL);
    Config best;
    CHECK(replay_best_ms(rp, &best) == 0.390);
    Config want = cfg("tb=64x4x1,uf=2x1x1", 2);
    CHECK(tune_config_equal(&best, &want));

    ReplayRun rr;
    TuneEvaluator ev;
    replay_run_init(&rr, rp);
    replay_evaluator(&rr, &ev);
    double ms = -1;
    char why[160];
    Config c = cfg("tb=64x4x1", 2);
    CHECK(ev.evaluate(ev.ctx, &c, &ms, why, sizeof why) == 0 && ms == 0.420);
    CHECK(ev.clock(ev.clock_ctx) == 1.25);
    c = cfg("tb=64x4x1,uf=2x1x1", 2);
    CHECK(ev.evaluate(ev.ctx, &c, &ms, why, sizeof why) == 0 && ms == 0.390);
    CHECK(ev.clock(ev.clock_ctx) == 1.75); /* no cost recorded: 0.5 s */
    c = cfg("tb=256x4x1", 2);
    CHECK(ev.evaluate(ev.ctx, &c, &ms, why, sizeof why) != 0);
    CHECK(!strcmp(why, "too many resources requested for launch"));
    CHECK(ev.clock(ev.clock_ctx) == 2.0);
    c = cfg("tb=16x16x1", 2);
    CHECK(ev.evaluate(ev.ctx, &c, &ms, why, sizeof why) != 0 && !strcmp(why, "not recorded"));
    CHECK(ev.clock(ev.clock_ctx) == 2.5);
    CHECK(!replay_valid(rp, &c, why, sizeof why));
    c = cfg("tb=32x8x1,smem=on", 2);
    CHECK(replay_valid(rp, &c, why, sizeof why)); /* failed, but recorded: may be proposed */

    Space s;
    replay_space(rp, &s);
    CHECK(s.params[P_TBX].nvalues == 4 && s.params[P_TBX].values[0] == 32 &&
          s.params[P_TBX].values[3] == 256);
    CHECK(s.params[P_UFX].nvalues == 2 && s.params[P_SMEM].nvalues == 2);
    CHECK(s.params[P_TBZ].nvalues == 1 && s.n[0] == 1024 && s.n[2] == 1);

    /* exhaustive over the recording sees each of the 6 distinct configs once */
    TuneProblem pb = {&s, replay_valid, rp};
    TuneKnobs k;
    tune_knobs_default(&k);
    TuneStrategy *st = tune_strategy_new("exhaustive", &pb, &k, err, sizeof err);
    CHECK(st);
    TuneHistory h;
    tune_history_init(&h);
    replay_run_init(&rr, rp);
    TuneRunOptions o = {.quiet = 1};
    TuneResult res;
    tune_run(&pb, st, &ev, &h, &o, &res);
    CHECK(res.evaluated == 6 && res.valid == 4 && res.best_ms == 0.390);
    CHECK(fabs(res.elapsed_s - (1.5 + 1.25 + 0.5 + 0.75 + 0.25 + 0.5)) < 1e-9);
    tune_history_free(&h);
    tune_strategy_free(st);
    replay_free(rp);

    /* the one-call form behind `stencilc replay` */
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    TuneBudget b = {.count = 4};
    CHECK(replay_compare_file(f, data("replay_tiny.tsv"), NULL, 2, b, NULL, err, sizeof err) == 0);
    fclose(f);
    CHECK(strstr(buf, "heat2d on 1024x1024") && strstr(buf, "4 evaluations; 2 seeds"));
    CHECK(strstr(buf, "\nexhaustive ") && strstr(buf, "\ngest "));
    CHECK(replay_compare_file(stdout, "/nonexistent", "gest", 2, b, NULL, err, sizeof err) < 0);
    f = fmemopen(buf, sizeof buf, "w");
    CHECK(replay_compare_file(f, data("replay_tiny.tsv"), "simplex", 2, b, NULL, err,
                              sizeof err) < 0);
    fclose(f);
    CHECK(strstr(err, "unknown strategy 'simplex'"));
}

static void test_synth(void)
{
    char err[300];
    Replay *rp = replay_load(data("replay_synth3d.tsv"), err, sizeof err);
    if (!rp)
        fprintf(stderr, "%s\n", err);
    CHECK(rp && replay_dims(rp) == 3 && replay_count(rp) > 500);

    /* a time budget on the simulated clock */
    Space s;
    replay_space(rp, &s);
    TuneProblem pb = {&s, replay_valid, rp};
    TuneKnobs k;
    tune_knobs_default(&k);
    for (int i = 0; tune_strategy_names[i]; i++) {
        char e2[300];
        TuneStrategy *st = tune_strategy_new(tune_strategy_names[i], &pb, &k, e2, sizeof e2);
        CHECK(st);
        TuneHistory h;
        TuneRunOptions o = {.budget = {.seconds = 30}, .quiet = 1};
        TuneResult res;
        replay_tune(rp, &pb, st, &o, &h, &res);
        CHECK(res.stop == TUNE_STOP_TIME);
        CHECK(res.elapsed_s >= 30 && res.elapsed_s < 32);
        CHECK(res.evaluated > 20 && res.evaluated < 100);
        CHECK(res.found);
        for (int j = 0; j < h.n; j++) /* proposals stay within the recording */
            CHECK(h.items[j].ok || strcmp(h.items[j].why, "not recorded") != 0);
        tune_history_free(&h);
        tune_strategy_free(st);
    }

    /* the comparison table */
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    const char *names[] = {"gest", "genetic", "exhaustive"};
    TuneBudget b = {.seconds = 60};
    CHECK(replay_compare(f, rp, NULL, names, 3, 4, b, &k, err, sizeof err) == 0);
    fclose(f);
    printf("%s", buf);
    CHECK(strstr(buf, "synthetic-3d"));
    CHECK(strstr(buf, "\ngest ") && strstr(buf, "\ngenetic ") && strstr(buf, "\nrandom "));
    CHECK(strstr(buf, "\nexhaustive "));
    CHECK(strstr(buf, "speed-up vs rand"));
    replay_free(rp);
}

static void expect_bad(const char *text, const char *msg)
{
    char path[] = "/tmp/stc_replay_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    char err[400] = "";
    Replay *rp = replay_load(path, err, sizeof err);
    unlink(path);
    if (rp || !strstr(err, msg))
        fprintf(stderr, "for %s\ngot: %s\n", text, err);
    CHECK(!rp && strstr(err, msg));
}

static void test_bad_files(void)
{
    char err[300];
    CHECK(replay_load("/nonexistent/replay.tsv", err, sizeof err) == NULL);
    CHECK(strstr(err, "cannot open"));
    expect_bad("", "empty replay file");
    expect_bad("tb=32x8x1\t0.5\n", ":1: expected a header");
    expect_bad("#stencilc-replay\tprogram=x\n", ":1: expected a header"); /* no grid */
    expect_bad("#stencilc-replay\tgrid=64x64\ntb=32x8x1\n", ":2: expected CONFIG");
    expect_bad("#stencilc-replay\tgrid=64x64\ntb=32x8x1\tfast\n", ":2: bad time 'fast'");
    expect_bad("#stencilc-replay\tgrid=64x64\n\ntb=32x8x1\t-1\n", ":3: bad time");
    expect_bad("#stencilc-replay\tgrid=64x64\ntb=33x8x1\t1.0\n", ":2: bad config");
    expect_bad("#stencilc-replay\tgrid=64x64\nwarp=2\t1.0\n", ":2: bad config");
    expect_bad("#stencilc-replay\tgrid=64x64\ntb=32x8x1\t1.0\tcost=soon\n", ":2: bad cost");
}

/* GeST's prior configurations in replay, where the space has no program: the recording's grid
 * says the dimension, so a 2D recording gets the 2D priors (it got the 3D ones, all invalid).
 * Without the program a recording counts as a star's, so a star's recording is the one whose
 * GeST run measured the same priors (a box's run measured the box priors instead). */
static void test_priors_2d(void)
{
    char err[300];
    Replay *rp = replay_load(data("replay_star2d1r_h100.tsv"), err, sizeof err);
    CHECK(rp != NULL);
    if (!rp)
        return;
    Space s;
    replay_space(rp, &s);
    TuneProblem pb = {&s, replay_valid, rp};
    Config pri[16];
    int np = tune_priors(&pb, pri, 16);
    CHECK(np >= 4);
    Config first = cfg("tb=128x4,uf=2x1,bm=2x4", 2);
    CHECK(np > 0 && tune_config_equal(&pri[0], &first));
    for (int i = 0; i < np; i++)
        CHECK(pri[i].v[P_TBZ] == 1 && replay_valid(rp, &pri[i], err, sizeof err));
    replay_free(rp);
}

int main(void)
{
    const char *r = getenv("STC_SOURCE_ROOT");
    snprintf(root, sizeof root, "%s", r ? r : "../..");
    test_tiny();
    test_synth();
    test_bad_files();
    test_priors_2d();
    printf("replay: ok\n");
    return 0;
}
