/* Strategies by name, and the default knobs (the GeST paper's settings). */
#include <stdio.h>
#include <string.h>

#include "tune_int.h"

const char *const tune_strategy_names[] = {"gest", "random", "genetic", "exhaustive", NULL};

void tune_knobs_default(TuneKnobs *k)
{
    memset(k, 0, sizeof *k);
    k->seed = 1;
    k->dataset = 16;
    k->groups = 5;
    k->ar = 0.1;
    k->lr = 0.1;
    k->quota = 8;
    k->ga_subpops = 2;
    k->ga_pop = 16;
    k->ga_cross = 0.8;
    k->ga_mut = 0.005;
    k->ga_tournament = 3;
    k->ga_elite = 1;
    k->ga_migrate = 5;
    k->exhaustive_max = 200000;
}

TuneStrategy *tune_strategy_new(const char *name, const TuneProblem *pb, const TuneKnobs *k,
                                char *err, int errlen)
{
    TuneKnobs def;
    if (!k) {
        tune_knobs_default(&def);
        k = &def;
    }
    if (!name || !strcmp(name, "gest"))
        return tune_gest_new(pb, k);
    if (!strcmp(name, "random"))
        return tune_random_new(pb, k);
    if (!strcmp(name, "genetic"))
        return tune_genetic_new(pb, k);
    if (!strcmp(name, "exhaustive"))
        return tune_exhaustive_new(pb, k, err, errlen);
    snprintf(err, (size_t)errlen, "unknown strategy '%s' (gest, random, genetic, exhaustive)",
             name);
    return NULL;
}

void tune_strategy_free(TuneStrategy *s)
{
    if (s)
        s->destroy(s);
}
