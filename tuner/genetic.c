/* A genetic search like OpenTuner's, as the GeST paper configures it for comparison:
 * sub-populations (2 x 16), tournament selection, uniform crossover (0.8), per-gene mutation
 * (0.005), elitism, and a migration of the best between sub-populations now and then. A child
 * that is invalid or already measured is repaired by mutating one gene at a time, and redrawn
 * at random when that fails, so every proposal is new and valid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_int.h"

#define GA_MAX_SUB 8
#define GA_REPAIRS 16

typedef struct {
    Config c;
    double fit; /* ms; +inf when it failed or is not measured yet */
} Ind;

typedef struct {
    TuneStrategy base;
    const TuneProblem *pb;
    TuneKnobs k;
    TuneRng rng;
    Ind *pop[GA_MAX_SUB];
    int npop[GA_MAX_SUB];
    Ind *kids;     /* this generation, waiting for measurements */
    int *kid_sub;
    int nkids, nout, nback, cap;
    int gen, started, init_done;
    Ind *pre;      /* results observed before the first generation (a resumed journal) */
    int npre;
} Genetic;

static int sub_of_fit_cmp(const void *a, const void *b)
{
    double x = ((const Ind *)a)->fit, y = ((const Ind *)b)->fit;
    return x < y ? -1 : x > y;
}

static void observe_into(Genetic *g, const TuneSample *r)
{
    for (int i = 0; i < g->nkids; i++)
        if (tune_config_equal(&g->kids[i].c, &r->config)) {
            g->kids[i].fit = r->ok ? r->ms : INFINITY;
            g->nback++;
            return;
        }
    if (!g->started) {
        g->pre = realloc(g->pre, (size_t)(g->npre + 1) * sizeof *g->pre);
        g->pre[g->npre++] = (Ind){r->config, r->ok ? r->ms : INFINITY};
    }
}

static void genetic_observe(TuneStrategy *st, const TuneSample *r)
{
    observe_into((Genetic *)st, r);
}

static const Ind *tournament(Genetic *g, int s)
{
    const Ind *best = NULL;
    for (int i = 0; i < g->k.ga_tournament; i++) {
        const Ind *c = &g->pop[s][tune_rng_below(&g->rng, g->npop[s])];
        if (!best || c->fit < best->fit)
            best = c;
    }
    return best;
}

static int free_params(const Space *sp, int *out)
{
    int n = 0;
    for (int p = 0; p < P_COUNT; p++)
        if (tune_param_free(sp, p))
            out[n++] = p;
    return n;
}

/* One child of sub-population s, fresh and valid, or 0. */
static int breed(Genetic *g, const TuneHistory *h, TuneSeen *gen, int s, Config *out)
{
    const Space *sp = g->pb->space;
    int fp[P_COUNT], nf = free_params(sp, fp);
    Config c = tournament(g, s)->c;
    if (tune_rng_unit(&g->rng) < g->k.ga_cross) {
        const Config *other = &tournament(g, s)->c;
        for (int i = 0; i < nf; i++)
            if (tune_rng_below(&g->rng, 2))
                c.v[fp[i]] = other->v[fp[i]];
    }
    for (int i = 0; i < nf; i++)
        if (tune_rng_unit(&g->rng) < g->k.ga_mut)
            c.v[fp[i]] = sp->params[fp[i]].values[tune_rng_below(&g->rng, sp->params[fp[i]].nvalues)];
    for (int t = 0; t < GA_REPAIRS && !tune_fresh(g->pb, h, gen, &c) && nf > 0; t++) {
        int p = fp[tune_rng_below(&g->rng, nf)];
        c.v[p] = sp->params[p].values[tune_rng_below(&g->rng, sp->params[p].nvalues)];
    }
    if (tune_fresh(g->pb, h, gen, &c)) {
        *out = c;
        return 1;
    }
    return tune_sample(g->pb, h, gen, &g->rng, &c, NULL, 0, 64, out);
}

static void add_kid(Genetic *g, const Config *c, int s)
{
    if (g->nkids == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 64;
        g->kids = realloc(g->kids, (size_t)g->cap * sizeof *g->kids);
        g->kid_sub = realloc(g->kid_sub, (size_t)g->cap * sizeof *g->kid_sub);
    }
    g->kids[g->nkids] = (Ind){*c, INFINITY};
    g->kid_sub[g->nkids++] = s;
}

