/* What the tuner knows of a variant before it runs it (issue 35): the limits of the GPU it is for,
 * which prune what they make hopeless (occupancy.h), and the learned model (model.h), which ranks
 * what a strategy proposes and gives the starting configurations.
 *
 * A guide reaches the tuner through TuneKnobs.guide: tune_strategy_new wraps the strategy (its
 * proposals pass the limits, then, with a model, only the best-ranked of each batch are
 * measured), and GeST's dataset opens with the model's candidates instead of the priors table.
 * Pruned and ranked-out variants are never compiled or timed; they are counted, written to the
 * tune log with status "pruned" and their reason, and handed to the strategy as failed, so it
 * does not propose them again. Prefix: tune_guide_. GPU-free; the model needs the program
 * (Space.prog), so a replay's space (no program) is pruned and ranked by nothing. */
#ifndef STC_GUIDE_H
#define STC_GUIDE_H
#include <stdio.h>

#include "model.h"
#include "occupancy.h"
#include "tune.h"

typedef struct {
    long seen;       /* configurations the strategy proposed */
    long pruned;     /* hopeless on the GPU by its limits */
    long ranked_out; /* ranked by the model below what a batch measures */
} TuneGuideStats;

/* model may be NULL (pruning only), gpu may be NULL (ranking only; the model then scores
 * occupancy on sm_90). rank_factor: the strategy proposes this many times the batch, the model
 * keeps the best-ranked batch (1: no ranking). Both must outlive the guide. */
TuneGuide *tune_guide_new(const Model *model, const OccGpu *gpu, int rank_factor);
void tune_guide_free(TuneGuide *g);
/* The tune log (--tune-log) for the "pruned" lines; NULL: none. */
void tune_guide_set_log(TuneGuide *g, FILE *log);
void tune_guide_stats(const TuneGuide *g, TuneGuideStats *st);
const Model *tune_guide_model(const TuneGuide *g);
const OccGpu *tune_guide_gpu(const TuneGuide *g);

/* Whether the GPU's limits make c hopeless on s's program and grid (occ_hopeless on its plan,
 * before compiling: registers unknown). 1 with why. 0 without a GPU or a program. */
int tune_guide_hopeless(const TuneGuide *g, const Space *s, const Config *c, char *why, int whylen);
/* The model's score of c (lower is faster): +inf where its plan does not build, 0 without a
 * model or a program. */
double tune_guide_score(const TuneGuide *g, const Space *s, const Config *c);

/* What the ranking of the menu adds to the score of a candidate it has no reason to trust, so
 * that it comes after every other: a family measured on this kind of program and never near its
 * best (model_supports), or tiles that leave more than a fifth of the points they cover outside
 * the grid (feature l_fill below GUIDE_MIN_FILL; docs/model.md, "Support"). */
#define GUIDE_UNSUPPORTED 1000.0
#define GUIDE_MIN_FILL 0.8

/* The score of c in the ranking of the menu (tune_guide_rank): tune_guide_score, plus
 * GUIDE_UNSUPPORTED where c is not to be trusted (above). */
double tune_guide_menu_score(const TuneGuide *g, const Space *s, const Config *c);
/* Whether the model measured c's kernel family on programs of c's kind (model_measured). */
int tune_guide_measured(const TuneGuide *g, const Space *s, const Config *c);

/* st wrapped (see the top); st without a guide. The wrapper owns st. k (may be NULL): its first
 * configurations are, with the model's and the table's, starts that ranking never drops. */
TuneStrategy *tune_guide_wrap(TuneGuide *g, const TuneProblem *pb, const TuneKnobs *k, TuneStrategy *st);

typedef struct {
    Config config;
    double score;
    int from_table; /* placed by fused_first (below), not by its score */
} TuneGuideCandidate;

typedef struct {
    int draws;          /* random valid configurations among the candidates; default 0 */
    int climb_from;     /* the best candidates a local search starts from; default 0 */
    int climb_rounds;   /* its steps (one parameter each); default 0 */
    unsigned long long seed; /* of the draws; default 1 */
    /* In a run of several steps where the model measured no fused-step kernel for this kind of
     * program (its recordings are one-step tunings), the table's fused rows for the program's
     * radius (tune_priors_fused) first, in the table's order: the model cannot weigh fusing
     * steps against one step, the table's rows are what multi-step runs measured fastest.
     * Default 0 (GeST's starts take the table's rows beside the model's anyway); --target 1. */
    int fused_first;
} TuneGuideRankOptions;

void tune_guide_rank_defaults(TuneGuideRankOptions *o);

/* The model's ranking of candidates for pb, best first: the priors table's rows of the program's
 * dimension (all of them, whatever they were written for), the model's exemplars and the plain
 * kernel (the menu), then, where o asks, random valid configurations and a local search from the
 * best few, one parameter a step, under the model (off by default: far from what it learned from,
 * the model's scores are guesses). Only valid configurations that the limits do not make
 * hopeless. o NULL: the defaults. Returns how many (<= max); 0 without a model or a program. */
int tune_guide_rank(const TuneGuide *g, const TuneProblem *pb, const TuneGuideRankOptions *o,
                    TuneGuideCandidate *out, int max);
/* GeST's starting configurations from the model: tune_guide_rank's first max. */
int tune_guide_priors(const TuneGuide *g, const TuneProblem *pb, Config *out, int max);

#endif
