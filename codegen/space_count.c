/* Counting and drawing configurations of a space: the size of the product of the value lists,
 * the number of valid points (exact, or estimated by sampling), and random draws. */
#include "space.h"

#include <math.h>


double space_total(const Space *s)
{
    double total = 1;
    for (int p = 0; p < P_COUNT; p++)
        total *= s->params[p].nvalues;
    return total;
}

/* Configuration number `index` of the product of the value lists (mixed radix). */
static Config space_point(const Space *s, double index)
{
    Config c;
    for (int p = 0; p < P_COUNT; p++) {
        int nv = s->params[p].nvalues;
        double q = floor(index / nv);
        int digit = (int)(index - q * nv);
        c.v[p] = s->params[p].values[digit];
        index = q;
    }
    return c;
}

double space_random(const Space *s, Rng *rng, Config *out)
{
    double prob = 1;
    for (int p = 0; p < P_COUNT; p++) {
        const SpaceParam *sp = &s->params[p];
        int has_one = sp->nvalues > 1 && sp->values[0] == 1;
        if (has_one && rng_below(rng, 2) == 0) {
            out->v[p] = 1;
            prob *= 0.5;
        } else if (has_one) {
            out->v[p] = sp->values[1 + rng_below(rng, sp->nvalues - 1)];
            prob *= 0.5 / (sp->nvalues - 1);
        } else {
            out->v[p] = sp->values[rng_below(rng, sp->nvalues)];
            prob /= sp->nvalues;
        }
    }
    return prob;
}

int space_random_valid(const Space *s, Rng *rng, int tries, Config *out)
{
    for (int t = 0; t < tries; t++) {
        space_random(s, rng, out);
        if (space_check(s, out, NULL, 0))
            return 1;
        /* Repair: parameters back to their first value (1, the padded form: inactive) one at a
         * time in a random order, which is how most constraints are met. */
        int order[P_COUNT];
        for (int p = 0; p < P_COUNT; p++)
            order[p] = p;
        for (int i = P_COUNT - 1; i > 0; i--) {
            int j = rng_below(rng, i + 1), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        for (int i = 0; i < P_COUNT; i++) {
            const SpaceParam *sp = &s->params[order[i]];
            if (sp->nvalues == 0 || out->v[order[i]] == sp->values[0])
                continue;
            out->v[order[i]] = sp->values[0];
            if (space_check(s, out, NULL, 0))
                return 1;
        }
    }
    return 0;
}

double space_valid_count(const Space *s, int *exact)
{
    double total = space_total(s);
    const double enumerate_limit = 2e6;
    if (total <= enumerate_limit) {
        double valid = 0;
        for (double i = 0; i < total; i++) {
            Config c = space_point(s, i);
            valid += space_check(s, &c, NULL, 0);
        }
        if (exact)
            *exact = 1;
        return valid;
    }
    /* Importance sampling: the mean of valid(c) / q(c) over draws from q (space_random) is
     * the number of valid points. A fixed seed, so two runs print the same estimate. */
    Rng rng;
    rng_seed(&rng, 0x9E3779B97F4A7C15ull);
    const int samples = 200000;
    double sum = 0;
    for (int i = 0; i < samples; i++) {
        Config c;
        double q = space_random(s, &rng, &c);
        if (space_check(s, &c, NULL, 0))
            sum += 1 / q;
    }
    if (exact)
        *exact = 0;
    return sum / samples;
}

