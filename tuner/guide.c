/* The guide (guide.h): occupancy pruning and model ranking around a strategy. */
#include "guide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_int.h"

struct TuneGuide {
    const Model *model;
    const OccGpu *gpu;
    int rank_factor;
    FILE *log;
    TuneGuideStats st;
};

TuneGuide *tune_guide_new(const Model *model, const OccGpu *gpu, int rank_factor)
{
    TuneGuide *g = calloc(1, sizeof *g);
    g->model = model;
    g->gpu = gpu;
    g->rank_factor = rank_factor < 1 ? 1 : rank_factor;
    return g;
}

void tune_guide_free(TuneGuide *g) { free(g); }
void tune_guide_set_log(TuneGuide *g, FILE *log) { g->log = log; }
void tune_guide_stats(const TuneGuide *g, TuneGuideStats *st) { *st = g->st; }
const Model *tune_guide_model(const TuneGuide *g) { return g->model; }
const OccGpu *tune_guide_gpu(const TuneGuide *g) { return g->gpu; }

/* The GPU the model scores occupancy on: the guide's, else sm_90's limits. */
static const OccGpu *score_gpu(const TuneGuide *g) { return g->gpu ? g->gpu : occ_gpu_find("sm_90"); }

int tune_guide_hopeless(const TuneGuide *g, const Space *s, const Config *c, char *why, int whylen)
{
    if (!g->gpu || !s->prog)
        return 0;
    Arena *arena = arena_new();
    char err[512];
    Plan *plan = plan_build(s->prog, c, arena, err, sizeof err);
    int hopeless = 0;
    if (plan) { /* one that does not build is the evaluator's to report */
        int threads, smem;
        double blocks;
        feat_launch_shape(plan, s->n, &threads, &smem, &blocks);
        /* a grid too small to give every SM OCC_MIN_WARPS warps of one point per thread leaves
         * no variant that could: the rule on the grid's blocks would prune them all */
        double points = (double)s->n[0] * s->n[1] * s->n[2];
        if (points < (double)g->gpu->sms * OCC_MIN_WARPS * 32)
            blocks = 1e18;
        hopeless = occ_hopeless(g->gpu, threads, 0, smem, blocks, why, whylen);
    }
    arena_free(arena);
    return hopeless;
}

/* c's features as the model sees them on the guide's GPU; 0, or -1 where its plan does not
 * build. */
static int features_of(const TuneGuide *g, const Space *s, const Config *c, double f[FEAT_COUNT])
{
    Arena *arena = arena_new();
    char why[512];
    int rc = feat_variant(s, c, NULL, NULL, score_gpu(g), arena, f, why, sizeof why);
    arena_free(arena);
    return rc == 0 ? 0 : -1;
}

/* The model's score of c; *supported (may be NULL): whether the menu may trust it (guide.h,
 * GUIDE_UNSUPPORTED). */
static double score_of(const TuneGuide *g, const Space *s, const Config *c, int *supported)
{
    if (supported)
        *supported = 1;
    if (!g->model || !s->prog)
        return 0;
    double f[FEAT_COUNT];
    if (features_of(g, s, c, f) != 0)
        return INFINITY;
    if (supported)
        *supported = model_supports(g->model, f) && f[FEAT_l_fill] >= GUIDE_MIN_FILL;
    return model_score(g->model, f);
}

double tune_guide_score(const TuneGuide *g, const Space *s, const Config *c)
{
    return score_of(g, s, c, NULL);
}

double tune_guide_menu_score(const TuneGuide *g, const Space *s, const Config *c)
{
    int supported;
    double score = score_of(g, s, c, &supported);
    return supported ? score : score + GUIDE_UNSUPPORTED;
}

int tune_guide_measured(const TuneGuide *g, const Space *s, const Config *c)
{
    double f[FEAT_COUNT];
    return g->model && s->prog && features_of(g, s, c, f) == 0 && model_measured(g->model, f);
}

/* ---- the wrapped strategy ------------------------------------------------------------------ */

/* A proposal scored within this of the batch's best (log2 of the predicted slowdown: 1.25x) is
 * as promising as the best as far as the model can tell (its leave-one-out picks were within 5%
 * of the best on 17 of 21 stencils, not better): it is measured, in a later batch when this one
 * is full. What scores worse is dropped, beyond the batch's best ceil(n / rank_factor). */
