/* The GeST strategy: a small random dataset (led by a few prior configurations, knob
 * `priors`), parameter grouping by correlation, then rounds that re-draw one group's
 * parameters around the best configuration, each group sampled in proportion to a ratio that
 * grows when the group improves the best and shrinks otherwise. A round's samples of every
 * group go out in one batch, so the evaluator compiles them in parallel; each proposed
 * configuration remembers its group, so an improvement is credited to the group that drew it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gest.h"
#include "guide.h"
#include "tune_int.h"

/* Draws per sample before a group counts as exhausted around the best configuration. */
#define GEST_ATTEMPTS 64
/* Steps tried per configuration once the random draws find nothing new (wander). */
#define WANDER_ATTEMPTS 4096

typedef struct {
    TuneStrategy base;
    const TuneProblem *pb;
    TuneKnobs k;
    TuneRng rng;
    TuneSample *data; /* every observation, in order */
    int ndata, capdata;
    int proposed;     /* configurations handed out (plus observed ones we did not hand out) */
    int have_best;
    Config best;
    double best_ms;
    int grouped;
    GestGroup groups[GEST_MAX_GROUPS];
    int ng;
    double sr[GEST_MAX_GROUPS], credit[GEST_MAX_GROUPS];
    int count[GEST_MAX_GROUPS], up[GEST_MAX_GROUPS];
    int in_round, cur, round_requested;
    /* Proposed, not yet observed: the group that drew each (-1: random or prior). */
    Config *pend;
    int *pend_group;
    int npend, cappend;
    /* The starting configurations (the knobs' first, the model's, the priors table's), listed
     * at the first call with room for them; a batch too small for all of them leaves the rest to
     * the next calls (take_priors), so a batch of one (replay) measures every one. */
    Config priors[TUNE_STARTS_MAX];
    int npriors, priors_listed;
    int priors_taken; /* of priors, those handed out or skipped */
    int priors_done;
    TuneSeen *spent; /* measured configurations with no fresh neighbour left (near_measured) */
} Gest;

static void pending_add(Gest *g, const Config *c, int group)
{
    if (g->npend == g->cappend) {
        g->cappend = g->cappend ? 2 * g->cappend : 32;
        g->pend = realloc(g->pend, (size_t)g->cappend * sizeof *g->pend);
        g->pend_group = realloc(g->pend_group, (size_t)g->cappend * sizeof *g->pend_group);
    }
    g->pend[g->npend] = *c;
    g->pend_group[g->npend++] = group;
}

/* The group that drew c (-1 when none did), and c leaves the pending list. */
static int pending_take(Gest *g, const Config *c)
{
    for (int i = 0; i < g->npend; i++)
        if (tune_config_equal(&g->pend[i], c)) {
            int group = g->pend_group[i];
            g->npend--;
            g->pend[i] = g->pend[g->npend];
            g->pend_group[i] = g->pend_group[g->npend];
            return group;
        }
    return -1;
}

static void gest_observe(TuneStrategy *st, const TuneSample *r)
{
    Gest *g = (Gest *)st;
    if (g->ndata == g->capdata) {
        g->capdata = g->capdata ? g->capdata * 2 : 64;
        g->data = realloc(g->data, (size_t)g->capdata * sizeof *g->data);
    }
    g->data[g->ndata++] = *r;
    if (g->ndata > g->proposed)
        g->proposed = g->ndata; /* loaded from a journal: part of the dataset */
    int group = pending_take(g, &r->config);
    if (r->ok && (!g->have_best || r->ms < g->best_ms)) {
        g->have_best = 1;
        g->best = r->config;
        g->best_ms = r->ms;
        if (group >= 0)
            g->up[group] = 1;
    }
}

/* A step away from a measured configuration: 1 to 3 free parameters of a valid one (the
 * better of two drawn at random) re-drawn by tune_sample. A long search can use up what the random
 * draws reach, since each draw is repaired toward the padded form and so favours sparse
 * configurations; without this it stops early (docs/gest.md, "Exhausted"). Returns 1 with
 * a fresh valid configuration in out, or 0 after WANDER_ATTEMPTS steps (near_measured then). */
