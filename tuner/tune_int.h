/* Internals shared by the tuner's files: random numbers (util/rng.h), the configuration hash
 * set, sampling valid unseen configurations, and the strategy constructors. */
#ifndef STC_TUNE_INT_H
#define STC_TUNE_INT_H
#include "tune.h"
#include "../util/rng.h"

/* The tuner's names for the one generator (util/rng.c), which the space's draws share. */
typedef Rng TuneRng;
static inline void tune_rng_seed(TuneRng *r, unsigned long long seed) { rng_seed(r, seed); }
static inline unsigned long long tune_rng_next(TuneRng *r) { return rng_next(r); }
static inline int tune_rng_below(TuneRng *r, int n) { return rng_below(r, n); } /* [0, n) */
static inline double tune_rng_unit(TuneRng *r) { return rng_unit(r); }          /* [0, 1) */

/* Whether s may fuse steps (tblock above 1): a multi-step run's space. */
static inline int tune_space_fuses(const Space *s) { return s->params[P_TB].nvalues > 1; }

/* How many of k->first hold configurations (0..TUNE_MAX_FIRST, whatever k->nfirst says). */
static inline int tune_knobs_nfirst(const TuneKnobs *k)
{
    return k->nfirst < 0 ? 0 : k->nfirst > TUNE_MAX_FIRST ? TUNE_MAX_FIRST : k->nfirst;
}

unsigned long long tune_config_hash(const Config *c);
int tune_config_equal(const Config *a, const Config *b);

/* A growable open-addressing set of configurations. */
struct TuneSeen {
    Config *slots;
    unsigned char *used;
    long cap, n;
};
TuneSeen *tune_seen_new(void);
void tune_seen_free(TuneSeen *s);
int tune_seen_has(const TuneSeen *s, const Config *c);
int tune_seen_add(TuneSeen *s, const Config *c); /* 1 if added, 0 if it was there */

/* Index of v among p's values, -1 if absent. */
int tune_value_index(const SpaceParam *p, int v);
int tune_param_free(const Space *s, int p);
/* Whether every value of c is one its parameter takes in s: a space's validity function need
 * not check it (a test's synthetic space, a recording's), and GeST's statistics index values. */
int tune_in_space(const Space *s, const Config *c);
/* A config holding every parameter's smallest value. */
void tune_config_min(const Space *s, Config *c);

/* Whether c may be proposed: valid, not in h, not in extra (may be NULL). */
int tune_fresh(const TuneProblem *pb, const TuneHistory *h, const TuneSeen *extra,
               const Config *c);

/* Draws c from base by re-drawing the listed parameters (all free ones when params is NULL)
 * uniformly; when the draw is invalid or seen, resets drawn parameters one at a time to their
 * smallest value (the padded form), which is how most constraints are met. Tries up to
 * attempts draws. Returns 1 with a fresh config, 0 when none was found. */
int tune_sample(const TuneProblem *pb, const TuneHistory *h, const TuneSeen *extra,
                TuneRng *rng, const Config *base, const int *params, int nparams,
                int attempts, Config *out);

/* Product of the parameters' value counts (a double: it can be huge). */
double tune_space_points(const Space *s);
/* Enumerates every valid configuration into *out (malloc'd), up to max. Returns the count, or
 * -1 when there are more than max valid points (or the space is too large to walk). */
long tune_enumerate_valid(const TuneProblem *pb, long max, Config **out);

/* Up to max prior configurations valid for pb (tuner/priors.c), most promising first. */
int tune_priors(const TuneProblem *pb, Config *out, int max);
/* Of those, the rows that fuse steps (tblock > 1) and were written for the program's radius (a
 * halo limit): what multi-step runs of such programs measured fastest (docs/priors.md), in the
 * table's order; up to max. */
int tune_priors_fused(const TuneProblem *pb, Config *out, int max);
/* What a search opens with, in order and each once (at most TUNE_STARTS_MAX): the first
 * configurations (TuneKnobs.first) that pb accepts, then with a guide holding a model its
 * ranking for the GPU at hand, then the priors table's rows; at most want (<= 8) of the model's
 * and of the table's; then, where the space may fuse steps, up to TUNE_SPREAD_MAX more: other
 * depths' first rows and the first one-step row (priors.c, add_spread), the other shape's first
 * fused row (add_crossed), and where the space offers hwrap=on the first fused start and the
 * crossed one with it (add_wrapped). GeST's dataset opens with them (gest.c); with --guide the
 * model never ranks them out (guide.c). */
#define TUNE_SPREAD_MAX 3
#define TUNE_CROSSED_MAX 3 /* add_crossed's row, and add_wrapped's two */
#define TUNE_STARTS_MAX (TUNE_MAX_FIRST + 16 + TUNE_SPREAD_MAX + TUNE_CROSSED_MAX)
int tune_starting_configs(const TuneProblem *pb, const Config *first, int nfirst, const TuneGuide *guide,
                          int want, Config *out);
/* Every row of the priors table of dimension dims, whatever program or run it is for (candidates
 * that the learned model ranks, tuner/guide.c). */
int tune_prior_rows(int dims, Config *out, int max);

TuneStrategy *tune_gest_new(const TuneProblem *pb, const TuneKnobs *k);
TuneStrategy *tune_random_new(const TuneProblem *pb, const TuneKnobs *k);
TuneStrategy *tune_genetic_new(const TuneProblem *pb, const TuneKnobs *k);
TuneStrategy *tune_exhaustive_new(const TuneProblem *pb, const TuneKnobs *k, char *err,
                                  int errlen);

/* The tuning database's files (tunedb.c). */
int tune_ms_valid(double ms); /* a measured time: positive and finite */
int tunedb_mkdir(const char *dir, char *err, int errlen);
void tunedb_path(const char *dir, const TuneDbKey *k, const char *ext, char *buf, int len);
/* The database's lock (DIR/lock; creates dir), held around every write. */
int tunedb_lock(const char *dir, TuneLock *l, char *err, int errlen);
/* open() of a regular file of at most max_bytes (0: any size) that never blocks on a FIFO or
 * a device: the descriptor; -2 when it does not exist; -1 otherwise ("PATH: why" in err). */
int tune_open_regular(const char *path, long max_bytes, int flags, char *err, int errlen);

/* JSON string helpers (tune_log.c). */
void tune_json_string(FILE *f, const char *s);

#endif
