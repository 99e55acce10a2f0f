/* Exhaustive enumeration, for small spaces: every valid point once, in odometer order. */
#include <stdio.h>
#include <stdlib.h>

#include "tune_int.h"

typedef struct {
    TuneStrategy base;
    Config *all;
    long n, next;
} Exhaustive;

static int exhaustive_propose(TuneStrategy *st, const TuneHistory *h, Config *out, int max)
{
    Exhaustive *e = (Exhaustive *)st;
    int got = 0;
    while (got < max && e->next < e->n) {
        const Config *c = &e->all[e->next++];
        if (!tune_history_seen(h, c))
            out[got++] = *c;
    }
    return got;
}

static void exhaustive_observe(TuneStrategy *st, const TuneSample *s)
{
}

static void exhaustive_destroy(TuneStrategy *st)
{
    Exhaustive *e = (Exhaustive *)st;
    free(e->all);
    free(e);
}

TuneStrategy *tune_exhaustive_new(const TuneProblem *pb, const TuneKnobs *k, char *err,
                                  int errlen)
{
    Config *all;
    long n = tune_enumerate_valid(pb, k->exhaustive_max, &all);
    if (n < 0) {
        snprintf(err, (size_t)errlen,
                 "exhaustive search refuses this space: more than %ld valid configurations "
                 "(%.3g points before constraints); use --strategy gest or random",
                 k->exhaustive_max, tune_space_points(pb->space));
        return NULL;
    }
    Exhaustive *e = calloc(1, sizeof *e);
    e->base = (TuneStrategy){"exhaustive", exhaustive_propose, exhaustive_observe,
                             exhaustive_destroy};
    e->all = all;
    e->n = n;
    return &e->base;
}
