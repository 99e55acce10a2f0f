/* Random search without replacement: each proposal is drawn afresh; once drawing stops finding
 * unseen points, the remaining valid points are enumerated and served in a shuffled order. */
#include <stdlib.h>

#include "tune_int.h"

/* Beyond this many valid points the rest is not enumerated: the search just stops. */
#define RANDOM_ENUM_MAX 2000000L

typedef struct {
    TuneStrategy base;
    const TuneProblem *pb;
    TuneRng rng;
    Config *rest; /* enumerated valid points, shuffled; NULL until drawing runs dry */
    long nrest, next;
    int enumerated;
} Random;

static int random_propose(TuneStrategy *st, const TuneHistory *h, Config *out, int max)
{
    Random *r = (Random *)st;
    TuneSeen *batch = tune_seen_new();
    int got = 0;
    while (got < max && !r->enumerated &&
           tune_sample(r->pb, h, batch, &r->rng, NULL, NULL, 0, 512, &out[got]))
        tune_seen_add(batch, &out[got++]);
    if (got < max && !r->enumerated) {
        r->enumerated = 1;
        r->nrest = tune_enumerate_valid(r->pb, RANDOM_ENUM_MAX, &r->rest);
        if (r->nrest < 0)
            r->nrest = 0;
        for (long i = r->nrest - 1; i > 0; i--) {
            long j = (long)(tune_rng_next(&r->rng) % (unsigned long long)(i + 1));
            Config t = r->rest[i];
            r->rest[i] = r->rest[j];
            r->rest[j] = t;
        }
    }
    while (got < max && r->next < r->nrest) {
        const Config *c = &r->rest[r->next++];
        if (!tune_history_seen(h, c) && !tune_seen_has(batch, c)) {
            out[got] = *c;
            tune_seen_add(batch, &out[got++]);
        }
    }
    tune_seen_free(batch);
    return got;
}

static void random_observe(TuneStrategy *st, const TuneSample *s)
{
}

static void random_destroy(TuneStrategy *st)
{
    Random *r = (Random *)st;
    free(r->rest);
    free(r);
}

TuneStrategy *tune_random_new(const TuneProblem *pb, const TuneKnobs *k)
{
    Random *r = calloc(1, sizeof *r);
    r->base = (TuneStrategy){"random", random_propose, random_observe, random_destroy};
    r->pb = pb;
    tune_rng_seed(&r->rng, k->seed);
    return &r->base;
}
