/* `stencilc replay`: every strategy over several seeds on the same recording and the same
 * simulated tuning time, summed up in one table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_int.h"

#define CMP_MAX_STRATEGIES 8

/* The strategies to compare, each once, random among them (the reference of the speed-ups):
 * their count, with *ref random's place; -1 with err for an unknown one. */
static int strategy_list(const char *const *strategies, int nstrategies, const char **names, int *ref,
                         char *err, int errlen)
{
    int n = 0;
    *ref = -1;
    for (int i = 0; i < nstrategies && n < CMP_MAX_STRATEGIES; i++) {
        int known = 0, dup = 0;
        for (int j = 0; tune_strategy_names[j]; j++)
            known |= !strcmp(tune_strategy_names[j], strategies[i]);
        if (!known) {
            snprintf(err, (size_t)errlen, "unknown strategy '%s' (gest, random, genetic, "
                     "exhaustive)", strategies[i]);
            return -1;
        }
        for (int j = 0; j < n; j++)
            dup |= !strcmp(names[j], strategies[i]);
        if (!dup)
            names[n++] = strategies[i];
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], "random"))
            *ref = i;
    if (*ref < 0)
        names[*ref = n++] = "random";
    return n;
}

/* Every strategy with every seed on the recording: best[s * nseeds + seed] (INFINITY where none
 * was found) and evals[s], the mean evaluations. A strategy that refuses the problem says why in
 * refused[s]; -1 with err where the reference refuses, or one refuses without a reason. */
static int run_all(const Replay *rp, const TuneProblem *pb, const char **names, int n, int ref, int nseeds,
                   TuneBudget budget, const TuneKnobs *k, double *best, double *evals,
                   char refused[][200], char *err, int errlen)
{
    for (int s = 0; s < n; s++)
        for (int seed = 0; seed < nseeds; seed++) {
            TuneKnobs ks = *k;
            ks.seed = k->seed + (unsigned long long)seed;
            best[s * nseeds + seed] = INFINITY;
            TuneStrategy *st = tune_strategy_new(names[s], pb, &ks, refused[s], 200);
            if (!st) {
                if (s == ref || !refused[s][0]) {
                    snprintf(err, (size_t)errlen, "%s", refused[s]);
                    return -1;
                }
                break;
            }
            TuneHistory h;
            TuneRunOptions o = {.budget = budget, .quiet = 1};
            TuneResult res;
            replay_tune(rp, pb, st, &o, &h, &res);
            if (res.found)
                best[s * nseeds + seed] = res.best_ms;
            evals[s] += (double)res.evaluated / nseeds;
            tune_history_free(&h);
            tune_strategy_free(st);
        }
    return 0;
}

/* The table's head: the recording, the budget and the seeds. */
static void print_head(FILE *out, const Replay *rp, TuneBudget budget, int nseeds, unsigned long long seed)
{
    const char *prog = replay_header(rp, "program"), *grid = replay_header(rp, "grid"),
               *gpu = replay_header(rp, "gpu");
    fprintf(out, "replay: %s on %s, %s: %d recorded configs, recorded best %.4g ms\n",
            prog ? prog : "?", grid ? grid : "?", gpu ? gpu : "?", replay_count(rp),
            replay_best_ms(rp, NULL));
    char limit[96] = "no limit";
    if (budget.seconds > 0 && budget.count > 0)
        snprintf(limit, sizeof limit, "%g s of simulated tuning time or %ld evaluations",
                 budget.seconds, budget.count);
    else if (budget.seconds > 0)
        snprintf(limit, sizeof limit, "%g s of simulated tuning time", budget.seconds);
    else if (budget.count > 0)
        snprintf(limit, sizeof limit, "%ld evaluations", budget.count);
    fprintf(out, "budget: %s; %d seeds from %llu\n", limit, nseeds, seed);
    fprintf(out, "%-12s %14s %16s %18s %10s\n", "strategy", "mean best ms", "speed-up vs rand",
            "best or within 2%", "mean evals");
}

/* Strategy s's row: its mean best, its mean speed-up over random seed by seed, and how often it
 * was the best or within 2% of it. */
static void print_row(FILE *out, const char **names, int n, int s, int ref, int nseeds, const double *best,
                      const double *evals, const char *refused)
{
    if (refused[0] && isinf(best[s * nseeds])) {
        fprintf(out, "%-12s %s\n", names[s], refused);
        return;
    }
    double sum = 0, speed = 0;
    int found = 0, near = 0;
    for (int seed = 0; seed < nseeds; seed++) {
        double b = best[s * nseeds + seed], r = best[ref * nseeds + seed];
        double top = INFINITY;
        for (int t = 0; t < n; t++)
            if (best[t * nseeds + seed] < top)
                top = best[t * nseeds + seed];
        if (isfinite(b)) {
            sum += b;
            found++;
            speed += isfinite(r) ? r / b : 1;
            near += b <= top * 1.02;
        }
    }
    if (!found)
        fprintf(out, "%-12s %14s %16s %17.0f%% %10.1f\n", names[s], "none", "-", 0.0, evals[s]);
    else
        fprintf(out, "%-12s %14.4g %15.3fx %17.0f%% %10.1f\n", names[s], sum / found, speed / found,
                100.0 * near / nseeds, evals[s]);
}

int replay_compare(FILE *out, const Replay *rp, const TuneProblem *pb_or_null,
                   const char *const *strategies, int nstrategies, int nseeds, TuneBudget budget,
                   const TuneKnobs *knobs, char *err, int errlen)
{
    Space space;
    TuneProblem pb;
    if (pb_or_null) {
        pb = *pb_or_null;
    } else {
        replay_space(rp, &space);
        pb = (TuneProblem){&space, replay_valid, (void *)rp};
    }
    const char *names[CMP_MAX_STRATEGIES + 1];
    int ref, n = strategy_list(strategies, nstrategies, names, &ref, err, errlen);
    if (n < 0)
        return -1;
    if (nseeds < 1)
        nseeds = 1;
    TuneKnobs k;
    if (knobs)
        k = *knobs;
    else
        tune_knobs_default(&k);
    double *best = malloc(sizeof *best * (size_t)(n * nseeds));
    double *evals = calloc((size_t)n, sizeof *evals);
    char refused[CMP_MAX_STRATEGIES + 1][200] = {{0}};
    int r = run_all(rp, &pb, names, n, ref, nseeds, budget, &k, best, evals, refused, err, errlen);
    if (r == 0) {
        print_head(out, rp, budget, nseeds, k.seed);
        for (int s = 0; s < n; s++)
            print_row(out, names, n, s, ref, nseeds, best, evals, refused[s]);
    }
    free(best);
    free(evals);
    return r;
}

int replay_compare_file(FILE *out, const char *path, const char *strategy, int nseeds,
                        TuneBudget budget, const TuneKnobs *knobs, char *err, int errlen)
{
    Replay *rp = replay_load(path, err, errlen);
    if (!rp)
        return -1;
    const char *all[] = {"gest", "genetic", "random", "exhaustive"};
    const char *one[] = {strategy};
    if (budget.seconds <= 0 && budget.count <= 0)
        budget.seconds = 60;
    int rc = strategy ? replay_compare(out, rp, NULL, one, 1, nseeds, budget, knobs, err, errlen)
                      : replay_compare(out, rp, NULL, all, 4, nseeds, budget, knobs, err, errlen);
    replay_free(rp);
    return rc;
}