#define GUIDE_MARGIN 0.32
#define GUIDE_CARRY 64

typedef struct {
    TuneStrategy base;
    TuneStrategy *inner;
    TuneGuide *g;
    const TuneProblem *pb;
    /* The driver's history, what the guide dropped, and what it handed out and the driver has
     * not measured yet ("in flight", failed until its result comes): the strategy proposes
     * against it, so it never proposes any of them again. */
    TuneHistory shadow;
    int synced;         /* the driver's items copied into it */
    int *flight;        /* shadow indices of the configurations in flight */
    int nflight, capflight;
    /* the starting configurations (the knobs' first, the model's, the table's): always measured */
    Config starts[TUNE_STARTS_MAX];
    int nstarts;        /* -1 until computed */
    Config first[TUNE_MAX_FIRST]; /* the knobs' (TuneKnobs.first) */
    int nfirst;
    Config carry[GUIDE_CARRY]; /* kept proposals a batch had no room for: the next ones out */
    int ncarry;
} Guided;

static void log_pruned(FILE *log, const Config *c, const char *why)
{
    if (!log)
        return;
    char cfg[512];
    config_format(c, cfg, sizeof cfg);
    fputs("{\"config\":", log);
    tune_json_string(log, cfg);
    fputs(",\"ms\":null,\"status\":\"pruned\",\"reason\":", log);
    tune_json_string(log, why);
    fputs("}\n", log);
    fflush(log);
}

/* The driver's new results into the shadow: a configuration in flight gets its result in place. */
static void sync(Guided *s, const TuneHistory *h)
{
    for (; s->synced < h->n; s->synced++) {
        const TuneSample *r = &h->items[s->synced];
        int at = -1;
        for (int i = 0; i < s->nflight && at < 0; i++)
            if (tune_config_equal(&s->shadow.items[s->flight[i]].config, &r->config)) {
                at = s->flight[i];
                s->flight[i] = s->flight[--s->nflight];
            }
        if (at < 0) {
            tune_history_add(&s->shadow, &r->config, r->ok, r->ms, r->why, r->elapsed_s);
            continue;
        }
        TuneSample *t = &s->shadow.items[at];
        *t = *r;
        if (r->ok) {
            s->shadow.nok++;
            if (s->shadow.best < 0 || r->ms < s->shadow.items[s->shadow.best].ms)
                s->shadow.best = at;
        }
    }
}

/* A proposal the guide does not measure: the strategy learns it failed, the shadow keeps why,
 * the log and the counts say it. c is in the shadow already (in flight). */
static void drop(Guided *s, const Config *c, const char *why, long *count)
{
    TuneSample r;
    memset(&r, 0, sizeof r);
    r.config = *c;
    r.ms = -1;
    r.elapsed_s = -1;
    snprintf(r.why, sizeof r.why, "%s", why);
    for (int i = 0; i < s->nflight; i++) {
        TuneSample *t = &s->shadow.items[s->flight[i]];
        if (tune_config_equal(&t->config, c)) {
            snprintf(t->why, sizeof t->why, "%s", why);
            s->flight[i] = s->flight[--s->nflight];
            break;
        }
    }
    s->inner->observe(s->inner, &r);
    log_pruned(s->g->log, c, r.why);
    (*count)++;
}

static void in_flight(Guided *s, const Config *c)
{
    int at = tune_history_add(&s->shadow, c, 0, -1, "in flight", -1);
    if (at < 0)
        return;
    if (s->nflight == s->capflight) {
        s->capflight = s->capflight ? 2 * s->capflight : 64;
        s->flight = realloc(s->flight, sizeof *s->flight * (size_t)s->capflight);
    }
    s->flight[s->nflight++] = at;
}

static int by_score(const void *a, const void *b)
{
    const TuneGuideCandidate *x = a, *y = b;
    return (x->score > y->score) - (x->score < y->score);
}

/* Up to want proposals of the strategy: with ranking, several calls (GeST hands out one round's
 * remainder per call), each seeing the earlier ones in flight. */
static int gather(Guided *s, Config *buf, int want, int ranking)
{
    int n = 0;
    for (int calls = 0; n < want && calls < (ranking ? 8 : 1); calls++) {
        int k = s->inner->propose(s->inner, &s->shadow, buf + n, want - n);
        if (k <= 0)
            break;
        for (int i = 0; i < k; i++)
            in_flight(s, &buf[n + i]);
        n += k;
    }
    return n;
}

