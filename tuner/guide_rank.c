/* The model's ranking of candidate configurations for a program (guide.h): what --autotune
 * --target emits without a GPU, and what GeST starts from when it has a model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "guide.h"
#include "tune_int.h"

#define RANK_MAX_POOL 8192
#define RANK_MAX_CLIMB 64

typedef struct {
    const TuneGuide *g;
    const TuneProblem *pb;
    TuneSeen *seen;
    TuneGuideCandidate *pool;
    int n;
} Pool;

/* Scores c and adds it when valid, new and not hopeless; returns its score (+inf when not added). */
static double offer(Pool *p, const Config *c)
{
    char why[256];
    if (p->n == RANK_MAX_POOL || tune_seen_has(p->seen, c))
        return INFINITY;
    tune_seen_add(p->seen, c);
    if (!p->pb->valid(p->pb->valid_ctx, c, why, sizeof why)
        || tune_guide_hopeless(p->g, p->pb->space, c, why, sizeof why))
        return INFINITY;
    double score = tune_guide_menu_score(p->g, p->pb->space, c);
    if (!isfinite(score))
        return INFINITY;
    p->pool[p->n] = (TuneGuideCandidate){*c, score, 0};
    p->n++;
    return score;
}

static int by_score(const void *a, const void *b)
{
    const TuneGuideCandidate *x = a, *y = b;
    return (x->score > y->score) - (x->score < y->score);
}

/* From c, one free parameter moved to a neighbouring value at a time; the best move if it beats
 * c's score, repeated. Every configuration tried joins the pool. */
static void climb(Pool *p, Config c, double score, int rounds)
{
    const Space *s = p->pb->space;
    for (int round = 0; round < rounds; round++) {
        Config best = c;
        double best_score = score;
        for (int q = 0; q < P_COUNT; q++) {
            if (!tune_param_free(s, q))
                continue;
            int at = tune_value_index(&s->params[q], c.v[q]);
            for (int step = -1; step <= 1; step += 2) {
                int to = at + step;
                if (at < 0 || to < 0 || to >= s->params[q].nvalues)
                    continue;
                Config n = c;
                n.v[q] = s->params[q].values[to];
                double v = offer(p, &n);
                if (v < best_score) {
                    best_score = v;
                    best = n;
                }
            }
        }
        if (best_score >= score)
            return;
        c = best;
        score = best_score;
    }
}

void tune_guide_rank_defaults(TuneGuideRankOptions *o)
{
    /* the menu alone: kernel shapes that won somewhere, which the model orders for this program
     * and GPU. Random draws and a local search under the model reach shapes no measurement taught
     * it, where its scores are extrapolation (docs/model.md: with both, the leave-one-out picks
     * were mostly variants no search had measured) */
    o->draws = 0;
    o->climb_from = 0;
    o->climb_rounds = 0;
    o->seed = 1;
    o->fused_first = 0;
}

/* o->fused_first (guide.h): the table's fused rows that the pool holds and whose family the
 * model never measured for this kind of program move to the front of the sorted pool, in the
 * table's order. */
static void fused_first(Pool *p)
{
    const Space *s = p->pb->space;
    if (!tune_space_fuses(s))
        return; /* one step: no fused kernel in the space */
    Config rows[16];
    int nrows = tune_priors_fused(p->pb, rows, 16), front = 0;
    for (int r = 0; r < nrows; r++) {
        if (tune_guide_measured(p->g, s, &rows[r]))
            continue;
        for (int i = front; i < p->n; i++)
            if (tune_config_equal(&p->pool[i].config, &rows[r])) {
                TuneGuideCandidate c = p->pool[i];
                memmove(&p->pool[front + 1], &p->pool[front], sizeof c * (size_t)(i - front));
                c.from_table = 1;
                p->pool[front++] = c;
                break;
            }
    }
}

int tune_guide_rank(const TuneGuide *g, const TuneProblem *pb, const TuneGuideRankOptions *o,
                    TuneGuideCandidate *out, int max)
{
    TuneGuideRankOptions def;
    if (!o) {
        tune_guide_rank_defaults(&def);
        o = &def;
    }
    const Space *s = pb->space;
    if (!tune_guide_model(g) || !s->prog)
        return 0;
    Pool p = {g, pb, tune_seen_new(), malloc(sizeof(TuneGuideCandidate) * RANK_MAX_POOL), 0};
    Config c[64];
    int dims = s->dims ? s->dims : s->prog->dims;
    /* the priors table's rows and the model's exemplars, each where the space takes its values */
    int n = tune_prior_rows(dims, c, 64);
    for (int i = 0; i < n; i++)
        if (tune_in_space(s, &c[i]))
            offer(&p, &c[i]);
    n = model_exemplars(tune_guide_model(g), dims, c, 64);
    for (int i = 0; i < n; i++)
        if (tune_in_space(s, &c[i]))
            offer(&p, &c[i]);
    Config plain = space_default(s);
    offer(&p, &plain);
    /* random valid draws */
    Rng rng;
    rng_seed(&rng, o->seed);
    for (int i = 0; i < o->draws; i++) {
        Config r;
        if (space_random_valid(s, &rng, 64, &r))
            offer(&p, &r);
    }
    /* a local search under the model from the best few */
    qsort(p.pool, (size_t)p.n, sizeof *p.pool, by_score);
    int starts = p.n < o->climb_from ? p.n : o->climb_from;
    if (starts > RANK_MAX_CLIMB)
        starts = RANK_MAX_CLIMB;
    TuneGuideCandidate from[RANK_MAX_CLIMB];
    memcpy(from, p.pool, sizeof *from * (size_t)starts);
    for (int i = 0; i < starts; i++)
        climb(&p, from[i].config, from[i].score, o->climb_rounds);
    qsort(p.pool, (size_t)p.n, sizeof *p.pool, by_score);
    if (o->fused_first)
        fused_first(&p);
    int got = p.n < max ? p.n : max;
    memcpy(out, p.pool, sizeof *out * (size_t)got);
    free(p.pool);
    tune_seen_free(p.seen);
    return got;
}

int tune_guide_priors(const TuneGuide *g, const TuneProblem *pb, Config *out, int max)
{
    TuneGuideCandidate *c = malloc(sizeof *c * (size_t)(max > 0 ? max : 1));
    int n = tune_guide_rank(g, pb, NULL, c, max);
    for (int i = 0; i < n; i++)
        out[i] = c[i].config;
    free(c);
    return n;
}
