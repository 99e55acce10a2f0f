/* The one random number generator of stencilc: xoshiro256** seeded by splitmix64, shared by
 * the tuning space's draws (codegen/space.c) and the tuner's strategies, so that a seed means
 * the same sequence everywhere and a recorded run replays to the same numbers. */
#ifndef STC_RNG_H
#define STC_RNG_H

typedef struct {
    unsigned long long s[4];
} Rng;

void rng_seed(Rng *r, unsigned long long seed);
unsigned long long rng_next(Rng *r);
int rng_below(Rng *r, int n); /* uniform in [0, n); 0 when n <= 1 */
double rng_unit(Rng *r);      /* uniform in [0, 1) */

#endif