static int wander(Gest *g, const TuneHistory *h, const TuneSeen *batch, Config *out)
{
    int free_params[P_COUNT], nfree = 0;
    for (int p = 0; p < P_COUNT; p++)
        if (tune_param_free(g->pb->space, p))
            free_params[nfree++] = p;
    if (nfree == 0 || h->nok == 0)
        return 0;
    for (int a = 0; a < WANDER_ATTEMPTS; a++) {
        const TuneSample *from = NULL;
        for (int k = 0; k < 2; k++) {
            const TuneSample *s = &h->items[tune_rng_below(&g->rng, h->n)];
            for (int t = 0; t < 8 && !s->ok; t++)
                s = &h->items[tune_rng_below(&g->rng, h->n)];
            if (s->ok && (!from || s->ms < from->ms))
                from = s;
        }
        if (!from)
            continue;
        int params[3], n = 1 + tune_rng_below(&g->rng, 3);
        for (int i = 0; i < n; i++)
            params[i] = free_params[tune_rng_below(&g->rng, nfree)];
        if (tune_sample(g->pb, h, batch, &g->rng, &from->config, params, n, 1, out))
            return 1;
    }
    return 0;
}

/* A measured configuration's place in near_measured's order: ok ones fastest first, failed
 * ones (INFINITY) last, ties by history index so that the order does not depend on qsort. */
typedef struct {
    double ms;
    int i;
} Ranked;

static int ranked_cmp(const void *x, const void *y)
{
    const Ranked *a = x, *b = y;
    if (a->ms != b->ms)
        return a->ms < b->ms ? -1 : 1;
    return a->i - b->i;
}

/* The measured configurations not yet spent, in near_measured's order; *out malloc'd. */
static int rank_unspent(const Gest *g, const TuneHistory *h, Ranked **out)
{
    Ranked *r = malloc(sizeof *r * (size_t)(h->n + 1));
    int n = 0;
    *out = r;
    if (!r)
        return 0;
    for (int i = 0; i < h->n; i++)
        if (!tune_seen_has(g->spent, &h->items[i].config))
            r[n++] = (Ranked){h->items[i].ok ? h->items[i].ms : INFINITY, i};
    qsort(r, (size_t)n, sizeof *r, ranked_cmp);
    return n;
}

/* The fresh configurations one free parameter away from c, into out[*got..n). Returns 1 when
 * none is left (c is spent), 0 when out filled up first. */
static int one_param_away(Gest *g, const TuneHistory *h, TuneSeen *batch, const Config *c,
                          Config *out, int n, int *got)
{
    const Space *s = g->pb->space;
    for (int p = 0; p < P_COUNT; p++) {
        if (!tune_param_free(s, p))
            continue;
        for (int v = 0; v < s->params[p].nvalues; v++) {
            Config next = *c;
            next.v[p] = s->params[p].values[v];
            if (!tune_fresh(g->pb, h, batch, &next))
                continue;
            if (*got == n)
                return 0;
            out[(*got)++] = next;
            tune_seen_add(batch, &next);
        }
    }
    return 1;
}

/* The last resort, once the random draws and wander's random steps find nothing: every fresh
 * configuration one parameter away from a measured one, the fastest measured first. wander
 * picks its start among all the measured configurations and its parameters at random, so
 * where the few with fresh neighbours sit in a narrow region (a dense corner of the space) its
 * attempts run out and the search stopped with budget left (docs/gest.md, "Exhausted"). A
 * measured configuration whose neighbours are all seen is remembered (g->spent), so a long
 * search looks at each one's neighbours about once. */
static int near_measured(Gest *g, const TuneHistory *h, TuneSeen *batch, Config *out, int n)
{
    if (!g->spent)
        g->spent = tune_seen_new();
    Ranked *r;
    int nr = rank_unspent(g, h, &r), got = 0;
    for (int i = 0; i < nr && got < n; i++) {
        const Config *c = &h->items[r[i].i].config;
        if (one_param_away(g, h, batch, c, out, n, &got))
            tune_seen_add(g->spent, c);
    }
    free(r);
    return got;
}

/* The starting configurations that h lacks, in order, at most n: listed once (priors.c,
 * tune_starting_configs), each checked against h when it goes out (h grows between calls). */
