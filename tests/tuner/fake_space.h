/* A synthetic tuning space for the tuner's tests: a handful of parameters of a 3D stencil with
 * GeST-like constraints (inactive means 1), and a cost function over their log2 values with
 * interactions, so the optimum is known and local search has something to find. */
#ifndef STC_TEST_FAKE_SPACE_H
#define STC_TEST_FAKE_SPACE_H
#include "../util/check.h"
#include "tune.h"

/* Fills s: tb 8..256 x 1..16 x 1..8, smem, stream (+sd, sb), ufx, cmx, bmy, retime. */
void fake_space(Space *s);
/* A space too large for exhaustive search (every parameter free, wide ranges). */
void fake_space_large(Space *s);
/* Constraints: 32 <= threads <= 1024; without streaming sd = sb = retime = 1; with it sb >= 4
 * and ufx <= sb; cmx * bmy <= 8. */
int fake_valid(void *ctx, const Config *c, char *why, int whylen);
/* The synthetic time in ms; some configurations "fail to compile" (return 1). */
int fake_eval(void *ctx, const Config *c, double *ms, char *why, int whylen);
double fake_cost(const Config *c);

/* An evaluator that checks what the strategies promise: every proposal valid and new. */
typedef struct {
    TuneSeen *seen;
    long calls, invalid, repeated;
} FakeWatch;
int fake_watch_eval(void *ctx, const Config *c, double *ms, char *why, int whylen);

#endif
