/* The strategies on real measurements: every tests/data/replay_*_h100.tsv (random samples of
 * the tuning space of a benchmark stencil, measured on an H100 with `stencilc --tune-record`).
 * For each, GeST, random and genetic search run over 10 seeds at an equal simulated tuning
 * time; the test prints the comparison and checks what must hold whatever the data: every run
 * finds a recorded configuration, never one faster than the recorded best, and every strategy
 * ends at least as fast as the default configuration when the recording holds it. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

enum { SEEDS = 10 };

static double run_once(const Replay *rp, const Space *space, const char *strategy, unsigned seed,
                       double seconds)
{
    TuneProblem pb = {space, replay_valid, (void *)rp};
    TuneKnobs knobs;
    tune_knobs_default(&knobs);
    knobs.seed = seed;
    char err[256];
    TuneStrategy *st = tune_strategy_new(strategy, &pb, &knobs, err, (int)sizeof err);
    if (!st) {
        fprintf(stderr, "%s: %s\n", strategy, err);
        failures++;
        return -1;
    }
    TuneHistory h;
    TuneRunOptions o = {.budget = {seconds, 0}, .quiet = 1};
    TuneResult res;
    replay_tune(rp, &pb, st, &o, &h, &res);
    double best = res.found ? res.best_ms : -1;
    tune_history_free(&h);
    tune_strategy_free(st);
    return best;
}

static void one_file(const char *path)
{
    char err[512];
    Replay *rp = replay_load(path, err, (int)sizeof err);
    CHECK(rp != NULL);
    if (!rp) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    Space space;
    replay_space(rp, &space);
    Config best_cfg;
    double best = replay_best_ms(rp, &best_cfg);
    CHECK(best > 0);
    Config plain = config_default(replay_dims(rp));
    double plain_ms;
    char why[160];
    ReplayRun run;
    replay_run_init(&run, rp);
    TuneEvaluator ev;
    replay_evaluator(&run, &ev);
    int have_plain = ev.evaluate(ev.ctx, &plain, &plain_ms, why, (int)sizeof why) == 0;
    static const char *const strategies[] = {"gest", "random", "genetic"};
    const double seconds = 30; /* simulated: the recorded cost of each evaluation */
    printf("%s: %d configurations, best %.4g ms%s\n", replay_header(rp, "program"), replay_count(rp), best,
           have_plain ? "" : " (default not recorded)");
    for (int s = 0; s < 3; s++) {
        double sum = 0;
        int within = 0;
        for (unsigned seed = 1; seed <= SEEDS; seed++) {
            double ms = run_once(rp, &space, strategies[s], seed, seconds);
            CHECK(ms > 0 && ms >= best);
            if (have_plain)
                CHECK(ms <= plain_ms);
            sum += ms / best;
            within += ms <= 1.05 * best;
        }
        printf("  %-8s mean best / recorded best %.3f, within 5%% in %d of %d seeds\n", strategies[s],
               sum / SEEDS, within, SEEDS);
    }
    replay_free(rp);
}

int main(void)
{
    const char *root = getenv("STC_SOURCE_ROOT");
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s/tests/data/replay_*_h100.tsv", root ? root : ".");
    glob_t gl;
    if (glob(pattern, 0, NULL, &gl) != 0) {
        printf("no H100 recordings under %s\n", pattern);
        return 77;
    }
    for (size_t i = 0; i < gl.gl_pathc; i++)
        one_file(gl.gl_pathv[i]);
    globfree(&gl);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