static int take_priors(Gest *g, const TuneHistory *h, TuneSeen *batch, Config *out, int n)
{
    int got = 0;
    if (g->priors_done)
        return 0;
    if (!g->priors_listed) {
        g->npriors = tune_starting_configs(g->pb, g->k.first, g->k.nfirst, g->k.guide, g->k.priors, g->priors);
        g->priors_listed = 1;
    }
    for (; g->priors_taken < g->npriors && got < n; g->priors_taken++) {
        const Config *c = &g->priors[g->priors_taken];
        if (tune_fresh(g->pb, h, batch, c)) {
            out[got++] = *c;
            tune_seen_add(batch, c);
        }
    }
    g->priors_done = g->priors_taken == g->npriors;
    return got;
}

/* out[0..got) go out drawn by no group (random or prior), part of the dataset's count. */
static int hand_out(Gest *g, const Config *out, int got)
{
    for (int i = 0; i < got; i++)
        pending_add(g, &out[i], -1);
    g->proposed += got;
    return got;
}

static int propose_random(Gest *g, const TuneHistory *h, Config *out, int n)
{
    TuneSeen *batch = tune_seen_new();
    int got = take_priors(g, h, batch, out, n); /* the dataset opens with the priors */
    while (got < n && tune_sample(g->pb, h, batch, &g->rng, NULL, NULL, 0, 256, &out[got])) {
        tune_seen_add(batch, &out[got]);
        got++;
    }
    while (got < n && wander(g, h, batch, &out[got])) {
        tune_seen_add(batch, &out[got]);
        got++;
    }
    if (got < n)
        got += near_measured(g, h, batch, out + got, n - got);
    tune_seen_free(batch);
    return hand_out(g, out, got);
}

static void form_groups(Gest *g)
{
    g->ng = gest_group(g->pb->space, g->data, g->ndata, g->k.groups, g->k.grouping_front,
                       g->k.grouping_balanced,
                       g->groups);
    double sum = 0;
    for (int i = 0; i < g->ng; i++) {
        double size = 1;
        for (int j = 0; j < g->groups[i].n; j++)
            size *= g->pb->space->params[g->groups[i].params[j]].nvalues;
        g->sr[i] = g->k.ratio_by_size ? size : 1;
        sum += g->sr[i];
    }
    double lr = g->k.lr * g->ng > 1 ? 1.0 / g->ng : g->k.lr;
    for (int i = 0; i < g->ng; i++) /* the floor holds from the start */
        g->sr[i] = g->sr[i] / sum < lr ? lr : g->sr[i] / sum;
    sum = 0;
    for (int i = 0; i < g->ng; i++)
        sum += g->sr[i];
    for (int i = 0; i < g->ng; i++) {
        g->sr[i] /= sum;
        g->credit[i] = 0;
    }
    g->grouped = 1;
}

/* Knob `fill`: the room a round leaves in the evaluator's batch takes more samples around the
 * best, one per group in turn from the highest ratio down, credited to the group that drew
 * them; where every group has run out, random draws. The GPU pipeline compiles a batch in
 * parallel, so a full batch costs little more time than a narrow one (docs/gest.md, "Narrow
 * rounds"). */