static int guided_propose(TuneStrategy *st, const TuneHistory *h, Config *out, int max)
{
    Guided *s = (Guided *)st;
    TuneGuide *g = s->g;
    sync(s, h);
    const Space *space = s->pb->space;
    int ranking = g->model && space->prog && g->rank_factor > 1;
    if (s->nstarts < 0) /* GeST's dataset opens with these (gest.c, take_priors) */
        s->nstarts = ranking ? tune_starting_configs(s->pb, s->first, s->nfirst, g, 8, s->starts) : 0;
    if (s->ncarry > 0) {
        int n = s->ncarry < max ? s->ncarry : max;
        memcpy(out, s->carry, sizeof *out * (size_t)n);
        memmove(s->carry, s->carry + n, sizeof *s->carry * (size_t)(s->ncarry - n));
        s->ncarry -= n;
        return n;
    }
    int want = ranking ? max * g->rank_factor : max;
    Config *buf = malloc(sizeof *buf * (size_t)want);
    TuneGuideCandidate *cand = malloc(sizeof *cand * (size_t)want);
    int kept = 0;
    /* a batch that the guide drops whole does not end the run: the strategy proposes again */
    for (int tries = 0; tries < 64 && kept == 0; tries++) {
        int n = gather(s, buf, want, ranking), ncand = 0;
        if (n == 0)
            break;
        g->st.seen += n;
        for (int i = 0; i < n; i++) {
            char why[200], reason[240];
            if (tune_guide_hopeless(g, space, &buf[i], why, sizeof why)) {
                snprintf(reason, sizeof reason, "hopeless by the GPU's limits: %s", why);
                drop(s, &buf[i], reason, &g->st.pruned);
                continue;
            }
            cand[ncand].config = buf[i];
            cand[ncand].score = ranking ? tune_guide_score(g, space, &buf[i]) : 0;
            for (int k = 0; k < s->nstarts; k++) /* GeST's dataset opens with them (gest.c) */
                if (tune_config_equal(&s->starts[k], &buf[i]))
                    cand[ncand].score = -INFINITY;
            ncand++;
        }
        int keep = ncand;
        double best = INFINITY;
        if (ranking) {
            qsort(cand, (size_t)ncand, sizeof *cand, by_score);
            keep = (ncand + g->rank_factor - 1) / g->rank_factor;
            for (int i = 0; i < ncand && !isfinite(best); i++) /* the best that is not a start */
                if (cand[i].score > -INFINITY)
                    best = cand[i].score;
        }
        if (keep > max)
            keep = max;
        for (int i = 0; i < ncand; i++) {
            if (i < keep) {
                out[kept++] = cand[i].config;
                continue;
            }
            /* a start, or as promising as the best: measured next time */
            if ((cand[i].score == -INFINITY || cand[i].score <= best + GUIDE_MARGIN) && s->ncarry < GUIDE_CARRY) {
                s->carry[s->ncarry++] = cand[i].config;
                continue;
            }
            char why[200];
            snprintf(why, sizeof why, "ranked out by the model (score %.3f; the batch's last kept %.3f)",
                     cand[i].score, cand[keep - 1].score);
            drop(s, &cand[i].config, why, &g->st.ranked_out);
        }
    }
    free(buf);
    free(cand);
    return kept;
}

static void guided_observe(TuneStrategy *st, const TuneSample *r)
{
    Guided *s = (Guided *)st;
    s->inner->observe(s->inner, r);
}

static void guided_destroy(TuneStrategy *st)
{
    Guided *s = (Guided *)st;
    tune_strategy_free(s->inner);
    tune_history_free(&s->shadow);
    free(s->flight);
    free(s);
}

TuneStrategy *tune_guide_wrap(TuneGuide *g, const TuneProblem *pb, const TuneKnobs *k, TuneStrategy *st)
{
    if (!g || !st)
        return st;
    Guided *s = calloc(1, sizeof *s);
    s->base = (TuneStrategy){st->name, guided_propose, guided_observe, guided_destroy};
    s->inner = st;
    s->g = g;
    s->pb = pb;
    s->nstarts = -1;
    if (k) {
        s->nfirst = tune_knobs_nfirst(k);
        memcpy(s->first, k->first, sizeof *s->first * (size_t)s->nfirst);
    }
    tune_history_init(&s->shadow);
    return &s->base;
}