/* The first generation: what was loaded, then random points. */
static void first_generation(Genetic *g, const TuneHistory *h)
{
    int S = g->k.ga_subpops, P = g->k.ga_pop;
    if (g->npre > 0)
        qsort(g->pre, (size_t)g->npre, sizeof *g->pre, sub_of_fit_cmp);
    for (int i = 0; i < g->npre && i < S * P; i++) {
        int s = i % S;
        g->pop[s][g->npop[s]++] = g->pre[i];
    }
    TuneSeen *gen = tune_seen_new();
    for (int s = 0; s < S; s++)
        for (int i = g->npop[s]; i < P; i++) {
            Config c;
            if (!tune_sample(g->pb, h, gen, &g->rng, NULL, NULL, 0, 256, &c))
                break;
            tune_seen_add(gen, &c);
            add_kid(g, &c, s);
        }
    tune_seen_free(gen);
}

/* Takes the measured kids into the populations: elites stay, kids fill the rest. */
static void next_population(Genetic *g)
{
    int S = g->k.ga_subpops, P = g->k.ga_pop;
    for (int s = 0; s < S; s++) {
        Ind *old = malloc(sizeof(Ind) * (size_t)(g->npop[s] + 1));
        int nold = g->npop[s];
        memcpy(old, g->pop[s], sizeof(Ind) * (size_t)nold);
        qsort(old, (size_t)nold, sizeof *old, sub_of_fit_cmp);
        int keep = g->started ? (g->k.ga_elite < nold ? g->k.ga_elite : nold) : nold;
        int n = 0;
        for (int i = 0; i < keep && n < P; i++)
            g->pop[s][n++] = old[i];
        for (int i = 0; i < g->nkids && n < P; i++)
            if (g->kid_sub[i] == s)
                g->pop[s][n++] = g->kids[i];
        for (int i = keep; i < nold && n < P; i++) /* too few kids: the old fill in */
            g->pop[s][n++] = old[i];
        g->npop[s] = n;
        free(old);
    }
    g->gen++;
    if (S > 1 && g->k.ga_migrate > 0 && g->gen % g->k.ga_migrate == 0) {
        Ind best[GA_MAX_SUB];
        for (int s = 0; s < S; s++) {
            qsort(g->pop[s], (size_t)g->npop[s], sizeof(Ind), sub_of_fit_cmp);
            best[s] = g->pop[s][0];
        }
        for (int s = 0; s < S; s++) /* the best of s replaces the worst of s+1 */
            if (g->npop[(s + 1) % S] > 1)
                g->pop[(s + 1) % S][g->npop[(s + 1) % S] - 1] = best[s];
    }
    g->nkids = g->nout = g->nback = 0;
}

static int genetic_propose(TuneStrategy *st, const TuneHistory *h, Config *out, int max)
{
    Genetic *g = (Genetic *)st;
    if (!g->init_done) {
        first_generation(g, h); /* no kids when the loaded results fill the populations */
        g->init_done = 1;
    }
    if (g->nout == g->nkids) {
        if (g->nback < g->nkids)
            return 0; /* the contract says this does not happen */
        next_population(g);
        g->started = 1;
        int S = g->k.ga_subpops, P = g->k.ga_pop;
        TuneSeen *gen = tune_seen_new();
        for (int s = 0; s < S; s++) {
            if (g->npop[s] == 0)
                continue;
            for (int i = (g->k.ga_elite < P ? g->k.ga_elite : 0); i < P; i++) {
                Config c;
                if (!breed(g, h, gen, s, &c))
                    break;
                tune_seen_add(gen, &c);
                add_kid(g, &c, s);
            }
        }
        tune_seen_free(gen);
        if (g->nkids == 0)
            return 0;
    }
    int got = 0;
    while (got < max && g->nout < g->nkids)
        out[got++] = g->kids[g->nout++].c;
    return got;
}

static void genetic_destroy(TuneStrategy *st)
{
    Genetic *g = (Genetic *)st;
    for (int s = 0; s < GA_MAX_SUB; s++)
        free(g->pop[s]);
    free(g->kids);
    free(g->kid_sub);
    free(g->pre);
    free(g);
}

TuneStrategy *tune_genetic_new(const TuneProblem *pb, const TuneKnobs *k)
{
    Genetic *g = calloc(1, sizeof *g);
    g->base = (TuneStrategy){"genetic", genetic_propose, genetic_observe, genetic_destroy};
    g->pb = pb;
    g->k = *k;
    if (g->k.ga_subpops < 1)
        g->k.ga_subpops = 1;
    if (g->k.ga_subpops > GA_MAX_SUB)
        g->k.ga_subpops = GA_MAX_SUB;
    if (g->k.ga_pop < 2)
        g->k.ga_pop = 2;
    if (g->k.ga_tournament < 1)
        g->k.ga_tournament = 1;
    for (int s = 0; s < g->k.ga_subpops; s++)
        g->pop[s] = calloc((size_t)g->k.ga_pop, sizeof(Ind));
    tune_rng_seed(&g->rng, k->seed);
    return &g->base;
}