static int fill_batch(Gest *g, const TuneHistory *h, TuneSeen *batch, Config *out, int room)
{
    int order[GEST_MAX_GROUPS], live[GEST_MAX_GROUPS], got = 0;
    for (int i = 0; i < g->ng; i++) {
        order[i] = i;
        live[i] = 1;
    }
    for (int i = 1; i < g->ng; i++) /* by ratio, highest first (insertion sort: at most 5) */
        for (int j = i; j > 0 && g->sr[order[j]] > g->sr[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int any = 1; got < room && any;) {
        any = 0;
        for (int i = 0; i < g->ng && got < room; i++) {
            int gi = order[i];
            if (!live[gi])
                continue;
            if (!tune_sample(g->pb, h, batch, &g->rng, &g->best, g->groups[gi].params, g->groups[gi].n,
                             GEST_ATTEMPTS, &out[got])) {
                live[gi] = 0;
                continue;
            }
            tune_seen_add(batch, &out[got]);
            pending_add(g, &out[got], gi);
            g->round_requested++;
            got++;
            any = 1;
        }
    }
    while (got < room && tune_sample(g->pb, h, batch, &g->rng, NULL, NULL, 0, 256, &out[got])) {
        tune_seen_add(batch, &out[got]);
        pending_add(g, &out[got], -1);
        got++;
    }
    return got;
}

static int gest_propose(TuneStrategy *st, const TuneHistory *h, Config *out, int max)
{
    Gest *g = (Gest *)st;
    if (max <= 0)
        return 0;
    if (g->proposed < g->k.dataset) {
        int n = g->k.dataset - g->proposed;
        return propose_random(g, h, out, n < max ? n : max);
    }
    if (!g->priors_done) {
        /* Resumed from a journal past its dataset: the first ones and the priors it lacks go
         * first. A search that stopped before priors were added (a newer stencilc; priors are
         * not part of the generator digest) would otherwise never measure them
         * (docs/autotune.md, "Resume"). So do those a dataset smaller than them left. */
        TuneSeen *batch = tune_seen_new();
        int got = hand_out(g, out, take_priors(g, h, batch, out, max));
        tune_seen_free(batch);
        if (got > 0)
            return got;
    }
    if (!g->have_best) /* nothing ran yet: keep sampling at random */
        return propose_random(g, h, out, g->k.quota < max ? g->k.quota : max);
    if (!g->grouped)
        form_groups(g);
    if (g->ng == 0)
        return propose_random(g, h, out, max);
    /* One batch holds what is left of the round's quota, group after group; the next round
     * starts only at the next call, once this round's results were observed (the ratios are
     * updated from them). */
    int total = 0, empty_rounds = 0;
    TuneSeen *batch = tune_seen_new();
    while (total < max) {
        if (!g->in_round) {
            if (total > 0 || empty_rounds > 1)
                break;
            gest_split_quota(g->sr, g->credit, g->ng, g->k.quota, g->count);
            memset(g->up, 0, sizeof g->up);
            g->in_round = 1;
            g->cur = 0;
            g->round_requested = 0;
        }
        while (g->cur < g->ng && g->count[g->cur] == 0)
            g->cur++;
        if (g->cur == g->ng) {
            if (total > 0)
                break; /* the round ends when its results are in */
            g->in_round = 0;
            if (g->round_requested > 0)
                gest_update_ratios(g->sr, g->up, g->ng, g->k.ar, g->k.lr);
            else
                empty_rounds++;
            continue;
        }
        int gi = g->cur, want = g->count[gi] < max - total ? g->count[gi] : max - total, got = 0;
        while (got < want && tune_sample(g->pb, h, batch, &g->rng, &g->best,
                                         g->groups[gi].params, g->groups[gi].n, GEST_ATTEMPTS,
                                         &out[total + got])) {
            tune_seen_add(batch, &out[total + got]);
            pending_add(g, &out[total + got], gi);
            got++;
        }
        g->count[gi] = got < want ? 0 : g->count[gi] - got; /* short: exhausted around the best */
        g->round_requested += got;
        total += got;
    }
    if (g->k.fill && total > 0 && total < max && g->in_round && g->cur == g->ng)
        total += fill_batch(g, h, batch, out + total, max - total);
    tune_seen_free(batch);
    if (total > 0) {
        g->proposed += total;
        return total;
    }
    /* Every group is exhausted around the best: wander off at random. */
    return propose_random(g, h, out, g->k.quota < max && !g->k.fill ? g->k.quota : max);
}

static void gest_destroy(TuneStrategy *st)
{
    Gest *g = (Gest *)st;
    free(g->data);
    free(g->pend);
    free(g->pend_group);
    tune_seen_free(g->spent);
    free(g);
}

TuneStrategy *tune_gest_new(const TuneProblem *pb, const TuneKnobs *k)
{
    Gest *g = calloc(1, sizeof *g);
    g->base = (TuneStrategy){"gest", gest_propose, gest_observe, gest_destroy};
    g->pb = pb;
    g->k = *k;
    if (g->k.dataset < 1)
        g->k.dataset = 1;
    if (g->k.quota < 1)
        g->k.quota = 1;
    if (g->k.groups < 1)
        g->k.groups = 1;
    g->k.nfirst = tune_knobs_nfirst(k);
    tune_rng_seed(&g->rng, k->seed);
    g->priors_done = k->priors <= 0 && g->k.nfirst == 0;
    return &g->base;
}
