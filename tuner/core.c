/* The tuner's small shared machinery: hashing and the set of configurations, the history of
 * measurements, drawing valid unseen configurations, enumeration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_int.h"

unsigned long long tune_config_hash(const Config *c)
{
    unsigned long long h = 1469598103934665603ULL; /* FNV-1a over the values */
    for (int i = 0; i < P_COUNT; i++) {
        h ^= (unsigned long long)(unsigned)c->v[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

int tune_config_equal(const Config *a, const Config *b)
{
    return memcmp(a->v, b->v, sizeof a->v) == 0;
}

/* ---- the set ---- */

TuneSeen *tune_seen_new(void)
{
    TuneSeen *s = calloc(1, sizeof *s);
    s->cap = 64;
    s->slots = calloc((size_t)s->cap, sizeof *s->slots);
    s->used = calloc((size_t)s->cap, 1);
    return s;
}

void tune_seen_free(TuneSeen *s)
{
    if (!s)
        return;
    free(s->slots);
    free(s->used);
    free(s);
}

static long seen_slot(const TuneSeen *s, const Config *c)
{
    long i = (long)(tune_config_hash(c) & (unsigned long long)(s->cap - 1));
    while (s->used[i] && !tune_config_equal(&s->slots[i], c))
        i = (i + 1) & (s->cap - 1);
    return i;
}

int tune_seen_has(const TuneSeen *s, const Config *c)
{
    return s && s->used[seen_slot(s, c)];
}

int tune_seen_add(TuneSeen *s, const Config *c)
{
    if ((s->n + 1) * 2 > s->cap) {
        TuneSeen old = *s;
        s->cap *= 2;
        s->slots = calloc((size_t)s->cap, sizeof *s->slots);
        s->used = calloc((size_t)s->cap, 1);
        s->n = 0;
        for (long i = 0; i < old.cap; i++)
            if (old.used[i])
                tune_seen_add(s, &old.slots[i]);
        free(old.slots);
        free(old.used);
    }
    long i = seen_slot(s, c);
    if (s->used[i])
        return 0;
    s->used[i] = 1;
    s->slots[i] = *c;
    s->n++;
    return 1;
}

/* ---- history ---- */

void tune_history_init(TuneHistory *h)
{
    memset(h, 0, sizeof *h);
    h->best = -1;
    h->seen = tune_seen_new();
}

void tune_history_free(TuneHistory *h)
{
    free(h->items);
    tune_seen_free(h->seen);
    memset(h, 0, sizeof *h);
    h->best = -1;
}

int tune_history_add(TuneHistory *h, const Config *c, int ok, double ms, const char *why,
                     double elapsed_s)
{
    if (!tune_seen_add(h->seen, c))
        return -1;
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->items = realloc(h->items, (size_t)h->cap * sizeof *h->items);
    }
    TuneSample *r = &h->items[h->n];
    memset(r, 0, sizeof *r);
    r->config = *c;
    r->ok = ok && isfinite(ms) && ms >= 0;
    r->ms = r->ok ? ms : -1;
    r->elapsed_s = elapsed_s;
    if (!r->ok)
        snprintf(r->why, sizeof r->why, "%s", why && *why ? why : "failed");
    if (r->ok) {
        h->nok++;
        if (h->best < 0 || ms < h->items[h->best].ms)
            h->best = h->n;
    }
    return h->n++;
}

int tune_history_seen(const TuneHistory *h, const Config *c)
{
    return tune_seen_has(h->seen, c);
}

/* ---- the space ---- */

int tune_value_index(const SpaceParam *p, int v)
{
    for (int i = 0; i < p->nvalues; i++)
        if (p->values[i] == v)
            return i;
    return -1;
}

int tune_param_free(const Space *s, int p)
{
    return s->params[p].nvalues > 1;
}

int tune_in_space(const Space *s, const Config *c)
{
    for (int p = 0; p < P_COUNT; p++)
        if (tune_value_index(&s->params[p], c->v[p]) < 0)
            return 0;
    return 1;
}

int tune_problem_accepts(const TuneProblem *pb, const Config *c)
{
    char why[256];
    return tune_in_space(pb->space, c) && pb->valid(pb->valid_ctx, c, why, sizeof why);
}

void tune_config_min(const Space *s, Config *c)
{
    for (int p = 0; p < P_COUNT; p++)
        c->v[p] = s->params[p].nvalues > 0 ? s->params[p].values[0] : 1;
}

int tune_fresh(const TuneProblem *pb, const TuneHistory *h, const TuneSeen *extra,
               const Config *c)
{
    char why[160];
    if (h && tune_history_seen(h, c))
        return 0;
    if (extra && tune_seen_has(extra, c))
        return 0;
    return pb->valid(pb->valid_ctx, c, why, sizeof why) != 0;
}

int tune_sample(const TuneProblem *pb, const TuneHistory *h, const TuneSeen *extra,
                TuneRng *rng, const Config *base, const int *params, int nparams,
                int attempts, Config *out)
{
    const Space *s = pb->space;
    int all[P_COUNT];
    if (!params) {
        nparams = 0;
        for (int p = 0; p < P_COUNT; p++)
            if (tune_param_free(s, p))
                all[nparams++] = p;
        params = all;
    }
    Config start;
    if (base)
        start = *base;
    else
        tune_config_min(s, &start);
    if (nparams == 0)
        return 0;
    for (int a = 0; a < attempts; a++) {
        Config c = start;
        for (int i = 0; i < nparams; i++) {
            const SpaceParam *sp = &s->params[params[i]];
            c.v[params[i]] = sp->values[tune_rng_below(rng, sp->nvalues)];
        }
        if (tune_fresh(pb, h, extra, &c)) {
            *out = c;
            return 1;
        }
        /* Repair toward the padded form: most constraints say "inactive means 1". */
        int order[P_COUNT];
        for (int i = 0; i < nparams; i++)
            order[i] = params[i];
        for (int i = nparams - 1; i > 0; i--) {
            int j = tune_rng_below(rng, i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < nparams; i++) {
            int p = order[i];
            if (c.v[p] == s->params[p].values[0])
                continue;
            c.v[p] = s->params[p].values[0];
            if (tune_fresh(pb, h, extra, &c)) {
                *out = c;
                return 1;
            }
        }
    }
    return 0;
}

double tune_space_points(const Space *s)
{
    double n = 1;
    for (int p = 0; p < P_COUNT; p++)
        n *= s->params[p].nvalues > 0 ? s->params[p].nvalues : 1;
    return n;
}

/* Walking more than this many points to count the valid ones takes too long to be useful. */
#define ENUM_WALK_MAX 50000000.0

long tune_enumerate_valid(const TuneProblem *pb, long max, Config **out)
{
    const Space *s = pb->space;
    *out = NULL;
    if (tune_space_points(s) > ENUM_WALK_MAX)
        return -1;
    int idx[P_COUNT] = {0};
    long n = 0, cap = 0;
    Config *list = NULL;
    char why[160];
    for (;;) {
        Config c;
        for (int p = 0; p < P_COUNT; p++)
            c.v[p] = s->params[p].nvalues > 0 ? s->params[p].values[idx[p]] : 1;
        if (pb->valid(pb->valid_ctx, &c, why, sizeof why)) {
            if (n == max) {
                free(list);
                return -1;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                list = realloc(list, (size_t)cap * sizeof *list);
            }
            list[n++] = c;
        }
        int p = P_COUNT - 1; /* odometer: the last parameter turns fastest */
        while (p >= 0 && ++idx[p] >= (s->params[p].nvalues > 0 ? s->params[p].nvalues : 1))
            idx[p--] = 0;
        if (p < 0)
            break;
    }
    *out = list;
    return n;
}
