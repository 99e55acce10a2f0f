/* --autotune: which configuration to emit, measured on this GPU or taken from what was
 * measured before. One call, tune_choose, holds the whole policy (docs/autotune.md):
 *
 *   no GPU         say why; the newest usable tuning record of this program and grid made on
 *                  some GPU, else the configuration the request brings (--config or the
 *                  default), with a warning
 *   --replay F     the search against recorded measurements on a simulated clock, with the
 *                  database and the locks of a GPU run (policy_replay.c)
 *   GPU            a database record of the key is used at once. Otherwise: the GPU's lock,
 *                  the key's journal resumed, the search, the best few re-timed with care, the
 *                  winner compared with the plain kernel on the full grid, the result stored
 *                  (policy_gpu.c, search.c, finalists.c)
 *   --tune-record  a GPU run that also writes every measurement in the replay format, without
 *                  looking in the database first (replay_record.c)
 *
 * Ctrl-C during the search stops it after the batch in flight and the best so far is chosen;
 * that result is not stored, so the next run resumes from the journal. A second Ctrl-C ends
 * the process (stop.c).
 *
 * Prefix: tune_. */
#ifndef STC_POLICY_H
#define STC_POLICY_H
#include "../ir/ir.h"
#include "tune.h"

typedef struct {
    const IrProgram *prog;
    int part;               /* a distributed tuning: each variant is timed and verified as a
                             * rank's part runs it (plan_build_part) */
    const Space *space;     /* prog's on grid, with the run's step count */
    long grid[3];           /* the tuning grid */
    const char *input;      /* the source file: named to a run that waits for the GPU */
    Config config;          /* --config, else the default: emitted when nothing is tuned */
    int config_given;       /* config came from --config */
    const char *strategy;   /* NULL: gest (for a recording, exhaustive where it fits, else random) */
    TuneKnobs knobs;
    TuneBudget budget;      /* neither limit set: 60 s (for a recording, 2000 variants) */
    int quiet;              /* no progress line, nothing said about the choice */
    const char *log;        /* --tune-log FILE: one JSON line per variant; NULL: none */
    const char *db;         /* --tune-db DIR; NULL: tunedb_dir's default */
    const char *replay;     /* --replay FILE: tune against it; NULL: on the GPU */
    const char *record;     /* --tune-record FILE: record the measurements there; NULL: none */
    const char *generator;  /* what stencilc --version prints: part of the database's key */
    long procs[3];          /* a distributed tuning's process grid ({0}: not one) and its */
    long depth;             /* steps between exchanges (0: chosen after tuning; the grid is
                             * the part of depth 1): the grid is one rank's part */
    int guide;              /* --guide: the learned model ranks the search's proposals (guide.h) */
    const char *model;      /* --model FILE; NULL: model_default_path */
} TuneRequest;

typedef struct {
    Config config;
    char origin[512]; /* how it was chosen, for the emitted files' first line */
} TuneChoice;

/* Chooses the configuration to emit for rq: 0 with *out, or -1 when the run cannot go on (the
 * reason said on d). Everything it has to say goes to d. */
int tune_choose(const TuneRequest *rq, TuneChoice *out, Diag *d);

#endif
