/* Strategies by name, and the default knobs (the GeST paper's settings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gest.h"
#include "guide.h"
#include "tune_int.h"

#define GEST_KNOB_MAX_GROUPS GEST_MAX_GROUPS

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
    k->priors = 4;
    k->ga_subpops = 2;
    k->ga_pop = 16;
    k->ga_cross = 0.8;
    k->ga_mut = 0.005;
    k->ga_tournament = 3;
    k->ga_elite = 1;
    k->ga_migrate = 5;
    k->exhaustive_max = 200000;
}

int tune_knobs_parse(TuneKnobs *k, const char *text, char *err, int errlen)
{
    static const struct {
        const char *key;
        double lo, hi;
        int integer;
    } keys[] = {{"dataset", 1, 10000, 1}, {"groups", 1, GEST_KNOB_MAX_GROUPS, 1}, {"ar", 0, 1, 0},
                {"lr", 0, 1, 0},         {"quota", 1, 10000, 1},                {"priors", 0, 16, 1},
                {"front", 0, 1, 1},      {"by_size", 0, 1, 1},                  {"fill", 0, 1, 1},
                {"balance", 0, 1, 1}};
    const char *p = text ? text : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, (size_t)errlen, "GeST knobs: expected key=value items, got '%.*s'", (int)len, p);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, (size_t)errlen, "GeST knob '%s': expected key=value", item);
            return -1;
        }
        *eq = '\0';
        int which = -1;
        for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++)
            if (!strcmp(item, keys[i].key))
                which = i;
        if (which < 0) {
            snprintf(err, (size_t)errlen, "unknown GeST knob '%s' (dataset, groups, ar, lr, quota, priors, "
                     "front, by_size, fill, balance)", item);
            return -1;
        }
        char *stop;
        double v = strtod(eq + 1, &stop);
        if (stop == eq + 1 || *stop || v < keys[which].lo || v > keys[which].hi
            || (keys[which].integer && v != (double)(long)v)) {
            snprintf(err, (size_t)errlen, "GeST knob '%s': '%s' is not %s from %g to %g", item, eq + 1,
                     keys[which].integer ? "a whole number" : "a number", keys[which].lo, keys[which].hi);
            return -1;
        }
        switch (which) {
        case 0: k->dataset = (int)v; break;
        case 1: k->groups = (int)v; break;
        case 2: k->ar = v; break;
        case 3: k->lr = v; break;
        case 4: k->quota = (int)v; break;
        case 5: k->priors = (int)v; break;
        case 6: k->grouping_front = (int)v; break;
        case 7: k->ratio_by_size = (int)v; break;
        case 8: k->fill = (int)v; break;
        default: k->grouping_balanced = (int)v; break;
        }
        p = end ? end + 1 : p + len;
    }
    return 0;
}

TuneStrategy *tune_strategy_new(const char *name, const TuneProblem *pb, const TuneKnobs *k,
                                char *err, int errlen)
{
    TuneKnobs def;
    if (!k) {
        tune_knobs_default(&def);
        k = &def;
    }
    TuneStrategy *st = NULL;
    if (!name || !strcmp(name, "gest"))
        st = tune_gest_new(pb, k);
    else if (!strcmp(name, "random"))
        st = tune_random_new(pb, k);
    else if (!strcmp(name, "genetic"))
        st = tune_genetic_new(pb, k);
    else if (!strcmp(name, "exhaustive"))
        st = tune_exhaustive_new(pb, k, err, errlen);
    else
        snprintf(err, (size_t)errlen, "unknown strategy '%s' (gest, random, genetic, exhaustive)",
                 name);
    /* the GPU's limits prune, the model ranks (guide.h) */
    return k->guide ? tune_guide_wrap(k->guide, pb, k, st) : st;
}

void tune_strategy_free(TuneStrategy *s)
{
    if (s)
        s->destroy(s);
}
